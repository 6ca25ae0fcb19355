"""Starting a Python program that a test will interrupt with SIGINT (Ctrl-C).

A shell starts a background command (``cmd &`` without job control: a CI step, a script that runs
``benchmarks/suite_under_load.py &``) with SIGINT and SIGQUIT ignored, and an ignored signal stays
ignored across fork and exec. Python started that way installs no ``KeyboardInterrupt`` handler
(it keeps an inherited SIG_IGN, as ``nohup``-style tools expect), so a SIGINT sent by a test does
nothing and the test waits out its timeout: the test passes in a terminal and fails in the
background. :func:`python_module` starts the program with Python's own handler whatever the test
process inherited, and :func:`sigint_ignored` lets a test create that inheritance on purpose.
"""

from __future__ import annotations

import contextlib
import signal
import sys
from collections.abc import Iterator


def python_module(module: str, *args: str) -> list[str]:
    """The argv of ``python -m module args...`` with Python's Ctrl-C handler installed first."""
    code = (
        "import runpy, signal; signal.signal(signal.SIGINT, signal.default_int_handler); "
        f"runpy.run_module({module!r}, run_name='__main__', alter_sys=True)"
    )
    return [sys.executable, "-c", code, *args]


@contextlib.contextmanager
def sigint_ignored() -> Iterator[None]:
    """SIGINT ignored in this process while the block runs, as a backgrounded shell leaves it: the
    children started in the block inherit it. Restored afterwards."""
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
