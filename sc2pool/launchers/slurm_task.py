"""One task of a :class:`~sc2pool.launchers.slurm.SlurmLauncher` job step.

``srun --input=all`` gives every task the step's recipes on stdin; this task takes the one for
its ``SLURM_PROCID`` and runs the worker program with it (as its own child, so that a SIGTERM
from SLURM stops the worker's whole process group, games included), then exits with its code.
"""

from __future__ import annotations

import os
import signal
import sys
from typing import Any


def main() -> int:
    import cloudpickle

    from sc2pool.launchers.base import start_worker_process, stop_process_group

    procid = int(os.environ.get("SLURM_PROCID", "0"))
    recipes = cloudpickle.loads(sys.stdin.buffer.read())
    sys.stdin.close()
    if procid not in recipes:
        sys.stderr.write(f"sc2pool slurm task: no recipe for SLURM_PROCID={procid} (have {sorted(recipes)})\n")
        return 1
    proc = start_worker_process(recipes[procid])

    def stop(sig: int, _frame: Any) -> None:
        stop_process_group(proc, 2.0)
        sys.exit(128 + sig)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    code = proc.wait()
    return code if code >= 0 else 128 - code


if __name__ == "__main__":
    sys.exit(main())
