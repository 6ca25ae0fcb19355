"""Where ladder maps come from: sc2maptool's bundled ``.SC2Map`` files and the user's ``Maps/`` folders.

burnysc2's ``maps.get(name)`` looks for ``<name>.SC2Map`` (exact stem) in ``$SC2PATH/Maps`` and one
sub-folder level below it, so the install writes each bundled map under the names bots use: the
file's own stem (``AbyssalReefLE``, sc2maptool's name) and the name the real client gives in
``ResponseGameInfo.local_map_path`` where it differs (``16-BitLE``, ``BattleontheBoardwalkLE``,
``LostandFoundLE``).  Matching here is looser (case and punctuation ignored) so the engine finds
a map whichever spelling a request carries.
"""

from __future__ import annotations

import importlib.util
import os
import re
from collections.abc import Sequence
from pathlib import Path

#: Capture (client) spellings of bundled maps whose sc2maptool file stem differs (python-sc2's
#: ``test/pickle_data`` names, which are the real client's ``local_map_path`` stems).
CLIENT_NAMES: dict[str, str] = {
    "16BitLE": "16-BitLE",
    "BattleOnTheBoardwalkLE": "BattleontheBoardwalkLE",
    "LostAndFoundLE": "LostandFoundLE",
}


def normalise(name: str) -> str:
    """Lower case without punctuation and without a ``.SC2Map`` suffix: ``16-BitLE`` == ``16bitle``."""
    stem = name[:-7] if name.lower().endswith(".sc2map") else name
    stem = Path(stem).name
    return re.sub(r"[^a-z0-9]", "", stem.lower())


def _season_key(path: Path) -> tuple[str, ...]:
    return tuple(path.parts)


def bundled_maps() -> dict[str, Path]:
    """{file stem: path} of sc2maptool's 1v1 ladder maps, the newest season's copy of each.

    Empty when sc2maptool is not installed (``pip install 'sc2pool[maps]'``).  The package is not
    imported (its ``__init__`` needs packages the engine does not); only its files are read.
    """
    spec = importlib.util.find_spec("sc2maptool")
    if spec is None or not spec.submodule_search_locations:
        return {}
    root = Path(next(iter(spec.submodule_search_locations))) / "maps" / "Ladder"
    out: dict[str, Path] = {}
    # year2017/Season3 < year2018/Season3: later seasons overwrite earlier copies of the same map
    for f in sorted(root.glob("mode1v1/year*/Season*/*.SC2Map"), key=_season_key):
        out[f.stem] = f
    return out


def install_names(stem: str) -> list[str]:
    """The file stems a bundled map is installed under in ``Maps/`` (sc2maptool's and the client's)."""
    names = [stem]
    client = CLIENT_NAMES.get(stem)
    if client and client != stem:
        names.append(client)
    return names


def user_maps(maps_dirs: Sequence[str | os.PathLike[str]]) -> dict[str, Path]:
    """{stem: path} of the real ``.SC2Map`` files in ``maps_dirs`` and one sub-folder level below."""
    out: dict[str, Path] = {}
    for d in maps_dirs:
        root = Path(d)
        if not root.is_dir():
            continue
        for f in sorted(list(root.glob("*.SC2Map")) + list(root.glob("*/*.SC2Map"))):
            if f.is_file() and is_real_map(f):
                out.setdefault(f.stem, f)
    return out


def is_real_map(path: str | os.PathLike[str]) -> bool:
    """True if the file starts like an MPQ archive (a real map), not an engine scenario placeholder."""
    try:
        with open(path, "rb") as fh:
            return fh.read(3) == b"MPQ"
    except OSError:
        return False


def find_map(name: str, maps_dirs: Sequence[str | os.PathLike[str]] = ()) -> Path | None:
    """The map a request names: a path that exists, else a user map, else a bundled one (loose match)."""
    p = Path(name)
    if p.suffix.lower() == ".sc2map" and p.is_file() and is_real_map(p):
        return p
    key = normalise(name)
    for table in (user_maps(maps_dirs), bundled_maps()):
        for stem, path in table.items():
            if normalise(stem) == key:
                return path
    return None


def default_maps_dirs() -> list[Path]:
    """``$SC2PATH/Maps`` when SC2PATH is set (where burnysc2 and the fake install keep maps)."""
    env = os.environ.get("SC2PATH")
    return [Path(env) / "Maps"] if env else []


def playable_maps(maps_dirs: Sequence[str | os.PathLike[str]] = ()) -> dict[str, Path]:
    """{name: path} of every ladder map the engine can be asked to play (user maps first)."""
    out = dict(user_maps(maps_dirs))
    have = {normalise(k) for k in out}
    for stem, path in bundled_maps().items():
        if normalise(stem) not in have:
            out[stem] = path
    return dict(sorted(out.items(), key=lambda kv: kv[0].lower()))
