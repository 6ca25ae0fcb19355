"""Shared by the tools that read python-sc2's real-client captures and sc2maptool's map files.

A capture (``test/pickle_data/<Map>.xz`` in BurnySc2/python-sc2) is lzma + pickle of
``[Response(data=ResponseData), Response(game_info=ResponseGameInfo), ResponseObservation]`` taken
by the real client at game start.  The tools read them from a bare git snapshot of the repository
(``git show HEAD:test/pickle_data/<Map>.xz``) so nothing of python-sc2's is copied into this one.
"""

from __future__ import annotations

import lzma
import pickle
import subprocess
from dataclasses import dataclass
from pathlib import Path

import numpy as np

#: The 24 ladder maps that both sc2maptool and python-sc2's captures have, by the capture's name.
CAPTURED_MAPS: tuple[str, ...] = (
    "16-BitLE", "AbiogenesisLE", "AbyssalReefLE", "AcidPlantLE", "AcolyteLE", "AscensiontoAiurLE",
    "BackwaterLE", "BattleontheBoardwalkLE", "BlackpinkLE", "BlueshiftLE", "CatalystLE", "CeruleanFallLE",
    "DarknessSanctuaryLE", "DreamcatcherLE", "EastwatchLE", "FractureLE", "FrostLE", "InterloperLE",
    "LostandFoundLE", "MechDepotLE", "NeonVioletSquareLE", "OdysseyLE", "ParaSiteLE", "RedshiftLE",
)

DEFAULT_MIRROR = "/work/.mirror/BurnySc2+python-sc2/repo"


@dataclass
class Capture:
    name: str
    width: int
    height: int
    playable: tuple[int, int, int, int]
    pathing: np.ndarray  # bool[h, w]
    placement: np.ndarray  # bool[h, w]
    height_bytes: np.ndarray  # uint8[h, w]
    start_locations: list[tuple[float, float]]
    # (unit type name, x, y, z, alliance, display_type, radius, facing, minerals, vespene, owner)
    units: list[tuple]
    game_info: object  # the ResponseGameInfo
    observation: object  # the ResponseObservation
    data: object  # the ResponseData


def load_capture(name: str, mirror: str = DEFAULT_MIRROR) -> Capture:
    blob = subprocess.run(
        ["git", "-C", mirror, "show", f"HEAD:test/pickle_data/{name}.xz"], check=True, capture_output=True
    ).stdout
    data_resp, gi_resp, obs = pickle.loads(lzma.decompress(blob))
    data, gi = data_resp.data, gi_resp.game_info
    sr = gi.start_raw
    w, h = sr.map_size.x, sr.map_size.y

    def bits(img) -> np.ndarray:
        return np.unpackbits(np.frombuffer(img.data, np.uint8))[: w * h].reshape(h, w).astype(bool)

    names = {u.unit_id: u.name for u in data.units}
    units = [
        (names.get(u.unit_type, str(u.unit_type)), u.pos.x, u.pos.y, u.pos.z, int(u.alliance), int(u.display_type),
         u.radius, u.facing, u.mineral_contents, u.vespene_contents, u.owner)
        for u in obs.observation.raw_data.units
    ]
    pa = sr.playable_area
    return Capture(
        name=name, width=w, height=h, playable=(pa.p0.x, pa.p0.y, pa.p1.x, pa.p1.y),
        pathing=bits(sr.pathing_grid), placement=bits(sr.placement_grid),
        height_bytes=np.frombuffer(sr.terrain_height.data, np.uint8).reshape(h, w).copy(),
        start_locations=[(p.x, p.y) for p in sr.start_locations], units=units,
        game_info=gi, observation=obs, data=data,
    )


def map_file(name: str) -> Path:
    """The sc2maptool file of a captured map (the newest season's copy)."""
    from sc2pool.engine.terrain.catalogue import bundled_maps, normalise

    files = bundled_maps()
    key = normalise(name)
    for stem, path in files.items():
        if normalise(stem) == key:
            return path
    raise KeyError(f"no sc2maptool map for {name}")
