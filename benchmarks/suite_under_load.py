"""Run the test suite N times in a row while other processes keep every core busy.

    python benchmarks/suite_under_load.py --runs 3
    python benchmarks/suite_under_load.py --runs 1 --load python -- tests/pool -x

The suite must pass on a fully loaded machine (a CI runner shares its cores): this runs
``.ci/run``'s test command (``.venv/bin/python -m pytest -q -n 2 --dist loadfile``, plus any
arguments after ``--``, e.g. ``-n 0``)
``--runs`` times one after another, with one CPU hog per core running the whole time:
``stress-ng --cpu N`` when it is installed (Debian: ``apt-get install stress-ng``), else a Python
busy loop per core (``--load python`` forces that). The hogs run at the same priority as the tests.

Reported per run: exit status, the pytest summary (passed / failed / errors / reruns) and wall
time; then the totals. The exit status is 0 only if every run passed with 0 failures, 0 errors and
0 reruns. Not part of CI (it takes ``--runs`` times the suite's time, and more under load).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BUSY = "import os\nwhile True:\n    pass\n"


def start_load(kind: str, cpus: int) -> list[subprocess.Popen[bytes]]:
    """One CPU hog per core, each in its own session (so stopping it stops all of it)."""
    if kind == "auto":
        kind = "stress-ng" if shutil.which("stress-ng") else "python"
    if kind == "stress-ng":
        cmds = [["stress-ng", "--cpu", str(cpus), "--quiet"]]
    else:
        cmds = [[sys.executable, "-c", BUSY] for _ in range(cpus)]
    return [subprocess.Popen(c, start_new_session=True, stdout=subprocess.DEVNULL) for c in cmds]


def stop_load(procs: list[subprocess.Popen[bytes]]) -> None:
    for p in procs:
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        p.wait()


def summary(output: str) -> dict[str, int]:
    """Counts from pytest's last summary line (``3 failed, 420 passed, 2 rerun in 380.1s``)."""
    lines = [ln for ln in output.splitlines() if re.search(r"\b(passed|failed|error|errors)\b.* in [\d.]+s", ln)]
    counts = {"passed": 0, "failed": 0, "errors": 0, "rerun": 0, "skipped": 0, "xfailed": 0, "xpassed": 0}
    if lines:
        for n, word in re.findall(r"(\d+) (\w+)", lines[-1]):
            key = {"error": "errors"}.get(word, word)
            if key in counts:
                counts[key] = int(n)
    return counts


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    extra: list[str] = []
    if "--" in argv:
        i = argv.index("--")
        argv, extra = argv[:i], argv[i + 1 :]
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--runs", type=int, default=3, help="suite runs in a row (default 3)")
    p.add_argument("--load", choices=("auto", "stress-ng", "python"), default="auto")
    p.add_argument("--cpus", type=int, default=len(os.sched_getaffinity(0)), help="hogs (default: one per core)")
    p.add_argument("--log-dir", default=None, help="keep each run's full output here")
    args = p.parse_args(argv)

    python = ROOT / ".venv" / "bin" / "python"
    cmd = [str(python if python.exists() else sys.executable), "-m", "pytest", "-q", "-n", "2", "--dist", "loadfile",
           *extra]
    hogs = start_load(args.load, args.cpus)
    what = " ".join(str(a) for a in hogs[0].args) if hogs else "none"  # type: ignore[union-attr]
    print(f"load: {what} x{len(hogs)}; test command: {' '.join(cmd)}", flush=True)
    results = []
    try:
        for run in range(1, args.runs + 1):
            t0 = time.monotonic()
            done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
            wall = time.monotonic() - t0
            counts = summary(done.stdout + done.stderr)
            ok = done.returncode == 0 and counts["failed"] == counts["errors"] == counts["rerun"] == 0
            results.append((ok, wall, counts))
            if args.log_dir:
                Path(args.log_dir).mkdir(parents=True, exist_ok=True)
                Path(args.log_dir, f"run{run}.log").write_text(done.stdout + done.stderr)
            print(f"run {run}: {'PASS' if ok else 'FAIL'} rc={done.returncode} {wall:.0f}s "
                  + ", ".join(f"{v} {k}" for k, v in counts.items() if v), flush=True)
            if not ok:
                print("\n".join(done.stdout.splitlines()[-40:]), flush=True)
    finally:
        stop_load(hogs)
    passed = sum(ok for ok, _, _ in results)
    reruns = sum(c["rerun"] for _, _, c in results)
    print(f"{passed}/{len(results)} runs passed, {reruns} reruns; wall "
          + ", ".join(f"{w:.0f}s" for _, w, _ in results))
    return 0 if passed == len(results) and reruns == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
