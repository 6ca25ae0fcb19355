"""What every scenario provides: the map, the set-up, the rules run after each loop, the result."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from sc2pool.engine.maps import MapSpec
from sc2pool.engine.sim.world import Deaths, World

# Result values (sc2api_pb2.Result)
VICTORY, DEFEAT, TIE = 1, 2, 3
# PlayerType values
PARTICIPANT, COMPUTER, OBSERVER = 1, 2, 3
# Score types
CURRICULUM, MELEE = 1, 2

GAME_SECOND = 16
"""Loops per game second of the map's trigger clock (normal speed).

The mini-game maps' timers count game seconds, so pysc2's "120 s" limit is 1920 loops (240 agent
steps at step_mul 8); burnysc2's ``self.time`` (22.4 loops/s) shows 85.7 s when it expires.
"""


class ScriptedPlayer(Protocol):
    """A player the game runs inside :meth:`Game.step`: the mini-games' :class:`~sc2pool.engine.computer.ComputerAI`, the
    melee game's Computer."""

    def act(self, world: World) -> None:
        """Decide and command (through :meth:`World.command`) if a decision is due."""

    def horizon(self, loop: int) -> int:
        """Loops until its next decision (>= 1): the game does not step past it."""


class SetupError(ValueError):
    """The player setup does not fit the scenario (mapped to ResponseCreateGame.InvalidPlayerSetup)."""


@dataclass(frozen=True)
class PlayerSlot:
    player_id: int
    type: int
    race: int
    difficulty: int = 0
    ai_build: int = 0
    name: str = ""


class Scenario:
    """Base class.  Subclasses set the class attributes and override :meth:`setup`/:meth:`after_loop`.

    The game calls, in this order: ``__init__`` (validates the setup), ``setup`` once per episode,
    then per simulated chunk ``horizon`` (how many loops may be fast-forwarded without missing a
    rule), ``after_loop`` with the deaths of that chunk.  ``score`` holds each player's cumulative
    score (what ``score.score`` reports) and ``result`` is set once the episode is decided.
    """

    name: str = ""
    map: MapSpec
    time_limit: int = 120 * GAME_SECOND
    score_type: int = CURRICULUM
    single_player: bool = True
    fog: bool = False
    """Fog of war: enemy units are observed only on cells the player's units see (unless the game
    was created with ``disable_fog``)."""
    """Mini-games: exactly one participant; the opposing units (player 2) belong to the map."""

    def __init__(self, players: list[PlayerSlot]) -> None:
        self.players = players
        if self.single_player:
            if len(players) != 1 or players[0].type != PARTICIPANT:
                raise SetupError(f"{self.name} is a single-player map: give exactly one Participant")
        self.score: dict[int, int] = {p.player_id: 0 for p in players}
        self.result: dict[int, int] | None = None
        self.world: World = World(self.map)
        self.rng: np.random.Generator = np.random.default_rng(0)
        self.computers: Sequence[ScriptedPlayer] = []
        """Scripted players the game runs inside ``step`` (Computer slots, the map's own army)."""

    # ------------------------------------------------------------------ hooks
    def start(self, world: World, rng: np.random.Generator) -> None:
        self.world = world
        self.rng = rng
        world.rng = np.random.default_rng(int(rng.integers(1 << 62)))  # its own stream, same seed
        self.setup()

    def setup(self) -> None:
        raise NotImplementedError

    def horizon(self) -> int:
        """Loops that may pass before :meth:`after_loop` must run again (>= 1)."""
        return 1 << 30

    def after_loop(self, deaths: Deaths) -> None:
        """Rules after a loop (or a fast-forwarded chunk): rewards, respawns, waves, end."""

    def race_actual(self, player_id: int) -> int:
        """The race a player actually plays (``PlayerInfo.race_actual``): the scenario's units
        decide; mini-games and the stress battle field Terran marines."""
        return 1  # Terran

    def time_up(self) -> None:
        """The time limit expired: default is a tie for everybody."""
        self.finish(dict.fromkeys(self.score, TIE))

    # ------------------------------------------------------------------ helpers
    def finish(self, result: dict[int, int]) -> None:
        if self.result is None:
            self.result = result

    def random_points(self, k: int, margin: float) -> tuple[np.ndarray, np.ndarray]:
        x0, y0, x1, y1 = self.map.playable
        xs = self.rng.uniform(x0 + margin, x1 - margin, k)
        ys = self.rng.uniform(y0 + margin, y1 - margin, k)
        return xs, ys

    def random_point_away(self, margin: float, away: list[tuple[float, float]], min_dist: float) -> tuple[float, float]:
        """A uniform point in the arena at least ``min_dist`` from every point of ``away``."""
        for _ in range(1000):
            xs, ys = self.random_points(1, margin)
            px, py = float(xs[0]), float(ys[0])
            if all((px - ax) ** 2 + (py - ay) ** 2 >= min_dist * min_dist for ax, ay in away):
                return px, py
        return px, py

    def sample_points(self, k: int, margin: float, *, away: Sequence[tuple[float, float]] = (),
                      min_away: float = 0.0, apart: float = 0.0, around: tuple[float, float] | None = None,
                      r_min: float = 0.0, r_max: float = np.inf,
                      taken: Sequence[tuple[float, float]] = ()) -> list[tuple[float, float]]:
        """``k`` uniform points in the arena (``margin`` from its edge) by rejection: each at least
        ``min_away`` from every point of ``away``, at least ``apart`` from every other point (and
        from ``taken``), and, with ``around``, between ``r_min`` and ``r_max`` from it.

        After 2000 rejected draws for one point the last draw is kept: the rules of the real
        maps always leave room, so this only guards against a loop without end.
        """
        pts: list[tuple[float, float]] = []
        others = list(taken)
        for _ in range(k):
            for _ in range(2000):
                xs, ys = self.random_points(1, margin)
                px, py = float(xs[0]), float(ys[0])
                if around is not None:
                    r = float(np.hypot(px - around[0], py - around[1]))
                    if r < r_min or r > r_max:
                        continue
                if any((px - ax) ** 2 + (py - ay) ** 2 < min_away * min_away for ax, ay in away):
                    continue
                if any((px - ax) ** 2 + (py - ay) ** 2 < apart * apart for ax, ay in others):
                    continue
                break
            pts.append((px, py))
            others.append((px, py))
        return pts

    def column(self, n: int, x: float, spacing: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
        """``n`` positions in a vertical line at ``x`` centred in the arena."""
        _, y0, _, y1 = self.map.playable
        spacing = min(spacing, (y1 - y0 - 2.0) / max(n, 1))
        cy = (y0 + y1) / 2.0
        ys = cy + (np.arange(n) - (n - 1) / 2.0) * spacing
        return np.full(n, x), ys

    def units_of(self, owner: int, unit_ids: tuple[int, ...] | None = None) -> np.ndarray:
        """Rows of ``owner``'s units (optionally only the given types)."""
        u = self.world.u
        m = u.owner == owner
        if unit_ids is not None:
            if len(unit_ids) == 1:
                m &= u.unit_id == unit_ids[0]
            else:
                m &= np.isin(u.unit_id, np.array(unit_ids))
        return np.nonzero(m)[0]
