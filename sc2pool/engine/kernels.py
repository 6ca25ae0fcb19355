"""The engine's compiled kernels, or ``None`` where the pure-Python twins run.

Many small loops and numpy calls run thousands of times a game loop (a segment's cells tested one
by one, the pairs of touching units, each eye's disc, ...).  ``_kernels.c`` and the
``_kernels_<area>.c`` files it includes hold C twins of them that compute exactly the same answers, so
a game plays identically either way; the C twins are built at install time when a C compiler is
there (``setup.py``).  Callers test :data:`native` once per call site and otherwise run their
Python function, which stays the reference the tests hold the C twin to.

``SC2POOL_ENGINE_KERNELS=python`` forces the Python twins (to compare the two, or to rule the C
out when hunting a bug); ``SC2POOL_ENGINE_KERNELS=native`` makes a missing build an error instead
of a silent fallback (CI sets it, so that the tests run the C twins).
"""

from __future__ import annotations

import os
from types import ModuleType

ENV = "SC2POOL_ENGINE_KERNELS"


class KernelsMissingError(ImportError):
    """``SC2POOL_ENGINE_KERNELS=native`` was set but the compiled kernels were not built."""


def _load() -> ModuleType | None:
    mode = os.environ.get(ENV, "auto").strip().lower()
    if mode not in ("auto", "native", "python"):
        raise ValueError(f"{ENV}={mode!r}: use 'auto' (the default), 'native' or 'python'")
    if mode == "python":
        return None
    try:
        import sc2pool.engine._kernels as _kernels
    except ImportError as e:
        if mode == "native":
            raise KernelsMissingError(
                f"{ENV}=native but sc2pool.engine._kernels is not built ({e}); reinstall sc2pool "
                "where a C compiler is available (pip install -e . builds it), or unset "
                f"{ENV} to run the pure-Python engine") from e
        return None
    return _kernels


native: ModuleType | None = _load()
"""``sc2pool.engine._kernels`` when built and allowed, else ``None``."""
