"""Reporting for the pool benchmark: the issue's targets, a text table, JSON, and a PNG plot.

Everything here works on the plain JSON-able dict that ``pool.run_benchmark`` returns, so a
saved ``bench_pool.json`` can be re-rendered (``python -m sc2pool.bench.report FILE``) without
re-running anything.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

PASS, FAIL, NA = "PASS", "FAIL", "n/a"


@dataclass(frozen=True)
class Target:
    """A ratio the issue asks for. ``value`` returns (ratio, detail) or None when not measured."""

    name: str
    threshold: float
    higher_is_better: bool
    value: Callable[[dict[str, Any]], tuple[float, str] | None]


def _row(
    result: dict[str, Any], scenario: str, impl: str, n_workers: int | None = None, shm: bool = True
) -> dict[str, Any] | None:
    """The measured row of ``impl`` in ``scenario`` (ZmqVecEnv: with its defaults, shared memory
    unless ``shm=False``, pinned workers with one address layout)."""
    for r in result["results"]:
        if r["scenario"] == scenario and r["impl"] == impl and r["best"] is not None:
            if (
                (n_workers is None or r["n_workers"] == n_workers)
                and r.get("shm", True) == shm
                and r.get("pinned", True)
                and _aslr_off(r)
            ):
                return r
    return None


def _aslr_off(row: dict[str, Any]) -> bool:
    """Whether a result row ran with the workers' ASLR off (the default); result files written
    before the option was renamed call it ``fixed_layout``."""
    return bool(row.get("disable_aslr", row.get("fixed_layout", True)))


def _best_zmq(result: dict[str, Any], scenario: str) -> dict[str, Any] | None:
    rows = [
        r for r in result["results"]
        if r["scenario"] == scenario and r["impl"] == "zmq" and r["best"] and r.get("pinned", True)
        and _aslr_off(r)
    ]
    return max(rows, key=lambda r: r["best"]) if rows else None


def _ratio(
    num: dict[str, Any] | None,
    den: dict[str, Any] | None,
    den_scale: float = 1.0,
    den_label: str | None = None,
) -> tuple[float, str] | None:
    if num is None or den is None:
        return None
    d = den["best"] * den_scale
    detail = f"{num['label']} {num['best']:,.0f} vs {den_label or den['label']} {d:,.0f} steps/s"
    if den_scale == 1.0:
        detail += _cpu_note(num, den, higher_is_better=True)
    return num["best"] / d, detail


def _total_cpu(r: dict[str, Any]) -> float | None:
    t, c = r.get("best_trainer_cpu_us"), r.get("best_children_cpu_us")
    return None if t is None or c is None else t + c


def _cpu_note(num: dict[str, Any], den: dict[str, Any], higher_is_better: bool) -> str:
    """The same comparison by CPU time per step (trainer + children), which background load on a
    shared machine distorts far less than wall time."""
    a, b = _total_cpu(num), _total_cpu(den)
    if not a or not b:
        return ""
    ratio = b / a if higher_is_better else a / b
    return f"; CPU/step {a:,.0f} vs {b:,.0f} us (ratio {ratio:.2f})"


def _overhead(
    result: dict[str, Any], scenario: str, workers: int, shm: bool = True
) -> tuple[float, str] | None:
    z = _row(result, scenario, "zmq", workers, shm)
    raw = _row(result, scenario, "raw", workers)
    if z is None or raw is None:
        return None
    zu, ru = z["best_us_per_step"], raw["best_us_per_step"]
    detail = f"{z['label']} {zu:,.1f} us/step vs raw ROUTER/DEALER {ru:,.1f} us/round trip"
    return zu / ru, detail + _cpu_note(z, raw, higher_is_better=False)


TARGETS: tuple[Target, ...] = (
    Target(
        "CartPole 8 envs: ZmqVecEnv(w=2) / SubprocVecEnv(8)",
        3.0,
        True,
        lambda r: _ratio(_row(r, "cartpole-8", "zmq", 2), _row(r, "cartpole-8", "subproc")),
    ),
    Target(
        "CartPole 8 envs: ZmqVecEnv(w=2) / AsyncVectorEnv(8, shm)",
        2.0,
        True,
        lambda r: _ratio(_row(r, "cartpole-8", "zmq", 2), _row(r, "cartpole-8", "async")),
    ),
    Target(
        "CartPole 8 envs: ZmqVecEnv(w=8) / SubprocVecEnv(8)",
        1.2,
        True,
        lambda r: _ratio(_row(r, "cartpole-8", "zmq", 8), _row(r, "cartpole-8", "subproc")),
    ),
    Target(
        "1 ms env, 2 envs: ZmqVecEnv(w=2) / ideal (2 x single env)",
        0.85,
        True,
        lambda r: _ratio(_row(r, "busy1ms-2", "zmq", 2), _row(r, "busy1ms-2", "inproc"), 2.0, "ideal"),
    ),
    Target(
        "(84,84,3) uint8, 4 envs: best ZmqVecEnv / AsyncVectorEnv(shm)",
        1.0,
        True,
        lambda r: _ratio(_best_zmq(r, "image-4"), _row(r, "image-4", "async")),
    ),
    Target(
        "(64,64,17) float32, 4 envs: best ZmqVecEnv / AsyncVectorEnv(shm)",
        1.0,
        True,
        lambda r: _ratio(_best_zmq(r, "features-4"), _row(r, "features-4", "async")),
    ),
    Target(
        "no-op env, 1 env: ZmqVecEnv step time / raw zmq round trip",
        1.5,
        False,
        lambda r: _overhead(r, "noop-1", 1),
    ),
)

#: Reported like a target but not one of the issue's (no PASS/FAIL weight).
INFO_TARGETS: tuple[Target, ...] = (
    Target(
        "no-op env, 1 env: ZmqVecEnv(no shm) step time / raw zmq round trip (info)",
        1.5,
        False,
        lambda r: _overhead(r, "noop-1", 1, shm=False),
    ),
    Target(
        "no-op env, 8 envs in 2 workers: ZmqVecEnv / raw round trips (info)",
        1.5,
        False,
        lambda r: _overhead(r, "noop-8", 2),
    ),
    Target(
        "no-op env, 8 envs in 2 workers: ZmqVecEnv(no shm) / raw round trips (info)",
        1.5,
        False,
        lambda r: _overhead(r, "noop-8", 2, shm=False),
    ),
)


def evaluate_targets(result: dict[str, Any]) -> list[dict[str, Any]]:
    """PASS/FAIL per target (``n/a`` when the scenario or an implementation was not measured)."""
    out = []
    for target, info in [(t, False) for t in TARGETS] + [(t, True) for t in INFO_TARGETS]:
        v = target.value(result)
        if v is None:
            status, ratio, detail = NA, None, "not measured"
        else:
            ratio, detail = v
            ok = ratio >= target.threshold if target.higher_is_better else ratio <= target.threshold
            status = PASS if ok else FAIL
        out.append(
            {
                "name": target.name,
                "ratio": ratio,
                "threshold": target.threshold,
                "op": ">=" if target.higher_is_better else "<=",
                "status": status,
                "detail": detail,
                "informational": info,
            }
        )
    return out


def _fmt(x: float | None, spec: str = ",.0f") -> str:
    return "-" if x is None or (isinstance(x, float) and math.isnan(x)) else format(x, spec)


def _cpu(r: dict[str, Any]) -> str:
    """``trainer+children`` CPU microseconds per vector step in the best round."""
    t, c = r.get("best_trainer_cpu_us"), r.get("best_children_cpu_us")
    if t is None or c is None:
        return "-"
    return f"{t:.0f}+{c:.0f}"


def format_table(result: dict[str, Any]) -> str:
    """A plain-text table: one row per implementation per scenario, then the targets."""
    lines: list[str] = []
    meta = result["meta"]
    lines.append(
        f"sc2pool pool benchmark  {meta['timestamp']}  host={meta['host']}  cpus={meta['cpus']}  "
        f"python={meta['python']}  load(1m) before/after={meta['loadavg_before'][0]:.2f}/"
        f"{meta['loadavg_after'][0]:.2f}"
    )
    if "code" in meta:
        lines.append(f"code: {meta['code']}  nice={meta.get('nice')}  autogroup: {meta.get('autogroup')}")
    lines.append(
        f"{meta['repeats']} interleaved rounds x {meta['seconds']:g} s per implementation; "
        f"figures are the best round (median in brackets); env steps/s = vector steps/s x envs"
    )
    lines.append(
        "cpu us/step = CPU time per vector step of this (trainer) process + of all child processes; "
        "start s = construction + reset"
    )
    header = (
        f"{'scenario':<12} {'implementation':<34} {'envs':>4} {'env steps/s':>12} {'(median)':>10} "
        f"{'us/step':>9} {'vs Subproc':>10} {'vs Async':>9} {'cpu us/step':>13} {'start s':>7}"
    )
    lines.append("")
    lines.append(header)
    lines.append("-" * len(header))
    scenarios = [s["name"] for s in result["scenarios"]]
    for sc in scenarios:
        rows = [r for r in result["results"] if r["scenario"] == sc]
        sub = _row(result, sc, "subproc")
        asy = _row(result, sc, "async")
        for r in rows:
            if r["error"] and r["best"] is None:
                lines.append(f"{sc:<12} {r['label']:<34} {r['n_envs']:>4} ERROR: {r['error'][:70]}")
                continue
            # Only vector envs are compared with vector envs: the single in-process env and the raw
            # zmq round trip are references, not competitors.
            comparable = r["impl"] not in ("inproc", "raw") and r["best"]
            vs_sub = f"{r['best'] / sub['best']:.2f}x" if sub and comparable else "-"
            vs_asy = f"{r['best'] / asy['best']:.2f}x" if asy and comparable else "-"
            lines.append(
                f"{sc:<12} {r['label']:<34} {r['n_envs']:>4} {_fmt(r['best']):>12} "
                f"{'(' + _fmt(r['median']) + ')':>10} {_fmt(r['best_us_per_step'], ',.1f'):>9} "
                f"{vs_sub:>10} {vs_asy:>9} {_cpu(r):>13} {_fmt(r['startup_s'], '.2f'):>7}"
            )
        lines.append("")
    lines.append("Targets (ratios measured in this run):")
    lines += format_targets(result["targets"])
    if result.get("leftover_processes"):
        lines.append(f"WARNING: leftover processes were found and killed: {result['leftover_processes']}")
    return "\n".join(lines)


def format_targets(targets: list[dict[str, Any]]) -> list[str]:
    """One line per target: ``[PASS]``/``[FAIL]`` for the issue's targets; ``[info]`` for the
    informational rows, so that nobody takes one of those for a target the pool missed."""
    lines = []
    for t in targets:
        ratio = "-" if t["ratio"] is None else f"{t['ratio']:.2f}"
        if t["informational"]:
            met = {PASS: "within", FAIL: "outside"}.get(t["status"], "n/a")
            lines.append(f"  [info] {t['name']:<66} {ratio:>6} ({met} {t['op']} {t['threshold']:g})  {t['detail']}")
        else:
            lines.append(
                f"  [{t['status']:>4}] {t['name']:<66} {ratio:>6} (need {t['op']} {t['threshold']:g})  {t['detail']}"
            )
    return lines


def write_json(result: dict[str, Any], path: str | os.PathLike[str]) -> Path:
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(json.dumps(result, indent=2, sort_keys=False) + "\n")
    return p


_COLORS = {
    "zmq": "#d62728",
    "subproc": "#1f77b4",
    "dummy": "#7f7f7f",
    "async": "#2ca02c",
    "sync": "#98df8a",
    "inproc": "#9467bd",
    "raw": "#ff7f0e",
}


def write_png(result: dict[str, Any], path: str | os.PathLike[str]) -> Path:
    """One horizontal bar panel per scenario (env steps/s, best round; the no-op panels in us/step)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    scenarios = [s for s in result["scenarios"]]
    n = len(scenarios)
    cols = 2 if n > 1 else 1
    rows_n = math.ceil(n / cols)
    fig, axes = plt.subplots(rows_n, cols, figsize=(7.5 * cols, 2.6 * rows_n + 0.8), squeeze=False)
    for ax, sc in zip(axes.flat, scenarios, strict=False):
        rows = [r for r in result["results"] if r["scenario"] == sc["name"]]
        overhead = sc["name"].startswith("noop")
        labels, values, colors = [], [], []
        for r in rows:
            v = r["best_us_per_step"] if overhead else r["best"]
            labels.append(r["label"] + (" (ERROR)" if v is None else ""))
            values.append(v or 0.0)
            no_shm = r["impl"] == "zmq" and not r.get("shm", True)
            colors.append("#f08080" if no_shm else _COLORS.get(r["impl"], "#333333"))
        y = list(range(len(rows)))
        ax.barh(y, values, color=colors)
        ax.set_yticks(y)
        ax.set_yticklabels(labels, fontsize=8)
        ax.invert_yaxis()
        for yi, v in zip(y, values, strict=True):
            if v:
                ax.text(v, yi, f" {v:,.1f}" if overhead else f" {v:,.0f}", va="center", fontsize=7)
        if sc["name"].startswith("busy"):
            inproc = _row(result, sc["name"], "inproc")
            if inproc:
                ideal = inproc["best"] * sc["n_envs"]
                ax.axvline(ideal, color="k", linestyle="--", linewidth=1)
                ax.text(ideal, len(rows) - 0.6, " ideal", fontsize=7)
        ax.set_xlabel(
            "us per vector step (lower is better)" if overhead else "env steps/s (higher is better)",
            fontsize=8,
        )
        ax.set_title(f"{sc['name']}: {sc['description']}", fontsize=8)
        ax.margins(x=0.2)
        ax.tick_params(axis="x", labelsize=7)
    for ax in list(axes.flat)[n:]:
        ax.axis("off")
    meta = result["meta"]
    passed = sum(t["status"] == PASS for t in result["targets"] if not t["informational"])
    total = sum(t["status"] != NA for t in result["targets"] if not t["informational"])
    fig.suptitle(
        f"sc2pool pool benchmark ({meta['cpus']} CPUs, {meta['timestamp']}): targets passed {passed}/{total}",
        fontsize=10,
    )
    fig.tight_layout()
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(p, dpi=110)
    plt.close(fig)
    return p


def write_all(
    result: dict[str, Any], out_dir: str | os.PathLike[str], stem: str = "bench_pool", plot: bool = True
) -> dict[str, Path]:
    """Write ``<stem>.json``, ``<stem>.txt`` (the table) and, with ``plot``, ``<stem>.png`` into ``out_dir``."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    table = out / f"{stem}.txt"
    table.write_text(format_table(result) + "\n")
    paths = {"json": write_json(result, out / f"{stem}.json"), "table": table}
    if plot:
        paths["png"] = write_png(result, out / f"{stem}.png")
    return paths


if __name__ == "__main__":
    import sys

    if len(sys.argv) != 2:
        sys.exit("usage: python -m sc2pool.bench.report bench_pool.json  (re-prints the table)")
    print(format_table(json.loads(Path(sys.argv[1]).read_text())))
