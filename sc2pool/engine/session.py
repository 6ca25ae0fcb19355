"""The SC2 API state machine of one client connection, as bytes in -> bytes out.

Every transport (the aiohttp websocket server in :mod:`sc2pool.engine.server`, the in-process
transport in :mod:`sc2pool.engine.transport`) feeds serialized ``sc2api_pb2.Request`` bytes into
:meth:`EngineSession.handle` and sends back what it returns. Keeping the protocol here, free of any
I/O, is what makes the in-process transport behave exactly like the websocket one.

Rules this module guarantees (each one a way burnysc2 breaks if the server gets it wrong):

* every reply is a well-formed ``Response`` with ``status`` set (burnysc2 does ``Status(status)``
  and ``Status(0)`` raises), the ``id`` echoed, and the requested field present;
* a request in the wrong state, an unknown request, malformed bytes or an engine bug produce an
  ``error`` string and the current status, never an exception out of :meth:`handle`;
* the status only becomes ``ended`` on ``step`` and ``observation`` replies (burnysc2's
  ``_play_game_ai`` reads ``client._game_result`` after any reply that leaves ``in_game``, and that
  is only filled by an observation carrying ``player_result``).

A game lives in a :class:`Room`, which sessions can share through a :class:`RoomRegistry`: a ladder
manager creates the game and the bot joins on its own connection; two bots play each other with
lockstep steps (``join_game`` returns once all have joined, ``step`` once all have stepped). Only
these multiplayer waits make a reply asynchronous (:attr:`EngineSession.pending`); everything else
is answered synchronously.

Static responses are cached as serialized bytes: the game data for the whole process and the game
info per game. Protobuf merges concatenated messages, so a cached body plus fresh status bytes is a
valid ``Response`` without re-serializing megabytes.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, cast

from google.protobuf.message import DecodeError
from s2clientprotocol import sc2api_pb2 as sc_pb

from sc2pool.engine.replay import MAGIC, RecordingGame, ReplayError

if TYPE_CHECKING:
    from s2clientprotocol import query_pb2 as query_pb

log = logging.getLogger("sc2pool.engine")

#: The SC2 version the engine claims to be. burnysc2 needs ``base_build >= 82457`` to use
#: ``display_type`` for visibility; 94137 is the newest entry of burnysc2's ``versions.py``.
BASE_BUILD = 94137
GAME_VERSION = "5.0.14.94137"
DATA_VERSION = "519EE8D06E384469C652DD58FC6016AC"

# Status values (sc2api.proto ``Status``).
LAUNCHED, INIT_GAME, IN_GAME, IN_REPLAY, ENDED, QUIT = 1, 2, 3, 4, 5, 6
STATUS_NAMES = {1: "launched", 2: "init_game", 3: "in_game", 4: "in_replay", 5: "ended", 6: "quit"}

#: Game loops per real second at "faster" speed: the real-time clock.
REALTIME_LOOPS_PER_SECOND = 22.4
#: Upper bound on one real-time wait, so an absurd ``observation(game_loop=...)`` cannot hang a client.
MAX_REPLY_DELAY = 10.0

# Error strings. burnysc2's ``ProtocolError.is_game_over_error`` recognises exactly these two.
ERR_GAME_OVER = "Game has already ended"
ERR_NOT_IN_GAME = "Not in a game"

# Response field number for each request kind (the same name in both messages).
_RESPONSE_FIELDS = {f.name: f.number for f in sc_pb.Response.DESCRIPTOR.fields if f.name not in ("id", "error", "status")}
_REQUEST_FIELDS = {
    f.name: _RESPONSE_FIELDS[f.name] for f in sc_pb.Request.DESCRIPTOR.fields if f.name in _RESPONSE_FIELDS
}


class GameLike(Protocol):
    """What the session needs from :class:`sc2pool.engine.game.Game` (structural, for test stubs).

    Optional fast path: ``observation_bytes(player_id, req) -> bytes`` (the serialized
    ``ResponseObservation``) is used instead of ``observation`` when the game has it.
    """

    game_loop: int
    ended: bool

    def join(self, req: sc_pb.RequestJoinGame) -> int: ...
    def data(self, req: sc_pb.RequestData) -> Any: ...
    def game_info(self, player_id: int) -> Any: ...
    def observation(self, player_id: int, req: sc_pb.RequestObservation) -> Any: ...
    def action(self, player_id: int, req: sc_pb.RequestAction) -> Any: ...
    def step(self, count: int) -> None: ...
    def query(self, player_id: int, req: query_pb.RequestQuery) -> Any: ...
    def debug(self, player_id: int, req: sc_pb.RequestDebug) -> None: ...
    def restart(self) -> None: ...
    def leave(self, player_id: int) -> None: ...


GameFactory = Callable[[sc_pb.RequestCreateGame], GameLike]


def _varint(value: int) -> bytes:
    out = bytearray()
    while True:
        bits = value & 0x7F
        value >>= 7
        if value:
            out.append(bits | 0x80)
        else:
            out.append(bits)
            return bytes(out)


def _field_prefix(number: int, length: int) -> bytes:
    """Tag and length of a length-delimited field ``number`` holding ``length`` bytes."""
    return _varint((number << 3) | 2) + _varint(length)


# Precomputed serialized ``Response(status=s)`` for every status, appended to each reply.
_STATUS_BYTES = {s: sc_pb.Response(status=s).SerializeToString() for s in STATUS_NAMES}  # type: ignore[arg-type]
# An empty sub-message for every request field, so error replies still carry the requested field.
_EMPTY_FIELD = {name: _field_prefix(num, 0) for name, num in _REQUEST_FIELDS.items()}


class RequestError(Exception):
    """A refused request: becomes ``Response.error`` (the protocol's generic error string)."""


@dataclass
class DispatchStats:
    """Time spent inside :meth:`EngineSession.handle`, per request kind (the engine's own share)."""

    count: dict[str, int] = field(default_factory=dict)
    total_ns: dict[str, int] = field(default_factory=dict)

    def add(self, kind: str, ns: int) -> None:
        self.count[kind] = self.count.get(kind, 0) + 1
        self.total_ns[kind] = self.total_ns.get(kind, 0) + ns

    def reset(self) -> None:
        self.count.clear()
        self.total_ns.clear()

    def as_dict(self) -> dict[str, dict[str, float]]:
        return {
            k: {"count": self.count[k], "total_ms": self.total_ns[k] / 1e6, "mean_us": self.total_ns[k] / 1e3 / self.count[k]}
            for k in sorted(self.count)
        }


def _default_factory(req: sc_pb.RequestCreateGame) -> GameLike:
    from sc2pool.engine.game import Game

    return Game.create(req)  # type: ignore[return-value]


def _game_error_type() -> type[BaseException] | None:
    try:
        from sc2pool.engine.game import GameError
    except ImportError:  # pragma: no cover - only while the simulation module is missing
        return None
    return GameError


def available_map_paths() -> list[str]:
    """Map paths as a client sees them under ``Maps/`` of the fake install (``available_maps``)."""
    from sc2pool.engine.install import map_relative_paths

    return map_relative_paths()


# Game data is constant for the process lifetime: serialized ``data`` field bytes per
# (game factory, request flags).
_DATA_CACHE: dict[tuple[Any, ...], bytes] = {}

#: How long a multiplayer ``step`` waits for the other players (to join, or to step) before it fails.
STEP_WAIT_TIMEOUT = 120.0


class Room:
    """One game and the sessions in it: its players (lockstep stepping) and managers.

    A game with one participant slot (a bot against Computers, the minigames) steps at once. With
    several participant slots (bot vs bot), a ``step`` completes when every player has asked to
    step, exactly like SC2's lockstep: the game advances by the smallest pending count and each
    player's step returns once its own count has elapsed. A player that leaves (or disconnects)
    loses, and no longer holds the others back.
    """

    def __init__(self, game: GameLike, participants: int, realtime: bool) -> None:
        self.game = game
        self.participants = max(1, participants)
        self.realtime = realtime
        self.members: set[EngineSession] = set()
        self.players: dict[int, EngineSession] = {}
        self.gone: set[int] = set()
        self.game_info_bytes: dict[int, tuple[object, bytes]] = {}
        """Per player: (the game's ``game_info_version``, the serialized answer)."""
        self.t0 = time.monotonic()
        self._pending: dict[int, list[Any]] = {}  # player_id -> [loops still to go, future]
        self._all_joined: Any = None  # future: every participant slot taken
        self.game_port = 0  # server_ports.game_port its players announced (bot vs bot)

    @property
    def open_slots(self) -> int:
        return self.participants - len(self.players)

    def join(self, session: EngineSession, req: sc_pb.RequestJoinGame) -> int:
        pid = int(self.game.join(req))
        if not self.players:
            self.t0 = time.monotonic()
        self.players[pid] = session
        self.members.add(session)
        if self.open_slots <= 0:
            for m in self.members:  # a manager that created the game (and cannot join it now) sees it running
                if m.player_id == 0 and m.status == INIT_GAME:
                    m.status = IN_GAME
            if self._all_joined is not None and not self._all_joined.done():
                self._all_joined.set_result(None)
        return pid

    def wait_all_joined(self) -> Any:
        """None if every participant slot is taken, else a future set when the last one joins."""
        if self.open_slots <= 0:
            return None
        if self._all_joined is None:
            import asyncio

            self._all_joined = asyncio.get_running_loop().create_future()
        return self._all_joined

    def detach(self, session: EngineSession) -> None:
        """``session`` leaves (leave_game, quit, create_game elsewhere, disconnect)."""
        self.members.discard(session)
        pid = session.player_id
        if pid and self.players.get(pid) is session and pid not in self.gone:
            self.gone.add(pid)
            if not self.game.ended:
                try:
                    self.game.leave(pid)
                except Exception:  # leaving must always succeed from the client's view
                    log.debug("game.leave failed", exc_info=True)
            self._pending.pop(pid, None)
            self._advance()

    def step(self, pid: int, count: int) -> Any:
        """Advance ``count`` loops for player ``pid``: None when done, else a future to await."""
        if self.participants == 1:
            if not self.game.ended:
                self.game.step(count)
            return None
        import asyncio

        fut = asyncio.get_running_loop().create_future()
        self._pending[pid] = [count, fut]
        self._advance()
        return fut

    def cancel_step(self, pid: int) -> None:
        self._pending.pop(pid, None)

    def _advance(self) -> None:
        while self._pending:
            if not self.game.ended:
                if self.open_slots > 0:
                    return  # somebody has not joined yet
                if any(pid not in self._pending for pid in self.players if pid not in self.gone):
                    return  # somebody has not asked to step yet
                k = min(entry[0] for entry in self._pending.values())
                self.game.step(k)
            else:
                k = 1 << 62  # the game is over: release everyone
            for pid, entry in list(self._pending.items()):
                entry[0] -= k
                if entry[0] <= 0:
                    del self._pending[pid]
                    if not entry[1].done():
                        entry[1].set_result(None)


class RoomRegistry:
    """The games of one server (or of in-process transports that share it).

    A connection that sends ``join_game`` without having created a game joins the newest game
    here that still has a free participant slot: the ladder pattern (a manager creates the game,
    the bot joins on its own connection) and bot vs bot on one server.
    """

    def __init__(self) -> None:
        self.rooms: list[Room] = []

    def add(self, room: Room) -> None:
        self.rooms = [r for r in self.rooms if r.members]
        self.rooms.append(room)

    def find_open(self, game_port: int = 0) -> Room | None:
        """The newest joinable game; with ``game_port`` (the joiner's ``server_ports``), not one
        whose players announced other ports: concurrent bot-vs-bot set-ups never cross."""
        candidates = [r for r in reversed(self.rooms) if r.members and r.open_slots > 0 and not r.game.ended]
        if game_port:
            for room in candidates:  # the game whose players announced the same ports
                if room.game_port == game_port:
                    return room
            candidates = [r for r in candidates if not r.game_port]
        return candidates[0] if candidates else None


class EngineSession:
    """One client connection's SC2 API session: status machine, dispatch, response framing.

    ``handle(bytes) -> bytes`` never raises. Two things a transport must look at afterwards:

    * :attr:`pending`: when not None, the reply is not ready (a multiplayer ``step`` waiting for
      the other players): ``await session.take_pending()`` gives it;
    * :attr:`reply_delay`: seconds to hold the reply (real time);

    and for the websocket server only :attr:`proxy_port` / :attr:`peer_port` (bot vs bot across
    two engine processes). After a ``quit`` request :attr:`quit_requested` is true; the owner
    decides what quitting means (the SC2_x64 process exits, a shared server closes the
    connection, the in-process transport marks itself closed). :meth:`close` when the
    connection goes away.
    """

    def __init__(
        self,
        game_factory: GameFactory | None = None,
        stats: DispatchStats | None = None,
        game_error: type[BaseException] | None = None,
        registry: RoomRegistry | None = None,
        allow_proxy: bool = False,
    ) -> None:
        """``game_factory`` replaces ``Game.create`` and ``game_error`` its refusal type (tests);
        sessions sharing a ``registry`` can join each other's games."""
        self._factory: GameFactory = game_factory or _default_factory
        self.stats = stats
        self.registry = registry if registry is not None else RoomRegistry()
        self.allow_proxy = allow_proxy
        self.status: int = LAUNCHED
        self.room: Room | None = None
        self.player_id: int = 0
        #: Seconds the transport should hold the last reply (real-time ``observation(game_loop)``).
        self.reply_delay = 0.0
        #: An awaitable producing the reply, when it is not ready yet (see :meth:`take_pending`).
        self.pending: Any = None
        #: join_game must be forwarded to the engine hosting the game on this port (websocket server).
        self.proxy_port = 0
        #: this session hosts a bot-vs-bot game whose other players come from this port.
        self.peer_port = 0
        self.quit_requested = False
        self._game_error: type[BaseException] | None = game_error
        self._handlers: dict[str, Callable[[Any], bytes]] = {
            "ping": self._ping,
            "create_game": self._create_game,
            "join_game": self._join_game,
            "restart_game": self._restart_game,
            "leave_game": self._leave_game,
            "quit": self._quit,
            "game_info": self._game_info,
            "observation": self._observation,
            "action": self._action,
            "step": self._step,
            "data": self._data,
            "query": self._query,
            "debug": self._debug,
            "save_replay": self._save_replay,
            "start_replay": self._start_replay,
            "available_maps": self._available_maps,
        }

    @property
    def game(self) -> GameLike | None:
        return self.room.game if self.room is not None else None

    @property
    def realtime(self) -> bool:
        return self.room is not None and self.room.realtime

    # ------------------------------------------------------------------ entry point
    def handle(self, data: bytes) -> bytes:
        """Answer one serialized ``Request`` with one serialized ``Response`` (see :attr:`pending`)."""
        t0 = time.perf_counter_ns()
        self.reply_delay = 0.0
        self.pending = None
        kind = "malformed"
        req = sc_pb.Request()
        try:
            req.ParseFromString(data)
        except (DecodeError, RuntimeError, ValueError) as exc:
            out = self._error_bytes(None, 0, f"Malformed request: cannot parse {len(data)} bytes as sc2api Request ({exc})")
        else:
            which = req.WhichOneof("request")
            kind = which or "unknown"
            out = self._dispatch(which, req)
        if self.stats is not None:
            self.stats.add(kind, time.perf_counter_ns() - t0)
        return out

    async def take_pending(self) -> bytes:
        """The reply of a request whose answer had to wait (a multiplayer step)."""
        pending, self.pending = self.pending, None
        return await pending  # type: ignore[no-any-return]

    def close(self) -> None:
        """The connection is gone: leave the game (a player who disconnects loses)."""
        self._detach()

    def _dispatch(self, which: str | None, req: sc_pb.Request) -> bytes:
        rid = req.id if req.HasField("id") else 0
        if which is None:
            return self._error_bytes(None, rid, "Unknown or empty request: no known request field is set")
        handler = self._handlers.get(which)
        if handler is None:
            return self._error_bytes(which, rid, f"Request '{which}' is not supported by the sc2pool engine")
        try:
            body = handler(getattr(req, which))
        except RequestError as exc:
            return self._error_bytes(which, rid, str(exc))
        except Exception as exc:
            return self._error_bytes(which, rid, self._describe(which, exc))
        if self.pending is not None:  # the handler left an awaitable producing the body
            self.pending = self._finish_later(which, self.pending, rid)
            return b""
        if self.proxy_port:  # join_game for a game in another engine process: the server forwards it
            return b""
        return self._frame(which, body, rid)

    async def _finish_later(self, which: str, body_coro: Any, rid: int) -> bytes:
        try:
            body = await body_coro
        except RequestError as exc:
            return self._error_bytes(which, rid, str(exc))
        except Exception as exc:
            return self._error_bytes(which, rid, self._describe(which, exc))
        return self._frame(which, body, rid)

    def _describe(self, which: str, exc: Exception) -> str:
        if self._is_game_error(exc):
            log.info("refused %s: %s", which, exc)
            return str(exc) or type(exc).__name__
        log.exception("engine error while handling %s", which)
        return f"Internal engine error in {which}: {type(exc).__name__}: {exc}"

    def _is_game_error(self, exc: BaseException) -> bool:
        if self._game_error is None:
            self._game_error = _game_error_type() or RequestError
        return isinstance(exc, self._game_error)

    def _frame(self, which: str, body: bytes, rid: int) -> bytes:
        head = _field_prefix(_REQUEST_FIELDS[which], len(body))
        tail = _STATUS_BYTES[self.status]
        if rid:
            return head + body + sc_pb.Response(id=rid).SerializeToString() + tail
        return head + body + tail

    def _error_bytes(self, which: str | None, rid: int, message: str) -> bytes:
        resp = sc_pb.Response(error=[message], status=self.status)  # type: ignore[arg-type]
        if rid:
            resp.id = rid
        out = resp.SerializeToString()
        if which is not None:
            out = _EMPTY_FIELD[which] + out
        return out

    # ------------------------------------------------------------------ state helpers
    def _require(self, *states: int, what: str) -> None:
        if self.status in states:
            return
        if self.status == ENDED:
            raise RequestError(ERR_GAME_OVER)
        if self.status in (LAUNCHED, INIT_GAME):
            raise RequestError(f"{ERR_NOT_IN_GAME}: {what} needs status {'/'.join(STATUS_NAMES[s] for s in states)}, status is {STATUS_NAMES[self.status]}")
        raise RequestError(f"{what} is not valid in status {STATUS_NAMES[self.status]}")

    def _require_room(self) -> Room:
        if self.room is None:  # pragma: no cover - guarded by the status checks
            raise RequestError(ERR_NOT_IN_GAME)
        return self.room

    def _require_game(self) -> GameLike:
        return self._require_room().game

    def _detach(self) -> None:
        room, self.room = self.room, None
        if room is not None:
            room.detach(self)
        self.player_id = 0

    # ------------------------------------------------------------------ handlers
    def _ping(self, _req: sc_pb.RequestPing) -> bytes:
        return sc_pb.ResponsePing(
            game_version=GAME_VERSION, data_version=DATA_VERSION, data_build=BASE_BUILD, base_build=BASE_BUILD
        ).SerializeToString()

    def _create_game(self, req: sc_pb.RequestCreateGame) -> bytes:
        # From launched or ended, as SC2. From in_game/init_game the running game is abandoned
        # (as if left) instead of refused: burnysc2's run_match(close_ws=False) never sends
        # leave_game, so an episode it cut short (game_time_limit, a bot exception) would
        # otherwise make every later episode on that connection fail.
        if self.status not in (LAUNCHED, ENDED):
            log.info("create_game in status %s abandons the current game", STATUS_NAMES[self.status])
        self._detach()
        try:
            game = self._factory(req)
        except Exception as exc:
            code = getattr(exc, "code", None)
            if not self._is_game_error(exc) or code is None:
                raise
            self.status = LAUNCHED
            return sc_pb.ResponseCreateGame(error=code, error_details=str(exc)).SerializeToString()
        # Every game keeps its replay: save_replay may come at the end.
        game = cast("GameLike", RecordingGame(game, req))
        participants = sum(1 for p in req.player_setup if p.type == sc_pb.Participant)
        room = Room(game, participants, bool(req.realtime))
        room.members.add(self)
        self.registry.add(room)
        self.room = room
        self.status = INIT_GAME
        return b""

    def _join_game(self, req: sc_pb.RequestJoinGame) -> bytes:
        room = self.room if self.status == INIT_GAME else None
        port = req.server_ports.game_port if req.HasField("server_ports") else 0
        if self.status in (LAUNCHED, ENDED):
            room = self.registry.find_open(port)  # a game created on another connection
            if room is None and self.allow_proxy and port:
                self._detach()
                self.status = LAUNCHED
                self.proxy_port = port  # the server forwards to the host engine
                return b""
        if room is None:
            hint = "send create_game first"
            if self.status == IN_GAME:
                hint = "already in a game"
            elif req.HasField("server_ports"):
                hint = "no game to join: create_game on this engine first, or give the host's server_ports"
            raise RequestError(f"join_game needs a created game ({hint}); status is {STATUS_NAMES[self.status]}")
        if room is not self.room:
            self._detach()  # a finished game this connection was still in
        try:
            pid = room.join(self, req)
        except Exception as exc:
            code = getattr(exc, "code", None)
            if not self._is_game_error(exc) or code is None:
                raise
            return sc_pb.ResponseJoinGame(error=code, error_details=str(exc)).SerializeToString()
        self.room = room
        self.player_id = pid
        self.status = IN_GAME
        reply = sc_pb.ResponseJoinGame(player_id=pid).SerializeToString()
        if room.participants > 1:
            if port:
                room.game_port = room.game_port or port
                self.peer_port = port  # the server listens there for the other engine processes
            wait = room.wait_all_joined()
            if wait is not None:  # as in SC2, join_game returns once every player has joined
                self.pending = self._join_done(room, wait, reply)
                return b""
        return reply

    async def _join_done(self, room: Room, fut: Any, reply: bytes) -> bytes:
        import asyncio

        try:
            await asyncio.wait_for(asyncio.shield(fut), STEP_WAIT_TIMEOUT)
        except asyncio.TimeoutError:
            self._detach()
            self.status = LAUNCHED
            raise RequestError(f"join_game timed out after {STEP_WAIT_TIMEOUT:.0f} s waiting for the other players") from None
        return reply

    def _restart_game(self, _req: sc_pb.RequestRestartGame) -> bytes:
        self._require(IN_GAME, ENDED, what="restart_game")
        room = self._require_room()
        if room.participants > 1:
            raise RequestError("restart_game is single player only")
        room.game.restart()
        room.game_info_bytes.clear()
        room.t0 = time.monotonic()
        self.status = IN_GAME
        return b""

    def _leave_game(self, _req: sc_pb.RequestLeaveGame) -> bytes:
        if self.status not in (INIT_GAME, IN_GAME, ENDED):
            raise RequestError(ERR_NOT_IN_GAME)
        self._detach()
        self.status = LAUNCHED
        return b""

    def _quit(self, _req: sc_pb.RequestQuit) -> bytes:
        self._detach()
        self.status = QUIT
        self.quit_requested = True
        return b""

    def _game_info(self, _req: sc_pb.RequestGameInfo) -> bytes:
        self._require(IN_GAME, ENDED, what="game_info")
        room = self._require_room()
        version = getattr(room.game, "game_info_version", None)  # optional: the answer may change
        key = version(self.player_id) if version is not None else 0
        cached = room.game_info_bytes.get(self.player_id)
        if cached is None or cached[0] != key:
            cached = (key, room.game.game_info(self.player_id).SerializeToString())
            room.game_info_bytes[self.player_id] = cached
        return cached[1]

    def _observation(self, req: sc_pb.RequestObservation) -> bytes:
        self._require(IN_GAME, ENDED, what="observation")
        room = self._require_room()
        game = room.game
        if room.realtime and self.status == IN_GAME and not game.ended:
            # Real time: the wall clock advances the game (22.4 loops/s). ``game_loop`` asks to
            # wait for that loop: the engine simulates up to it now and asks its transport to hold
            # the reply until the clock gets there (``reply_delay``). Outside real time
            # ``game_loop`` is ignored, as in SC2.
            wall = (time.monotonic() - room.t0) * REALTIME_LOOPS_PER_SECOND
            target = max(game.game_loop, int(wall))
            if req.HasField("game_loop") and req.game_loop > target:
                target = req.game_loop
                self.reply_delay = min(MAX_REPLY_DELAY, (req.game_loop - wall) / REALTIME_LOOPS_PER_SECOND)
            if target > game.game_loop:
                game.step(target - game.game_loop)
        fast = getattr(game, "observation_bytes", None)  # optional: serialized ResponseObservation
        if fast is not None:
            body = fast(self.player_id, req)
        else:
            body = game.observation(self.player_id, req).SerializeToString()
        if game.ended:
            self.status = ENDED
        return body

    def _action(self, req: sc_pb.RequestAction) -> bytes:
        self._require(IN_GAME, what="action")
        return self._require_game().action(self.player_id, req).SerializeToString()

    def _step(self, req: sc_pb.RequestStep) -> bytes:
        self._require(IN_GAME, what="step")
        room = self._require_room()
        if room.realtime:
            raise RequestError("step is not allowed in a realtime game")
        wait = room.step(self.player_id, max(1, req.count))
        if wait is not None:
            self.pending = self._step_done(room, wait)
            return b""
        return self._step_reply(room)

    async def _step_done(self, room: Room, fut: Any) -> bytes:
        import asyncio

        try:
            await asyncio.wait_for(asyncio.shield(fut), STEP_WAIT_TIMEOUT)
        except asyncio.TimeoutError:
            room.cancel_step(self.player_id)
            missing = sorted(set(range(1, room.participants + 1)) - set(room.players)) or "the other players"
            raise RequestError(f"step timed out after {STEP_WAIT_TIMEOUT:.0f} s waiting for {missing}") from None
        finally:
            if not fut.done():
                room.cancel_step(self.player_id)
        return self._step_reply(room)

    def _step_reply(self, room: Room) -> bytes:
        if room.game.ended:
            self.status = ENDED
        return sc_pb.ResponseStep(simulation_loop=room.game.game_loop).SerializeToString()

    def _data(self, req: sc_pb.RequestData) -> bytes:
        self._require(IN_GAME, ENDED, what="data")
        key = (self._factory, req.ability_id, req.unit_type_id, req.upgrade_id, req.buff_id, req.effect_id)
        cached = _DATA_CACHE.get(key)
        if cached is None:
            cached = self._require_game().data(req).SerializeToString()
            _DATA_CACHE[key] = cached
        return cached

    def _query(self, req: query_pb.RequestQuery) -> bytes:
        self._require(IN_GAME, what="query")
        return self._require_game().query(self.player_id, req).SerializeToString()

    def _debug(self, req: sc_pb.RequestDebug) -> bytes:
        self._require(IN_GAME, what="debug")
        self._require_game().debug(self.player_id, req)
        return b""

    def _save_replay(self, _req: sc_pb.RequestSaveReplay) -> bytes:
        """The current episode as an engine replay (:mod:`sc2pool.engine.replay`): the requests
        that made it, which the deterministic engine plays back (``sc2pool replay FILE``)."""
        self._require(IN_GAME, ENDED, what="save_replay")
        game = self._require_game()
        if not isinstance(game, RecordingGame):  # pragma: no cover - every created game is wrapped
            raise RequestError("save_replay: this game was not recorded")
        try:
            data = game.replay().dumps()
        except ReplayError as exc:
            raise RequestError(f"save_replay: {exc}") from None
        return sc_pb.ResponseSaveReplay(data=data).SerializeToString()

    def _start_replay(self, req: sc_pb.RequestStartReplay) -> bytes:
        """Replays are played back outside the API (``sc2pool replay``); say so, naming the
        format of what was given (a real .SC2Replay, or one of ours)."""
        head = b""
        if req.HasField("replay_data"):
            head = bytes(req.replay_data[:16])
        elif req.replay_path:
            try:
                with open(req.replay_path, "rb") as fh:
                    head = fh.read(16)
            except OSError as exc:
                raise RequestError(f"start_replay: cannot read {req.replay_path!r}: {exc}") from None
        if head.startswith(b"MPQ"):
            raise RequestError(
                "start_replay: this is a StarCraft II replay (.SC2Replay, an MPQ archive) from the real game; the "
                "sc2pool engine cannot play it (it plays only its own engine replays, with `sc2pool replay FILE`)"
            )
        if head.startswith(MAGIC[:16]):
            raise RequestError(
                "start_replay: sc2pool engine replays are played back with `sc2pool replay FILE` "
                "(sc2pool.engine.replay.Playback), not through the replay API"
            )
        raise RequestError("start_replay: replays are not supported by the sc2pool engine (`sc2pool replay` plays its own)")

    def _available_maps(self, _req: sc_pb.RequestAvailableMaps) -> bytes:
        return sc_pb.ResponseAvailableMaps(local_map_paths=available_map_paths()).SerializeToString()
