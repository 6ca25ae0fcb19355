"""Game process management: where games come from and how they are guaranteed to go away.

Three engines, one code path through burnysc2:

* ``engine="subprocess"`` with ``$SC2PATH`` **unset**: the embedded sc2pool engine. A fake SC2
  install (``Versions/Base94137/SC2_x64`` launching the engine server, placeholder maps) is written
  to a private temp dir, and burnysc2's own ``SC2Process`` launches it exactly as it launches SC2;
* ``engine="subprocess"`` with ``$SC2PATH`` pointing at a **real** StarCraft II: the same code
  launches the real game (Linux package from Blizzard, or Windows/macOS installs);
* ``engine="inprocess"``: the embedded engine inside the worker process behind an in-process
  transport (no socket, no second process) - the fastest option, for tests and throughput.

Games are launched one at a time (burnysc2's advice on Linux: simultaneous launches fail), each
with a timeout and a :class:`GameLaunchError` naming the install. Every process we start is
killed on :meth:`GameConnection.close`, and an ``atexit`` hook kills any left if the worker exits
without closing; game processes share the worker's process group, so a pool that kills the
worker's group kills them too.
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
import weakref
from pathlib import Path
from typing import Any

from sc2.controller import Controller

from workers.sc2 import bridge

ENGINES = ("subprocess", "inprocess")

_live: weakref.WeakSet[GameConnection] = weakref.WeakSet()


class GameConnection:
    """One game (process or in-process engine) and the burnysc2 ``Controller`` talking to it."""

    def __init__(self, controller: Controller, *, proc: Any = None, transport: Any = None, stats: Any = None) -> None:
        self.controller = controller
        self._proc = proc
        self.transport = transport
        #: In-process engine only: the engine's per-request timing (``DispatchStats``).
        self.engine_stats = stats
        self.closed = False
        _live.add(self)

    @property
    def pid(self) -> int | None:
        return None if self._proc is None else bridge.sc2_process_pid(self._proc)

    def alive(self) -> bool:
        if self.closed:
            return False
        popen = None if self._proc is None else bridge.sc2_process_popen(self._proc)
        return popen is None or popen.poll() is None

    def describe_death(self) -> str:
        """A short human description of why the game might be gone (for error messages)."""
        popen = None if self._proc is None else bridge.sc2_process_popen(self._proc)
        if popen is None:
            return ""
        rc = popen.poll()
        if rc is None:
            return f"game process {popen.pid} still running"
        return f"game process {popen.pid} exited with code {rc}"

    def kill_now(self) -> None:
        """Synchronous kill (atexit, emergencies)."""
        if self._proc is not None:
            bridge.kill_sc2_process(self._proc, grace=0.5)
        self.closed = True

    async def close(self, polite: bool = True) -> None:
        """Ask the game to quit (bounded; skipped when ``polite`` is false, e.g. for a hung game),
        make sure the process is gone, then drop the connection. Never raises.

        Impolite closes (a crashed, hung or misbehaving game) give the process 0.2 s after
        SIGTERM instead of 1 s before SIGKILL: it is being replaced, nothing of it is needed."""
        if self.closed:
            return
        self.closed = True
        try:
            if polite and (self.alive() or self._proc is None):
                await bridge.send_quit(self.controller, timeout=1.0)
            if self._proc is not None:
                bridge.kill_sc2_process(self._proc, grace=1.0 if polite else 0.2)
                await bridge.close_sc2_connection(self._proc)
            elif self.transport is not None:
                await self.transport.close()
        except BaseException:  # noqa: BLE001 - close never raises
            if self._proc is not None:
                bridge.kill_sc2_process(self._proc, grace=0.2)


class Launcher:
    """Creates game connections for one host; owns the private fake install, if any."""

    def __init__(self, engine: str = "subprocess", launch_timeout: float = 60.0) -> None:
        if engine not in ENGINES:
            raise ValueError(f"engine must be one of {ENGINES}, got {engine!r}")
        self.engine = engine
        self.launch_timeout = float(launch_timeout)
        self._private_install: Path | None = None
        self.install: Path | None = None

    def describe(self) -> str:
        if self.engine == "inprocess":
            return "embedded engine, in-process transport"
        if self._private_install is not None:
            return f"embedded engine via fake install {self._private_install}"
        return f"StarCraft II at SC2PATH={self.install}"

    def _prepare_install(self) -> None:
        if self.install is not None:
            return
        env = os.environ.get("SC2PATH")
        if env:
            root = Path(env).expanduser()
            if not root.is_dir():
                raise bridge.GameLaunchError(f"SC2PATH={env} is not a directory")
            versions = root / "Versions"
            if not versions.is_dir() or not any(p.name.startswith("Base") for p in versions.iterdir()):
                raise bridge.GameLaunchError(
                    f"SC2PATH={env} is not a StarCraft II install (no Versions/Base*/ folder); "
                    "unset SC2PATH to use the embedded engine"
                )
            self.install = root
        else:
            from sc2pool.engine.install import ensure_install

            private = Path(tempfile.mkdtemp(prefix="sc2pool-sc2-"))
            self._private_install = private
            self.install = ensure_install(private, set_env=False)
        bridge.point_burnysc2_at(self.install)

    async def launch(self, registry: Any = None) -> GameConnection:
        """Start one game and connect to it (callers launch one at a time).

        ``registry``: in-process engine only, a ``RoomRegistry`` shared by the connections whose
        games are joined from each other's (self-play: the two players of one game); a game
        process needs none, the guest's engine forwards to the host's by the game's ports."""
        if self.engine == "inprocess":
            from sc2pool.engine.session import DispatchStats
            from sc2pool.engine.transport import connect_inprocess

            stats = DispatchStats()
            transport = connect_inprocess(stats=stats, registry=registry)
            return GameConnection(bridge.make_inprocess_controller(transport), transport=transport, stats=stats)
        self._prepare_install()
        assert self.install is not None
        bridge.point_burnysc2_at(self.install)
        proc, controller = await bridge.open_sc2_process(self.launch_timeout, self.install)
        return GameConnection(controller, proc=proc)

    def new_registry(self) -> Any:
        """A ``RoomRegistry`` for :meth:`launch` (in-process engine; None for game processes)."""
        if self.engine != "inprocess":
            return None
        from sc2pool.engine.session import RoomRegistry

        return RoomRegistry()

    def cleanup(self) -> None:
        """Remove the private fake install (after every game of this launcher is closed)."""
        if self._private_install is not None:
            shutil.rmtree(self._private_install, ignore_errors=True)
            self._private_install = None
            bridge.forget_burnysc2_paths()


@atexit.register
def _kill_leftovers() -> None:
    for conn in list(_live):
        if not conn.closed:
            conn.kill_now()
