"""Does self-play teach Melee? Train with ``opponent="self"`` (or ``"league"``), never against the
Computer, then evaluate every saved snapshot against ``Computer(Easy)``: the win rate per snapshot
is the curve (docs/melee.md, "Self-play", has the figures). Training starts, as ``sc2pool train``
does, from a clone of the scripted baseline playing itself (``--pretrain-episodes 0``: from scratch).

    python benchmarks/selfplay_winrate.py --out runs/selfplay --opponent league --timesteps 60000 --snapshot-every 20000 --episodes 20

Writes OUT/train/ (the ``sc2pool train`` run, snapshots under OUT/train/snapshots/) and
OUT/winrate.csv (snapshot timestep, games, won, tied, lost, win rate and its 95% Wilson interval,
mean reward). ``--skip-train`` evaluates the snapshots of an earlier run again.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
import time
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", default="runs/selfplay")
    p.add_argument("--opponent", choices=("self", "league"), default="self")
    p.add_argument("--timesteps", type=int, default=200_000)
    p.add_argument("--snapshot-every", type=int, default=25_000)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--envs-per-worker", type=int, default=2)
    p.add_argument("--episodes", type=int, default=10, help="evaluation games per snapshot")
    p.add_argument("--difficulty", default="easy", help="the Computer the snapshots are evaluated against")
    p.add_argument("--task-kwargs", default="{}", help="more Melee options (JSON), for training and evaluation")
    p.add_argument("--engine", choices=("subprocess", "inprocess"), default="inprocess")
    p.add_argument("--pretrain-episodes", type=int, default=None,
                   help="baseline-vs-baseline games cloned before self-play (default: the task's, 24; 0: none)")
    p.add_argument("--stochastic", action="store_true", help="evaluate sampling actions, as PPO trains")
    p.add_argument("--eval-workers", type=int, default=2)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--skip-train", action="store_true")
    p.add_argument("--league-fixed", action="append", default=[], metavar="MODEL",
                   help="with --opponent league: a saved model that stays in the league, or 'scripted' for the "
                   "task's scripted baseline (repeatable)")
    p.add_argument("--league-size", type=int, default=None, help="with --opponent league: snapshots kept (default 5)")
    p.add_argument("--heartbeat-timeout", type=float, default=5.0,
                   help="seconds a silent worker is given (raise it beside other work, e.g. at nice 19)")
    args = p.parse_args(argv)

    from sc2pool.options import Timeouts
    from sc2pool.training.train import evaluate, train

    out = Path(args.out)
    extra = json.loads(args.task_kwargs)
    if not args.skip_train:
        res = train(task="Melee", n_workers=args.workers, envs_per_worker=args.envs_per_worker,
                    timesteps=args.timesteps, out_dir=out / "train", seed=args.seed,
                    task_kwargs={**extra, "opponent": args.opponent}, snapshot_every=args.snapshot_every,
                    progress_bar=True, engine=args.engine, pretrain_episodes=args.pretrain_episodes,
                    league_fixed=args.league_fixed, league_size=args.league_size,
                    pool_kwargs={"timeouts": Timeouts(heartbeat=args.heartbeat_timeout)})
        print(f"trained {res.timesteps} timesteps in {res.seconds:.0f} s ({len(res.episodes)} episodes)", flush=True)
    snapshots = sorted((out / "train" / "snapshots").glob("snapshot_*.zip"), key=lambda q: int(q.stem.split("_")[1]))
    rows = []
    for snap in snapshots:
        t0 = time.perf_counter()
        ev = evaluate(snap, task="Melee", episodes=args.episodes, n_workers=args.eval_workers, envs_per_worker=2,
                      task_kwargs={**extra, "opponent": {"difficulty": args.difficulty}}, seed=12345,
                      engine=args.engine, deterministic=not args.stochastic,
                      pool_kwargs={"timeouts": Timeouts(heartbeat=args.heartbeat_timeout)})
        lo, hi = ev.win_interval()
        results = ev.results
        row = {
            "timestep": int(snap.stem.split("_")[1]),
            "games": ev.games,
            "won": results.count("Victory"),
            "tied": results.count("Tie"),
            "lost": results.count("Defeat"),
            "win_rate": round(ev.win_rate, 3),
            "wilson_lo": round(lo, 3),
            "wilson_hi": round(hi, 3),
            "mean_reward": round(ev.mean, 3),
            "eval_s": round(time.perf_counter() - t0, 1),
        }
        rows.append(row)
        print(json.dumps(row), flush=True)
    if rows:
        with (out / "winrate.csv").open("w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(rows[0]))
            w.writeheader()
            w.writerows(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
