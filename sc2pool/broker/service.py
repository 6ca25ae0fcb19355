"""The service thread: keeps heartbeats flowing while no VecEnv call is in progress.

During a call the calling thread holds the broker's lock and serves the socket itself (no thread
hop on the hot path). Between calls (a learner's gradient updates) this thread takes the lock
every ``period`` seconds, when it is free, to answer heartbeat pings, notice late or dead workers
and refuse strangers, so heartbeats flow both ways at all times.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

log = logging.getLogger("sc2pool.broker")


class ServiceThread:
    """Runs ``serve()`` every ``period`` s under ``lock``, skipping a round whenever a call holds it.

    Args:
        lock: the broker's lock (whoever holds it owns the socket).
        serve: one round of service; its exceptions are logged, never fatal to the thread.
        period: seconds between rounds.
        done: whether the broker is closed (checked under the lock; the thread then ends).
    """

    def __init__(
        self, lock: threading.RLock, serve: Callable[[], None], period: float, done: Callable[[], bool]
    ) -> None:
        self._lock = lock
        self._serve = serve
        self._period = period
        self._done = done
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        self._thread = threading.Thread(target=self._loop, name="sc2pool-broker", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 2.0) -> None:
        """Ask the thread to end and wait for it (not when called from the thread itself)."""
        self._stop.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=timeout)

    def _loop(self) -> None:
        while not self._stop.wait(self._period):
            if not self._lock.acquire(blocking=False):
                continue  # a call is in progress; the caller is serving the socket
            try:
                if self._done():
                    return
                self._serve()
            except Exception as exc:  # never let the service thread die silently
                log.exception("broker service error: %s", exc)
            finally:
                self._lock.release()
