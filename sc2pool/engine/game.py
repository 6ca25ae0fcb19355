"""The Game API: protobuf requests in, protobuf responses out, for one game of one scenario.

The server (``sc2pool.engine.server``) owns the connection and the status state machine and calls
this object for everything game-related.  Nothing here imports burnysc2: the engine stands in for
the real game binary and speaks s2clientprotocol only.

Contract notes for the server:
- :meth:`Game.data` is identical for the whole process: cache its bytes per request flags.
- :meth:`Game.game_info` is constant for an episode: cache per game and drop the cache on
  :meth:`Game.restart` (a Random race may be re-rolled) and after the first :meth:`Game.join`
  (a participant's race arrives with join_game).
- :meth:`Game.observation_bytes` is the fast path (the serialized ``ResponseObservation``);
  :meth:`Game.observation` parses the same bytes.  Each call hands out the ``dead_units`` events
  and the ``alerts`` (``sim/systems/alerts.py``) gathered since that player's previous observation.
- :attr:`Game.ended` turns true inside :meth:`step` (or on debug end/kill, :meth:`leave`);
  switch the status to ``ended`` only on step/observation responses (burnysc2 reads the game result
  after any reply that leaves ``in_game``, and only an observation carries ``player_result``).
  Observations carry ``player_result`` for every player once ended.
- Two participants (bot vs bot, Skirmish/Battle100v100) join in order and get player ids 1 and 2;
  :meth:`step` advances the shared game, so a lockstep server calls it once per joint step.

Game semantics (what a bot sees):
- Scenario = basename of ``local_map.map_path`` (sub-folders and case ignored):
  :func:`scenario_names`.  Mini-game limits are 120 game seconds = 1920 loops (``self.time``
  shows 85.7 s; FindAndDefeatZerglings 180 s = 2880 loops), ending in a Tie; losing every
  marine is a Defeat.  ``score.score`` is the
  cumulative reward (Curriculum score); the Skirmish reports a Melee score (value killed).
- Fog of war only where the mini-game has it (FindAndDefeatZerglings, unless ``disable_fog``):
  elsewhere every unit is visible.  Ground units collide; open flat arenas (pathing distance =
  straight line); the economy scenarios (CollectMineralsAndGas, BuildMarines, TerranEconomy)
  run a Terran economy, the others are fights and mini-games.
- Orders are reported with the specific ability ids the real client uses (16 MOVE_MOVE,
  23 ATTACK_ATTACK, 18 HOLDPOSITION_HOLD, 17 PATROL_PATROL, 42 EXPLODE_EXPLODE); an idle unit
  fighting an automatically acquired target shows ATTACK_ATTACK on that target.  Generic ids
  (3794 MOVE, 3674 ATTACK, ...) are accepted in commands.
- Same seed + same requests => byte-identical observations; :meth:`restart` moves to the next
  seed of a deterministic sequence derived from the first one.
"""

from __future__ import annotations

import dataclasses
import math
import secrets
from pathlib import PurePosixPath

import numpy as np
from s2clientprotocol import debug_pb2, query_pb2, raw_pb2
from s2clientprotocol import sc2api_pb2 as sc_pb

from sc2pool.engine import data as D
from sc2pool.engine.kernels import native as _native
from sc2pool.engine.maps import TERRAIN_Z
from sc2pool.engine.scenarios import SCENARIOS, Scenario
from sc2pool.engine.scenarios.base import (
    COMPUTER,
    DEFEAT,
    OBSERVER,
    PARTICIPANT,
    VICTORY,
    PlayerSlot,
    SetupError,
)
from sc2pool.engine.sim.commands import (
    ERROR,
    MUST_TARGET_WALKABLE_LOCATION,
    NOT_SUPPORTED,
    SUCCESS,
)
from sc2pool.engine.sim.encode import (
    SMALL,
    UNIT_BODY_LEN,
    UNIT_RECORD,
    encode_order,
    encode_records,
    encode_single_orders,
    encode_units,
    pad2,
    tag_bytes,
    unit_records,
    varint,
    wrap,
)
from sc2pool.engine.sim.units import (
    ATTACK_MOVE,
    ATTACK_UNIT,
    ECON,
    FOLLOW,
    IDLE,
    MOVE,
    N_KINDS,
    NEUTRAL_OWNER,
    PATROL,
    TRANSFORM,
    TYPES,
)
from sc2pool.engine.sim.world import World

_IS_WORKER = np.isin(TYPES.unit_id, [D.SCV, 84, 104])
"""Per type row: a worker (SCV, Probe, Drone), which ``food_workers`` counts and ``food_army`` not."""
LARVA_TYPE = 151

_RCG = sc_pb.ResponseCreateGame
_RJG = sc_pb.ResponseJoinGame
MAX_UNITS = 2000
"""Debug-created units are capped: the engine is built for hundreds of units, not millions."""
_TWO_PI = 2.0 * math.pi
# order kind -> what the reported order targets (encode_single_orders' kinds): 1 a point, 2 a unit
# (IDLE: fighting an automatically acquired target), 0 nothing
_ORDER_TARGET = np.zeros(N_KINDS, dtype=np.int64)
_ORDER_TARGET[[MOVE, ATTACK_MOVE, PATROL]] = 1
_ORDER_TARGET[[ATTACK_UNIT, FOLLOW, IDLE]] = 2
_SNAPSHOT = b"\x08\x02\x50\x00\x90\x01\x00\x98\x01\x00"
"""Unit fields of a snapshot, after the record: display_type Snapshot, cloak CloakedUnknown (0),
mineral and vespene contents 0 (the real client reports no contents for resources it does not
see, and cloak 0 for every snapshot in python-sc2's captures: burnysc2's ``can_be_attacked`` is
then False, so bots do not pick remembered structures as targets)."""
_SNAPSHOT_TAIL = (b"", _SNAPSHOT)
"""Indexed by a unit's snapshot flag: the bytes appended to its record."""


def _visibility_parts(vis: np.ndarray, width: int, height: int) -> tuple[bytes, np.ndarray]:
    """``ResponseObservation.observation.raw_data.map_state.visibility`` holding the grid ``vis``
    (one byte per cell, ``width`` x ``height``) as (every key and length before the grid's bytes,
    the grid): the bytes protobuf serializes for it, without copying the grid through messages."""
    size = b"\x08" + varint(width) + b"\x10" + varint(height)  # (proto2: fields set are written, zeros too)
    n = vis.nbytes
    head = b"\x08\x08\x12" + varint(len(size)) + size + b"\x1a" + varint(n)  # ImageData
    head = b"\x0a" + varint(len(head) + n) + head  # MapState.visibility
    head = b"\x1a" + varint(len(head) + n) + head  # ObservationRaw.map_state
    head = b"\x2a" + varint(len(head) + n) + head  # Observation.raw_data
    return b"\x1a" + varint(len(head) + n) + head, vis  # ResponseObservation.observation


def _alliance(mine: np.ndarray, owner: np.ndarray) -> np.ndarray:
    """``Unit.alliance`` per row: Self 1 (``mine``), Neutral 3, Enemy 4."""
    return np.where(mine, 1, np.where(owner == NEUTRAL_OWNER, 3, 4))


class GameError(Exception):
    """A request the game refuses.  ``str(e)`` goes into ``Response.error``; ``code`` (optional) is a
    typed error value for the response, e.g. ``ResponseCreateGame.InvalidMapPath``."""

    def __init__(self, message: str, code: int | None = None) -> None:
        super().__init__(message)
        self.code = code


def scenario_names() -> list[str]:
    """Map basenames the engine knows (the scenario is picked by the map file's basename)."""
    return list(SCENARIOS)


def _map_basename(path: str) -> str:
    name = PurePosixPath(path.replace("\\", "/")).name
    if name.lower().endswith(".sc2map"):
        name = name[: -len(".sc2map")]
    return name


def _scenario_class(path: str) -> type[Scenario]:
    """The scenario a map path names: an engine scenario by its basename, else a real ladder map
    (the file itself, or one found in ``$SC2PATH/Maps`` or the bundled maps by name) played as a
    melee game."""
    name = _map_basename(path)
    cls = SCENARIOS.get(name)
    if cls is None:
        lowered = {k.lower(): v for k, v in SCENARIOS.items()}
        cls = lowered.get(name.lower())
    if cls is not None:
        return cls
    from sc2pool.engine.scenarios.melee import melee_scenario
    from sc2pool.engine.terrain import MapReadError, find_map
    from sc2pool.engine.terrain.catalogue import default_maps_dirs

    dirs = default_maps_dirs()
    real = None
    rel = PurePosixPath(path.replace("\\", "/"))
    for d in dirs:  # burnysc2 sends the path relative to $SC2PATH/Maps
        candidate = d / rel
        if candidate.is_file():
            real = find_map(str(candidate), dirs)
            break
    if real is None:
        real = find_map(path, dirs)
    if real is None:
        raise GameError(f"Unknown map {path!r}: the engine plays the scenarios {', '.join(SCENARIOS)} and real "
                        "ladder maps (.SC2Map files; `sc2pool engine maps` lists them)", code=_RCG.InvalidMapPath)
    try:
        return melee_scenario(str(real), name=name)
    except MapReadError as exc:
        raise GameError(str(exc), code=_RCG.InvalidMapData) from exc


def _next_seed(base: int, episode: int) -> int:
    return int(np.random.SeedSequence([base, episode]).generate_state(1)[0])


class Game:
    """One game: a scenario, its players, the simulated world and the protocol views of it."""

    _counts_cache: tuple[int, dict[int, tuple[int, int, int, int, int] | None]] = (-1, {})
    _records_cache: tuple[int, dict[int, np.ndarray]] = (-1, {})
    """(unit-set version, :meth:`_unit_counts` / :meth:`_unit_records` per player at it) (class
    defaults, so that a game pickled before these fields existed still loads)."""

    def __init__(self, cls: type[Scenario], slots: list[PlayerSlot], seed: int, map_path: str,
                 realtime: bool = False, disable_fog: bool = False) -> None:
        self._cls = cls
        self._slots = slots
        self.base_seed = seed
        self.map_path = map_path
        self.realtime = realtime
        self.disable_fog = disable_fog
        self._episode = 0
        self._joined: list[int] = []
        self._left: set[int] = set()
        self._reset(seed)

    # ------------------------------------------------------------------ lifecycle
    @classmethod
    def create(cls, req: sc_pb.RequestCreateGame) -> Game:
        if not req.HasField("local_map"):
            if req.battlenet_map_name:
                raise GameError("Battle.net maps are not available: use local_map", code=_RCG.InvalidMapName)
            raise GameError("create_game needs local_map.map_path", code=_RCG.MissingMap)
        path = req.local_map.map_path
        if not path:
            raise GameError("create_game: local_map.map_path is empty", code=_RCG.MissingMap)
        scen = _scenario_class(path)
        if not req.player_setup:
            raise GameError("create_game: player_setup is empty", code=_RCG.MissingPlayerSetup)
        slots: list[PlayerSlot] = []
        for i, ps in enumerate(req.player_setup, start=1):
            if ps.type == OBSERVER:
                raise GameError("observers are not supported", code=_RCG.InvalidPlayerSetup)
            if ps.type not in (PARTICIPANT, COMPUTER):
                raise GameError(f"player_setup[{i - 1}]: unknown player type {ps.type}", code=_RCG.InvalidPlayerSetup)
            diff = 0
            build = 0
            if ps.type == COMPUTER:
                diff = ps.difficulty if ps.HasField("difficulty") else sc_pb.Medium
                if diff not in range(1, 11):
                    raise GameError(f"player_setup[{i - 1}]: bad difficulty {diff}", code=_RCG.InvalidPlayerSetup)
                build = ps.ai_build if ps.HasField("ai_build") else sc_pb.RandomBuild
            slots.append(PlayerSlot(i, ps.type, ps.race, diff, build, ps.player_name))
        seed = req.random_seed if req.HasField("random_seed") else secrets.randbits(32)
        try:
            return cls(scen, slots, seed, path, realtime=req.realtime, disable_fog=req.disable_fog)
        except SetupError as e:
            raise GameError(str(e), code=_RCG.InvalidPlayerSetup) from e

    def _reset(self, seed: int) -> None:
        self.seed = seed
        self.rng = np.random.default_rng(seed)
        self.scenario: Scenario = self._cls(self._slots)
        self.world = World(self.scenario.map)
        self.scenario.start(self.world, self.rng)
        self._forced_result: dict[int, int] | None = None
        self._dead_cursor: dict[int, int] = {}
        self._game_info: dict[int, sc_pb.ResponseGameInfo] = {}
        self._left = set()
        self._leave_result: dict[int, int] | None = None
        self._const_obs: dict[int, bytes] = {}
        self._creep_cache: tuple[int, bytes] | None = None
        self._pc_cache: dict[tuple[int, int, int, int], bytes] = {}
        self._counts_cache = (-1, {})  # (a new world's versions start again)
        self._records_cache = (-1, {})
        self._fog = bool(self.scenario.fog) and not self.disable_fog
        self._chat: dict[int, list[tuple[int, str]]] = {}
        self._action_errors: dict[int, list[tuple[int, int, int]]] = {}
        """Commands refused since a player's last observation: (unit tag, ability, ActionResult)."""
        """Chat each player has not observed yet: (sender, message)."""
        self._info_key: dict[int, object] = {}

    def restart(self) -> None:
        """Same map and players, fresh state; the seed follows a deterministic sequence."""
        self._episode += 1
        self._reset(_next_seed(self.base_seed, self._episode))

    def join(self, req: sc_pb.RequestJoinGame) -> int:
        """Take the next free participant slot.  burnysc2 sends a participant's race only here
        (not in ``create_game``): a concrete race that differs from the set-up one re-creates the
        (not yet observed) episode with the same seed so the army matches the race."""
        if req.HasField("observed_player_id"):
            raise GameError("observers are not supported", code=_RJG.FeatureUnsupported)
        for i, s in enumerate(self._slots):
            if s.type == PARTICIPANT and s.player_id not in self._joined:
                self._joined.append(s.player_id)
                if req.race in (D.TERRAN, D.ZERG, D.PROTOSS) and req.race != s.race:
                    self._slots[i] = dataclasses.replace(s, race=req.race)
                    try:
                        self._reset(self.seed)
                    except SetupError as e:
                        self._joined.remove(s.player_id)
                        self._slots[i] = s
                        self._reset(self.seed)
                        raise GameError(str(e), code=_RJG.FeatureUnsupported) from e
                return s.player_id
        raise GameError("All participant slots are taken", code=_RJG.GameFull)

    def leave(self, player_id: int) -> None:
        """The player leaves: it loses, everybody else wins (if the game was still on).

        While another player is still in the game the result comes with the next game loop, not
        at the loop both already reached: the game has not simulated the leave yet. In lockstep
        both bots see the same loop, and one that returns at burnysc2's ``game_time_limit`` and
        leaves would otherwise turn the other's observation of that same loop into a Victory or
        not, by which request reached the server first."""
        self._left.add(player_id)
        if not self.ended:
            result = {s.player_id: DEFEAT if s.player_id == player_id else VICTORY for s in self._slots}
            if any(p not in self._left for p in self._joined):
                self._leave_result = result  # applied by the next step
            else:
                self._forced_result = result

    @property
    def game_loop(self) -> int:
        return self.world.loop

    @property
    def ended(self) -> bool:
        return self._forced_result is not None or self.scenario.result is not None

    @property
    def results(self) -> dict[int, int] | None:
        """player_id -> Result value once the game is decided."""
        if self._forced_result is not None:
            return self._forced_result
        return self.scenario.result

    def _check_player(self, player_id: int) -> None:
        if not any(s.player_id == player_id for s in self._slots):
            raise GameError(f"Unknown player_id {player_id}")

    # ------------------------------------------------------------------ static info
    def data(self, req: sc_pb.RequestData) -> sc_pb.ResponseData:
        return D.response_data_for(req.ability_id, req.unit_type_id, req.upgrade_id, req.buff_id, req.effect_id)

    def _race_actual(self, slot: PlayerSlot) -> int:
        return self.scenario.race_actual(slot.player_id)

    def game_info_version(self, player_id: int) -> object:
        """Changes whenever :meth:`game_info` would answer differently (on ladder maps the
        pathing grid follows the blockers the player knows of: :meth:`Vision.pathing_grid_key`;
        at loop 0 it is the real client's start grid): a server caches its bytes per version."""
        if not self.scenario.map.has_terrain:
            return 0
        w = self.world
        if w.loop == 0:
            return 0
        return w.vision.pathing_grid_key(player_id)

    def game_info(self, player_id: int) -> sc_pb.ResponseGameInfo:
        key = self.game_info_version(player_id)
        cached = self._game_info.get(player_id)
        if cached is not None and self._info_key.get(player_id) == key:
            return cached
        m = self.scenario.map
        melee = m.has_terrain
        gi = sc_pb.ResponseGameInfo(map_name=self.scenario.name, local_map_path=self.map_path)
        for s in self._slots:
            pi = gi.player_info.add(player_id=s.player_id, type=s.type, race_requested=s.race)
            if not melee or s.player_id == player_id:  # (the real client hides the others' actual race)
                pi.race_actual = self._race_actual(s)  # type: ignore[assignment]
            if s.name:
                pi.player_name = s.name
            if s.type == COMPUTER:
                pi.difficulty = s.difficulty
                pi.ai_build = s.ai_build
        if melee:
            own = getattr(self.scenario, "starts", {}).get(player_id)
            gi.start_raw.CopyFrom(m.start_raw_for(own))
            if self.world.loop > 0 or own is None:
                grid = self.world.vision.pathing_grid(player_id)
                gi.start_raw.pathing_grid.data = np.packbits(grid.reshape(-1)).tobytes()
        else:
            gi.start_raw.CopyFrom(m.start_raw)
            for i, (x, y) in enumerate(m.start_locations, start=1):
                if i != player_id and any(s.player_id == i for s in self._slots):
                    gi.start_raw.start_locations.add(x=x, y=y)
        gi.options.raw = True
        gi.options.score = True
        gi.options.raw_crop_to_playable_area = False
        self._game_info[player_id] = gi
        self._info_key[player_id] = key
        return gi

    # ------------------------------------------------------------------ stepping
    def step(self, count: int) -> None:
        """Advance ``count`` game loops (scripted players act inside); stops early once decided."""
        if count < 0:
            raise GameError(f"step count must be >= 0, got {count}")
        w = self.world
        scen = self.scenario
        if self._leave_result is not None and count > 0:
            if not self.ended:
                self._forced_result = self._leave_result
            self._leave_result = None
        target = w.loop + count
        limit = scen.time_limit
        while w.loop < target and not self.ended:
            for c in scen.computers:
                c.act(w)
            h = min(target - w.loop, limit - w.loop)
            if h > 1:
                h = min(h, scen.horizon(), w.horizon())
                for c in scen.computers:
                    h = min(h, c.horizon(w.loop))
            deaths = w.advance(h)
            scen.after_loop(deaths)
            if w.loop >= limit and scen.result is None:
                scen.time_up()

    # ------------------------------------------------------------------ actions
    def action(self, player_id: int, req: sc_pb.RequestAction) -> sc_pb.ResponseAction:
        self._check_player(player_id)
        resp = sc_pb.ResponseAction()
        results = []
        m = self.scenario.map
        x0, y0, x1, y1 = m.playable
        for act in req.actions:
            if act.HasField("action_raw"):
                raw = act.action_raw
                if raw.HasField("unit_command"):
                    uc = raw.unit_command
                    pos = None
                    if uc.HasField("target_world_space_pos"):
                        p = uc.target_world_space_pos
                        if not (math.isfinite(p.x) and math.isfinite(p.y)):
                            results.append(MUST_TARGET_WALKABLE_LOCATION)
                            continue
                        pos = (min(max(p.x, x0 + 0.5), x1 - 0.5), min(max(p.y, y0 + 0.5), y1 - 0.5))
                    ttag = uc.target_unit_tag if uc.HasField("target_unit_tag") else 0
                    res = self.world.command(player_id, uc.ability_id, list(uc.unit_tags), pos, ttag, uc.queue_command)
                    results.append(res)
                    if res != SUCCESS and m.has_terrain and uc.unit_tags:
                        # the real client reports a refused command in the next observation
                        self._action_errors.setdefault(player_id, []).append((uc.unit_tags[0], uc.ability_id, res))
                elif raw.HasField("camera_move") or raw.HasField("toggle_autocast"):
                    results.append(SUCCESS)
                else:
                    results.append(ERROR)
            elif act.HasField("action_chat"):
                # the real client shows a player's chat to every player, the sender included
                for sl in self._slots:
                    self._chat.setdefault(sl.player_id, []).append((player_id, act.action_chat.message))
                results.append(SUCCESS)
            else:
                results.append(NOT_SUPPORTED)
        resp.result.extend(results)
        return resp

    # ------------------------------------------------------------------ observation
    def observation(self, player_id: int, req: sc_pb.RequestObservation | None = None) -> sc_pb.ResponseObservation:
        """The player's observation (consumes the player's pending ``dead_units`` events)."""
        return sc_pb.ResponseObservation.FromString(self.observation_bytes(player_id, req))

    def observation_bytes(self, player_id: int, req: sc_pb.RequestObservation | None = None) -> bytes:
        """Serialized ``ResponseObservation``: what :meth:`observation` returns, without the parse.

        The unit list is encoded straight from the numpy columns (:mod:`sc2pool.engine.sim.encode`)
        and appended as a second ``observation.raw_data`` occurrence, which protobuf merges.  A
        server can embed these bytes as ``Response.observation`` directly.
        """
        self._check_player(player_id)
        w = self.world
        u = w.u
        scen = self.scenario
        resp = sc_pb.ResponseObservation()
        obs = resp.observation
        obs.game_loop = w.loop
        score = obs.score
        score.score_type = scen.score_type  # type: ignore[assignment]
        score.score = int(scen.score.get(player_id, 0))
        if w.has_economy:  # collected and spent resources in the score details
            sd = score.score_details
            ledger = w.supply
            sd.collected_minerals = ledger.collected_minerals.get(player_id, 0)
            sd.collected_vespene = ledger.collected_vespene.get(player_id, 0)
            sd.spent_minerals = ledger.spent_minerals.get(player_id, 0)
            sd.spent_vespene = ledger.spent_vespene.get(player_id, 0)
        res = self.results
        if res is not None:
            for s in self._slots:
                resp.player_result.add(player_id=s.player_id, result=res.get(s.player_id, sc_pb.Tie))
        chat = self._chat.pop(player_id, None)
        if chat:
            for sender, message in chat:
                resp.chat.add(player_id=sender, message=message)
        errors = self._action_errors.pop(player_id, None)
        if errors:
            for tag, ability, result in errors[-64:]:
                resp.action_errors.add(unit_tag=tag, ability_id=ability, result=result)  # type: ignore[arg-type]
        alerts = w.alerts.take(player_id)  # (raised by the systems since its last observation)
        if alerts:
            obs.alerts.extend(alerts)  # type: ignore[arg-type]
        parts = [resp.SerializeToString(), self._player_common_bytes(player_id), self._const_obs_bytes(player_id)]
        if w.creep.active:  # (Zerg creep: overrides the constant part's empty image)
            parts.append(self._creep_bytes())
        if w.has_economy and w.research.done:  # finished upgrades: raw_data.player.upgrade_ids
            up = w.research.player_bytes(player_id)
            if up:
                parts.append(wrap(3, wrap(5, up)))
        if w.has_economy and w.power.active:  # Protoss power fields: raw_data.player.power_sources
            ps = w.power.player_bytes(player_id)
            if ps:
                parts.append(wrap(3, wrap(5, ps)))
        cur = self._dead_cursor.get(player_id, 0)
        if cur < len(w.dead_tags):
            ev = raw_pb2.ObservationRaw()
            ev.event.dead_units.extend(w.dead_tags[cur:])
            self._dead_cursor[player_id] = len(w.dead_tags)
            parts.append(wrap(3, wrap(5, ev.SerializeToString())))
        keep = None
        snapshot = None
        if self._fog:
            vis = w.vision.visibility(player_id)
            parts += _visibility_parts(vis, scen.map.width, scen.map.height)
            if len(u):
                if scen.map.has_terrain:  # structures seen before and unseen neutrals stay as snapshots
                    keep, snapshot = w.vision.observed_with_snapshots(player_id, vis)
                else:
                    keep = w.vision.observed(player_id, vis)
        inside = w.harvest.inside
        if inside and len(u):  # workers inside a refinery are unseen
            rows = u.rows(np.fromiter(inside, dtype=np.int64, count=len(inside)))
            hidden = np.zeros(len(u), dtype=bool)
            hidden[rows[rows >= 0]] = True  # (np.isin would sort both every observation)
            keep = ~hidden if keep is None else keep & ~hidden
        if len(u) and w.detection.active():  # cloaked units the player does not detect are unseen
            hidden = w.detection.hidden(player_id)
            keep = ~hidden if keep is None else keep & ~hidden
        if len(u):
            parts.append(wrap(3, wrap(5, self._encode_units(player_id, u.owner == player_id, keep, snapshot))))
        if w.has_economy:  # spells on the map: raw_data.effects and the units shown for some
            spells = w.effects.raw_bytes(player_id, vis if self._fog else None, self._z_at)
            if spells:
                parts.append(wrap(3, wrap(5, spells)))
        return b"".join(parts)

    def _z_at(self, x: float, y: float) -> float:
        return float(self.scenario.map.z(x, y))

    def _creep_bytes(self) -> bytes:
        """``observation.raw_data.map_state.creep``: the creep grid, one bit per cell
        (``sim/systems/creep.py``); cached per change of the grid."""
        creep = self.world.creep
        got = self._creep_cache
        if got is None or got[0] != creep.revision:
            scen = self.scenario
            raw = raw_pb2.ObservationRaw()
            img = raw.map_state.creep
            img.bits_per_pixel = 1
            img.size.x, img.size.y = scen.map.width, scen.map.height
            img.data = creep.image_bytes()
            got = self._creep_cache = (creep.revision, wrap(3, wrap(5, raw.SerializeToString())))
        return got[1]

    def _const_obs_bytes(self, player_id: int) -> bytes:
        """``observation.raw_data`` parts that never change in a game: camera (the map's centre; on
        a ladder map the player's own start, as the real client), map state."""
        got = self._const_obs.get(player_id)
        if got is None:
            scen = self.scenario
            raw = raw_pb2.ObservationRaw()
            cx, cy = getattr(scen, "starts", {}).get(player_id, scen.map.center)
            raw.player.camera.x = cx
            raw.player.camera.y = cy
            if not self._fog:
                raw.map_state.visibility.CopyFrom(scen.map.visibility_all)
            raw.map_state.creep.CopyFrom(scen.map.creep_none)
            got = self._const_obs[player_id] = wrap(3, wrap(5, raw.SerializeToString()))
        return got

    def _player_common_bytes(self, player_id: int) -> bytes:
        """``observation.player_common``: cached per unit set, ledger revision and idle workers
        (a worker goes idle when its move ends, with neither of the others changing)."""
        u = self.world.u
        w = self.world
        idle = w.workers.idle_workers(player_id) if w.has_economy else 0
        key = (player_id, u.version, w.supply.revision if w.has_economy else 0, idle)
        got = self._pc_cache.get(key)
        if got is not None:
            return got
        pc = sc_pb.PlayerCommon(player_id=player_id, food_cap=200)
        counts = self._unit_counts(player_id)
        if counts is not None:
            pc.food_used, pc.food_army, pc.food_workers, pc.army_count, larvae = counts
        if w.has_economy:  # resources, supply from structures and queues
            ledger = w.supply
            pc.minerals = ledger.minerals.get(player_id, 0)
            pc.vespene = ledger.vespene.get(player_id, 0)
            pc.food_used, pc.food_cap = ledger.food(player_id)
            pc.idle_worker_count = idle
            if w.larva.active:
                pc.larva_count = larvae if counts is not None else 0
        got = wrap(3, wrap(1, pc.SerializeToString()))
        if len(self._pc_cache) > 16:
            self._pc_cache.clear()
        self._pc_cache[key] = got
        return got

    def _unit_counts(self, player_id: int) -> tuple[int, int, int, int, int] | None:
        """The player's (food used, food of its army, workers, army units, larvae) from its units
        (None: it has none), cached per unit-set version (owners and types change only with it;
        supply and resources change more often, so :meth:`_player_common_bytes` asks again)."""
        u = self.world.u
        version, per_player = self._counts_cache
        if version != u.version:
            per_player = {}
            self._counts_cache = (u.version, per_player)
        if player_id in per_player:
            return per_player[player_id]
        got = None
        mine = u.owner == player_id
        if mine.any():
            food = TYPES.food[u.ti]
            workers = _IS_WORKER[u.ti]  # (SCVs, Probes, Drones)
            army = mine & (food > 0) & ~workers
            got = (int(math.ceil(float(food[mine].sum()))), int(math.ceil(float(food[army].sum()))),
                   int(np.count_nonzero(mine & workers)), int(np.count_nonzero(army)),
                   int(np.count_nonzero(mine & (u.unit_id == LARVA_TYPE))))
        per_player[player_id] = got
        return got

    def _encode_units(self, player_id: int, mine: np.ndarray, keep: np.ndarray | None = None,
                      snapshot: np.ndarray | None = None) -> bytes:
        """``ObservationRaw.units`` bytes of every unit (or only the rows where ``keep``); rows
        where ``snapshot`` are reported as snapshots (display_type Snapshot, no contents)."""
        u = self.world.u
        if keep is not None and keep.all():
            keep = None
        n = len(u) if keep is None else int(np.count_nonzero(keep))
        if n <= SMALL and snapshot is None:
            return self._encode_units_small(player_id, keep)
        # per row: its orders, then the economy's extra fields (``b""``: none)
        tail = self.world.unit_extras(player_id) if self.world.has_economy else None
        busy = np.nonzero(mine & ((u.kind != IDLE) | (u.eng != 0)) & (u.kind != ECON)
                          & ((u.kind != TRANSFORM) | (u.ability != 0)))[0]  # (held in stasis: no order)
        if len(busy):
            if tail is None:
                tail = [b""] * len(u)
            single = busy
            if u.queues:  # (rows of the queues' tags: np.isin would sort both every observation)
                qrows = u.rows(np.fromiter(u.queues, dtype=np.int64, count=len(u.queues)))
                has_queue = np.zeros(len(u), dtype=bool)
                has_queue[qrows[qrows >= 0]] = True
                queued = has_queue[busy]
                for i in busy[queued].tolist():
                    tail[i] = self._orders_bytes(i) + tail[i]
                single = busy[~queued]
            k = u.kind[single]
            idle = k == IDLE  # fighting an automatically acquired target
            ability = np.where(idle, D.ATTACK_ATTACK, u.ability[single])
            target = _ORDER_TARGET[k]
            ttag = np.where(idle, u.eng[single], u.ttag[single])
            pieces = encode_single_orders(ability, target, u.tx[single], u.ty[single], TERRAIN_Z, ttag)
            for i, b in zip(single.tolist(), pieces, strict=True):
                tail[i] = b + tail[i]
        rows = None if keep is None else keep.nonzero()[0]
        m = self.scenario.map
        z = m.z(u.x, u.y) if m.has_terrain else TERRAIN_Z
        facing = u.facing % _TWO_PI
        hp = np.maximum(u.hp, 0.0)
        cd = np.where(mine, np.maximum(u.cd, 0.0), 0.0)
        if _native is not None:  # (the same bytes; ``mine`` is the units of ``player_id``, as it takes them)
            return _native.encode_units(u.tag, u.ti, u.unit_id, u.owner, player_id, NEUTRAL_OWNER, u.x, u.y, z, facing,
                                        u.radius, hp, TYPES.hp_max, u.shield, TYPES.sh_max, cd, rows, tail, snapshot,
                                        _SNAPSHOT)
        tails: list[list[bytes]] = []
        if tail is not None:  # per encoded unit: its orders and extra fields
            tails.append(tail if rows is None else list(map(tail.__getitem__, rows.tolist())))
        if snapshot is not None:  # (appended last: a later scalar field wins)
            tails.append(list(map(_SNAPSHOT_TAIL.__getitem__, (snapshot if rows is None else snapshot[rows]).tolist())))
        if n <= SMALL:  # (snapshots among few units)
            ti = u.ti
            return encode_units(u.tag, _alliance(mine, u.owner), u.unit_id, u.owner, u.x, u.y, z, facing, u.radius,
                                hp, TYPES.hp_max[ti], u.shield, TYPES.sh_max[ti], cd, tails, rows)
        return encode_records(self._unit_records(player_id, mine), u.tag, u.x, u.y, z, facing, hp, u.shield, cd,
                              tails, rows)

    def _unit_records(self, player_id: int, mine: np.ndarray) -> np.ndarray:
        """:func:`unit_records` of every unit as the player sees them (``mine``: its units), cached
        per unit-set version (tags, types and owners, so radii and maxima too, change only with it)."""
        u = self.world.u
        version, per_player = self._records_cache
        if version != u.version:
            per_player = {}
            self._records_cache = (u.version, per_player)
        got = per_player.get(player_id)
        if got is None:
            ti = u.ti
            got = per_player[player_id] = unit_records(u.tag, _alliance(mine, u.owner), u.unit_id, u.owner, u.radius,
                                                       TYPES.hp_max[ti], TYPES.sh_max[ti])
        return got

    def _encode_units_small(self, player_id: int, keep: np.ndarray | None = None) -> bytes:
        """Few units: plain Python per unit beats a dozen numpy calls (same bytes as the numpy path)."""
        u = self.world.u
        pack = UNIT_RECORD.pack
        parts = []
        z = TERRAIN_Z
        hp_max = TYPES.hp_max
        sh_max = TYPES.sh_max
        cols = zip(u.tag.tolist(), u.ti.tolist(), u.unit_id.tolist(), u.owner.tolist(), u.x.tolist(),
                   u.y.tolist(), u.facing.tolist(), u.radius.tolist(), u.hp.tolist(), u.shield.tolist(),
                   u.cd.tolist(), u.kind.tolist(), u.eng.tolist(), strict=True)
        keep_l = keep.tolist() if keep is not None else None
        more = self.world.unit_extras(player_id) if self.world.has_economy else None
        for i, (t, ti, ut, ow, px, py, fa, ra, hp, sh, cd, k, eng) in enumerate(cols):
            if keep_l is not None and not keep_l[i]:
                continue
            if ow == player_id:
                al = 1
                extra = self._orders_bytes(i) if ((k != IDLE or eng) and k != ECON) else b""
                cd = cd if cd > 0.0 else 0.0
            else:
                al = 3 if ow == NEUTRAL_OWNER else 4
                extra = b""
                cd = 0.0
            if more is not None:
                extra += more[i]
            parts.append(pack(0x12, pad2(UNIT_BODY_LEN + len(extra)), 0x08, 1, 0x10, al, 0x18, tag_bytes(t),
                              0x20, pad2(ut), 0x28, ow, 0x32, 15, 0x0D, px, 0x15, py, 0x1D, z,
                              0x3D, fa % _TWO_PI, 0x45, ra, 0x4D, 1.0, 0x50, 3, 0x75, hp if hp > 0.0 else 0.0,
                              0x7D, hp_max[ti], 0x0185, sh, 0x02A5, sh_max[ti], 0x01F5, cd))
            if extra:
                parts.append(extra)
        return b"".join(parts)

    def _orders_bytes(self, i: int) -> bytes:
        u = self.world.u
        k = int(u.kind[i])
        ab = int(u.ability[i])
        if k == TRANSFORM and ab == 0:  # (held in stasis: no order)
            return b""
        if k == IDLE:  # fighting an automatically acquired target
            out = encode_order(D.ATTACK_ATTACK, target_tag=int(u.eng[i]))
        elif k in (MOVE, ATTACK_MOVE, PATROL):
            out = encode_order(ab, (float(u.tx[i]), float(u.ty[i]), TERRAIN_Z))
        elif k in (ATTACK_UNIT, FOLLOW):
            out = encode_order(ab, target_tag=int(u.ttag[i]))
        else:  # HOLD, EXPLODE
            out = encode_order(ab)
        q = u.queues.get(int(u.tag[i]))
        if q:
            for o in q:
                if o.kind in (MOVE, ATTACK_MOVE, PATROL):
                    out += encode_order(o.ability, (o.tx, o.ty, TERRAIN_Z))
                elif o.kind in (ATTACK_UNIT, FOLLOW):
                    out += encode_order(o.ability, target_tag=o.ttag)
                else:
                    out += encode_order(o.ability)
        return out

    # ------------------------------------------------------------------ queries
    def query(self, player_id: int, req: query_pb2.RequestQuery) -> query_pb2.ResponseQuery:
        self._check_player(player_id)
        resp = query_pb2.ResponseQuery()
        u = self.world.u
        m = self.scenario.map
        for pq in req.pathing:
            dist = 0.0
            radius = 0.375  # (a point to a point: as a small ground unit walks it)
            if pq.HasField("unit_tag") and pq.unit_tag:
                r = u.row(pq.unit_tag)
                start = (float(u.x[r]), float(u.y[r])) if r >= 0 else None
                if r >= 0:
                    radius = float(u.radius[r])
            elif pq.HasField("start_pos"):
                start = (pq.start_pos.x, pq.start_pos.y)
            else:
                start = None
            end = (pq.end_pos.x, pq.end_pos.y)
            if start is not None and m.has_terrain:
                # the path's length round cliffs and what stands (0: unreachable, as the client)
                if all(math.isfinite(v) for v in (*start, *end)):
                    dist = self.world.pathing.distance(start, end, radius)
            elif start is not None and m.is_pathable(*start) and m.is_pathable(*end):
                # open arenas: the straight line is the shortest path
                dist = math.hypot(end[0] - start[0], end[1] - start[1])
            resp.pathing.add(distance=dist)
        for bq in req.placements:
            resp.placements.add(result=self.world.placement.query(bq.ability_id, bq.target_pos.x, bq.target_pos.y,
                                                                  player_id))
        for aq in req.abilities:
            r = u.row(aq.unit_tag)
            entry = resp.abilities.add(unit_tag=aq.unit_tag)
            if r < 0:
                continue
            uid = int(TYPES.unit_id[u.ti[r]])
            entry.unit_type_id = uid
            if self.world.has_economy and int(u.owner[r]) == player_id:  # train, build, gather
                for ab, point in self.world.commands.available(player_id, r):
                    entry.abilities.add(ability_id=ab, requires_point=point)
            if int(u.owner[r]) != player_id or TYPES.neutral[u.ti[r]] or TYPES.speed[u.ti[r]] <= 0:
                continue
            for ab in D.COMMON_UNIT_ABILITIES:
                if ab == D.ATTACK_ATTACK and not TYPES.can_attack[u.ti[r]]:
                    continue
                entry.abilities.add(ability_id=ab,
                                    requires_point=ab in (D.MOVE_MOVE, D.PATROL_PATROL, D.ATTACK_ATTACK))
            if TYPES.suicide[u.ti[r]]:
                entry.abilities.add(ability_id=D.EXPLODE_EXPLODE)
        return resp

    # ------------------------------------------------------------------ debug
    def debug(self, player_id: int, req: sc_pb.RequestDebug) -> None:
        self._check_player(player_id)
        w = self.world
        for cmd in req.debug:
            if cmd.HasField("create_unit"):
                c = cmd.create_unit
                if c.unit_type not in TYPES.row_of:  # (every type a game may hold: the melee's too)
                    raise GameError(f"debug create_unit: unit type {c.unit_type} is not in the engine's data")
                k = max(1, c.quantity)
                if len(w.u) + k > MAX_UNITS:
                    raise GameError(f"debug create_unit: at most {MAX_UNITS} units in a game")
                if not (math.isfinite(c.pos.x) and math.isfinite(c.pos.y)):
                    raise GameError("debug create_unit: position is not finite")
                owner = c.owner if c.owner else player_id
                if owner not in (1, 2, NEUTRAL_OWNER):
                    raise GameError(f"debug create_unit: owner must be 1, 2 or 16, got {owner}")
                # units (not structures) appear at the nearest free spots, as in the real game
                tags = w.spawn(c.unit_type, owner, np.full(k, c.pos.x), np.full(k, c.pos.y),
                               free=not TYPES.structure[TYPES.row(c.unit_type)])
                if w.has_economy:  # structures and resources join the economy
                    w.adopt(tags)
            elif cmd.HasField("kill_unit"):
                deaths = w.remove_tags(list(cmd.kill_unit.tag))
                if len(deaths):
                    self.scenario.after_loop(deaths)
            elif cmd.HasField("unit_value"):
                self._set_value(cmd.unit_value)
            elif cmd.HasField("end_game"):
                win = cmd.end_game.end_result == debug_pb2.DebugEndGame.DeclareVictory
                if not self.ended:
                    self._forced_result = {
                        s.player_id: (VICTORY if win else DEFEAT) if s.player_id == player_id
                        else (DEFEAT if win else VICTORY)
                        for s in self._slots
                    }
            # draw, game_state, test_process, score: accepted and ignored

    def _set_value(self, v: debug_pb2.DebugSetUnitValue) -> None:
        u = self.world.u
        r = u.row(v.unit_tag)
        if r < 0:
            return
        t = u.ti[r]
        if not math.isfinite(v.value):
            raise GameError("debug unit_value: value is not finite")
        if v.unit_value == debug_pb2.DebugSetUnitValue.Life:
            if v.value <= 0:
                deaths = self.world.remove_tags([int(u.tag[r])])
                self.scenario.after_loop(deaths)
            else:
                u.hp[r] = min(float(v.value), float(TYPES.hp_max[t]))
        elif v.unit_value == debug_pb2.DebugSetUnitValue.Shields:
            u.shield[r] = min(max(float(v.value), 0.0), float(TYPES.sh_max[t]))
        # Energy: no engine unit has energy


__all__ = ["Game", "GameError", "scenario_names"]
