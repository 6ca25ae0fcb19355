"""Recovery of envs a host can repair in place, and failures as values.

A host reports an infrastructure failure of one env (a crashed game) by putting
``EnvFailure(i, cause, recoverable=True)`` in place of env ``i``'s :class:`StepResult`. The worker
asks the host to repair that env; its episode ends truncated, with the last observation sent as
the terminal one and ``sc2pool.restarted`` in its info, and the repaired env's first observation
becomes its next one. Any other failure ends the request with an ERROR to the trainer.

Failures travel through the step pipeline as :class:`Failure` values, never as exceptions a caller
must recognise by their attributes.
"""

from __future__ import annotations

import logging
import traceback
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from sc2pool.pool import wire
from workers.host import EnvFailure, EnvHost, StepResult

log = logging.getLogger("sc2pool.worker")


@dataclass(slots=True)
class Failure:
    """A request that failed: the exception, what was running (``stage``), and the local env
    index it concerns (None: the worker as a whole)."""

    exc: BaseException
    stage: str
    index: int | None = None

    @classmethod
    def of(cls, exc: BaseException, stage: str) -> Failure:
        """A failure of ``stage``, naming the env when ``exc`` is an :class:`EnvFailure`."""
        return cls(exc, stage, exc.index if isinstance(exc, EnvFailure) else None)

    @property
    def cause(self) -> BaseException:
        """The env's own exception (an :class:`EnvFailure` wraps it)."""
        return self.exc.cause if isinstance(self.exc, EnvFailure) else self.exc

    def traceback_text(self) -> str:
        cause = self.cause
        return "".join(traceback.format_exception(type(cause), cause, cause.__traceback__))

    def to_message(self, seq: Any, name: str, pid: int, token: str | None) -> wire.Error:
        """The ERROR that reports this failure to the trainer."""
        cause = self.cause
        return wire.Error(seq, name, pid, self.index, type(cause).__name__, str(cause),
                          self.traceback_text(), self.stage, token)


@dataclass(slots=True)
class Recovered:
    """What :func:`recover` repaired: a complete result list (the repaired envs' episodes end
    truncated) and, per repaired env, the first observation and reset info of its new episode."""

    results: list[StepResult]
    restarted: dict[int, tuple[Any, dict[str, Any]]] = field(default_factory=dict)


def failed_envs(results: Sequence[Any]) -> list[int]:
    """Local indices whose entry in a host's step results is an :class:`EnvFailure`."""
    return [i for i, r in enumerate(results) if isinstance(r, EnvFailure)]


async def recover(
    host: EnvHost,
    results: Sequence[Any],
    last_obs: Sequence[Any] | None,
    restarts: dict[int, int],
    worker_name: str = "",
) -> Recovered | Failure:
    """Let ``host`` repair every env reported as ``EnvFailure(recoverable=True)``.

    Args:
        host: the worker's env host.
        results: the host's step results, some of them :class:`EnvFailure`.
        last_obs: the last observation sent per env (the terminal observation of a repaired env).
        restarts: recoveries per local env index, incremented here.
        worker_name: for the log.

    Returns:
        :class:`Recovered`, or a :class:`Failure` when an env's failure is not recoverable (or is
        reported under another env's index) or the repair itself failed.
    """
    out: list[Any] = list(results)
    restarted: dict[int, tuple[Any, dict[str, Any]]] = {}
    for i in failed_envs(results):
        r = results[i]
        if not r.recoverable or r.index != i:
            return Failure(r if r.index == i else EnvFailure(i, r.cause), "recover", i)
        log.warning("worker %s: env %d failed (%s); recovering it", worker_name, i, r)
        try:
            restarted[i] = await host.recover(i)
        except Exception as exc:
            return Failure.of(exc, "recover")
        restarts[i] = restarts.get(i, 0) + 1
        last = last_obs[i] if last_obs is not None else restarted[i][0]
        info = {"terminal_observation": last, "sc2pool.restarted": True,
                "sc2pool.failure": f"{type(r.cause).__name__}: {r.cause}"}
        out[i] = StepResult(last, 0.0, False, True, info)
    return Recovered(out, restarted)
