"""Unit storage: per-type tables and a struct-of-arrays store of live units with stable tags.

Every per-loop operation works on whole numpy columns.  Units live in insertion order; dead units
are removed by an order-preserving compaction, so the ``tag`` column is always sorted ascending and
tag -> row lookup is one ``np.searchsorted`` for any number of tags.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from sc2pool.engine import data as D

# Order kinds (engine-internal; reported to clients as specific ability ids).
IDLE, MOVE, FOLLOW, ATTACK_UNIT, ATTACK_MOVE, HOLD, PATROL, EXPLODE = 0, 1, 2, 3, 4, 5, 6, 7
ECON = 8
"""A unit doing an economy job (mining, returning cargo, constructing): the workers system
(:mod:`sc2pool.engine.sim.systems.workers`) moves it and reports its orders; targeting,
locomotion, collision and fast-forwarding leave it alone."""
TRANSFORM = 9
"""A unit changing into its other form (:mod:`sc2pool.engine.sim.systems.modes`): it cannot act
until the change is done; targeting, locomotion and collision leave it standing."""
N_KINDS = 16
"""Size of the per-kind lookup tables (room for every kind above)."""
POINT_KINDS = np.zeros(N_KINDS, dtype=bool)
POINT_KINDS[[MOVE, ATTACK_MOVE, PATROL]] = True
"""Per order kind: the order walks to a point (move, attack-move, patrol)."""
NEUTRAL_OWNER = 16
TAG_BASE = 1 << 32
"""Tags start above 2**32 like real ones (index << 18 | recycle in the real game); always > 0."""


def _destructible(unit_id: int) -> bool:
    from sc2pool.engine.data import units as F

    f = F.FACTS.get(unit_id)
    return f is not None and f.kind == F.DESTRUCTIBLE


class TypeTable:
    """Per-type columns built once from :mod:`sc2pool.engine.data`, indexed by type row ``ti``."""

    def __init__(self, specs: tuple[D.UnitSpec, ...]) -> None:
        self.specs = specs
        self.row_of: dict[int, int] = {s.unit_id: i for i, s in enumerate(specs)}
        n = len(specs)

        def col(f, dtype=np.float64):  # type: ignore[no-untyped-def]
            return np.array([f(s) for s in specs], dtype=dtype)

        self.unit_id = col(lambda s: s.unit_id, np.int64)
        self.speed = col(lambda s: s.speed / D.NORMAL_LOOPS_PER_SECOND)
        self.hp_max = col(lambda s: s.hp)
        self.sh_max = col(lambda s: s.shield)
        self.armor = col(lambda s: s.armor)
        self.radius = col(lambda s: s.radius)
        self.sight = col(lambda s: s.sight)
        self.food = col(lambda s: s.food_required)
        self.food_provided = col(lambda s: s.food_provided)
        self.is_flying = col(lambda s: s.is_flying, bool)
        self.neutral = col(lambda s: s.neutral, bool)
        self.structure = col(lambda s: s.is_structure, bool)
        self.destructible = np.array([_destructible(s.unit_id) for s in specs], dtype=bool)
        """The map's destructible rocks and debris: attackable though neutral-owned, but units
        attack them only when ordered to, never on their own (Liquipedia, "Destructible Rocks")."""
        w = [_primary(s.weapons) for s in specs]
        self.can_attack = np.array([x is not None for x in w], dtype=bool)
        self.range = np.array([x.range if x else 0.0 for x in w])
        self.cd_loops = np.array([x.cooldown * D.NORMAL_LOOPS_PER_SECOND if x else 0.0 for x in w])
        self.dpoint = np.array([x.damage_point * D.NORMAL_LOOPS_PER_SECOND if x else 0.0 for x in w])
        self.proj_speed = np.array([x.projectile_speed / D.NORMAL_LOOPS_PER_SECOND if x else 0.0 for x in w])
        self.delayed = (self.dpoint > 0) | (self.proj_speed > 0)
        self.launch_loops = np.ceil(self.dpoint).astype(np.int64)
        """Whole loops from firing to the hit (or the missile's launch)."""
        self.has_missile = self.proj_speed > 0
        self.proj_speed_or_1 = np.where(self.has_missile, self.proj_speed, 1.0)
        """Missile speed, 1 for weapons without one (a divisor that never divides by zero)."""
        self.attacks = np.array([x.attacks if x else 0 for x in w], dtype=np.float64)
        self.hits_ground = np.array([x is not None and x.target in (D.GROUND, D.ANY) for x in w], dtype=np.bool_)
        self.hits_air = np.array([x is not None and x.target in (D.AIR, D.ANY) for x in w], dtype=np.bool_)
        self.splash = np.array([x.splash if x else 0.0 for x in w])
        self.suicide = np.array([x is not None and x.suicide for x in w], dtype=np.bool_)
        self.fmat = np.stack([self.radius, self.range, self.speed, self.sight, self.cd_loops])
        self.bmat = np.stack([self.can_attack, self.suicide, self.neutral])
        # A type with several weapons (Thor, Battlecruiser) moves and aims with its primary one
        # (above: range, damage point, missile); against each target type it fires the weapon that
        # hits that target (:func:`_against`), with that weapon's damage, attacks and cooldown.
        # dmg[a, t]: damage of ONE attack of type a against type t before armor (base + bonus).
        self.dmg = np.zeros((n, n))
        self.attacks_vs = np.zeros((n, n))
        """attacks_vs[a, t]: attacks per shot of type a's weapon against type t."""
        self.cd_vs = np.zeros((n, n))
        """cd_vs[a, t]: loops between shots of type a's weapon against type t."""
        # can_hit[a, t]: type a's weapon may target type t.
        self.can_hit = np.zeros((n, n), dtype=bool)
        for a, s in enumerate(specs):
            if w[a] is None:
                continue
            ground, air = _against(s.weapons, False), _against(s.weapons, True)
            self.hits_ground[a] = ground is not None
            self.hits_air[a] = air is not None
            for t, st in enumerate(specs):
                wa = (air if st.is_flying else ground) or w[a]
                assert wa is not None
                bonus = sum(b for attr, b in wa.bonus if attr in st.attributes)
                self.dmg[a, t] = wa.damage + bonus
                self.attacks_vs[a, t] = wa.attacks
                self.cd_vs[a, t] = wa.cooldown * D.NORMAL_LOOPS_PER_SECOND
                if st.neutral:
                    continue
                self.can_hit[a, t] = self.hits_air[a] if st.is_flying else self.hits_ground[a]

    def row(self, unit_id: int) -> int:
        return self.row_of[unit_id]


def _primary(weapons: tuple[D.WeaponSpec, ...]) -> D.WeaponSpec | None:
    """The weapon a type moves and aims with: its first that hits ground units, else its first
    (a Thor closes to its cannons' range, not its anti-air missiles'); None without weapons."""
    return next((x for x in weapons if x.target in (D.GROUND, D.ANY)), weapons[0] if weapons else None)


def _against(weapons: tuple[D.WeaponSpec, ...], air: bool) -> D.WeaponSpec | None:
    """The weapon fired at an air (or ground) target: the first made for that target alone, else
    the first that hits both; None when no weapon hits it."""
    only = D.AIR if air else D.GROUND
    return next((x for x in weapons if x.target == only), next((x for x in weapons if x.target == D.ANY), None))


_MELEE_RACES = frozenset({D.TERRAN, D.ZERG, D.PROTOSS})
"""The races whose units and structures a melee game holds (their rules are simulated)."""


def melee_specs() -> tuple[D.UnitSpec, ...]:
    """The types a melee game on a ladder map may hold beyond the scenarios' own (:data:`D.UNITS`,
    whose rows come first so that the scenarios' type rows never change): the map's neutral
    objects (every mineral field and geyser variant, rocks, debris, towers) and every unit and
    structure of the three races (Zerg and Protoss fight with their real weapons, shields and
    regeneration even where their economy rules are not simulated yet), in the facts table's
    order."""
    from sc2pool.engine.data import units as F

    have = {s.unit_id for s in D.UNITS}
    out = []
    for f in F.FACTS_TABLE:
        if f.unit_id in have:
            continue
        if f.kind in (F.RESOURCE, F.DESTRUCTIBLE, F.TOWER):
            pass
        elif f.kind in (F.UNIT, F.STRUCTURE, F.ADDON, F.MODE, F.SUMMON, F.COCOON):
            try:
                if D.unit_spec(f.unit_id).race not in _MELEE_RACES:
                    continue
            except KeyError:
                continue
        else:
            continue
        try:
            out.append(D.unit_spec(f.unit_id))
        except KeyError:
            continue
        have.add(f.unit_id)
    return tuple(out)


TYPES = TypeTable(tuple(D.UNITS) + melee_specs())
"""Every type a game may hold: the scenarios' types first (rows 0..), then :func:`melee_specs`."""
CHANGELINGS = (12, 13, 14, 15, 16, 17)
"""The Overseer's Changeling and its disguised forms: no unit attacks one on its own (LP:Changeling)."""
CREEP_TUMORS = (87, 137, 138)
"""Creep Tumor, burrowed, and a Queen's: structures in the data, not buildings to the melee rules."""
BUILDINGS = TYPES.structure & ~np.isin(TYPES.unit_id, np.array(CREEP_TUMORS))
"""Per type row: the buildings of the melee rules, what a player must lose all of to lose and what
its reveal shows (the Arqade answer "What are the victory conditions": "creep tumors are
considered food-cost-less units, not buildings")."""
_NO_AUTO_TYPE = TYPES.destructible | np.isin(TYPES.unit_id, np.array(CHANGELINGS))
"""Per type row: never acquired automatically (rocks and debris, Changelings); an explicit attack
order still may."""


@dataclass
class Order:
    """A queued order (the current order lives in the store's columns)."""

    kind: int
    ability: int
    tx: float = 0.0
    ty: float = 0.0
    ttag: int = 0


FLOAT_FIELDS: tuple[str, ...] = ("x", "y", "facing", "hp", "shield", "cd", "tx", "ty", "px", "py", "ox", "oy",
                                 "slide", "wx", "wy", "ex", "ey")
N_FLAT_FLOAT = 13
"""The float fields the flat arenas use (the ones before ``wx``): movers gather only these there."""
INT_FIELDS: tuple[str, ...] = ("tag", "ti", "owner", "kind", "ability", "ttag", "eng", "scan", "seg", "wp", "hurt")
_DERIVED_FLOAT = ("radius", "range", "speed", "sight", "cd_loops")
_DERIVED_BOOL = ("can_attack", "suicide", "neutral")


@dataclass
class Deaths:
    """Units that died in one loop (all columns aligned)."""

    tags: np.ndarray
    unit_types: np.ndarray
    owners: np.ndarray

    def __len__(self) -> int:
        return int(self.tags.shape[0])

    def __add__(self, other: Deaths) -> Deaths:
        """Deaths of one update from two systems as one (combat's, then a transport's or a fire's)."""
        if not len(other):
            return self
        if not len(self):
            return other
        return Deaths(np.concatenate((self.tags, other.tags)), np.concatenate((self.unit_types, other.unit_types)),
                      np.concatenate((self.owners, other.owners)))


NO_DEATHS = Deaths(np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, np.int64))


class UnitStore:
    """Struct-of-arrays of live units.

    The columns are rows of two 2-D blocks, ``F`` (float64 fields) and ``I`` (int64 fields), so that
    removing dead units is two fancy-index operations whatever the number of fields.  Column
    attributes are views into the blocks: update them in place (``u.x[rows] = ...``,
    ``np.maximum(..., out=u.cd)``), never rebind them.

    Columns: ``tag`` (sorted, stable), ``ti`` (type row), ``owner``, position ``x``/``y``,
    ``facing``, ``hp``, ``shield``, ``cd`` (loops until the weapon is ready, >= 0), the current order (``kind``, reported ``ability``, target point
    ``tx``/``ty`` or target tag ``ttag``; ``px``/``py`` patrol origin) and ``eng``, the tag of an
    automatically acquired target (0 = none).  Orders queued behind the current one live in
    ``queues`` keyed by tag: they are rare, so a dict beats a column.
    """

    tag: np.ndarray
    ti: np.ndarray
    owner: np.ndarray
    x: np.ndarray
    y: np.ndarray
    xy: np.ndarray
    """``x`` followed by ``y``: one flat view of both columns (2 * len entries)."""
    facing: np.ndarray
    hp: np.ndarray
    shield: np.ndarray
    cd: np.ndarray
    kind: np.ndarray
    ability: np.ndarray
    tx: np.ndarray
    ty: np.ndarray
    ttag: np.ndarray
    px: np.ndarray
    py: np.ndarray
    eng: np.ndarray
    scan: np.ndarray
    """Loop before which a unit without a target need not look for one (0: look now)."""
    ox: np.ndarray
    oy: np.ndarray
    slide: np.ndarray
    """A chaser blocked by units standing their ground walks round its target: +1 counter-clockwise,
    -1 clockwise, 0 straight at it."""
    seg: np.ndarray
    """Straight moves to a point are computed from where they started (``ox``, ``oy`` at loop
    ``seg``; -1: no segment yet), so a position after k loops does not depend on how the loops
    were stepped."""
    wx: np.ndarray
    wy: np.ndarray
    """On a ladder map: the waypoint a point mover's straight segment ends at (the flat arenas
    walk straight to ``tx``, ``ty`` and leave these alone)."""
    ex: np.ndarray
    ey: np.ndarray
    """On a ladder map: where a point mover's walk ends (its order's point, or the reachable point
    nearest to it)."""
    wp: np.ndarray
    """On a ladder map: index of the waypoint ``wx``, ``wy`` in the mover's path
    (:mod:`sc2pool.engine.sim.systems.pathing`); -1: a new order, not planned yet."""
    hurt: np.ndarray
    """The loop the unit last took damage (0: never): Protoss shields regenerate only a while
    after it (:mod:`sc2pool.engine.sim.systems.regeneration`)."""

    # per-unit copies of type columns, refreshed whenever the set of units changes
    radius: np.ndarray
    range: np.ndarray
    speed: np.ndarray
    sight: np.ndarray
    can_attack: np.ndarray
    suicide: np.ndarray
    cd_loops: np.ndarray
    unit_id: np.ndarray
    neutral: np.ndarray
    no_auto: np.ndarray
    """Units nobody acquires as a target on its own: neutral types, the map's destructibles and
    the units :meth:`hold` names."""
    targetable_rows: np.ndarray
    max_speed: float
    _row_index: tuple[int, dict[int, int]] = (-1, {})
    """(:attr:`version`, :meth:`row_index` at it); a class default, not pickled (found again)."""

    def __init__(self) -> None:
        self.F = np.zeros((len(FLOAT_FIELDS), 0))
        self.I = np.zeros((len(INT_FIELDS), 0), dtype=np.int64)
        self.queues: dict[int, list[Order]] = {}
        self.next_tag = TAG_BASE + 1
        self.version = 0
        self.held = np.zeros(0, dtype=np.int64)
        """Tags of units nobody may target (in stasis: ``systems/stasis.py``), sorted."""
        self._bind()

    def __getstate__(self) -> dict[str, object]:
        # the column attributes are views: pickle/deepcopy only the blocks and rebind on load
        return {"F": self.F, "I": self.I, "queues": self.queues, "next_tag": self.next_tag,
                "version": self.version, "held": self.held}

    def __setstate__(self, state: dict[str, object]) -> None:
        self.held = np.zeros(0, dtype=np.int64)  # (a state saved before stasis existed)
        self.__dict__.update(state)
        self.version -= 1
        self._bind()

    def _bind(self) -> None:
        """Re-point the column views after the blocks were replaced, and refresh derived columns."""
        if not self.F.flags.c_contiguous:  # the ``xy`` view below needs one C-ordered block
            self.F = np.ascontiguousarray(self.F)
        F, I = self.F, self.I  # noqa: E741
        # x then y as one flat view (the separation passes gather and push both in one operation)
        self.xy = F[:2].reshape(-1)
        d = self.__dict__  # (one update per block: iterating a block yields its row views)
        d.update(zip(FLOAT_FIELDS, F, strict=True))
        d.update(zip(INT_FIELDS, I, strict=True))
        # bumped whenever units are added or removed: caches key on it
        self.version += 1
        ti = self.ti
        d.update(zip(_DERIVED_FLOAT, TYPES.fmat[:, ti], strict=True))
        d.update(zip(_DERIVED_BOOL, TYPES.bmat[:, ti], strict=True))
        self.unit_id = TYPES.unit_id[ti]
        self._targetable()
        sp = self.speed[self.targetable_rows]
        self.max_speed = float(sp.max()) if len(sp) else 0.0

    def _targetable(self) -> None:
        self.no_auto = self.neutral | _NO_AUTO_TYPE[self.ti]
        if len(self.held):
            rows = self.rows(self.held)
            self.no_auto[rows[rows >= 0]] = True
        self.targetable_rows = np.nonzero(~self.no_auto)[0]

    def hold(self, tags: np.ndarray) -> None:
        """From now on nobody may target the units of ``tags`` (and the units held before are
        free again): they leave :attr:`targetable_rows`, and caches keyed on :attr:`version`
        are rebuilt."""
        self.held = np.sort(np.asarray(tags, dtype=np.int64))
        self.version += 1
        self._targetable()
        sp = self.speed[self.targetable_rows]
        self.max_speed = float(sp.max()) if len(sp) else 0.0

    def __len__(self) -> int:
        return int(self.I.shape[1])

    def add(self, unit_id: int, owner: int, xs: np.ndarray, ys: np.ndarray, facing: float = 0.0) -> np.ndarray:
        """Append ``len(xs)`` units of one type; returns their new tags."""
        k = len(xs)
        ti = TYPES.row(unit_id)
        tags = np.arange(self.next_tag, self.next_tag + k, dtype=np.int64)
        self.next_tag += k
        F = np.zeros((len(FLOAT_FIELDS), k))
        F[0] = xs
        F[1] = ys
        F[2] = facing
        F[3] = TYPES.hp_max[ti]
        F[4] = TYPES.sh_max[ti]
        I = np.zeros((len(INT_FIELDS), k), dtype=np.int64)  # noqa: E741
        I[0] = tags
        I[1] = ti
        I[2] = owner
        I[INT_FIELDS.index("seg")] = -1
        I[INT_FIELDS.index("wp")] = -1
        self.F = np.concatenate((self.F, F), axis=1)
        self.I = np.concatenate((self.I, I), axis=1)
        self._bind()
        return tags

    def retype(self, rows: np.ndarray | list[int], unit_id: int) -> None:
        """Turn the units of ``rows`` into ``unit_id`` in place (a morph: lowering a supply depot,
        a Command Center becoming an Orbital); their tag, position and orders stay.  Bumps the
        version, as the set of types changed."""
        self.ti[np.asarray(rows, dtype=np.int64)] = TYPES.row(unit_id)
        self._bind()

    def keep(self, mask: np.ndarray) -> None:
        """Keep only rows where ``mask`` is true (order preserving)."""
        if mask.all():
            return
        gone = self.tag[~mask]
        self.F = self.F[:, mask]
        self.I = self.I[:, mask]
        self._bind()
        if self.queues:
            for t in gone.tolist():
                self.queues.pop(t, None)

    def extract(self, rows: np.ndarray | list[int]) -> tuple[np.ndarray, np.ndarray]:
        """Take the units of ``rows`` out of the store (a unit entering a transport): returns
        their float and int columns, for :meth:`insert` to put them back with the same tag.
        Their queued orders are dropped."""
        rows = np.asarray(rows, dtype=np.int64)
        F, I = self.F[:, rows].copy(), self.I[:, rows].copy()  # noqa: E741
        mask = np.ones(len(self), dtype=bool)
        mask[rows] = False
        self.keep(mask)
        return F, I

    def insert(self, F: np.ndarray, I: np.ndarray) -> np.ndarray:  # noqa: E741
        """Put units taken out by :meth:`extract` back (a unit leaving a transport), each at the
        row its tag sorts to, so that ``tag`` stays ascending; returns their rows."""
        order = np.argsort(I[0], kind="stable")
        F, I = F[:, order], I[:, order]  # noqa: E741
        at = self.tag.searchsorted(I[0])
        self.F = np.insert(self.F, at, F, axis=1)
        self.I = np.insert(self.I, at, I, axis=1)
        self._bind()
        return self.rows(I[0])

    def rows(self, tags: np.ndarray) -> np.ndarray:
        """Row index per tag, -1 where the tag is not alive."""
        tags = np.asarray(tags, dtype=np.int64)
        tag = self.tag
        n = len(tag)
        if n == 0:
            return np.full(tags.shape, -1, dtype=np.int64)
        idx = tag.searchsorted(tags)  # tags are ascending: rows keep their spawn order
        # (an index past the end is clipped to the last tag, which is then smaller: not found)
        return np.where(tag.take(idx, mode="clip") == tags, idx, -1)

    def row(self, tag: int) -> int:
        """Row of one tag, -1 when it is not alive (:meth:`rows` without its arrays: the systems
        ask this for single units many times a loop)."""
        return self.row_index().get(tag, -1)

    def row_index(self) -> dict[int, int]:
        """Tag -> row of every unit, kept while :attr:`version` stays (rows change only through
        :meth:`_bind`, which bumps it)."""
        got = self._row_index
        if got[0] != self.version:
            got = self._row_index = (self.version, dict(zip(self.tag.tolist(), range(len(self.tag)), strict=True)))
        return got[1]

    def set_order(self, i: int, o: Order) -> None:
        # (the same point order again keeps a ladder map mover's path: ``wp``)
        same = self.kind[i] == o.kind and self.tx[i] == o.tx and self.ty[i] == o.ty
        self.kind[i] = o.kind
        self.ability[i] = o.ability
        self.tx[i] = o.tx
        self.ty[i] = o.ty
        self.ttag[i] = o.ttag
        if o.kind == PATROL:
            self.px[i] = self.x[i]
            self.py[i] = self.y[i]
        self.eng[i] = 0
        self.seg[i] = -1
        if not same:
            self.wp[i] = -1

    def current_order(self, i: int) -> Order | None:
        k = int(self.kind[i])
        if k == IDLE:
            return None
        return Order(k, int(self.ability[i]), float(self.tx[i]), float(self.ty[i]), int(self.ttag[i]))

    def finish_orders(self, rows: np.ndarray) -> None:
        """The current orders of ``rows`` are done: start the next queued order or go idle."""
        if len(rows) == 0:
            return
        self.seg[rows] = -1
        if not self.queues:
            self.kind[rows] = IDLE
            self.ability[rows] = 0
            self.ttag[rows] = 0
            self.eng[rows] = 0
            return
        for i in rows.tolist():
            q = self.queues.get(int(self.tag[i]))
            if q:
                self.set_order(i, q.pop(0))
                if not q:
                    del self.queues[int(self.tag[i])]
            else:
                self.kind[i] = IDLE
                self.ability[i] = 0
                self.ttag[i] = 0
                self.eng[i] = 0
