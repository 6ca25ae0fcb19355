"""The SC2 API state machine of one client connection, as bytes in -> bytes out.

Every transport (the aiohttp websocket server in :mod:`sc2pool.engine.server`, the in-process
transport in :mod:`sc2pool.engine.transport`) feeds serialized ``sc2api_pb2.Request`` bytes into
:meth:`EngineSession.handle` and sends back what it returns. Keeping the protocol here, free of any
I/O, is what makes the in-process transport behave exactly like the websocket one.

Rules this module guarantees (see ``/work/shared/design/sc2-api-facts.md``):

* every reply is a well-formed ``Response`` with ``status`` set (burnysc2 does ``Status(status)``
  and ``Status(0)`` raises), the ``id`` echoed, and the requested field present;
* a request in the wrong state, an unknown request, malformed bytes or an engine bug produce an
  ``error`` string and the current status, never an exception out of :meth:`handle`;
* the status only becomes ``ended`` on ``step`` and ``observation`` replies (burnysc2's
  ``_play_game_ai`` reads ``client._game_result`` after any reply that leaves ``in_game``, and that
  is only filled by an observation carrying ``player_result``).

Static responses are cached as serialized bytes: the game data for the whole process and the game
info per game. Protobuf merges concatenated messages, so a cached body plus fresh status bytes is a
valid ``Response`` without re-serializing megabytes.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from google.protobuf.message import DecodeError
from s2clientprotocol import sc2api_pb2 as sc_pb

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


class EngineSession:
    """One client's SC2 API session: status machine, dispatch, response framing.

    ``handle(bytes) -> bytes`` never raises. After a ``quit`` request :attr:`quit_requested` is
    true; the owner decides what quitting means (the SC2_x64 process exits, a shared server closes
    the connection, the in-process transport marks itself closed).
    """

    def __init__(
        self,
        game_factory: GameFactory | None = None,
        stats: DispatchStats | None = None,
        game_error: type[BaseException] | None = None,
    ) -> None:
        """``game_factory`` replaces ``Game.create`` and ``game_error`` its refusal type (tests)."""
        self._factory: GameFactory = game_factory or _default_factory
        self.stats = stats
        self.status: int = LAUNCHED
        self.game: GameLike | None = None
        self.player_id: int = 0
        self.realtime = False
        #: Seconds the transport should hold the last reply (real-time ``observation(game_loop)``).
        self.reply_delay = 0.0
        self.quit_requested = False
        self._game_info_bytes: bytes | None = None
        self._realtime_t0 = 0.0
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
            "available_maps": self._available_maps,
        }

    # ------------------------------------------------------------------ entry point
    def handle(self, data: bytes) -> bytes:
        """Answer one serialized ``Request`` with one serialized ``Response``."""
        t0 = time.perf_counter_ns()
        self.reply_delay = 0.0
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
            if self._is_game_error(exc):
                log.info("refused %s: %s", which, exc)
                return self._error_bytes(which, rid, str(exc) or type(exc).__name__)
            log.exception("engine error while handling %s", which)
            return self._error_bytes(which, rid, f"Internal engine error in {which}: {type(exc).__name__}: {exc}")
        return self._frame(which, body, rid)

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

    def _require_game(self) -> GameLike:
        if self.game is None:  # pragma: no cover - guarded by the status checks
            raise RequestError(ERR_NOT_IN_GAME)
        return self.game

    def _drop_game(self) -> None:
        self.game = None
        self.player_id = 0
        self._game_info_bytes = None

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
        if self.game is not None:
            self._leave_quietly()
        try:
            game = self._factory(req)
        except Exception as exc:
            if not self._is_game_error(exc):
                raise
            code = getattr(exc, "code", None)
            if code is None:
                raise
            return sc_pb.ResponseCreateGame(error=code, error_details=str(exc)).SerializeToString()
        self.game = game
        self.player_id = 0
        self._game_info_bytes = None
        self.realtime = bool(req.realtime)
        self.status = INIT_GAME
        return b""

    def _join_game(self, req: sc_pb.RequestJoinGame) -> bytes:
        if self.status != INIT_GAME:
            hint = "send create_game first"
            if self.status == LAUNCHED and req.HasField("server_ports"):
                hint = ("this engine process has no game: bot vs bot across two engine processes "
                        "(server_ports/client_ports) is not supported; play against Computer opponents")
            raise RequestError(f"join_game needs status init_game ({hint}), status is {STATUS_NAMES[self.status]}")
        game = self._require_game()
        try:
            pid = game.join(req)
        except Exception as exc:
            code = getattr(exc, "code", None)
            if not self._is_game_error(exc) or code is None:
                raise
            return sc_pb.ResponseJoinGame(error=code, error_details=str(exc)).SerializeToString()
        self.player_id = int(pid)
        self.status = IN_GAME
        self._realtime_t0 = time.monotonic()
        return sc_pb.ResponseJoinGame(player_id=self.player_id).SerializeToString()

    def _restart_game(self, _req: sc_pb.RequestRestartGame) -> bytes:
        self._require(IN_GAME, ENDED, what="restart_game")
        game = self._require_game()
        game.restart()
        self._game_info_bytes = None
        self._realtime_t0 = time.monotonic()
        self.status = IN_GAME
        return b""

    def _leave_game(self, _req: sc_pb.RequestLeaveGame) -> bytes:
        if self.status not in (INIT_GAME, IN_GAME, ENDED):
            raise RequestError(ERR_NOT_IN_GAME)
        self._leave_quietly()
        self.status = LAUNCHED
        return b""

    def _leave_quietly(self) -> None:
        game = self.game
        self._drop_game()
        if game is not None and self.status != INIT_GAME:
            try:
                game.leave(self.player_id or 1)
            except Exception:  # leaving must always succeed from the client's view
                log.debug("game.leave failed", exc_info=True)

    def _quit(self, _req: sc_pb.RequestQuit) -> bytes:
        self._drop_game()
        self.status = QUIT
        self.quit_requested = True
        return b""

    def _game_info(self, _req: sc_pb.RequestGameInfo) -> bytes:
        self._require(IN_GAME, ENDED, what="game_info")
        if self._game_info_bytes is None:
            self._game_info_bytes = self._require_game().game_info(self.player_id).SerializeToString()
        return self._game_info_bytes

    def _observation(self, req: sc_pb.RequestObservation) -> bytes:
        self._require(IN_GAME, ENDED, what="observation")
        game = self._require_game()
        if self.realtime and self.status == IN_GAME and not game.ended:
            # Real time: the wall clock advances the game (22.4 loops/s). ``game_loop`` asks to
            # wait for that loop: the engine simulates up to it now and asks its transport to hold
            # the reply until the clock gets there (``reply_delay``). Outside real time
            # ``game_loop`` is ignored, as in SC2.
            wall = (time.monotonic() - self._realtime_t0) * REALTIME_LOOPS_PER_SECOND
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
        game = self._require_game()
        if self.realtime:
            raise RequestError("step is not allowed in a realtime game")
        if not game.ended:
            game.step(max(1, req.count))
        if game.ended:
            self.status = ENDED
        return sc_pb.ResponseStep(simulation_loop=game.game_loop).SerializeToString()

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
        # The engine records no replays; an empty file keeps ``save_replay_as=`` callers working.
        self._require(IN_GAME, ENDED, what="save_replay")
        return b""

    def _available_maps(self, _req: sc_pb.RequestAvailableMaps) -> bytes:
        return sc_pb.ResponseAvailableMaps(local_map_paths=available_map_paths()).SerializeToString()
