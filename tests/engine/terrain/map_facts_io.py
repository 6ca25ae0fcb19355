"""Reading the real client's map facts (``map_facts/<Map>.txt``, written by tools/gen_map_facts.py)
and building, from the engine's LadderMap, the ``ResponseGameInfo`` and first observation that
burnysc2 is given, so both sides can be put through burnysc2 alike."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from s2clientprotocol import common_pb2, raw_pb2
from s2clientprotocol import sc2api_pb2 as sc
from sc2.ids.unit_typeid import UnitTypeId

from sc2pool.engine.terrain import LadderMap, start_raw, start_visible

FACTS_DIR = Path(__file__).parent / "map_facts"
MAP_NAMES = sorted(p.stem for p in FACTS_DIR.glob("*.txt"))


@dataclass
class Facts:
    name: str
    size: tuple[int, int]
    playable: tuple[int, int, int, int]
    own_start: tuple[float, float]
    start_locations: list[tuple[float, float]]
    pathing: np.ndarray
    placement: np.ndarray
    height: np.ndarray
    # (type, x, y, visible, radius, minerals, vespene)
    units: list[tuple[str, float, float, bool, float, int, int]] = field(default_factory=list)
    expansions: list[tuple[float, float]] = field(default_factory=list)
    ramp: dict[str, list[tuple[float, float]]] = field(default_factory=dict)


def _points(words: list[str]) -> list[tuple[float, float]]:
    return [(float(a), float(b)) for a, b in (w.split(",") for w in words)]


def _bits(runs: list[str], w: int, h: int) -> np.ndarray:
    vals = np.zeros(len(runs), dtype=bool)
    vals[1::2] = True
    return np.repeat(vals, [int(r) for r in runs]).reshape(h, w)


def _bytes(runs: list[str], w: int, h: int) -> np.ndarray:
    vals, counts = [], []
    for r in runs:
        v, _, c = r.partition("*")
        vals.append(int(v))
        counts.append(int(c or 1))
    return np.repeat(np.array(vals, dtype=np.uint8), counts).reshape(h, w)


def read_facts(name: str) -> Facts:
    kv: dict[str, list[str]] = {}
    units, exps, ramp = [], [], {}
    for line in (FACTS_DIR / f"{name}.txt").read_text().splitlines():
        if not line or line.startswith("#"):
            continue
        key, *words = line.split(" ")
        if key == "unit":
            t, x, y, d, r, mi, ve = words
            units.append((t, float(x), float(y), d == "V", float(r), int(mi), int(ve)))
        elif key == "expansion":
            exps.append((float(words[0]), float(words[1])))
        elif key == "ramp":
            ramp[words[0]] = _points(words[1:])
        else:
            kv[key] = words
    w, h = int(kv["size"][0]), int(kv["size"][1])
    return Facts(
        name=kv["map"][0], size=(w, h), playable=tuple(int(v) for v in kv["playable"]),  # type: ignore[arg-type]
        own_start=(float(kv["own_start"][0]), float(kv["own_start"][1])),
        start_locations=_points(kv["start_locations"]),
        pathing=_bits(kv["pathing"], w, h), placement=_bits(kv["placement"], w, h), height=_bytes(kv["height"], w, h),
        units=units, expansions=exps, ramp=ramp,
    )


def type_id(name: str) -> int:
    """The client's unit type id of a type name (burnysc2's id table)."""
    return UnitTypeId[name.upper()].value


def engine_game_info(m: LadderMap, own_start: tuple[float, float]) -> sc.ResponseGameInfo:
    gi = sc.ResponseGameInfo(map_name=m.name, local_map_path=f"{m.name}.SC2Map")
    gi.start_raw.CopyFrom(start_raw(m, own_start))
    gi.player_info.add(player_id=1, type=1, race_requested=1, race_actual=1)
    gi.player_info.add(player_id=2, type=2, race_requested=2, difficulty=1)
    return gi


def engine_observation(m: LadderMap, own_start: tuple[float, float], radii: dict[str, float]) -> sc.ResponseObservation:
    """The first observation's units as the engine would report them: own CommandCenter and the neutrals."""
    obs = sc.ResponseObservation()
    units = obs.observation.raw_data.units
    visible = {id(n) for n in start_visible(m, own_start)}
    cc = units.add(display_type=raw_pb2.Visible, alliance=raw_pb2.Self, tag=1, unit_type=type_id("CommandCenter"),
                   owner=1, radius=2.75, build_progress=1.0, health=1500, health_max=1500)
    cc.pos.CopyFrom(common_pb2.Point(x=own_start[0], y=own_start[1], z=m.z(*own_start)))
    for i, n in enumerate(m.neutrals):
        vis = id(n) in visible
        u = units.add(display_type=raw_pb2.Visible if vis else raw_pb2.Snapshot, alliance=raw_pb2.Neutral,
                      tag=100 + i, unit_type=type_id(n.type_name), owner=16, radius=radii.get(n.type_name, 1.0),
                      build_progress=1.0, facing=n.facing)
        u.pos.CopyFrom(common_pb2.Point(x=n.x, y=n.y, z=m.z(n.x, n.y)))
        if vis and n.contents is not None:
            if n.is_mineral:
                u.mineral_contents = n.contents
            elif n.is_geyser:
                u.vespene_contents = n.contents
    obs.observation.game_loop = 0
    return obs


def engine_response_data(m: LadderMap) -> sc.ResponseData:
    """Just the unit types on this map, with the client's names (burnysc2 groups resources by name)."""
    data = sc.ResponseData()
    for name in sorted({n.type_name for n in m.neutrals}):
        data.units.add(unit_id=type_id(name), name=name, available=True)
    # attributes Armored, Mechanical, Structure (ResponseData), so burnysc2 counts it a townhall
    data.units.add(unit_id=type_id("CommandCenter"), name="CommandCenter", available=True, attributes=[1, 4, 8])
    return data


def burny_answers(game_info: sc.ResponseGameInfo, observation: sc.ResponseObservation, data: sc.ResponseData):
    """burnysc2's expansion_locations_list and main_base_ramp on these messages (as python-sc2's tests build a bot)."""
    from sc2.bot_ai import BotAI
    from sc2.client import Client
    from sc2.game_data import GameData
    from sc2.game_info import GameInfo
    from sc2.game_state import GameState

    bot = BotAI()
    bot._initialize_variables()
    bot._prepare_start(client=Client(True), player_id=1, game_info=GameInfo(game_info), game_data=GameData(data))
    bot._prepare_step(state=GameState(observation), proto_game_info=sc.Response(game_info=game_info))
    bot._prepare_first_step()
    exps = sorted((float(p.x), float(p.y)) for p in bot.expansion_locations_list)
    try:
        ramp = bot.main_base_ramp
        return exps, ramp_answers(ramp)
    except (AssertionError, ValueError):  # burnysc2 trips on a ramp it cannot take apart
        return exps, None


def ramp_answers(ramp) -> dict[str, list[tuple[float, float]]]:
    """The main ramp's points that python-sc2's wall-in bots use (each a sorted list of points);
    tools/gen_map_facts.py writes the client's with this same function."""

    def pts(s) -> list[tuple[float, float]]:
        return sorted((float(p.x), float(p.y)) for p in s)

    def one(p) -> list[tuple[float, float]]:
        return [] if p is None else [(float(p.x), float(p.y))]

    return {
        "top_center": one(ramp.top_center),
        "upper": pts(ramp.upper),
        "lower": pts(ramp.lower),
        "upper2_for_ramp_wall": pts(ramp.upper2_for_ramp_wall),
        "corner_depots": pts(ramp.corner_depots),
        "depot_in_middle": one(ramp.depot_in_middle),
        "barracks_in_middle": one(ramp.barracks_in_middle),
        "barracks_correct_placement": one(ramp.barracks_correct_placement),
    }
