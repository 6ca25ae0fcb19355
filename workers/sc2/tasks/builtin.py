"""Built-in tasks, one per engine scenario (they run on real SC2's maps of the same name too).

Design choices shared by all of them: observations are small normalised vectors (positions in
``[-1, 1]`` over the playable area, relative vectors, health fractions), so an MLP policy learns
from them in minutes on a CPU; actions are small discrete sets of *group* commands, decoded to
burnysc2 unit commands; the reward is the game's score delta (the minigame's own reward).
Each task has a ``scripted=True`` baseline for reference scores.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import gymnasium as gym
import numpy as np

from workers.sc2.tasks.base import DIRECTIONS8, GameSetup, MapFrame, Opponent, Task, TaskError, register_task

if TYPE_CHECKING:
    from sc2.bot_ai import BotAI
    from sc2.unit import Unit

BEACON_TYPES = {317, 318, 315, 316}  # Beacon_Terran(+Small), Beacon_Protoss(+Small)
SHARD_TYPES = {1680, 1681}  # NaturalMinerals (pysc2's shard), mineral field variants seen on maps


def _neutral(bot: BotAI, types: set[int] | None = None) -> list[Unit]:
    out = []
    for u in bot.all_units:
        if u.alliance != 3:  # Alliance.Neutral
            continue
        if types is None or u.type_id.value in types:
            out.append(u)
    return out


def _clip(v: float) -> float:
    return -1.0 if v < -1.0 else 1.0 if v > 1.0 else v


# --------------------------------------------------------------------------------------------------
@register_task("MoveToBeacon")
class MoveToBeacon(Task):
    """One marine walks to a beacon; +1 per beacon reached, a new one appears elsewhere; 120 s.

    Observation (8 floats in [-1, 1]): marine x, y; beacon x, y (normalised over the playable
    area); the marine-to-beacon vector divided by ``rel_scale`` (clipped); its unit direction.
    Action: ``Discrete(n_directions)``: walk ``move_distance`` cells in one of the compass
    directions (8 by default). With the relative vector in the observation this is almost a
    linear mapping, which PPO finds in a few tens of thousands of steps.
    """

    setup = GameSetup(map_name="mini_games/MoveToBeacon.SC2Map", game_step=8)

    def __init__(
        self, n_directions: int = 8, move_distance: float = 3.0, rel_scale: float = 16.0, scripted: bool = False
    ) -> None:
        super().__init__(scripted=scripted)
        if int(n_directions) < 2:
            raise TaskError(f"n_directions must be >= 2, got {n_directions}")
        self.n_directions = int(n_directions)
        self.move_distance = float(move_distance)
        self.rel_scale = float(rel_scale)
        ang = 2 * math.pi * np.arange(self.n_directions) / self.n_directions
        self._dirs = DIRECTIONS8 if self.n_directions == 8 else np.stack([np.cos(ang), np.sin(ang)], axis=1)
        self._frame: MapFrame | None = None
        self._last: tuple[int, float, float] | None = None  # (action, target x, target y)

    @property
    def observation_space(self) -> gym.Space[Any]:
        return gym.spaces.Box(-1.0, 1.0, (8,), np.float32)

    @property
    def action_space(self) -> gym.Space[Any]:
        return gym.spaces.Discrete(self.n_directions)

    def episode_start(self, bot: BotAI) -> None:
        super().episode_start(bot)
        self._frame = MapFrame(bot)
        self._last = None

    def _marine_and_beacon(self, bot: BotAI) -> tuple[Unit | None, Unit | None]:
        marine = bot.units.first if bot.units else None
        beacons = _neutral(bot, BEACON_TYPES) or _neutral(bot)
        beacon = None
        if beacons:
            beacon = beacons[0] if marine is None else min(beacons, key=lambda b: b.distance_to(marine))
        return marine, beacon

    def encode(self, bot: BotAI) -> np.ndarray:
        frame = self._frame or MapFrame(bot)
        obs = np.zeros(8, np.float32)
        marine, beacon = self._marine_and_beacon(bot)
        if marine is not None:
            obs[0:2] = frame.norm(marine.position.x, marine.position.y)
        if beacon is not None:
            obs[2:4] = frame.norm(beacon.position.x, beacon.position.y)
        if marine is not None and beacon is not None:
            dx = beacon.position.x - marine.position.x
            dy = beacon.position.y - marine.position.y
            d = math.hypot(dx, dy)
            obs[4] = _clip(dx / self.rel_scale)
            obs[5] = _clip(dy / self.rel_scale)
            if d > 1e-6:
                obs[6], obs[7] = dx / d, dy / d
        return obs

    def decode(self, bot: BotAI, action: Any) -> None:
        marine = bot.units.first if bot.units else None
        if marine is None:
            return
        frame = self._frame or MapFrame(bot)
        a = int(action) % self.n_directions
        x, y = marine.position.x, marine.position.y
        last = self._last
        if last is not None and last[0] == a and not marine.is_idle and math.hypot(last[1] - x, last[2] - y) > 1.5:
            return  # still walking that way with more than a step to go: no new command needed
        dx, dy = self._dirs[a] * self.move_distance
        target = frame.point(x + dx, y + dy)
        self._last = (a, target.x, target.y)
        marine.move(target)

    def scripted_decode(self, bot: BotAI) -> None:
        """Walk straight to the beacon (the classic scripted policy; ~25 per episode on real SC2)."""
        marine, beacon = self._marine_and_beacon(bot)
        if marine is not None and beacon is not None:
            marine.move(beacon.position)


# --------------------------------------------------------------------------------------------------
@register_task("CollectMineralShards")
class CollectMineralShards(Task):
    """Two marines collect mineral shards (+1 each; 20 more when all are gone); 120 s.

    Observation per marine: its position, then for its ``k_nearest`` nearest shards the relative
    vector (divided by 16, clipped) and a present flag. Action: ``MultiDiscrete([k+1, k+1])``:
    per marine, walk to its i-th nearest shard, or ``k`` = keep doing what it does.
    """

    setup = GameSetup(map_name="mini_games/CollectMineralShards.SC2Map", game_step=8)
    n_marines = 2

    def __init__(self, k_nearest: int = 5, scripted: bool = False) -> None:
        super().__init__(scripted=scripted)
        if int(k_nearest) < 1:
            raise TaskError(f"k_nearest must be >= 1, got {k_nearest}")
        self.k = int(k_nearest)
        self._frame: MapFrame | None = None

    @property
    def observation_space(self) -> gym.Space[Any]:
        return gym.spaces.Box(-1.0, 1.0, (self.n_marines * (3 + 3 * self.k),), np.float32)

    @property
    def action_space(self) -> gym.Space[Any]:
        return gym.spaces.MultiDiscrete([self.k + 1] * self.n_marines)

    def episode_start(self, bot: BotAI) -> None:
        super().episode_start(bot)
        self._frame = MapFrame(bot)

    def _marines(self, bot: BotAI) -> list[Unit]:
        return sorted(bot.units, key=lambda u: u.tag)[: self.n_marines]

    def _nearest(self, bot: BotAI, marine: Unit) -> list[Unit]:
        shards = _neutral(bot, SHARD_TYPES) or list(bot.mineral_field)
        return sorted(shards, key=lambda s: s.distance_to(marine))[: self.k]

    def encode(self, bot: BotAI) -> np.ndarray:
        frame = self._frame or MapFrame(bot)
        per = 3 + 3 * self.k
        obs = np.zeros(self.n_marines * per, np.float32)
        for m, marine in enumerate(self._marines(bot)):
            base = m * per
            obs[base] = 1.0
            obs[base + 1 : base + 3] = frame.norm(marine.position.x, marine.position.y)
            for j, shard in enumerate(self._nearest(bot, marine)):
                o = base + 3 + 3 * j
                obs[o] = _clip((shard.position.x - marine.position.x) / 16.0)
                obs[o + 1] = _clip((shard.position.y - marine.position.y) / 16.0)
                obs[o + 2] = 1.0
        return obs

    def decode(self, bot: BotAI, action: Any) -> None:
        acts = np.asarray(action).reshape(-1)
        for m, marine in enumerate(self._marines(bot)):
            a = int(acts[m]) if m < len(acts) else self.k
            if a >= self.k:
                continue
            near = self._nearest(bot, marine)
            if a < len(near):
                marine.move(near[a].position)

    def scripted_decode(self, bot: BotAI) -> None:
        """Greedy: each marine walks to its nearest shard not already targeted by the other."""
        taken: set[int] = set()
        for marine in self._marines(bot):
            for shard in self._nearest(bot, marine):
                if shard.tag not in taken:
                    taken.add(shard.tag)
                    marine.move(shard.position)
                    break


# --------------------------------------------------------------------------------------------------
class ArmyTask(Task):
    """Shared encoder/decoder for fights: own and enemy unit tables plus group commands.

    Observation: ``own_slots`` rows of (present, x, y, health fraction, weapon ready) for own units
    sorted by tag, then ``enemy_slots`` rows of (present, x, y, health fraction, weapon ready),
    then (own count, enemy count) / slots. Action ``Discrete(enemy_slots + 2)``: ``i < enemy_slots``
    = every own unit attacks enemy row ``i`` (focus fire); ``enemy_slots`` = attack-move to the
    enemy's centre (each unit fights what it meets); ``enemy_slots + 1`` = step back (kite).
    """

    own_slots = 16
    enemy_slots = 12
    features = 5

    def __init__(self, scripted: bool = False) -> None:
        super().__init__(scripted=scripted)
        self._frame: MapFrame | None = None

    @property
    def observation_space(self) -> gym.Space[Any]:
        n = (self.own_slots + self.enemy_slots) * self.features + 2
        return gym.spaces.Box(-1.0, 1.0, (n,), np.float32)

    @property
    def action_space(self) -> gym.Space[Any]:
        return gym.spaces.Discrete(self.enemy_slots + 2)

    def episode_start(self, bot: BotAI) -> None:
        super().episode_start(bot)
        self._frame = MapFrame(bot)

    def own(self, bot: BotAI) -> list[Unit]:
        return sorted(bot.units, key=lambda u: u.tag)[: self.own_slots]

    def enemies(self, bot: BotAI) -> list[Unit]:
        return sorted(bot.enemy_units, key=lambda u: u.tag)[: self.enemy_slots]

    def _rows(self, frame: MapFrame, units: list[Unit], out: np.ndarray) -> None:
        for i, u in enumerate(units):
            hp_max = u.health_max + u.shield_max
            out[i, 0] = 1.0
            out[i, 1:3] = frame.norm(u.position.x, u.position.y)
            out[i, 3] = (u.health + u.shield) / hp_max if hp_max > 0 else 0.0
            out[i, 4] = 1.0 if u.weapon_cooldown == 0 else 0.0

    def encode(self, bot: BotAI) -> np.ndarray:
        frame = self._frame or MapFrame(bot)
        own, enemy = self.own(bot), self.enemies(bot)
        a = np.zeros((self.own_slots, self.features), np.float32)
        b = np.zeros((self.enemy_slots, self.features), np.float32)
        self._rows(frame, own, a)
        self._rows(frame, enemy, b)
        counts = np.array(
            [min(len(bot.units) / self.own_slots, 1.0), min(len(bot.enemy_units) / self.enemy_slots, 1.0)], np.float32
        )
        return np.clip(np.concatenate([a.ravel(), b.ravel(), counts]), -1.0, 1.0)

    def decode(self, bot: BotAI, action: Any) -> None:
        a = int(action)
        own, enemy = self.own(bot), self.enemies(bot)
        if not own:
            return
        if a < self.enemy_slots:
            if a < len(enemy):
                target = enemy[a]
                for u in own:
                    u.attack(target)
                return
            a = self.enemy_slots  # empty row: attack-move instead
        if a == self.enemy_slots:
            goal = self._enemy_centre(bot, enemy)
            if goal is not None:
                for u in own:
                    u.attack(goal)
            return
        if enemy:  # kite: step away from the enemy centre
            frame = self._frame or MapFrame(bot)
            cx = sum(e.position.x for e in enemy) / len(enemy)
            cy = sum(e.position.y for e in enemy) / len(enemy)
            for u in own:
                dx, dy = u.position.x - cx, u.position.y - cy
                d = math.hypot(dx, dy) or 1.0
                u.move(frame.point(u.position.x + 3.0 * dx / d, u.position.y + 3.0 * dy / d))

    def _enemy_centre(self, bot: BotAI, enemy: list[Unit]) -> Any:
        if enemy:
            from sc2.position import Point2

            return Point2(
                (sum(e.position.x for e in enemy) / len(enemy), sum(e.position.y for e in enemy) / len(enemy))
            )
        if bot.enemy_start_locations:
            return bot.enemy_start_locations[0]
        return None

    def scripted_decode(self, bot: BotAI) -> None:
        """Focus fire: everyone attacks the weakest enemy (lowest health+shield)."""
        own, enemy = self.own(bot), self.enemies(bot)
        if not own:
            return
        if not enemy:
            goal = self._enemy_centre(bot, enemy)
            if goal is not None:
                for u in own:
                    if u.is_idle:
                        u.attack(goal)
            return
        target = min(enemy, key=lambda e: (e.health + e.shield, e.tag))
        for u in own:
            u.attack(target)


@register_task("DefeatRoaches")
class DefeatRoaches(ArmyTask):
    """9 marines vs 4 roaches; +10 per roach, -1 per marine; waves; 120 s or all marines dead."""

    setup = GameSetup(map_name="mini_games/DefeatRoaches.SC2Map", game_step=8)
    own_slots = 16
    enemy_slots = 8


@register_task("DefeatZerglingsAndBanelings")
class DefeatZerglingsAndBanelings(ArmyTask):
    """9 marines vs 6 zerglings + 4 banelings; +5 per kill, -1 per marine; waves; 120 s."""

    setup = GameSetup(map_name="mini_games/DefeatZerglingsAndBanelings.SC2Map", game_step=8)
    own_slots = 16
    enemy_slots = 12


@register_task("FindAndDefeatZerglings")
class FindAndDefeatZerglings(ArmyTask):
    """3 marines find and kill zerglings under fog of war; +1 per zergling, -1 per marine; 180 s.

    Observation: the :class:`ArmyTask` tables (own marines; the *visible* zerglings, nearest to
    the marines first) plus the marines' centre. Action ``Discrete(enemy_slots + 8)``:
    ``i < enemy_slots`` = every marine attacks visible zergling ``i``; ``enemy_slots + d`` =
    attack-move ``explore_distance`` cells in compass direction ``d`` (to search the fog).
    """

    setup = GameSetup(map_name="mini_games/FindAndDefeatZerglings.SC2Map", game_step=8)
    own_slots = 4
    enemy_slots = 8

    def __init__(self, explore_distance: float = 8.0, scripted: bool = False) -> None:
        super().__init__(scripted=scripted)
        self.explore_distance = float(explore_distance)
        self._waypoint = 0

    @property
    def observation_space(self) -> gym.Space[Any]:
        n = (self.own_slots + self.enemy_slots) * self.features + 4
        return gym.spaces.Box(-1.0, 1.0, (n,), np.float32)

    @property
    def action_space(self) -> gym.Space[Any]:
        return gym.spaces.Discrete(self.enemy_slots + 8)

    def episode_start(self, bot: BotAI) -> None:
        super().episode_start(bot)
        self._waypoint = 0

    def _centre(self, bot: BotAI) -> tuple[float, float] | None:
        own = list(bot.units)
        if not own:
            return None
        return (sum(u.position.x for u in own) / len(own), sum(u.position.y for u in own) / len(own))

    def enemies(self, bot: BotAI) -> list[Unit]:
        c = self._centre(bot)
        if c is None:
            return super().enemies(bot)
        key = lambda e: ((e.position.x - c[0]) ** 2 + (e.position.y - c[1]) ** 2, e.tag)  # noqa: E731
        return sorted(bot.enemy_units, key=key)[: self.enemy_slots]

    def encode(self, bot: BotAI) -> np.ndarray:
        base = super().encode(bot)
        frame = self._frame or MapFrame(bot)
        c = self._centre(bot)
        extra = np.zeros(2, np.float32)
        if c is not None:
            extra[:] = frame.norm(*c)
        return np.clip(np.concatenate([base, extra]), -1.0, 1.0)

    def decode(self, bot: BotAI, action: Any) -> None:
        a = int(action)
        own = self.own(bot)
        if not own:
            return
        if a < self.enemy_slots:
            enemy = self.enemies(bot)
            if a < len(enemy):
                for u in own:
                    u.attack(enemy[a])
                return
            a = self.enemy_slots  # no zergling in that row: explore east instead
        frame = self._frame or MapFrame(bot)
        c = self._centre(bot)
        assert c is not None
        dx, dy = DIRECTIONS8[(a - self.enemy_slots) % 8] * self.explore_distance
        goal = frame.point(c[0] + dx, c[1] + dy)
        for u in own:
            u.attack(goal)

    def _waypoints(self, bot: BotAI) -> list[tuple[float, float]]:
        """A lawn-mower sweep over the playable area, rows 8 apart (marine sight is 9)."""
        frame = self._frame or MapFrame(bot)
        pts: list[tuple[float, float]] = []
        ys = np.arange(frame.y0 + 4.0, frame.y0 + frame.h - 3.0, 8.0)
        for i, y in enumerate(ys):
            xs = (frame.x0 + 4.0, frame.x0 + frame.w - 4.0)
            pts.extend((x, float(y)) for x in (xs if i % 2 == 0 else xs[::-1]))
        return pts

    def scripted_decode(self, bot: BotAI) -> None:
        """Focus the nearest visible zergling; with none in sight, sweep the arena in rows."""
        own = self.own(bot)
        if not own:
            return
        enemy = self.enemies(bot)
        if enemy:
            for u in own:
                u.attack(enemy[0])
            return
        pts = self._waypoints(bot)
        c = self._centre(bot)
        assert c is not None
        wx, wy = pts[self._waypoint % len(pts)]
        if math.hypot(wx - c[0], wy - c[1]) < 3.0:
            self._waypoint += 1
            wx, wy = pts[self._waypoint % len(pts)]
        frame = self._frame or MapFrame(bot)
        goal = frame.point(wx, wy)
        for u in own:
            u.attack(goal)


@register_task("Skirmish")
class Skirmish(ArmyTask):
    """A small 1v1 against the built-in ``Computer`` (``opponent_race``, ``difficulty``).

    Victory/defeat terminate the episode; the game's time limit truncates it. Reward: score delta.
    """

    competitive = True

    own_slots = 24
    enemy_slots = 24
    #: The engine's Skirmish clock: 2 minutes at "faster" speed.
    time_limit_loops = int(120 * 22.4)

    def __init__(self, opponent_race: str = "zerg", difficulty: str = "easy", scripted: bool = False) -> None:
        super().__init__(scripted=scripted)
        self._setup = GameSetup(
            map_name="Skirmish.SC2Map", game_step=8, opponents=(Opponent(opponent_race, difficulty),)
        )

    def game_setup(self) -> GameSetup:
        return self._setup

    def outcome(self, bot: BotAI, result: Any) -> tuple[bool, bool]:
        """Both armies dying at once is a Tie that *terminates*; only the clock truncates."""
        if result.name == "Tie":
            out_of_time = bot.state.game_loop >= self.time_limit_loops - self._setup.game_step
            return (not out_of_time), out_of_time
        return True, False


@register_task("Battle100v100")
class Battle100v100(ArmyTask):
    """A large fight (100 vs 100) for throughput measurements; the unit tables see 32 per side."""

    setup = GameSetup(map_name="Battle100v100.SC2Map", game_step=8)
    own_slots = 32
    enemy_slots = 32
