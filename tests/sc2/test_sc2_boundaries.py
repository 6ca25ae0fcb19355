"""Import boundaries: the trainer side never loads burnysc2, the worker side never loads torch."""

from __future__ import annotations

import subprocess
import sys


def _loaded_after(imports: str, module: str) -> bool:
    code = f"import sys\n{imports}\nprint({module!r} in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip() == "True"


def test_trainer_side_does_not_import_burnysc2() -> None:
    imports = "import sc2pool.training.train, sc2pool.cli.train, sc2pool.bench.sc2\nfrom sc2pool.training.train import make_vec_env, evaluate"
    assert not _loaded_after(imports, "sc2")
    assert not _loaded_after(imports, "sc2.main")


def test_worker_side_does_not_import_torch() -> None:
    imports = "import workers.sc2.host, workers.sc2.bridge, workers.sc2.queue_env, workers.sc2.bench_single"
    assert not _loaded_after(imports, "torch")
    assert _loaded_after(imports, "sc2.main")  # the check itself works
