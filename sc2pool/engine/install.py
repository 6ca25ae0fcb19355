"""A fake StarCraft II install that makes burnysc2 launch the sc2pool engine instead of SC2.

burnysc2 finds SC2 through ``$SC2PATH`` (``sc2/paths.py``): it runs the newest
``Versions/Base<N>/SC2_x64`` with ``-listen HOST -port P -dataDir ... -tempDir ...`` and then connects
to ``ws://HOST:P/sc2api``; ``sc2.maps.get(name)`` looks for ``<name>.SC2Map`` in ``Maps/`` and one
sub-folder level, and only the path relative to ``Maps/`` is sent to the game. So a fake install is:

* ``Versions/Base94137/SC2_x64``: a shell script that execs this Python on ``sc2pool.engine``
  (the engine server, which accepts SC2's command line);
* ``Maps/mini_games/<MiniGame>.SC2Map`` (the pysc2 layout) and ``Maps/<Scenario>.SC2Map`` for the
  other scenarios: placeholders; the engine picks the scenario from the file's basename.
* ``Maps/<Ladder>.SC2Map``: copies of the real ladder maps sc2maptool ships (``pip install
  'sc2pool[maps]'``), under sc2maptool's name and, where it differs, the real client's
  (``16BitLE`` and ``16-BitLE``), so ``maps.get("AcidPlantLE")`` finds them unchanged.

Public API: :func:`write_install` (explicit directory), :func:`ensure_install` (what pool workers
call: respects an existing ``$SC2PATH``, otherwise creates a per-user default and exports it).
All writes are atomic and idempotent, so many workers may call these at the same time.
"""

from __future__ import annotations

import hashlib
import os
import shlex
import shutil
import sys
import tempfile
from collections.abc import Iterable
from pathlib import Path

from sc2pool.engine.session import BASE_BUILD

#: pysc2 keeps these under ``Maps/mini_games/``; map_path then arrives as ``mini_games/X.SC2Map``.
MINI_GAMES: tuple[str, ...] = (
    "MoveToBeacon",
    "CollectMineralShards",
    "FindAndDefeatZerglings",
    "DefeatRoaches",
    "DefeatZerglingsAndBanelings",
    "CollectMineralsAndGas",
    "BuildMarines",
)
#: Used when the simulation module cannot be imported (it lists the authoritative names).
_FALLBACK_SCENARIOS: tuple[str, ...] = (*MINI_GAMES, "Skirmish", "Battle100v100", "TerranEconomy")

#: Marker file identifying a directory as an sc2pool fake install (never a real SC2 one).
MARKER = "sc2pool-engine-install.txt"

_PLACEHOLDER = b"sc2pool engine placeholder map; the engine picks the scenario from this file's name.\n"


def scenario_list() -> list[str]:
    """All scenario (map) basenames the engine plays."""
    try:
        from sc2pool.engine.game import scenario_names
    except ImportError:  # pragma: no cover - only while the simulation module is missing
        return list(_FALLBACK_SCENARIOS)
    return list(scenario_names())


def map_relative_paths(scenarios: Iterable[str] | None = None) -> list[str]:
    """Map paths relative to ``Maps/`` (as ``RequestCreateGame.local_map.map_path`` carries them)."""
    names = scenario_list() if scenarios is None else list(scenarios)
    return [f"mini_games/{n}.SC2Map" if n in MINI_GAMES else f"{n}.SC2Map" for n in names]


def launcher_script(python: str | None = None) -> str:
    """The ``SC2_x64`` shell script: exec ``python -m sc2pool.engine`` with SC2's arguments.

    The package's parent directory goes first on ``PYTHONPATH`` so the launcher works from a
    source checkout too, not only from an installed sc2pool.
    """
    py = python or sys.executable
    src = str(Path(__file__).resolve().parents[2])
    return (
        "#!/bin/sh\n"
        "# sc2pool fake StarCraft II: the embedded engine speaking the SC2 API (written by sc2pool).\n"
        f"PYTHONPATH={shlex.quote(src)}${{PYTHONPATH:+:$PYTHONPATH}}\n"
        "export PYTHONPATH\n"
        f"exec {shlex.quote(py)} -m sc2pool.engine \"$@\"\n"
    )


def _copy_atomic(src: Path, dest: Path) -> None:
    """Copy ``src`` to ``dest`` unless ``dest`` already is a copy (same size and modification time)."""
    st = src.stat()
    try:
        d = dest.stat()
        if d.st_size == st.st_size and d.st_mtime_ns == st.st_mtime_ns:
            return
    except OSError:
        pass
    dest.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=dest.parent, prefix=f".{dest.name}.")
    os.close(fd)
    try:
        shutil.copy2(src, tmp)
        os.replace(tmp, dest)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def ladder_map_files() -> dict[str, Path]:
    """{file name in Maps/: source .SC2Map} of every bundled ladder map the install writes."""
    from sc2pool.engine.terrain.catalogue import bundled_maps, install_names

    out: dict[str, Path] = {}
    for stem, src in bundled_maps().items():
        for name in install_names(stem):
            out[f"{name}.SC2Map"] = src
    return out


def _write_atomic(path: Path, data: bytes, mode: int | None = None) -> None:
    """Write ``data`` to ``path`` unless it already holds exactly that (safe under concurrency)."""
    try:
        if path.read_bytes() == data and (mode is None or (path.stat().st_mode & 0o777) == mode):
            return
    except OSError:
        pass
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_install(directory: str | os.PathLike[str], *, python: str | None = None, scenarios: Iterable[str] | None = None) -> Path:
    """Create or refresh a fake SC2 install in ``directory`` and return its absolute path.

    Idempotent: files already correct are left untouched. Refuses a directory that looks like a
    real SC2 install (a ``Versions/`` folder without this module's marker) so a typo can never
    overwrite someone's game.
    """
    root = Path(directory).expanduser().resolve()
    versions = root / "Versions"
    if versions.is_dir() and not (root / MARKER).exists() and any(versions.iterdir()):
        raise FileExistsError(f"{root} looks like a real StarCraft II install (has Versions/ but no {MARKER}); refusing to write")
    root.mkdir(parents=True, exist_ok=True)
    _write_atomic(root / MARKER, b"This directory is a fake StarCraft II install written by sc2pool (sc2pool engine install).\n")
    # burnysc2 runs Versions/Base<N>/SC2_x64 on Linux and .../SC2.app/Contents/MacOS/SC2 on macOS.
    exe = "SC2.app/Contents/MacOS/SC2" if sys.platform == "darwin" else "SC2_x64"
    _write_atomic(versions / f"Base{BASE_BUILD}" / exe, launcher_script(python).encode(), mode=0o755)
    for rel in map_relative_paths(scenarios):
        _write_atomic(root / "Maps" / rel, _PLACEHOLDER)
    for name, src in ladder_map_files().items():
        _copy_atomic(src, root / "Maps" / name)
    return root


def is_fake_install(directory: str | os.PathLike[str]) -> bool:
    """True if ``directory`` was written by :func:`write_install`."""
    return (Path(directory) / MARKER).is_file()


def default_install_dir() -> Path:
    """A per-user, per-interpreter directory under the temp dir for the automatic install."""
    key = hashlib.sha1(f"{sys.executable}|{Path(__file__).resolve()}".encode()).hexdigest()[:10]
    uid = os.getuid() if hasattr(os, "getuid") else 0
    return Path(tempfile.gettempdir()) / f"sc2pool-sc2-{uid}-{key}"


def ensure_install(directory: str | os.PathLike[str] | None = None, *, set_env: bool = True) -> Path:
    """Return an SC2 install for burnysc2, writing the engine's fake one when needed.

    * ``directory`` given: write (or refresh) a fake install there.
    * ``directory`` is None and ``$SC2PATH`` is set: return it untouched (a real SC2 is honoured;
      a fake one written by an older interpreter is refreshed).
    * otherwise: write one under :func:`default_install_dir`.

    With ``set_env`` (the default) ``$SC2PATH`` is exported to the returned path, because burnysc2
    reads it in every process it runs in (a worker without it ``sys.exit(1)``\\ s).
    """
    if directory is None:
        env = os.environ.get("SC2PATH")
        if env:
            root = Path(env).expanduser()
            if is_fake_install(root):
                root = write_install(root)
            return root
        root = write_install(default_install_dir())
    else:
        root = write_install(directory)
    if set_env:
        os.environ["SC2PATH"] = str(root)
    return root
