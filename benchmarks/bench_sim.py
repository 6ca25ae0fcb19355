"""Engine-only benchmark: the Game's own cost per agent step (no websocket, no burnysc2).

One agent step = ``observation`` (serialized bytes, as the server sends them) + ``action`` (when
the scripted agent issues one) + ``step(8)``.  Time is CPU time of this process
(``time.process_time``), reported as the best of ``--repeats`` runs, because shared
machines are noisy.  Scenarios restart when they end, like an RL env does.

    python benchmarks/bench_sim.py                 # all scenarios
    python benchmarks/bench_sim.py --only Battle100v100 --steps 300
    python benchmarks/bench_sim.py --json out.json
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

from s2clientprotocol import common_pb2, raw_pb2
from s2clientprotocol import sc2api_pb2 as sc_pb

from sc2pool.engine.game import Game

SCENARIOS: dict[str, list[dict[str, int]]] = {
    "MoveToBeacon": [],
    "CollectMineralShards": [],
    "DefeatRoaches": [],
    "DefeatZerglingsAndBanelings": [],
    "Skirmish": [{"type": 2, "race": 2, "difficulty": 3}],
    "Battle100v100": [],
    "Economy12x3": [],
}
"""``Economy12x3``: TerranEconomy with its 12 mining SCVs plus 3 producing structures (the Command
Center and two barracks train marines/SCVs non-stop; supply and minerals topped up)."""
BEACON, SHARD = 317, 1680


def make(name: str, extra: list[dict[str, int]], seed: int = 1) -> Game:
    if name == "Economy12x3":
        return make_economy(seed)
    req = sc_pb.RequestCreateGame(local_map=sc_pb.LocalMap(map_path=f"{name}.SC2Map"), random_seed=seed)
    req.player_setup.add(type=1, race=1)
    for e in extra:
        req.player_setup.add(**e)  # type: ignore[arg-type]
    g = Game.create(req)
    g.join(sc_pb.RequestJoinGame(race=1))  # type: ignore[arg-type]
    return g


def make_economy(seed: int = 1) -> Game:
    """TerranEconomy plus two ready barracks and depots (supply for the whole run)."""
    g = make("TerranEconomy", [], seed)
    econ = g.world.construction
    for k in range(2):
        econ.add_structure(21, 1, 32.5, 26.5 + 6 * k)
    for k in range(6):
        econ.add_structure(19, 1, 40.0, 20.0 + 3 * k)
    g.world.supply.minerals[1] = 1_000_000
    return g


def economy_action(obs: sc_pb.ResponseObservation) -> sc_pb.RequestAction | None:
    """Keep every producing structure's queue at two (marines from barracks, SCVs from the CC, the
    new SCVs standing idle so 12 stay mining)."""
    req = sc_pb.RequestAction()
    for u in obs.observation.raw_data.units:
        if u.alliance == 1 and u.unit_type in (18, 21) and len(u.orders) < 2:
            req.actions.add().action_raw.unit_command.MergeFrom(
                raw_pb2.ActionRawUnitCommand(ability_id=524 if u.unit_type == 18 else 560, unit_tags=[u.tag]))
    return req if req.actions else None


def agent_action(obs: sc_pb.ResponseObservation) -> sc_pb.RequestAction | None:
    """A simple scripted agent: go to the beacon / nearest shard, or attack-move the enemy."""
    units = obs.observation.raw_data.units
    if any(u.unit_type == 18 for u in units):
        return economy_action(obs)
    mine = [u for u in units if u.alliance == 1]
    if not mine:
        return None
    goals = [u for u in units if u.unit_type in (BEACON, SHARD)] or [u for u in units if u.alliance == 4]
    if not goals:
        return None
    g = goals[0]
    req = sc_pb.RequestAction()
    req.actions.add().action_raw.unit_command.MergeFrom(
        raw_pb2.ActionRawUnitCommand(ability_id=16 if g.alliance == 3 else 23, unit_tags=[u.tag for u in mine],
                                     target_world_space_pos=common_pb2.Point2D(x=g.pos.x, y=g.pos.y)))
    return req


def run(name: str, steps: int, act_every: int) -> dict[str, float]:
    g = make(name, SCENARIOS[name])
    t_obs = t_act = t_step = 0.0
    n_units = 0
    episodes = 0
    ro = sc_pb.RequestObservation()
    for i in range(steps):
        if g.ended:
            g.restart()
            episodes += 1
        t0 = time.process_time()
        b = g.observation_bytes(1, ro)
        t1 = time.process_time()
        t_obs += t1 - t0
        if i % act_every == 0:
            obs = sc_pb.ResponseObservation.FromString(b)
            n_units += len(obs.observation.raw_data.units)
            a = agent_action(obs)
            if a is not None:
                t2 = time.process_time()
                g.action(1, a)
                t_act += time.process_time() - t2
        t3 = time.process_time()
        g.step(8)
        t_step += time.process_time() - t3
    us = 1e6 / steps
    return {"obs_us": t_obs * us, "action_us": t_act * us, "step_us": t_step * us,
            "total_us": (t_obs + t_act + t_step) * us, "episodes": episodes,
            "mean_units": n_units / max(1, (steps + act_every - 1) // act_every)}


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--steps", type=int, default=600)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--act-every", type=int, default=4, help="agent acts every N steps")
    ap.add_argument("--only", nargs="*", default=None)
    ap.add_argument("--json", default=None)
    args = ap.parse_args(argv)
    out: dict[str, Any] = {}
    for name in args.only or list(SCENARIOS):
        best: dict[str, float] | None = None
        for _ in range(args.repeats):
            r = run(name, args.steps, args.act_every)
            if best is None or r["total_us"] < best["total_us"]:
                best = r
        assert best is not None
        out[name] = best
        print(f"{name:30s} obs {best['obs_us']:7.1f} us  action {best['action_us']:6.1f} us  "
              f"step(8) {best['step_us']:7.1f} us  total {best['total_us']:7.1f} us  "
              f"(units ~{best['mean_units']:.0f}, episodes {best['episodes']})")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=2)


if __name__ == "__main__":
    main()
