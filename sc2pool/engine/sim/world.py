"""The vectorised simulation: orders, target acquisition, movement and combat, one game loop at a time.

Model (documented simplifications of the real game):
- Movement is straight-line at ``movement_speed / 16`` per loop, clamped to the playable area
  (the engine's arenas are open rectangles).  Units do not collide.
- Weapons hit instantly (no projectile flight), once the target's edge is within range and the
  cooldown is ready; the cooldown is ``speed * 16`` loops with the fractional part carried over.
- Damage per attack is ``max(0.5, damage + bonus(target attributes) - armor)``; shields absorb
  damage first (shield armor 0), the overflow is reduced by armor.
- Idle, attack-moving and patrolling units acquire the nearest hostile within sight and chase
  it; units on hold position only acquire within weapon range and never move.  A chasing unit
  re-evaluates its target every loop until something is in range.
- Banelings explode on contact (or on ``EXPLODE``): area damage within the splash radius to every
  hostile ground unit, and they die.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from sc2pool.engine import data as D
from sc2pool.engine.maps import MapSpec
from sc2pool.engine.sim.units import (
    ATTACK_MOVE,
    ATTACK_UNIT,
    EXPLODE,
    FOLLOW,
    HOLD,
    IDLE,
    MOVE,
    NEUTRAL_OWNER,
    PATROL,
    TYPES,
    Order,
    UnitStore,
)

# ActionResult values (error_pb2.ActionResult).
SUCCESS, NOT_SUPPORTED, ERROR = 1, 2, 3
CANT_TARGET_THAT_UNIT = 36
TECH_REQUIREMENTS_NOT_MET = 79
MUST_TARGET_UNIT = 81
YOU_CANT_CONTROL_THAT_UNIT = 87

_AUTO_KINDS = np.array([IDLE, ATTACK_MOVE, HOLD, PATROL])
_POINT_KINDS = np.array([MOVE, ATTACK_MOVE, PATROL])
_INF = np.inf


@dataclass
class Deaths:
    """Units that died in one loop (all columns aligned)."""

    tags: np.ndarray
    unit_types: np.ndarray
    owners: np.ndarray

    def __len__(self) -> int:
        return int(self.tags.shape[0])


class World:
    """The units on one map and the rules that move them."""

    def __init__(self, mapspec: MapSpec) -> None:
        self.map = mapspec
        self.u = UnitStore()
        self.loop = 0
        self.dead_tags: list[int] = []
        """Every tag that ever died or was removed, in order (observations report slices of it)."""

    # ------------------------------------------------------------------ spawning / removal
    def spawn(self, unit_id: int, owner: int, xs: np.ndarray | list[float], ys: np.ndarray | list[float],
              facing: float = 0.0) -> np.ndarray:
        xs = np.asarray(xs, dtype=np.float64).copy()
        ys = np.asarray(ys, dtype=np.float64).copy()
        self.map.clamp(xs, ys, float(TYPES.radius[TYPES.row(unit_id)]))
        return self.u.add(unit_id, owner, xs, ys, facing)

    def remove_tags(self, tags: np.ndarray | list[int]) -> Deaths:
        """Remove units without a fight (debug kill, collected shards); returns them as deaths."""
        rows = self.u.rows(np.asarray(tags, dtype=np.int64))
        rows = np.unique(rows[rows >= 0])
        mask = np.ones(len(self.u), dtype=bool)
        mask[rows] = False
        d = Deaths(self.u.tag[rows].copy(), TYPES.unit_id[self.u.ti[rows]], self.u.owner[rows].copy())
        self.u.keep(mask)
        self.dead_tags.extend(d.tags.tolist())
        return d

    # ------------------------------------------------------------------ commands
    def command(self, player: int, ability: int, tags: list[int], target_pos: tuple[float, float] | None,
                target_tag: int, queue: bool) -> int:
        """Apply one raw unit command; returns an ActionResult value."""
        u = self.u
        rows = u.rows(np.asarray(tags, dtype=np.int64))
        rows = rows[rows >= 0]
        if len(rows) == 0:
            return ERROR
        rows = rows[u.owner[rows] == player]
        if len(rows) == 0:
            return YOU_CANT_CONTROL_THAT_UNIT
        trow = -1
        if target_tag:
            trow = u.row(target_tag)
            if trow < 0:
                return CANT_TARGET_THAT_UNIT
        hostile_target = trow >= 0 and int(u.owner[trow]) not in (player, NEUTRAL_OWNER)

        if ability in (D.STOP_STOP, D.STOP):
            for i in rows.tolist():
                u.queues.pop(int(u.tag[i]), None)
            u.kind[rows] = IDLE
            u.ability[rows] = 0
            u.ttag[rows] = 0
            u.eng[rows] = 0
            return SUCCESS
        if ability in (D.HOLDPOSITION_HOLD, D.HOLDPOSITION):
            return self._give(rows, Order(HOLD, D.HOLDPOSITION_HOLD), queue)
        if ability == D.EXPLODE_EXPLODE:
            rows = rows[TYPES.suicide[u.ti[rows]]]
            if len(rows) == 0:
                return ERROR
            return self._give(rows, Order(EXPLODE, D.EXPLODE_EXPLODE), False)
        if ability in (D.EFFECT_STIM_MARINE, D.EFFECT_STIM):
            return TECH_REQUIREMENTS_NOT_MET

        if target_pos is None and trow < 0:
            return ERROR
        if ability == D.SMART:
            if trow >= 0:
                ability = D.ATTACK_ATTACK if hostile_target else D.MOVE_MOVE
            else:
                ability = D.MOVE_MOVE
        if ability in (D.MOVE_MOVE, D.MOVE):
            if trow >= 0:
                return self._give(rows, Order(FOLLOW, D.MOVE_MOVE, ttag=target_tag), queue)
            assert target_pos is not None
            return self._give(rows, Order(MOVE, D.MOVE_MOVE, target_pos[0], target_pos[1]), queue)
        if ability in (D.ATTACK_ATTACK, D.ATTACK, D.SCAN_MOVE):
            shown = D.SCAN_MOVE if ability == D.SCAN_MOVE else D.ATTACK_ATTACK
            if trow >= 0:
                if not hostile_target and int(u.owner[trow]) == NEUTRAL_OWNER:
                    return CANT_TARGET_THAT_UNIT
                ok = rows[TYPES.can_hit[u.ti[rows], u.ti[trow]]]
                if len(ok) == 0:
                    return CANT_TARGET_THAT_UNIT
                return self._give(ok, Order(ATTACK_UNIT, shown, ttag=target_tag), queue)
            assert target_pos is not None
            return self._give(rows, Order(ATTACK_MOVE, shown, target_pos[0], target_pos[1]), queue)
        if ability in (D.PATROL_PATROL, D.PATROL):
            if target_pos is None:
                tx, ty = float(u.x[trow]), float(u.y[trow])
            else:
                tx, ty = target_pos
            return self._give(rows, Order(PATROL, D.PATROL_PATROL, tx, ty), queue)
        return NOT_SUPPORTED

    def _give(self, rows: np.ndarray, order: Order, queue: bool) -> int:
        u = self.u
        for i in rows.tolist():
            tag = int(u.tag[i])
            if queue and u.kind[i] != IDLE and u.kind[i] != HOLD:
                u.queues.setdefault(tag, []).append(Order(order.kind, order.ability, order.tx, order.ty,
                                                          order.ttag))
            else:
                u.queues.pop(tag, None)
                u.set_order(i, order)
        return SUCCESS

    # ------------------------------------------------------------------ the game loop
    def step_loop(self) -> Deaths:
        """Advance one game loop; returns the units that died in it."""
        self.loop += 1
        u = self.u
        n = len(u)
        if n == 0:
            return Deaths(np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, np.int64))
        ti = u.ti
        np.maximum(u.cd - 1.0, -1.0, out=u.cd)
        kind = u.kind
        x, y = u.x, u.y
        radius = TYPES.radius[ti]
        rng = TYPES.range[ti]

        # --- targets: explicit (attack unit / follow) and automatic
        tgt = np.full(n, -1, dtype=np.int64)
        explicit = (kind == ATTACK_UNIT) | (kind == FOLLOW)
        if explicit.any():
            e_rows = np.nonzero(explicit)[0]
            t = u.rows(u.ttag[e_rows])
            lost = t < 0
            if lost.any():
                u.finish_orders(e_rows[lost])
            tgt[e_rows] = t
        auto = TYPES.can_attack[ti] & np.isin(kind, _AUTO_KINDS)
        if auto.any():
            a_rows = np.nonzero(auto)[0]
            cur = u.rows(u.eng[a_rows])
            tgt[a_rows] = cur
            # keep a current target that is alive, hittable and in weapon range; re-acquire otherwise
            ok = cur >= 0
            if ok.any():
                r_ok, c_ok = a_rows[ok], cur[ok]
                d = np.hypot(x[c_ok] - x[r_ok], y[c_ok] - y[r_ok]) - radius[r_ok] - radius[c_ok]
                keep = d <= rng[r_ok]
                ok[np.nonzero(ok)[0][~keep]] = False
            need = a_rows[~ok]
            if len(need):
                self._acquire(need, tgt)
                u.eng[need] = np.where(tgt[need] >= 0, u.tag[np.maximum(tgt[need], 0)], 0)
        # explosions ordered explicitly
        explode = kind == EXPLODE

        # --- distances to targets
        has_t = tgt >= 0
        tsafe = np.where(has_t, tgt, 0)
        dx = x[tsafe] - x
        dy = y[tsafe] - y
        dist_c = np.hypot(dx, dy)
        d_edge = dist_c - radius - radius[tsafe]
        attack_t = has_t & (kind != FOLLOW)
        in_range = attack_t & (d_edge <= rng)

        # --- fire
        fire = in_range & (u.cd <= 0.0)
        damage = np.zeros(n)
        died = np.zeros(n, dtype=bool)
        suicide = TYPES.suicide[ti]
        blast = (fire & suicide) | explode
        if blast.any():
            self._explode(np.nonzero(blast)[0], damage, died)
            fire &= ~suicide
        if fire.any():
            f = np.nonzero(fire)[0]
            tr = tgt[f]
            self._hit(ti[f], tr, damage)
            u.cd[f] += TYPES.cd_loops[ti[f]]
            u.facing[f] = np.arctan2(dy[f], dx[f]) % (2 * np.pi)

        # --- movement
        speed = TYPES.speed[ti]
        point_goal = np.isin(kind, _POINT_KINDS) & ~has_t
        chase = has_t & ~in_range & (kind != HOLD)
        follow = kind == FOLLOW
        mv = (point_goal | chase) & (speed > 0)
        if mv.any():
            m = np.nonzero(mv)[0]
            gx = np.where(point_goal[m], u.tx[m], x[tsafe[m]])
            gy = np.where(point_goal[m], u.ty[m], y[tsafe[m]])
            mdx = gx - x[m]
            mdy = gy - y[m]
            dist = np.hypot(mdx, mdy)
            # chasers stop once in range, followers once touching
            stop_at = np.where(point_goal[m], 0.0,
                               np.where(follow[m], radius[m] + radius[tsafe[m]],
                                        rng[m] + radius[m] + radius[tsafe[m]] - 0.01))
            want = np.maximum(dist - stop_at, 0.0)
            stepd = np.minimum(speed[m], want)
            moving = dist > 1e-9
            scale = np.where(moving, stepd / np.where(moving, dist, 1.0), 0.0)
            x[m] += mdx * scale
            y[m] += mdy * scale
            u.facing[m] = np.where(moving, np.arctan2(mdy, mdx) % (2 * np.pi), u.facing[m])
            arrived = point_goal[m] & (want <= speed[m])
            if arrived.any():
                ar = m[arrived]
                pat = ar[kind[ar] == PATROL]
                if len(pat):  # patrol: turn around
                    ox, oy = u.px[pat].copy(), u.py[pat].copy()
                    u.px[pat], u.py[pat] = u.tx[pat], u.ty[pat]
                    u.tx[pat], u.ty[pat] = ox, oy
                u.finish_orders(ar[kind[ar] != PATROL])
            self.map.clamp(x, y, radius)

        # --- damage and deaths
        if damage.any() or died.any():
            self._apply(damage, died)
            dead = died | (u.hp <= 0.0) & ~TYPES.neutral[ti]
            if dead.any():
                d = Deaths(u.tag[dead].copy(), TYPES.unit_id[ti[dead]], u.owner[dead].copy())
                u.keep(~dead)
                self.dead_tags.extend(d.tags.tolist())
                return d
        return Deaths(np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, np.int64))

    def _hostile_matrix(self, rows: np.ndarray) -> np.ndarray:
        """can-attack mask [len(rows), n]: hostile owner and weapon can hit the type."""
        u = self.u
        own = u.owner
        hostile = (own[rows][:, None] != own[None, :]) & (own[None, :] != NEUTRAL_OWNER)
        return hostile & TYPES.can_hit[u.ti[rows]][:, u.ti]

    def _acquire(self, rows: np.ndarray, tgt: np.ndarray) -> None:
        """Nearest hittable hostile within acquisition range (weapon range on hold, else sight)."""
        u = self.u
        ti = u.ti
        valid = self._hostile_matrix(rows)
        if not valid.any():
            tgt[rows] = -1
            return
        d = np.hypot(u.x[None, :] - u.x[rows][:, None], u.y[None, :] - u.y[rows][:, None])
        d -= TYPES.radius[ti][None, :]
        d -= TYPES.radius[ti[rows]][:, None]
        rng = TYPES.range[ti[rows]]
        acq = np.where(u.kind[rows] == HOLD, rng, np.maximum(TYPES.sight[ti[rows]], rng))
        d[~valid] = _INF
        best = np.argmin(d, axis=1)
        bd = d[np.arange(len(rows)), best]
        tgt[rows] = np.where(bd <= acq, best, -1)

    def _hit(self, att_ti: np.ndarray, trows: np.ndarray, damage: np.ndarray) -> None:
        """Accumulate single-target hits into ``damage`` (raw damage before armor, by target)."""
        u = self.u
        raw = TYPES.dmg[att_ti, u.ti[trows]]
        self._accumulate(raw, TYPES.attacks[att_ti], trows, damage)

    def _accumulate(self, raw: np.ndarray, attacks: np.ndarray, trows: np.ndarray, damage: np.ndarray) -> None:
        u = self.u
        ti = u.ti[trows]
        armor = TYPES.armor[ti]
        has_sh = u.shield[trows] > 0
        # shielded targets: raw damage (shield armor 0); the overflow is reduced by armor in _apply
        per = np.where(has_sh, raw, np.maximum(0.5, raw - armor)) * attacks
        np.add.at(damage, trows, per)

    def _apply(self, damage: np.ndarray, died: np.ndarray) -> None:
        u = self.u
        sh = u.shield
        hit = damage > 0
        if not hit.any():
            return
        shielded = hit & (sh > 0)
        if shielded.any():
            s = np.nonzero(shielded)[0]
            absorbed = np.minimum(sh[s], damage[s])
            sh[s] -= absorbed
            over = damage[s] - absorbed
            armor = TYPES.armor[u.ti[s]]
            over = np.where(over > 0, np.maximum(0.5, over - armor), 0.0)
            damage[s] = over
        u.hp -= damage

    def _explode(self, rows: np.ndarray, damage: np.ndarray, died: np.ndarray) -> None:
        """Area damage around each exploding unit; the exploders die."""
        u = self.u
        ti = u.ti
        died[rows] = True
        valid = self._hostile_matrix(rows)
        d = np.hypot(u.x[None, :] - u.x[rows][:, None], u.y[None, :] - u.y[rows][:, None])
        d -= TYPES.radius[ti][None, :]
        inside = valid & (d <= TYPES.splash[ti[rows]][:, None])
        ai, tj = np.nonzero(inside)
        if len(ai):
            att_ti = ti[rows[ai]]
            self._accumulate(TYPES.dmg[att_ti, ti[tj]], TYPES.attacks[att_ti], tj, damage)

    # ------------------------------------------------------------------ fast-forwarding quiet stretches
    def quiet_horizon(self) -> int:
        """How many loops can pass with nothing but straight-line movement (>= 1).

        1 while any unit has a target or an explicit attack/follow/explode order.  Otherwise the
        bound is the earliest loop at which a hostile could enter some unit's acquisition range
        (closing at both units' full speed) or a moving unit could reach its goal.  Within that
        bound :meth:`fast_forward` is equivalent to stepping loop by loop.
        """
        u = self.u
        n = len(u)
        if n == 0:
            return 1 << 30
        kind = u.kind
        if (u.eng != 0).any() or np.isin(kind, (ATTACK_UNIT, FOLLOW, EXPLODE)).any():
            return 1
        ti = u.ti
        speed = TYPES.speed[ti]
        h = 1 << 30
        moving = np.isin(kind, _POINT_KINDS) & (speed > 0)
        if moving.any():
            m = np.nonzero(moving)[0]
            dist = np.hypot(u.tx[m] - u.x[m], u.ty[m] - u.y[m])
            h = min(h, int(np.min(np.ceil(dist / speed[m]))) - 1)
        own = u.owner
        att = TYPES.can_attack[ti] & (own != NEUTRAL_OWNER)
        if att.any() and h > 1:
            a = np.nonzero(att)[0]
            valid = self._hostile_matrix(a)
            if valid.any():
                d = np.hypot(u.x[None, :] - u.x[a][:, None], u.y[None, :] - u.y[a][:, None])
                d -= TYPES.radius[ti][None, :] + TYPES.radius[ti[a]][:, None]
                rng = TYPES.range[ti[a]]
                acq = np.where(kind[a] == HOLD, rng, np.maximum(TYPES.sight[ti[a]], rng))
                gap = d - acq[:, None]
                closing = speed[a][:, None] + speed[None, :]
                with np.errstate(divide="ignore", invalid="ignore"):
                    loops = np.where(valid & (closing > 0), gap / closing, np.inf)
                loops = np.where(valid & (gap <= 0), 0.0, loops)
                h = min(h, int(min(np.min(loops), float(1 << 30))))
        return max(1, h)

    def fast_forward(self, h: int) -> Deaths:
        """Advance ``h`` loops of a quiet stretch (see :meth:`quiet_horizon`) in one go."""
        self.loop += h
        u = self.u
        if len(u) == 0:
            return Deaths(np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, np.int64))
        np.maximum(u.cd - h, -1.0, out=u.cd)
        speed = TYPES.speed[u.ti]
        moving = np.isin(u.kind, _POINT_KINDS) & (speed > 0)
        if moving.any():
            m = np.nonzero(moving)[0]
            dx = u.tx[m] - u.x[m]
            dy = u.ty[m] - u.y[m]
            dist = np.hypot(dx, dy)
            go = dist > 1e-9
            scale = np.where(go, np.minimum(speed[m] * h, dist) / np.where(go, dist, 1.0), 0.0)
            u.x[m] += dx * scale
            u.y[m] += dy * scale
            u.facing[m] = np.where(go, np.arctan2(dy, dx) % (2 * np.pi), u.facing[m])
        return Deaths(np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, np.int64))
