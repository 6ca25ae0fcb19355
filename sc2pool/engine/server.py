"""The engine's websocket server: the SC2 API at ``ws://HOST:PORT/sc2api``.

Two ways to run it:

* **As SC2.** burnysc2 starts ``$SC2PATH/Versions/Base94137/SC2_x64 -listen H -port P -dataDir ...
  -tempDir ... -displayMode 0 -verbose`` (see :mod:`sc2pool.engine.install`), which execs
  ``python -m sc2pool.engine`` -> :func:`main`. Unknown SC2 flags are ignored. On ``quit`` the
  reply is sent and the process exits at once (``os._exit``), as the real client does; otherwise
  burnysc2 would ``terminate()`` it and sleep 0.5 s per game. The process also exits when its
  parent (the bot) disappears, so a killed bot never leaves an engine behind.
* **As a shared server.** ``sc2pool engine serve --port P`` -> :func:`serve`: every websocket
  connection is an independent SC2 session (its own game), for burnysc2's ``run_match(...,
  close_ws=False)`` / ``play_from_websocket`` on a persistent connection. ``quit`` closes only that
  connection unless ``exit_on_quit``.

In both, a connection that sends ``join_game`` without having created a game joins the newest game
with a free participant slot (ladder managers; bot vs bot with lockstep steps), see
:class:`EngineServer`.

Speed: no compression, no heartbeat, the engine called synchronously between ``receive`` and
``send`` (it is CPU-bound and tiny per request), TCP_NODELAY (aiohttp's default).

Logging goes to stdout at WARNING (burnysc2 discards the engine's stderr); ``SC2POOL_ENGINE_LOG``
names a file for a full INFO log. ``SC2POOL_ENGINE_STATS`` names a file that gets one JSON line of
per-request engine time when each connection ends (benchmarks use it).
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import socket
import sys
import threading
import time
import traceback
from collections.abc import Sequence

from aiohttp import WSMsgType, web
from s2clientprotocol import sc2api_pb2 as sc_pb

from sc2pool.engine.sc2args import parse_sc2_args
from sc2pool.engine.session import (
    ENDED,
    ERR_GAME_OVER,
    DispatchStats,
    EngineSession,
    GameFactory,
    RoomRegistry,
)

log = logging.getLogger("sc2pool.engine")

WS_PATH = "/sc2api"
#: Largest request accepted; real requests are a few KB (an action with hundreds of commands).
MAX_MSG_SIZE = 64 * 1024 * 1024
#: Bot vs bot across two engine processes: how long the second one tries to reach the host.
PEER_CONNECT_TIMEOUT = 60.0
#: How long a quitting host waits for the other players of its game to disconnect.
PEER_LINGER = 10.0


def configure_logging(level: int = logging.WARNING, logfile: str | None = None) -> None:
    """stdout at ``level`` (burnysc2 sends the engine's stderr to /dev/null), plus ``logfile``."""
    root = logging.getLogger("sc2pool.engine")
    if getattr(root, "_sc2pool_configured", False):
        return
    fmt = logging.Formatter("%(asctime)s %(levelname)s sc2pool-engine[%(process)d] %(message)s")
    out = logging.StreamHandler(sys.stdout)
    out.setLevel(level)
    out.setFormatter(fmt)
    root.addHandler(out)
    root.setLevel(min(level, logging.INFO) if logfile else level)
    logfile = logfile or os.environ.get("SC2POOL_ENGINE_LOG")
    if logfile:
        fh = logging.FileHandler(logfile)
        fh.setLevel(logging.INFO)
        fh.setFormatter(fmt)
        root.addHandler(fh)
        root.setLevel(logging.INFO)
    root.propagate = False
    root._sc2pool_configured = True  # type: ignore[attr-defined]


def _write_stats(stats: DispatchStats) -> None:
    path = os.environ.get("SC2POOL_ENGINE_STATS")
    if not path or not stats.count:
        return
    try:
        with open(path, "a") as f:
            f.write(json.dumps({"pid": os.getpid(), "requests": stats.as_dict()}) + "\n")
    except OSError:
        log.warning("cannot write engine stats to %s", path, exc_info=True)


class EngineServer:
    """An aiohttp application serving the SC2 API to websocket clients.

    Every connection is its own :class:`EngineSession`; the sessions share a
    :class:`RoomRegistry`, so a connection that sends ``join_game`` without having created a game
    joins the newest game with a free participant slot: the ladder pattern (a manager creates the
    game, the bot joins on its own connection) and bot vs bot (two connections, lockstep steps).

    Bot vs bot through ``run_game`` starts two engine processes (``peers=True``, the SC2_x64
    mode): the host's players join with ``server_ports``, and the host then also listens on
    ``server_ports.game_port``; the other process, which has no game, forwards its client's
    requests there (:meth:`_proxy`).
    """

    def __init__(
        self,
        *,
        exit_on_quit: bool = False,
        game_factory: GameFactory | None = None,
        game_error: type[BaseException] | None = None,
        host: str = "127.0.0.1",
        peers: bool = False,
    ) -> None:
        """``peers``: take part in bot vs bot across engine processes (the SC2_x64 mode): listen
        on a hosted game's ``server_ports.game_port``, forward a join for a game hosted elsewhere."""
        self.exit_on_quit = exit_on_quit
        self.peers = peers
        self.game_factory = game_factory
        self.game_error = game_error
        self.host = host
        self.registry = RoomRegistry()
        self.connections = 0
        self.app = web.Application()
        self.app.router.add_get(WS_PATH, self._handle_ws)
        self._runner: web.AppRunner | None = None
        self._peer_ports: set[int] = set()
        self.port: int | None = None

    def _new_session(self) -> EngineSession:
        stats = DispatchStats() if os.environ.get("SC2POOL_ENGINE_STATS") else None
        return EngineSession(
            game_factory=self.game_factory, stats=stats, game_error=self.game_error, registry=self.registry,
            allow_proxy=self.peers,
        )

    async def _handle_ws(self, request: web.Request) -> web.StreamResponse:
        ws = web.WebSocketResponse(autoping=True, heartbeat=None, compress=False, max_msg_size=MAX_MSG_SIZE)
        await ws.prepare(request)
        session = self._new_session()
        self.connections += 1
        log.info("connection from %s", request.remote)
        receive, send, handle = ws.receive, ws.send_bytes, session.handle
        try:
            while True:
                msg = await receive()
                mtype = msg.type
                if mtype is WSMsgType.BINARY:
                    data = msg.data
                elif mtype is WSMsgType.TEXT:  # not the SC2 protocol; answer with a protocol error
                    data = msg.data.encode("utf-8", "replace")
                else:  # CLOSE, CLOSING, CLOSED, ERROR
                    break
                out = handle(data)
                if session.peer_port:  # hosting bot vs bot: the other engine processes connect there
                    if self.peers:
                        await self._listen_for_peers(session.peer_port)
                    session.peer_port = 0
                if session.pending is not None:  # multiplayer join/step waiting for the other players
                    out = await session.take_pending()
                elif session.proxy_port:  # bot vs bot: the game lives in another engine process
                    await self._proxy(ws, session, data)
                    break
                if session.reply_delay:  # real time: hold the observation until the clock gets there
                    await asyncio.sleep(session.reply_delay)
                await send(out)
                if session.quit_requested:
                    if self.exit_on_quit:
                        await self._exit_now(ws, session.stats)
                    await ws.close()
                    break
        finally:
            self.connections -= 1
            session.close()
            if session.stats is not None:
                _write_stats(session.stats)
                session.stats.reset()
            log.info("connection closed")
        return ws

    async def _listen_for_peers(self, port: int) -> None:
        """Also serve on ``server_ports.game_port``: the other engine processes of a bot-vs-bot game connect there."""
        if port in self._peer_ports or port == self.port or self._runner is None:
            return
        self._peer_ports.add(port)
        try:
            await web.TCPSite(self._runner, self.host, port, reuse_address=True).start()
            log.info("bot vs bot: accepting the other players on port %s", port)
        except OSError as exc:  # e.g. both players on one server: nobody needs the peer port
            log.info("bot vs bot: cannot listen on game port %s (%s)", port, exc)

    async def _proxy(self, ws: web.WebSocketResponse, session: EngineSession, join: bytes) -> None:
        """Forward this client's requests to the engine hosting the game (bot vs bot, second process).

        ``quit`` is answered here (the local process is the client's SC2); everything else goes
        upstream, replies come back unchanged.
        """
        import aiohttp

        port = session.proxy_port
        url = f"ws://{self.host}:{port}/sc2api"
        deadline = time.monotonic() + PEER_CONNECT_TIMEOUT
        async with aiohttp.ClientSession() as http:
            upstream = None
            while upstream is None:
                try:
                    upstream = await http.ws_connect(url, max_msg_size=0, autoping=True)
                except aiohttp.ClientError:
                    if time.monotonic() > deadline:
                        session.proxy_port = 0
                        await ws.send_bytes(session._error_bytes(
                            "join_game", 0, f"bot vs bot: no engine hosting the game on port {port} (create_game on the host first)"))
                        return
                    await asyncio.sleep(0.05)
            log.info("bot vs bot: forwarding to the host engine at %s", url)
            try:
                data: bytes | None = join
                while data is not None:
                    if _is_quit(data):
                        await upstream.close()
                        out = session.handle(data)
                        await ws.send_bytes(out)
                        if self.exit_on_quit:
                            await self._exit_now(ws, session.stats)
                        await ws.close()
                        return
                    try:
                        await upstream.send_bytes(data)
                        out = await upstream.receive_bytes()
                    except (aiohttp.ClientError, ConnectionError, TypeError):
                        session.status = ENDED
                        out = session._error_bytes(None, 0, ERR_GAME_OVER + " (the host engine closed the game)")
                    await ws.send_bytes(out)
                    data = None
                    msg = await ws.receive()
                    if msg.type is WSMsgType.BINARY:
                        data = msg.data
                    elif msg.type is WSMsgType.TEXT:
                        data = msg.data.encode("utf-8", "replace")
            finally:
                await upstream.close()

    async def _exit_now(self, ws: web.WebSocketResponse, stats: DispatchStats | None) -> None:
        """Exit right after the quit reply left, like SC2, and be reaped before the socket closes.

        A host of a bot-vs-bot game first waits (bounded) until the other players' connections
        are gone, so they can finish their game. burnysc2 closes its websocket (which waits for
        our end to close) and then polls the process; if it still runs, it calls ``terminate()``
        and sleeps 0.5 s. A process's sockets close slightly *before* it becomes reapable, so a
        plain exit loses that race now and then. Instead a forked child keeps the socket open
        until this process is gone, then exits.
        """
        if stats is not None:
            _write_stats(stats)
        deadline = time.monotonic() + PEER_LINGER
        while self.connections > 1 and time.monotonic() < deadline:
            await asyncio.sleep(0.005)
        transport = getattr(getattr(ws, "_req", None), "transport", None)
        deadline = time.monotonic() + 0.2
        while transport is not None and transport.get_write_buffer_size() and time.monotonic() < deadline:
            time.sleep(0.001)  # the reply is tiny; this practically never waits
        logging.shutdown()
        me = os.getpid()
        try:
            child = os.fork()
        except OSError:
            child = -1
        if child == 0:  # the socket holder: wait (bounded) until the parent has exited
            end = time.monotonic() + 2.0
            while os.getppid() == me and time.monotonic() < end:
                time.sleep(0.0002)
            os._exit(0)
        os._exit(0)

    async def start(self, host: str, port: int, sock: socket.socket | None = None) -> int:
        """Listen on ``host:port`` (port 0 picks a free one), or on the already bound ``sock``;
        returns the bound port."""
        self.host = host
        self._runner = web.AppRunner(self.app, access_log=None, handle_signals=False)
        await self._runner.setup()
        site: web.BaseSite
        if sock is not None:
            site = web.SockSite(self._runner, sock)
        else:
            site = web.TCPSite(self._runner, host, port, reuse_address=True)
        await site.start()
        server = site._server
        sockets = getattr(server, "sockets", None) or []
        self.port = sockets[0].getsockname()[1] if sockets else port
        log.info("sc2pool engine listening on ws://%s:%s%s", host, self.port, WS_PATH)
        return self.port

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None


def _is_quit(data: bytes) -> bool:
    try:
        return sc_pb.Request.FromString(data).WhichOneof("request") == "quit"
    except Exception:
        return False


def _watch_parent(parent: int, interval: float = 0.5) -> None:
    """Exit when the process that launched us is gone (reparented), so no orphan engine stays."""

    def run() -> None:
        while True:
            if os.getppid() != parent:
                os._exit(0)
            time.sleep(interval)

    threading.Thread(target=run, name="sc2pool-parent-watch", daemon=True).start()


async def serve_forever(
    host: str,
    port: int,
    *,
    exit_on_quit: bool = False,
    ready: threading.Event | None = None,
    sock: socket.socket | None = None,
    peers: bool = False,
) -> None:
    """Run an :class:`EngineServer` until cancelled."""
    server = EngineServer(exit_on_quit=exit_on_quit, host=host, peers=peers)
    await server.start(host, port, sock)
    if ready is not None:
        ready.set()
    try:
        await asyncio.Event().wait()
    finally:
        await server.stop()


def serve(host: str = "127.0.0.1", port: int = 5000, *, exit_on_quit: bool = False) -> None:
    """Blocking: serve the SC2 API on ``ws://host:port/sc2api`` until interrupted (Ctrl-C).

    Each connection has its own session; a connection that joins without creating joins the
    newest open game (ladder pattern, bot vs bot).
    """
    _preload()
    try:
        asyncio.run(serve_forever(host, port, exit_on_quit=exit_on_quit))
    except KeyboardInterrupt:
        pass


def _preload() -> None:
    """Import the simulation, and the scipy parts a ladder map's path finder uses, before
    serving (:func:`sc2pool.engine.warm.warm_up`): burnysc2 waits a second before it first
    connects, which these imports fill, so the first create_game does not pay for them."""
    from sc2pool.engine.warm import warm_up

    warm_up()


def main(argv: Sequence[str] | None = None, sock: socket.socket | None = None, parent_pid: int | None = None) -> int:
    """Entry point of the fake ``SC2_x64``: serve one client the way SC2 does, exit on quit.

    ``sock``: a listening socket bound early by ``python -m sc2pool.engine``; ``parent_pid``: the
    launching process, recorded as early as possible (exit when it is gone).
    """
    args = parse_sc2_args(sys.argv[1:] if argv is None else argv)
    logfile = os.environ.get("SC2POOL_ENGINE_LOG")
    configure_logging(logging.WARNING, logfile)
    _watch_parent(os.getppid() if parent_pid is None else parent_pid)
    try:
        if args.dataVersion:  # (before the simulation loads the data)
            from sc2pool.engine.data import versions

            versions.select(args.dataVersion)
        _preload()
        asyncio.run(serve_forever(args.listen, args.port, exit_on_quit=True, sock=sock, peers=True))
    except KeyboardInterrupt:
        return 130
    except OSError as exc:  # e.g. port in use: say so on stdout, burnysc2 hides stderr
        print(f"sc2pool engine: cannot listen on {args.listen}:{args.port}: {exc}", flush=True)
        return 1
    except Exception as exc:
        # burnysc2 discards stderr and, the port closed, retries for minutes before its
        # TimeoutError("Websocket"): the reason must reach stdout and the log file
        log.critical("sc2pool engine failed before serving", exc_info=True)
        print(f"sc2pool engine: failed before serving: {type(exc).__name__}: {exc}", flush=True)
        traceback.print_exc(file=sys.stdout)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
