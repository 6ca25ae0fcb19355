"""Which worker hosts which envs: a pure function of the pool's arguments, decided before any
process starts, so every inconsistent combination is refused with a ``ValueError`` first.

Envs are numbered globally. The local workers host ``[0, local_envs)`` in contiguous chunks as
even as possible (the first chunks one env larger); remote workers host the rest: a launcher's
workers get even chunks too, workers that join on their own claim what they ask for, in the order
they join (the broker checks that at admission).
"""

from __future__ import annotations

from dataclasses import dataclass


def split_evenly(n: int, parts: int) -> list[int]:
    """Sizes of ``parts`` contiguous chunks of ``n`` items, as even as possible, larger first."""
    base, extra = divmod(n, parts)
    return [base + (1 if i < extra else 0) for i in range(parts)]


@dataclass(frozen=True)
class WorkerPlan:
    """How a pool's ``n_envs`` are split over workers.

    Attributes:
        n_envs: all envs of the pool.
        local_sizes: envs per local worker, in order (worker ``i`` is ``local-i``).
        launcher_sizes: envs per worker a cluster launcher starts (empty without a launcher).
    """

    n_envs: int
    local_sizes: tuple[int, ...]
    launcher_sizes: tuple[int, ...] = ()

    @property
    def n_local_workers(self) -> int:
        return len(self.local_sizes)

    @property
    def local_envs(self) -> int:
        """Envs hosted by local workers: ``[0, local_envs)``."""
        return sum(self.local_sizes)

    @property
    def remote_envs(self) -> int:
        """Envs left for remote workers: ``[local_envs, n_envs)``."""
        return self.n_envs - self.local_envs

    def local_ranges(self) -> list[tuple[int, int]]:
        """``(lo, hi)`` global env range of each local worker."""
        out, lo = [], 0
        for size in self.local_sizes:
            out.append((lo, lo + size))
            lo += size
        return out


def _count(name: str, value: int | None) -> None:
    if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
        raise TypeError(f"{name} must be an int, got {value!r}")


def plan_workers(
    n_envs: int | None,
    *,
    n_env_fns: int | None = None,
    n_workers: int | None = None,
    local_envs: int | None = None,
    accepts_remote: bool = False,
    launcher_workers: int | None = None,
) -> WorkerPlan:
    """Decide how many local workers host how many envs, and what is left for remote ones.

    Args:
        n_envs: total envs (``None`` with env factories: one per factory).
        n_env_fns: the number of env factories given (``None`` when envs are built from an
            import path inside the workers). Factories reach local workers only.
        n_workers: local worker processes. Default: one per env when every env is local, none
            when remote workers may join (``accepts_remote``).
        local_envs: of ``n_envs``, how many the local workers host (only with ``accepts_remote``;
            default: one per local worker).
        accepts_remote: whether remote workers may host envs (a bind endpoint or a launcher).
        launcher_workers: how many workers a cluster launcher starts (they share the remote envs).

    Returns:
        The :class:`WorkerPlan`.

    Raises:
        TypeError: a count that is not an int.
        ValueError: naming the inconsistency: no envs, a count that disagrees with the factories,
            factories with a launcher or without local workers, a worker without an env, envs
            without a worker, ``local_envs`` with no way for remote workers to join.
    """
    for name, value in (("n_envs", n_envs), ("n_workers", n_workers), ("local_envs", local_envs),
                        ("launcher_workers", launcher_workers)):
        _count(name, value)
    if launcher_workers is not None and launcher_workers < 1:
        raise ValueError(f"a launcher must start at least one worker, got {launcher_workers}")
    if launcher_workers is not None:
        accepts_remote = True
    if local_envs is not None and not accepts_remote:
        raise ValueError(
            f"local_envs={local_envs} but no remote worker can join (give a bind endpoint or a launcher)"
        )
    if n_workers is not None and n_workers < 0:
        raise ValueError(f"n_workers must be >= 0, got {n_workers}")
    if n_env_fns is not None:
        if n_env_fns == 0:
            raise ValueError("env_fns is empty")
        if n_envs is not None and n_envs != n_env_fns:
            raise ValueError(f"n_envs={n_envs} but {n_env_fns} env_fns were given")
        if launcher_workers is not None:
            raise ValueError("a launcher starts workers on other nodes from an import path: give host= or env=")
        if local_envs is not None:
            raise ValueError("env factories run in local workers only: local_envs does not apply to env_fns")
        total = n_env_fns
        n_local = total if n_workers is None else n_workers
        local = total
        if n_local < 1:
            raise ValueError("env factories need local workers (n_workers >= 1)")
    else:
        if n_envs is None or n_envs < 1:
            raise ValueError(f"n_envs (>= 1) is required with host= or env=, got {n_envs}")
        total = n_envs
        if accepts_remote:
            n_local = 0 if n_workers is None else n_workers
            local = n_local if local_envs is None else local_envs
        else:
            n_local = total if n_workers is None else n_workers
            local = total
        if local > total:
            raise ValueError(f"local_envs={local} is more than the pool's n_envs={total}")
    if n_local > local:
        raise ValueError(f"{n_local} local workers for {local} envs: each worker needs at least one env")
    if local > 0 and n_local == 0:
        raise ValueError(f"{local} envs are to be local but there are no local workers (n_workers=0)")
    launcher_sizes: list[int] = []
    if launcher_workers is not None:
        if total - local < launcher_workers:
            raise ValueError(
                f"the launcher's {launcher_workers} workers need at least one env each; "
                f"{total - local} envs are left for them"
            )
        launcher_sizes = split_evenly(total - local, launcher_workers)
    local_sizes = split_evenly(local, n_local) if n_local else []
    return WorkerPlan(total, tuple(local_sizes), tuple(launcher_sizes))
