"""Engine replays: record a game as the requests that changed it, play it back bit for bit.

The engine is deterministic (same seed + same requests => byte-identical observations, see
:mod:`sc2pool.engine.game`), so a replay does not store what happened, only what was asked:
the ``create_game`` request with the seed actually used, each player's ``join_game``, and then
every request that reached the game in order - observations (they hand out per-player events),
actions, steps (with their counts), debug commands, queries and leaves - each tagged with its
player and the game loop it arrived at. Playing a replay back runs those calls against a fresh
game and yields the observations again. The recording sits at the request level of
:class:`~sc2pool.engine.session.EngineSession`, in front of whatever game object the session
created, so it depends on determinism alone, not on how the simulation works.

burnysc2's ``save_replay`` request (``run_game(save_replay_as=...)``, ``client.save_replay``) gets
the current episode's replay as bytes. The file format (version 1):

* the magic ``b"SC2POOL-REPLAY\\n"`` (15 bytes), so a file says what it is;
* a zlib-compressed msgpack map with the keys ``format`` (``"sc2pool-replay"``), ``version`` (1),
  ``engine`` (``{"game_version", "base_build", "sc2pool"}``, informational), ``map_path``,
  ``seed`` (the game's base seed), ``episode`` (0, or how many ``restart_game`` came before this
  episode: the seed then follows the engine's deterministic sequence), ``create_game`` (serialized
  ``RequestCreateGame``), ``joins`` (serialized ``RequestJoinGame`` per participant, in join
  order), ``events`` (a list of ``[kind, player_id, game_loop, payload]``, see :class:`Event`),
  ``final_loop`` and ``results`` (``{player_id: Result}`` or None while the game was running).

A real StarCraft II replay (``.SC2Replay``: an MPQ archive starting with ``b"MPQ"``) is refused
with :class:`ReplayFormatError` naming the format; so is any other file.
"""

from __future__ import annotations

import enum
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgpack
from s2clientprotocol import query_pb2
from s2clientprotocol import sc2api_pb2 as sc_pb

MAGIC = b"SC2POOL-REPLAY\n"
FORMAT = "sc2pool-replay"
VERSION = 1
#: A recording stops (and ``save_replay`` says so) after this many requests: a replay is meant for
#: an episode, and an endless game must not grow the engine's memory without bound.
MAX_EVENTS = 500_000
#: Refuse to inflate a replay beyond this (a corrupt or hostile file must not exhaust memory).
MAX_REPLAY_BYTES = 1 << 30


class Event(enum.IntEnum):
    """Kinds of recorded requests; the payload is the serialized request (a count for STEP)."""

    OBSERVATION = 1
    ACTION = 2
    STEP = 3
    DEBUG = 4
    QUERY = 5
    LEAVE = 6


class ReplayError(ValueError):
    """A replay cannot be saved, read or played back (the message says why)."""


class ReplayFormatError(ReplayError):
    """The bytes are not an sc2pool replay of a version this engine plays."""


# -------------------------------------------------------------------------------------- the file
@dataclass
class EngineReplay:
    """One episode of one game, as the requests that made it (see the module docstring)."""

    create_game: bytes
    joins: list[bytes] = field(default_factory=list)
    events: list[tuple[int, int, int, Any]] = field(default_factory=list)
    episode: int = 0
    seed: int = 0
    map_path: str = ""
    final_loop: int = 0
    results: dict[int, int] | None = None

    def dumps(self) -> bytes:
        """The replay file's bytes."""
        from sc2pool import __version__
        from sc2pool.engine.session import BASE_BUILD, GAME_VERSION

        doc = {
            "format": FORMAT,
            "version": VERSION,
            "engine": {"game_version": GAME_VERSION, "base_build": BASE_BUILD, "sc2pool": __version__},
            "map_path": self.map_path,
            "seed": self.seed,
            "episode": self.episode,
            "create_game": self.create_game,
            "joins": self.joins,
            "events": [list(e) for e in self.events],
            "final_loop": self.final_loop,
            "results": self.results,
        }
        return MAGIC + zlib.compress(msgpack.packb(doc, use_bin_type=True), 6)

    @classmethod
    def loads(cls, data: bytes, source: str = "replay") -> EngineReplay:
        """Parse replay bytes; ``source`` names them in errors.

        Raises:
            ReplayFormatError: a real-game ``.SC2Replay`` (MPQ), another file type, a newer
                version, or a damaged replay.
        """
        data = bytes(data)
        if data.startswith(b"MPQ"):
            raise ReplayFormatError(
                f"{source} is a StarCraft II replay (.SC2Replay, an MPQ archive) recorded by the real game; the "
                f"sc2pool engine plays only its own replays (format {FORMAT!r}, saved through the save_replay "
                "request, e.g. burnysc2's run_game(save_replay_as=...)). Watch real replays with StarCraft II."
            )
        if not data.startswith(MAGIC):
            what = "empty" if not data else f"starts with {data[:16]!r}"
            raise ReplayFormatError(f"{source} is not an sc2pool replay ({what}; expected the magic {MAGIC!r})")
        try:
            d = zlib.decompressobj()
            raw = d.decompress(data[len(MAGIC) :], MAX_REPLAY_BYTES)
            if d.unconsumed_tail:
                raise ReplayFormatError(f"{source}: the replay inflates beyond {MAX_REPLAY_BYTES} bytes")
            doc = msgpack.unpackb(raw, raw=False, strict_map_key=False)
        except ReplayFormatError:
            raise
        except Exception as exc:
            raise ReplayFormatError(f"{source}: damaged sc2pool replay ({type(exc).__name__}: {exc})") from None
        if not isinstance(doc, dict) or doc.get("format") != FORMAT:
            raise ReplayFormatError(f"{source}: not an {FORMAT!r} document")
        version = doc.get("version")
        if version != VERSION:
            engine = doc.get("engine")
            by = engine.get("sc2pool", "?") if isinstance(engine, dict) else "?"
            raise ReplayFormatError(
                f"{source}: sc2pool replay version {version!r}; this engine plays version {VERSION} (recorded by sc2pool {by})"
            )
        try:
            events = [(int(k), int(p), int(loop), payload) for k, p, loop, payload in doc["events"]]
            results = doc.get("results")
            return cls(
                create_game=bytes(doc["create_game"]),
                joins=[bytes(j) for j in doc["joins"]],
                events=events,
                episode=int(doc["episode"]),
                seed=int(doc["seed"]),
                map_path=str(doc["map_path"]),
                final_loop=int(doc.get("final_loop", 0)),
                results={int(k): int(v) for k, v in results.items()} if results else None,
            )
        except (AttributeError, KeyError, TypeError, ValueError) as exc:
            raise ReplayFormatError(f"{source}: damaged sc2pool replay ({type(exc).__name__}: {exc})") from None

    @classmethod
    def load(cls, path: str | Path) -> EngineReplay:
        p = Path(path)
        return cls.loads(p.read_bytes(), source=str(p))

    @property
    def player_ids(self) -> list[int]:
        """The participants' player ids, in join order (1, 2 ...)."""
        return list(range(1, len(self.joins) + 1))


# ------------------------------------------------------------------------------------- recording
class RecordingGame:
    """Wraps the game a session created and records every request that reaches it.

    Implements the session's ``GameLike`` protocol by delegation; anything else is forwarded.
    """

    def __init__(self, game: Any, create: sc_pb.RequestCreateGame) -> None:
        self._game = game
        self._create = create
        self._joins: list[Any] = []
        self._events: list[tuple[int, int, int, Any]] = []
        self._episode = 0
        self._overflow = False
        self._fast_obs = getattr(game, "observation_bytes", None)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._game, name)

    @property
    def game_loop(self) -> int:
        return int(self._game.game_loop)

    @property
    def ended(self) -> bool:
        return bool(self._game.ended)

    def _log(self, kind: Event, player_id: int, payload: Any) -> None:
        if len(self._events) >= MAX_EVENTS:
            self._overflow = True
            return
        self._events.append((int(kind), player_id, self._game.game_loop, payload))

    # -- GameLike ------------------------------------------------------------------------------
    def join(self, req: sc_pb.RequestJoinGame) -> int:
        pid = self._game.join(req)
        self._joins.append(req)
        return int(pid)

    def data(self, req: sc_pb.RequestData) -> Any:
        return self._game.data(req)

    def game_info(self, player_id: int) -> Any:
        return self._game.game_info(player_id)

    def observation(self, player_id: int, req: sc_pb.RequestObservation) -> Any:
        self._log(Event.OBSERVATION, player_id, req)
        return self._game.observation(player_id, req)

    def observation_bytes(self, player_id: int, req: sc_pb.RequestObservation) -> bytes:
        self._log(Event.OBSERVATION, player_id, req)
        if self._fast_obs is not None:
            return bytes(self._fast_obs(player_id, req))
        return bytes(self._game.observation(player_id, req).SerializeToString())

    def action(self, player_id: int, req: sc_pb.RequestAction) -> Any:
        self._log(Event.ACTION, player_id, req)
        return self._game.action(player_id, req)

    def step(self, count: int) -> None:
        self._log(Event.STEP, 0, int(count))
        self._game.step(count)

    def query(self, player_id: int, req: query_pb2.RequestQuery) -> Any:
        self._log(Event.QUERY, player_id, req)
        return self._game.query(player_id, req)

    def debug(self, player_id: int, req: sc_pb.RequestDebug) -> None:
        # Draw commands change nothing a replay reproduces, and a bot may send tens of thousands of
        # boxes every step (python-sc2's ramp_wall draws the whole pathing grid): kept, they grew
        # the engine past 2 GB in four game minutes.
        kept = [c for c in req.debug if not c.HasField("draw")]
        if len(kept) == len(req.debug):
            self._log(Event.DEBUG, player_id, req)
        elif kept:
            slim = sc_pb.RequestDebug()
            slim.debug.extend(kept)
            self._log(Event.DEBUG, player_id, slim)
        self._game.debug(player_id, req)

    def restart(self) -> None:
        self._game.restart()
        self._episode += 1
        self._events = []
        self._overflow = False

    def leave(self, player_id: int) -> None:
        self._log(Event.LEAVE, player_id, None)
        self._game.leave(player_id)

    # -- saving ----------------------------------------------------------------------------------
    def replay(self) -> EngineReplay:
        """The current episode's replay.

        Raises:
            ReplayError: the game cannot be replayed (no seed known) or the recording overflowed.
        """
        seed = getattr(self._game, "base_seed", None)
        if seed is None:
            raise ReplayError(f"this game ({type(self._game).__name__}) has no known seed: it cannot be replayed")
        if self._overflow:
            raise ReplayError(f"the game ran past {MAX_EVENTS} recorded requests; its replay was not kept")
        create = sc_pb.RequestCreateGame()
        create.CopyFrom(self._create)
        create.random_seed = int(seed)
        events = []
        for kind, pid, loop, payload in self._events:
            if kind == Event.STEP or payload is None:
                events.append((kind, pid, loop, payload))
            else:
                events.append((kind, pid, loop, payload.SerializeToString()))
        results = getattr(self._game, "results", None)
        return EngineReplay(
            create_game=create.SerializeToString(),
            joins=[j.SerializeToString() for j in self._joins],
            events=events,
            episode=self._episode,
            seed=int(seed),
            map_path=create.local_map.map_path,
            final_loop=self.game_loop,
            results=dict(results) if results else None,
        )


# -------------------------------------------------------------------------------------- playback
@dataclass
class PlaybackStep:
    """One observation of the played-back game: whose, at which loop, and its exact bytes
    (a serialized ``ResponseObservation``, as the engine answered the original request)."""

    player_id: int
    game_loop: int
    observation: bytes


class Playback:
    """A replay being played back against a fresh engine game.

    ``game_info(player_id)`` is available at once (the renderer needs it); :meth:`observations`
    runs the recorded requests and yields every observation the original game handed out.
    """

    def __init__(self, replay: EngineReplay, game_factory: Any = None) -> None:
        from sc2pool.engine.game import Game

        self.replay = replay
        create = sc_pb.RequestCreateGame()
        create.ParseFromString(replay.create_game)
        factory = game_factory or Game.create
        try:
            self.game = factory(create)
        except Exception as exc:
            raise ReplayError(f"the replay's game cannot be created on this engine: {exc}") from exc
        for raw in replay.joins:
            join = sc_pb.RequestJoinGame()
            join.ParseFromString(raw)
            self.game.join(join)
        if replay.episode:
            # restart() moves to seed number ``episode`` of the game's deterministic sequence
            # (the recorded episode followed that many restarts): jump straight there.
            if not hasattr(self.game, "_episode"):
                raise ReplayError("this engine's game cannot start at a later episode")
            self.game._episode = replay.episode - 1
            self.game.restart()

    def game_info(self, player_id: int = 1) -> sc_pb.ResponseGameInfo:
        return self.game.game_info(player_id)  # type: ignore[no-any-return]

    def observations(self, player_id: int | None = None) -> Iterator[PlaybackStep]:
        """Run the replay; yield its observations (of ``player_id`` only, when given).

        Raises:
            ReplayError: a recorded request fails now (a different engine version, a damaged file).
        """
        game = self.game
        fast = getattr(game, "observation_bytes", None)
        for i, (kind, pid, loop, payload) in enumerate(self.replay.events):
            if game.game_loop != loop:
                raise ReplayError(
                    f"replay event {i} ({Event(kind).name.lower()}) was recorded at game loop {loop}, "
                    f"the played-back game is at {game.game_loop}: this engine does not reproduce the recording"
                )
            try:
                if kind == Event.OBSERVATION:
                    req = sc_pb.RequestObservation.FromString(payload)
                    body = fast(pid, req) if fast is not None else game.observation(pid, req).SerializeToString()
                    if player_id is None or pid == player_id:
                        yield PlaybackStep(pid, loop, bytes(body))
                elif kind == Event.ACTION:
                    game.action(pid, sc_pb.RequestAction.FromString(payload))
                elif kind == Event.STEP:
                    game.step(int(payload))
                elif kind == Event.DEBUG:
                    game.debug(pid, sc_pb.RequestDebug.FromString(payload))
                elif kind == Event.QUERY:
                    game.query(pid, query_pb2.RequestQuery.FromString(payload))
                elif kind == Event.LEAVE:
                    game.leave(pid)
                else:
                    raise ReplayError(f"replay event {i} has the unknown kind {kind}")
            except ReplayError:
                raise
            except Exception as exc:
                raise ReplayError(f"replay event {i} ({kind}) failed on playback: {type(exc).__name__}: {exc}") from exc


__all__ = [
    "MAGIC",
    "VERSION",
    "EngineReplay",
    "Event",
    "Playback",
    "PlaybackStep",
    "RecordingGame",
    "ReplayError",
    "ReplayFormatError",
]
