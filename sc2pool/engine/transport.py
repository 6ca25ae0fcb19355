"""In-process transport: burnysc2 talks to the engine with no socket and no second process.

burnysc2's ``Protocol`` only calls ``await ws.send_bytes(b)`` and ``await ws.receive_bytes()``
(``close()``/``closed`` at the end), so an object with those methods can stand in for the aiohttp
websocket. Each ``send_bytes`` runs the request through the same :class:`EngineSession` the
websocket server uses and queues the reply; ``receive_bytes`` pops it. This halves the cost of a
step compared with the websocket (no framing, no loop wake-ups, no second process) and is what
tests and fast pool workers use.

Typical use with unmodified burnysc2::

    from sc2.controller import Controller
    from sc2.main import run_match, GameMatch
    from sc2pool.engine.transport import connect_inprocess

    ws = connect_inprocess()
    results = await run_match([Controller(ws, None)], GameMatch(Map(Path("MoveToBeacon.SC2Map")), [Bot(...)]),
                              close_ws=False)
    # ... more episodes on the same ws (leave_game is optional: create_game works from "ended") ...
    await ws.close()

``Map(Path("X.SC2Map"))`` with a relative path needs no ``$SC2PATH`` at all. Bot vs bot in one
process: ``reg = RoomRegistry()``, two ``connect_inprocess(registry=reg)`` transports, and
``run_match([Controller(t1, None), Controller(t2, None)], GameMatch(map, [Bot(...), Bot(...)]))``.
"""

from __future__ import annotations

import asyncio
from collections import deque

from sc2pool.engine.session import DispatchStats, EngineSession, GameFactory, RoomRegistry


class TransportClosedError(ConnectionResetError):
    """Sending on a closed in-process transport (aiohttp raises ConnectionResetError too)."""


class InProcessTransport:
    """A websocket look-alike wired straight into an :class:`EngineSession`.

    Mirrors the aiohttp client websocket where burnysc2 can tell the difference: sending after
    close raises :class:`ConnectionResetError`, receiving with nothing pending after close raises
    ``TypeError`` (aiohttp's ``WSMessageTypeError`` is one, and burnysc2 maps it to
    ``ConnectionAlreadyClosedError``). After a ``quit`` request the reply is delivered, then the
    transport behaves as closed, like a real SC2 process that exited.
    """

    def __init__(self, session: EngineSession | None = None) -> None:
        self.session = session if session is not None else EngineSession()
        self._pending: deque[bytes] = deque()
        self._closed = False

    @property
    def closed(self) -> bool:
        return self._closed or (self.session.quit_requested and not self._pending)

    async def send_bytes(self, data: bytes | bytearray | memoryview, compress: int | None = None) -> None:
        if self.closed:
            raise TransportClosedError("Cannot write to closing transport")
        if not isinstance(data, (bytes, bytearray, memoryview)):
            raise TypeError(f"data argument must be byte-ish ({type(data)!r})")
        session = self.session
        out = session.handle(bytes(data))
        if session.pending is not None:  # a multiplayer step waits for the other players
            out = await session.take_pending()
        if session.reply_delay:  # real-time game: the reply is due when the clock gets there
            await asyncio.sleep(session.reply_delay)
        self._pending.append(out)

    def request(self, data: bytes) -> bytes:
        """Synchronous round trip (for callers without an event loop, e.g. benchmarks)."""
        if self.closed:
            raise TransportClosedError("Cannot write to closing transport")
        return self.session.handle(data)

    async def receive_bytes(self, *, timeout: float | None = None) -> bytes:
        if self._pending:
            return self._pending.popleft()
        if self.closed:
            raise TypeError("Received message 257:None is not WSMsgType.BINARY (in-process transport closed)")
        raise RuntimeError("receive_bytes() without a preceding send_bytes(): the engine only answers requests")

    async def close(self, *, code: int = 1000, message: bytes = b"") -> bool:
        was_open = not self._closed
        self._closed = True
        self._pending.clear()
        self.session.close()  # like a dropped connection: a player still in a game leaves it
        return was_open

    def exception(self) -> BaseException | None:
        return None


def connect_inprocess(
    game_factory: GameFactory | None = None, stats: DispatchStats | None = None, registry: RoomRegistry | None = None
) -> InProcessTransport:
    """A fresh engine session (status ``launched``) behind an in-process transport.

    ``stats`` collects the time spent inside the engine per request kind; ``game_factory``
    replaces ``Game.create`` (tests). Transports given the same ``registry`` can join each
    other's games: bot vs bot in one process (``run_match`` with two Controllers, lockstep).
    """
    return InProcessTransport(EngineSession(game_factory=game_factory, stats=stats, registry=registry))
