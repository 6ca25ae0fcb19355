"""Frame rendering cost: ``sc2pool bench --render`` / ``benchmarks/bench_render.py``.

For each scenario a game of the embedded engine is played a few hundred loops by a scripted agent
while its observations are kept; then, on the same observations:

* ``render``  - :class:`sc2pool.training.render.FrameRenderer` (the frames ``render_mode="rgb_array"`` gives);
* ``pillow``  - a peer: the same picture drawn the obvious way with Pillow's ``ImageDraw`` (a filled
  ellipse and two bar rectangles per unit on a copied background, no anti-aliasing, no text);
* ``step``    - the engine's own cost of the agent step those frames show (``observation`` bytes +
  ``action`` + ``step(8)``), so that the render cost reads as a share of a step.

The ``Melee`` case is a whole-map game on a ladder map (AcidPlantLE, 148 x 136 playable cells)
against the engine's Computer (Easy) under fog of war: our side gets three barracks, four depots
and 30 marines by debug commands at its start and sends the marines across the map to the enemy
start, so the frames hold terrain, fog, snapshots, both players' structures and armies in sight
of each other, and combat. One observation every 32 game loops (the Melee task's decision step).

Times are CPU time of this process per frame, each frame's best of ``--repeats`` rounds (the
shared machines are noisy), interleaved per round; ``render ms`` is their mean, ``p50``/``p99``
their median and 99th percentile. The targets at the default size (256 px): <= 1 ms per frame on
the mini-games, <= 2 ms on a whole melee map.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from typing import Any

import numpy as np
from s2clientprotocol import common_pb2, raw_pb2
from s2clientprotocol import sc2api_pb2 as sc_pb

TARGET_MS = 1.0
MELEE_TARGET_MS = 2.0
MELEE_MAP = "AcidPlantLE.SC2Map"
SCENARIOS: dict[str, str] = {
    "Melee": MELEE_MAP,
    "MoveToBeacon": "mini_games/MoveToBeacon.SC2Map",
    "CollectMineralShards": "mini_games/CollectMineralShards.SC2Map",
    "DefeatRoaches": "mini_games/DefeatRoaches.SC2Map",
    "DefeatZerglingsAndBanelings": "mini_games/DefeatZerglingsAndBanelings.SC2Map",
    "Battle100v100": "Battle100v100.SC2Map",
}
MINIGAMES = ("MoveToBeacon", "CollectMineralShards", "DefeatRoaches", "DefeatZerglingsAndBanelings")


def _game(map_path: str, seed: int = 1) -> tuple[Any, int]:
    from sc2pool.engine.game import Game

    req = sc_pb.RequestCreateGame(local_map=sc_pb.LocalMap(map_path=map_path), random_seed=seed)
    req.player_setup.add(type=sc_pb.Participant, race=1)
    game = Game.create(req)
    join = sc_pb.RequestJoinGame(options=sc_pb.InterfaceOptions(raw=True, score=True))
    join.race = common_pb2.Terran
    pid = game.join(join)
    return game, pid


def _action(obs: sc_pb.ResponseObservation) -> sc_pb.RequestAction | None:
    units = obs.observation.raw_data.units
    mine = [u.tag for u in units if u.alliance == 1]
    goals = [u for u in units if u.alliance == 3] or [u for u in units if u.alliance == 4]
    if not mine or not goals:
        return None
    g = goals[0]
    req = sc_pb.RequestAction()
    req.actions.add().action_raw.unit_command.MergeFrom(
        raw_pb2.ActionRawUnitCommand(ability_id=16 if g.alliance == 3 else 23, unit_tags=mine,
                                     target_world_space_pos=common_pb2.Point2D(x=g.pos.x, y=g.pos.y)))
    return req


def _melee_game(seed: int = 1) -> tuple[Any, int, tuple[float, float]]:
    """A melee game on :data:`MELEE_MAP` against the Computer (Easy), our side given a base and
    an army by debug commands (see the module docstring); and the enemy's start."""
    from s2clientprotocol import debug_pb2

    from sc2pool.engine.game import Game

    req = sc_pb.RequestCreateGame(local_map=sc_pb.LocalMap(map_path=MELEE_MAP), random_seed=seed)
    req.player_setup.add(type=sc_pb.Participant, race=1)
    req.player_setup.add(type=sc_pb.Computer, race=1, difficulty=3)
    game = Game.create(req)
    pid = game.join(sc_pb.RequestJoinGame(race=common_pb2.Terran, options=sc_pb.InterfaceOptions(raw=True, score=True)))
    start = game.game_info(pid).start_raw.start_locations[0]  # the enemy's
    own = next(u.pos for u in game.observation(pid).observation.raw_data.units if u.alliance == 1 and u.unit_type == 18)
    dx, dy = (1 if start.x > own.x else -1), (1 if start.y > own.y else -1)
    debug = sc_pb.RequestDebug()
    for unit_type, qty, ox, oy in ((21, 1, 7.5, 0.5), (21, 1, 7.5, 4.5), (21, 1, 3.5, 7.5), (19, 1, -6, -2),
                                   (19, 1, -6, 0), (19, 1, -4, -6), (19, 1, -2, -6), (48, 30, 9, 9)):
        debug.debug.add(create_unit=debug_pb2.DebugCreateUnit(
            unit_type=unit_type, owner=pid, quantity=qty, pos=common_pb2.Point2D(x=own.x + dx * ox, y=own.y + dy * oy)))
    game.debug(pid, debug)
    return game, pid, (start.x, start.y)


def _melee_action(obs: sc_pb.ResponseObservation, target: tuple[float, float]) -> sc_pb.RequestAction | None:
    """Every marine attack-moves to the enemy start."""
    marines = [u.tag for u in obs.observation.raw_data.units if u.alliance == 1 and u.unit_type == 48]
    if not marines:
        return None
    req = sc_pb.RequestAction()
    req.actions.add().action_raw.unit_command.MergeFrom(
        raw_pb2.ActionRawUnitCommand(ability_id=23, unit_tags=marines,
                                     target_world_space_pos=common_pb2.Point2D(x=target[0], y=target[1])))
    return req


def _play(map_path: str, steps: int) -> tuple[Any, list[sc_pb.ResponseObservation], float]:
    """Game info, ``steps`` observations, and the engine's CPU seconds per agent step."""
    melee = map_path == MELEE_MAP
    if melee:
        game, pid, target = _melee_game()
    else:
        game, pid = _game(map_path)
        target = (0.0, 0.0)
    loops = 32 if melee else 8
    info = game.game_info(pid)
    observations = []
    t0 = time.process_time()
    for _ in range(steps):
        data = game.observation_bytes(pid, sc_pb.RequestObservation())
        obs = sc_pb.ResponseObservation.FromString(data)
        observations.append(obs)
        act = _melee_action(obs, target) if melee else _action(obs)
        if act is not None:
            game.action(pid, act)
        game.step(loops)
        if game.ended:
            game.restart()
    step_s = (time.process_time() - t0) / steps
    return info, observations, step_s


class PillowPeer:
    """The straightforward way: ImageDraw ellipses and rectangles on a copy of the background."""

    def __init__(self, renderer: Any) -> None:
        from PIL import Image

        self.r = renderer
        self.background = Image.fromarray(renderer.ground)

    def render(self, obs: sc_pb.ResponseObservation) -> np.ndarray:
        from PIL import ImageDraw

        from sc2pool.training.render import ALLIANCE_COLORS, NEUTRAL_COLOR

        img = self.background.copy()
        draw = ImageDraw.Draw(img)
        r = self.r
        for u in obs.observation.raw_data.units:
            cx, cy = r.to_pixel(u.pos.x, u.pos.y)
            rad = max(1.5, u.radius * r.scale)
            draw.ellipse((cx - rad, cy - rad, cx + rad, cy + rad), fill=ALLIANCE_COLORS.get(u.alliance, NEUTRAL_COLOR))
            if u.health_max > 0:
                frac = u.health / u.health_max
                top = cy - rad - 3
                draw.rectangle((cx - rad, top, cx + rad, top + 1), fill=(40, 0, 0))
                draw.rectangle((cx - rad, top, cx - rad + 2 * rad * frac, top + 1), fill=(40, 200, 40))
        return np.asarray(img)


def _per_frame(fn: Any, observations: list[Any]) -> np.ndarray:
    """CPU seconds of each frame."""
    out = np.empty(len(observations))
    clock = time.process_time_ns
    for i, obs in enumerate(observations):
        t0 = clock()
        fn(obs)
        out[i] = clock() - t0
    return out * 1e-9


def measure(scenarios: list[str], sizes: list[int], steps: int, repeats: int) -> list[dict[str, Any]]:
    from sc2pool.training.render import FrameRenderer

    rows = []
    for name in scenarios:
        info, observations, step_s = _play(SCENARIOS[name], steps)
        units = float(np.mean([len(o.observation.raw_data.units) for o in observations]))
        for size in sizes:
            ours = FrameRenderer(info, size)
            peer = PillowPeer(ours)
            best = {"render": np.full(len(observations), np.inf), "pillow": np.full(len(observations), np.inf)}
            for _ in range(repeats):
                best["render"] = np.minimum(best["render"], _per_frame(ours.render, observations))
                best["pillow"] = np.minimum(best["pillow"], _per_frame(peer.render, observations))
            rows.append({
                "scenario": name, "size": size, "frame": list(ours.render(observations[0]).shape), "units": units,
                "render_ms": float(best["render"].mean()) * 1e3, "pillow_ms": float(best["pillow"].mean()) * 1e3,
                "render_p50_ms": float(np.median(best["render"])) * 1e3,
                "render_p99_ms": float(np.percentile(best["render"], 99)) * 1e3, "step_ms": step_s * 1e3,
            })
    return rows


def format_rows(rows: list[dict[str, Any]]) -> str:
    head = (f"{'scenario':<28} {'size':>4} {'frame':>11} {'units':>6} {'render ms':>9} {'p50':>6} {'p99':>6} "
            f"{'pillow ms':>9} {'x pillow':>8} {'step ms':>8} {'of step':>7}")
    lines = [head, "-" * len(head)]
    for r in rows:
        h, w, _ = r["frame"]
        lines.append(
            f"{r['scenario']:<28} {r['size']:>4} {f'{w}x{h}':>11} {r['units']:>6.0f} {r['render_ms']:>9.3f} "
            f"{r['render_p50_ms']:>6.3f} {r['render_p99_ms']:>6.3f} "
            f"{r['pillow_ms']:>9.3f} {r['pillow_ms'] / r['render_ms']:>7.2f}x {r['step_ms']:>8.3f} "
            f"{100 * r['render_ms'] / r['step_ms']:>6.0f}%"
        )
    mini = [r for r in rows if r["size"] == 256 and r["scenario"] in MINIGAMES]
    if mini:
        worst = max(mini, key=lambda r: r["render_ms"])
        ok = "met" if worst["render_ms"] <= TARGET_MS else "NOT met"
        lines.append(f"target <= {TARGET_MS:g} ms/frame at 256 px on the mini-games: {ok} "
                     f"(worst {worst['render_ms']:.3f} ms, {worst['scenario']})")
    for r in rows:
        if r["scenario"] == "Melee" and r["size"] == 256:
            ok = "met" if r["render_p99_ms"] <= MELEE_TARGET_MS else "NOT met"
            lines.append(f"target <= {MELEE_TARGET_MS:g} ms/frame at 256 px on a melee map: {ok} "
                         f"(median {r['render_p50_ms']:.3f} ms, p99 {r['render_p99_ms']:.3f} ms)")
    try:
        lines.append(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    except OSError:
        pass
    return "\n".join(lines)


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--scenarios", nargs="*", default=list(SCENARIOS), choices=list(SCENARIOS))
    p.add_argument("--sizes", type=int, nargs="*", default=[256, 512])
    p.add_argument("--steps", type=int, default=200, help="observations per scenario (default 200)")
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--json", default=None, metavar="PATH", help="also write the rows as JSON")


def main(args: argparse.Namespace) -> int:
    rows = measure(args.scenarios, args.sizes, args.steps, args.repeats)
    print(format_rows(rows))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=2)
    return 0


def run_default(quick: bool = False) -> int:
    """``sc2pool bench --render [--quick]``: every scenario at 256 and 512 px (256 only, fewer
    observations and rounds with ``quick``)."""
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    args = parser.parse_args(["--sizes", "256", "--steps", "60", "--repeats", "2"] if quick else [])
    return main(args)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_arguments(parser)
    sys.exit(main(parser.parse_args()))
