"""The fake SC2 install and the SC2_x64 launcher: files, idempotence, launch, quit, no orphans."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
from pathlib import Path

import aiohttp
import portpicker
import psutil
import pytest
from helpers.proctree import ProcessTree
from helpers.waiting import HANG_S, wait_until
from s2clientprotocol import sc2api_pb2 as sc

from sc2pool.engine import install
from sc2pool.engine.sc2args import parse_sc2_args


def _gone(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


def _kill(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        proc.kill()
    proc.wait(timeout=10)


def test_write_install_layout(tmp_path: Path):
    root = install.write_install(tmp_path / "sc2")
    exe = root / "Versions" / "Base94137" / "SC2_x64"
    assert exe.is_file() and os.access(exe, os.X_OK)
    text = exe.read_text()
    assert "-m sc2pool.engine" in text and sys.executable in text
    for name in install.scenario_list():
        rel = install.map_relative_paths([name])[0]
        assert (root / "Maps" / rel).is_file(), rel
    assert (root / "Maps" / "mini_games" / "MoveToBeacon.SC2Map").is_file()
    assert install.is_fake_install(root)


def test_write_install_idempotent(tmp_path: Path):
    root = install.write_install(tmp_path / "sc2")
    exe = root / "Versions" / "Base94137" / "SC2_x64"
    before = exe.stat().st_mtime_ns, exe.stat().st_ino
    install.write_install(root)
    assert (exe.stat().st_mtime_ns, exe.stat().st_ino) == before
    exe.write_text("#!/bin/sh\nexit 1\n")  # a damaged launcher is repaired
    install.write_install(root)
    assert "-m sc2pool.engine" in exe.read_text() and os.access(exe, os.X_OK)
    assert not [p for p in exe.parent.iterdir() if p.name.startswith(".")], "no temp files left"


def test_refuses_real_install(tmp_path: Path):
    real = tmp_path / "StarCraftII"
    (real / "Versions" / "Base75689").mkdir(parents=True)
    with pytest.raises(FileExistsError, match="real StarCraft II"):
        install.write_install(real)


def test_ensure_install_respects_sc2path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    real = tmp_path / "real"
    real.mkdir()
    monkeypatch.setenv("SC2PATH", str(real))
    assert install.ensure_install() == real
    assert not (real / "Versions").exists(), "a real SC2PATH is never written to"


def test_ensure_install_default_sets_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.delenv("SC2PATH", raising=False)
    monkeypatch.setattr(install, "default_install_dir", lambda: tmp_path / "auto")
    root = install.ensure_install()
    assert root == (tmp_path / "auto").resolve() and os.environ["SC2PATH"] == str(root)
    assert install.is_fake_install(root)
    explicit = install.ensure_install(tmp_path / "explicit", set_env=False)
    assert install.is_fake_install(explicit) and os.environ["SC2PATH"] == str(root)


def test_parse_sc2_args_ignores_unknown_flags():
    argv = ["-listen", "127.0.0.1", "-port", "5123", "-dataDir", "/x", "-tempDir", "/tmp/SC2_1",
            "-displayMode", "0", "-windowwidth", "1024", "-dataVersion", "ABC", "-eglpath", "libEGL.so", "-verbose"]
    a = parse_sc2_args(argv)
    assert a.listen == "127.0.0.1" and a.port == 5123 and a.tempDir == "/tmp/SC2_1" and a.verbose


async def _ping_quit(port: int) -> tuple[int, int]:
    deadline = time.monotonic() + 20
    async with aiohttp.ClientSession() as http:
        while True:
            try:
                ws = await http.ws_connect(f"ws://127.0.0.1:{port}/sc2api")
                break
            except aiohttp.ClientConnectorError:
                if time.monotonic() > deadline:
                    raise
                await asyncio.sleep(0.05)
        await ws.send_bytes(sc.Request(ping=sc.RequestPing()).SerializeToString())
        build = sc.Response.FromString(await ws.receive_bytes(timeout=10)).ping.base_build
        await ws.send_bytes(sc.Request(quit=sc.RequestQuit()).SerializeToString())
        status = sc.Response.FromString(await ws.receive_bytes(timeout=10)).status
        await ws.close()
    return build, status


def _launch(exe: Path, port: int, tmp: Path) -> subprocess.Popen:
    # exactly burnysc2's command line (sc2/sc2process.py), stderr discarded as it does
    return subprocess.Popen(
        [str(exe), "-listen", "127.0.0.1", "-port", str(port), "-dataDir", str(exe.parents[2]),
         "-tempDir", str(tmp), "-displayMode", "0", "-verbose"],
        stderr=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
    )


@pytest.mark.timeout(60)
def test_launcher_serves_and_exits_on_quit(tmp_path: Path):
    root = install.write_install(tmp_path / "sc2")
    port = portpicker.pick_unused_port()
    proc = _launch(root / "Versions" / "Base94137" / "SC2_x64", port, tmp_path)
    try:
        build, status = asyncio.run(_ping_quit(port))
        assert build == 94137 and status == 6
        assert proc.wait(timeout=HANG_S) == 0, "the engine exits (status 0) after the quit reply"
    finally:
        _kill(proc)


@pytest.mark.timeout(60)
def test_engine_exits_when_its_parent_dies(tmp_path: Path, process_tree: ProcessTree):
    root = install.write_install(tmp_path / "sc2")
    exe = root / "Versions" / "Base94137" / "SC2_x64"
    port = portpicker.pick_unused_port()
    parent_code = (
        "import subprocess, sys, time\n"
        f"p = subprocess.Popen([{str(exe)!r}, '-listen', '127.0.0.1', '-port', '{port}'])\n"
        "print(p.pid, flush=True)\n"
        "time.sleep(120)\n"
    )
    parent = process_tree.popen([sys.executable, "-c", parent_code], stdout=subprocess.PIPE, text=True)
    assert parent.stdout is not None
    engine = psutil.Process(int(parent.stdout.readline()))
    # wait until it serves, so the watchdog is running
    wait_until(lambda: engine.net_connections(kind="tcp"), "the engine to listen")
    parent.kill()  # the parent alone: its session (the engine) is process_tree's to clean up
    parent.wait(timeout=10)
    wait_until(lambda: _gone(engine.pid), "the engine to exit after its parent died")


@pytest.mark.timeout(60)
def test_port_in_use_reports_and_exits(tmp_path: Path):
    import socket

    root = install.write_install(tmp_path / "sc2")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        proc = subprocess.Popen(
            [str(root / "Versions" / "Base94137" / "SC2_x64"), "-listen", "127.0.0.1", "-port", str(port)],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
        )
        try:
            out, _ = proc.communicate(timeout=30)
            assert proc.returncode == 1 and "cannot listen" in out
        finally:
            _kill(proc)


def test_engine_package_does_not_import_burnysc2():
    code = (
        "import sys\n"
        "import sc2pool.engine.server, sc2pool.engine.session, sc2pool.engine.transport\n"
        "import sc2pool.engine.install, sc2pool.engine.cli, sc2pool.engine.game\n"
        "bad = sorted(m for m in sys.modules if m == 'sc2' or m.startswith('sc2.'))\n"
        "print(bad)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


@pytest.mark.timeout(60)
def test_an_engine_that_fails_before_serving_says_why_on_stdout_and_in_its_log(tmp_path: Path):
    """burnysc2 discards the game's stderr and keeps retrying a closed port for minutes: the
    reason a start failed must be on stdout and in ``SC2POOL_ENGINE_LOG``."""
    port = portpicker.pick_unused_port()
    logfile = tmp_path / "engine.log"
    code = ("import sys; import sc2pool.engine.server as s\n"
            "def boom(): raise RuntimeError('simulation would not load')\n"
            "s._preload = boom\n"
            f"sys.exit(s.main(['-listen', '127.0.0.1', '-port', '{port}']))\n")
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=dict(os.environ, SC2POOL_ENGINE_LOG=str(logfile)))
    try:
        out, _ = proc.communicate(timeout=HANG_S)
        assert proc.returncode == 1
        assert "failed before serving: RuntimeError: simulation would not load" in out
        assert "Traceback" in out
        text = logfile.read_text()
        assert "failed before serving" in text and "simulation would not load" in text
    finally:
        _kill(proc)


@pytest.mark.timeout(60)
def test_the_engine_imports_what_a_ladder_game_needs_before_it_serves_and_freezes_them():
    """burnysc2 waits a second before its first connect: the server's start fills it with the
    imports a ladder map's first create_game would otherwise wait for (scipy's graph and image
    modules for the path finder), then takes them out of the collector's full passes, once."""
    code = ("import gc, sys; import sc2pool.engine.server as s; s._preload(); frozen = gc.get_freeze_count(); "
            "junk = [[] for _ in range(100)]; s._preload(); "
            "print([m for m in ('sc2pool.engine.game', 'scipy.ndimage', 'scipy.sparse.csgraph') if m not in sys.modules], "
            "frozen > 10000, gc.get_freeze_count() == frozen)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=HANG_S)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[] True True"
