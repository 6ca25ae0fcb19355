"""The pool benchmark runner: env steps/s of ZmqVecEnv against its peers, side by side in one run.

Why it is built this way (machines are noisy and often shared with other work):

- All implementations of a scenario are built first, then measured **interleaved**: ``repeats``
  rounds, each round measuring every implementation for ``seconds`` of wall time, in an order
  rotated per round. Background load drifts over minutes; interleaving spreads it over all
  implementations instead of penalising whichever ran during a burst.
- Each measurement runs for a fixed **wall time**, not a fixed step count, so a slow
  implementation cannot stretch the run and a fast one still gets thousands of steps.
- The figure used for ratios is the **best** of the rounds (noise only ever slows a run down);
  the median is reported alongside so a reader can see the spread.
- Idle implementations wait blocked on a socket or pipe, so they do not steal CPU from the one
  being measured.
- Every vector env is closed in a ``finally``, and at the end the runner checks with psutil that
  no child process is left (multiprocessing's own forkserver/resource tracker excepted).

Implementations are named by ``Impl``: ``zmq`` (ZmqVecEnv, with ``n_workers``), ``subproc``
(SB3 SubprocVecEnv, its default start method), ``dummy`` (SB3 DummyVecEnv), ``async``
(gymnasium AsyncVectorEnv, shared_memory=True, same-step auto-reset as SB3), ``sync``
(gymnasium SyncVectorEnv), ``inproc`` (one env stepped directly in this process; the reference
for the "ideal" rate) and ``raw`` (the raw ZeroMQ ROUTER/DEALER round trip, see ``rawzmq``).
"""

from __future__ import annotations

import dataclasses
import os
import platform
import statistics
import sys
import time
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from sc2pool.bench.envs import EnvFactory

IMPL_KINDS = ("zmq", "subproc", "dummy", "async", "sync", "inproc", "raw")


@dataclass(frozen=True)
class Impl:
    """One implementation under test. ``n_workers`` applies to ``zmq`` and ``raw`` only.

    ``shm=False`` runs ZmqVecEnv with ``shared_memory=False``: everything then travels through
    the ZeroMQ socket, as it does for remote workers (the default uses its local shared-memory
    path). ``pinned=False`` runs it with ``cpu_affinity=None`` (the default pins each worker to a
    core), to show what pinning is worth in the same run; ``disable_aslr=False`` likewise shows what
    the workers' shared address layout is worth (``LocalTuning(disable_aslr=False)``: ASLR on)."""

    kind: str
    n_workers: int | None = None
    shm: bool = True
    pinned: bool = True
    disable_aslr: bool = True

    def __post_init__(self) -> None:
        if self.kind not in IMPL_KINDS:
            raise ValueError(f"unknown implementation {self.kind!r}; known: {IMPL_KINDS}")
        if self.kind in ("zmq", "raw") and (self.n_workers is None or self.n_workers < 1):
            raise ValueError(f"{self.kind} needs n_workers >= 1, got {self.n_workers}")
        if not self.shm and self.kind != "zmq":
            raise ValueError("shm=False applies to zmq only")
        if not self.pinned and self.kind != "zmq":
            raise ValueError("pinned=False applies to zmq only")
        if not self.disable_aslr and self.kind != "zmq":
            raise ValueError("disable_aslr=False applies to zmq only")

    @property
    def label(self) -> str:
        return {
            "zmq": f"ZmqVecEnv(w={self.n_workers}{'' if self.shm else ', no shm'}{'' if self.pinned else ', unpinned'}"
            f"{'' if self.disable_aslr else ', ASLR on'})",
            "subproc": "SubprocVecEnv",
            "dummy": "DummyVecEnv",
            "async": "AsyncVectorEnv(shm)",
            "sync": "SyncVectorEnv",
            "inproc": "single env, in-process",
            "raw": f"raw zmq ROUTER/DEALER (w={self.n_workers})",
        }[self.kind]


@dataclass(frozen=True)
class Scenario:
    """An env kind, a number of envs, and the implementations to compare on it."""

    name: str
    env: EnvFactory
    n_envs: int
    impls: tuple[Impl, ...]
    description: str = ""

    def __post_init__(self) -> None:
        if self.n_envs < 1:
            raise ValueError(f"scenario {self.name}: n_envs must be >= 1, got {self.n_envs}")
        for impl in self.impls:
            if impl.n_workers is not None and impl.n_workers > self.n_envs:
                raise ValueError(
                    f"scenario {self.name}: {impl.label} has more workers than the {self.n_envs} envs"
                )


@dataclass
class BenchConfig:
    """How long to measure. ``seconds`` is per implementation per round; ``repeats`` rounds."""

    scenarios: Sequence[Scenario]
    seconds: float = 1.0
    repeats: int = 5
    warmup: float = 0.3
    seed: int = 0
    log: Callable[[str], None] | None = None

    def __post_init__(self) -> None:
        if self.seconds <= 0:
            raise ValueError(f"seconds must be > 0, got {self.seconds}")
        if self.repeats < 1:
            raise ValueError(f"repeats must be >= 1, got {self.repeats}")
        if self.warmup < 0:
            raise ValueError(f"warmup must be >= 0, got {self.warmup}")
        if not self.scenarios:
            raise ValueError("no scenarios to run")


@dataclass
class Measurement:
    """The outcome for one implementation in one scenario (``error`` set if it could not run)."""

    scenario: str
    impl: str
    label: str
    n_envs: int
    n_workers: int | None
    shm: bool = True  # ZmqVecEnv's shared_memory setting (True for the other implementations)
    pinned: bool = True  # ZmqVecEnv's workers pinned to cores (cpu_affinity="auto", the default)
    disable_aslr: bool = True  # ZmqVecEnv's workers share one address layout (ASLR off, the default)
    rates: list[float] = field(default_factory=list)  # env steps/s, one per round
    us_per_step: list[float] = field(default_factory=list)  # wall us per vector step, per round
    # CPU time per vector step, per round: this (trainer) process, all threads; and all children.
    # Where the time goes: a pool that is slow because its trainer side burns CPU shows it here.
    trainer_cpu_us: list[float] = field(default_factory=list)
    children_cpu_us: list[float] = field(default_factory=list)
    steps: int = 0  # vector steps timed, all rounds
    startup_s: float | None = None
    error: str | None = None

    @property
    def best(self) -> float | None:
        return max(self.rates) if self.rates else None

    @property
    def median(self) -> float | None:
        return statistics.median(self.rates) if self.rates else None

    @property
    def best_us(self) -> float | None:
        return min(self.us_per_step) if self.us_per_step else None

    def _at_best(self, values: list[float]) -> float | None:
        if not self.rates or len(values) != len(self.rates):
            return None
        return values[self.rates.index(max(self.rates))]

    def to_json(self) -> dict[str, Any]:
        d = dataclasses.asdict(self)
        d.update(
            best=self.best,
            median=self.median,
            best_us_per_step=self.best_us,
            best_trainer_cpu_us=self._at_best(self.trainer_cpu_us),
            best_children_cpu_us=self._at_best(self.children_cpu_us),
        )
        return d


# --------------------------------------------------------------------------- scenarios


def _z(k: int, shm: bool = True, pinned: bool = True, disable_aslr: bool = True) -> Impl:
    return Impl("zmq", k, shm, pinned, disable_aslr)


def default_scenarios(quick: bool = False) -> list[Scenario]:
    """The scenarios that the issue's targets are stated on (``quick`` drops the extras)."""
    peers8 = (Impl("dummy"), Impl("subproc"), Impl("async"))
    cart_zmq = (_z(2), _z(8)) if quick else (
        _z(1), _z(2), _z(4), _z(8), _z(2, pinned=False), _z(8, pinned=False), _z(8, disable_aslr=False)
    )
    obs_zmq = (_z(2), _z(4)) if quick else (_z(2), _z(4), _z(2, shm=False))
    scenarios = [
        Scenario(
            "cartpole-8",
            EnvFactory("cartpole"),
            8,
            peers8 + (() if quick else (Impl("sync"),)) + cart_zmq,
            "CartPole-v1, 8 envs: the vector env's own overhead dominates",
        ),
        Scenario(
            "busy1ms-2",
            EnvFactory("busy", {"busy_ms": 1.0}),
            2,
            (Impl("inproc"), Impl("dummy"), Impl("subproc"), Impl("async"), _z(2)),
            "an env burning 1 ms per step, 2 envs; ideal = 2 x the in-process single-env rate",
        ),
        Scenario(
            "image-4",
            EnvFactory("image"),
            4,
            (Impl("dummy"), Impl("subproc"), Impl("async")) + obs_zmq,
            "(84,84,3) uint8 observations, 4 envs",
        ),
        Scenario(
            "features-4",
            EnvFactory("features"),
            4,
            (Impl("dummy"), Impl("subproc"), Impl("async")) + obs_zmq,
            "(64,64,17) float32 observations, 4 envs",
        ),
        Scenario(
            "noop-1",
            EnvFactory("noop"),
            1,
            (Impl("inproc"), Impl("dummy"), _z(1), _z(1, shm=False), Impl("raw", 1)),
            "no-op env, 1 env in 1 worker: per-step overhead vs a raw ROUTER/DEALER round trip",
        ),
    ]
    if not quick:
        scenarios.append(
            Scenario(
                "noop-8",
                EnvFactory("noop"),
                8,
                (Impl("dummy"), _z(2), _z(2, shm=False), Impl("raw", 2)),
                "no-op env, 8 envs in 2 workers: per-step overhead vs raw round trips to 2 peers",
            )
        )
    return scenarios


SCENARIO_NAMES = tuple(s.name for s in default_scenarios(quick=False))


def select_scenarios(names: Sequence[str] | None, quick: bool) -> list[Scenario]:
    """The default scenarios, restricted to ``names`` (in the given order) if any."""
    all_full = {s.name: s for s in default_scenarios(quick=False)}
    chosen = {s.name: s for s in default_scenarios(quick=quick)}
    if not names:
        return list(chosen.values())
    unknown = [n for n in names if n not in all_full]
    if unknown:
        raise ValueError(f"unknown scenario(s) {unknown}; known: {list(all_full)}")
    return [chosen.get(n, all_full[n]) for n in names]


# --------------------------------------------------------------------------- drivers


class _Driver:
    """Builds one implementation (``start()``) and performs one vector step per ``step()`` call.

    Building is separate from construction so that the caller holds the driver, and can close
    whatever was started, even when building fails half-way (e.g. ``reset()`` raising after the
    processes are up)."""

    def __init__(self, scenario: Scenario, impl: Impl, actions: np.ndarray) -> None:
        self.scenario = scenario
        self.impl = impl
        self._actions = actions
        self._i = 0
        self._venv: Any = None
        self._env: Any = None
        self._raw: Any = None
        self.n_envs = 1 if impl.kind == "inproc" else scenario.n_envs
        self.step: Callable[[], None] = self._not_started

    def _not_started(self) -> None:
        raise RuntimeError(f"{self.impl.label} was not started")

    def start(self) -> None:
        self.step = self._build()

    def _next_actions(self) -> np.ndarray:
        a = self._actions[self._i]
        self._i = (self._i + 1) % len(self._actions)
        return a

    def _build(self) -> Callable[[], None]:
        kind = self.impl.kind
        n = self.scenario.n_envs
        fns = [self.scenario.env for _ in range(n)]
        if kind == "inproc":
            env = self._env = self.scenario.env()
            env.reset(seed=0)

            def step_inproc() -> None:
                _, _, terminated, truncated, _ = env.step(int(self._next_actions()[0]))
                if terminated or truncated:
                    env.reset()

            return step_inproc
        if kind in ("dummy", "subproc", "zmq"):
            if kind == "dummy":
                from stable_baselines3.common.vec_env import DummyVecEnv

                self._venv = DummyVecEnv(fns)  # type: ignore[arg-type]
            elif kind == "subproc":
                from stable_baselines3.common.vec_env import SubprocVecEnv

                self._venv = SubprocVecEnv(fns)  # type: ignore[arg-type]
            else:
                from sc2pool.options import LocalTuning
                from sc2pool.pool.vec_env import ZmqVecEnv  # type: ignore[import-not-found,unused-ignore]

                tuning = LocalTuning(
                    shared_memory=self.impl.shm,
                    cpu_affinity="auto" if self.impl.pinned else None,
                    disable_aslr=self.impl.disable_aslr,
                )
                self._venv = ZmqVecEnv(fns, n_workers=self.impl.n_workers, tuning=tuning)
            venv: Any = self._venv
            venv.seed(0)
            venv.reset()

            def step_sb3() -> None:
                venv.step(self._next_actions())

            return step_sb3
        if kind in ("async", "sync"):
            import gymnasium as gym
            from gymnasium.vector import AutoresetMode

            if kind == "async":
                self._venv = gym.vector.AsyncVectorEnv(
                    fns, shared_memory=True, autoreset_mode=AutoresetMode.SAME_STEP
                )
            else:
                self._venv = gym.vector.SyncVectorEnv(fns, autoreset_mode=AutoresetMode.SAME_STEP)
            gvenv = self._venv
            gvenv.reset(seed=0)

            def step_gym() -> None:
                gvenv.step(self._next_actions())

            return step_gym
        if kind == "raw":
            from sc2pool.bench.rawzmq import RawZmqPool

            req, rep = raw_payload_nbytes(self.scenario, self.impl.n_workers or 1)
            raw = self._raw = RawZmqPool(self.impl.n_workers or 1, req, rep)
            return raw.step
        raise AssertionError(kind)

    def close(self) -> None:
        for obj in (self._venv, self._env, self._raw):
            if obj is not None:
                obj.close()
        self._venv = self._env = self._raw = None


def raw_payload_nbytes(scenario: Scenario, n_peers: int) -> tuple[int, int]:
    """Request and reply payload per peer for the raw baseline, matching the pool's step messages:
    the actions of the peer's envs going out; observations, float32 rewards and two bool flags
    (terminated, truncated) per env coming back."""
    env = scenario.env()
    try:
        per_peer = -(-scenario.n_envs // n_peers)
        act = np.asarray(env.action_space.sample())
        action_nbytes = max(int(act.nbytes), 8)  # actions travel as int64 for Discrete
        obs_nbytes = int(np.asarray(env.observation_space.sample()).nbytes)
    finally:
        env.close()
    return per_peer * action_nbytes, per_peer * (obs_nbytes + 4 + 2)


def _actions_for(scenario: Scenario, seed: int, count: int = 512) -> np.ndarray:
    """Pre-drawn random actions, so drawing them costs nothing inside the timed loop."""
    env = scenario.env()
    try:
        space = env.action_space
        space.seed(seed)
        rows = [np.stack([np.asarray(space.sample()) for _ in range(scenario.n_envs)]) for _ in range(count)]
    finally:
        env.close()
    return np.stack(rows)


def _cpu_times() -> tuple[float, dict[int, float]]:
    """CPU seconds (user+system) of this process, and of each live descendant by pid."""
    import psutil

    me = psutil.Process()
    t = me.cpu_times()
    kids: dict[int, float] = {}
    for child in me.children(recursive=True):
        try:
            ct = child.cpu_times()
            kids[child.pid] = ct.user + ct.system
        except psutil.Error:
            pass
    return t.user + t.system, kids


def _children_delta(before: dict[int, float], after: dict[int, float]) -> float:
    return sum(v - before.get(pid, 0.0) for pid, v in after.items())


def _timed(step: Callable[[], None], seconds: float) -> tuple[int, float]:
    """Step until ``seconds`` of wall time have passed; return (steps, elapsed)."""
    clock = time.perf_counter
    n = 0
    t0 = clock()
    deadline = t0 + seconds
    while True:
        step()
        n += 1
        now = clock()
        if now >= deadline:
            return n, now - t0


# --------------------------------------------------------------------------- runner


def _helper_process(proc: Any, me: int) -> bool:
    """multiprocessing's own long-lived helpers (forkserver, resource tracker) are not leftovers.

    Only our direct children can be those helpers: processes *forked by* the forkserver (e.g.
    SubprocVecEnv's workers) inherit its command line, and must still count."""
    try:
        if proc.ppid() != me:
            return False
        cmd = " ".join(proc.cmdline())
    except Exception:
        return False
    return "multiprocessing.forkserver" in cmd or "multiprocessing.resource_tracker" in cmd


def leftover_children(timeout: float = 5.0) -> list[dict[str, Any]]:
    """Child processes of this process still alive after ``timeout`` seconds (polled)."""
    import psutil

    me = psutil.Process()
    deadline = time.monotonic() + timeout
    while True:
        alive = [p for p in me.children(recursive=True) if p.is_running() and not _helper_process(p, me.pid)]
        alive = [p for p in alive if p.status() != psutil.STATUS_ZOMBIE]
        if not alive or time.monotonic() >= deadline:
            break
        time.sleep(0.05)
    out = []
    for p in alive:
        try:
            out.append({"pid": p.pid, "cmdline": " ".join(p.cmdline())[:200]})
        except Exception:
            out.append({"pid": p.pid, "cmdline": "?"})
    return out


def _kill(pids: Sequence[int]) -> None:
    import psutil

    procs = []
    for pid in pids:
        try:
            p = psutil.Process(pid)
            p.kill()
            procs.append(p)
        except psutil.Error:
            pass
    psutil.wait_procs(procs, timeout=5)


def run_scenario(scenario: Scenario, config: BenchConfig) -> list[Measurement]:
    """Build every implementation, measure them interleaved, close them all."""
    log = config.log or (lambda msg: None)
    results = {
        impl: Measurement(
            scenario.name,
            impl.kind,
            impl.label,
            1 if impl.kind == "inproc" else scenario.n_envs,
            impl.n_workers,
            impl.shm,
            impl.pinned,
            impl.disable_aslr,
        )
        for impl in scenario.impls
    }
    drivers: dict[Impl, _Driver] = {}
    try:
        actions = _actions_for(scenario, config.seed)
    except Exception as exc:  # the env itself cannot be built: nothing to measure
        for m in results.values():
            m.error = f"env {scenario.env.kind} cannot be built: {type(exc).__name__}: {exc}"
        log(f"  FAILED: {next(iter(results.values())).error}")
        return [results[impl] for impl in scenario.impls]
    try:
        for impl in scenario.impls:
            m = results[impl]
            t0 = time.perf_counter()
            try:
                drv = _Driver(scenario, impl, actions)
                drivers[impl] = drv
                drv.start()
                m.startup_s = time.perf_counter() - t0
                if config.warmup > 0:
                    _timed(drv.step, config.warmup)
            except Exception as exc:  # recorded, the others still run
                m.error = f"{type(exc).__name__}: {exc}"
                log(f"  {impl.label}: FAILED to start: {m.error}")
                log(traceback.format_exc(limit=3))
                bad = drivers.pop(impl, None)
                if bad is not None:
                    _close_quietly(bad, m)
        live = [impl for impl in scenario.impls if impl in drivers]
        for r in range(config.repeats):
            k = r % len(live) if live else 0
            for impl in live[k:] + live[:k]:
                m = results[impl]
                if m.error is not None:
                    continue
                try:
                    cpu0 = _cpu_times()
                    steps, elapsed = _timed(drivers[impl].step, config.seconds)
                    cpu1 = _cpu_times()
                except Exception as exc:
                    m.error = f"{type(exc).__name__}: {exc}"
                    log(f"  {impl.label}: FAILED while stepping: {m.error}")
                    continue
                m.steps += steps
                m.rates.append(m.n_envs * steps / elapsed)
                m.us_per_step.append(elapsed / steps * 1e6)
                m.trainer_cpu_us.append((cpu1[0] - cpu0[0]) / steps * 1e6)
                m.children_cpu_us.append(_children_delta(cpu0[1], cpu1[1]) / steps * 1e6)
        for impl in scenario.impls:
            m = results[impl]
            if m.rates:
                log(f"  {m.label:<40} {m.best:>12,.0f} env steps/s  ({m.best_us:,.1f} us/step)")
    finally:
        for impl, drv in drivers.items():
            _close_quietly(drv, results[impl])
    return [results[impl] for impl in scenario.impls]


def _close_quietly(drv: _Driver, m: Measurement) -> None:
    try:
        drv.close()
    except Exception as exc:
        m.error = (m.error + "; " if m.error else "") + f"close failed: {type(exc).__name__}: {exc}"


def _preload_forkserver() -> None:
    """Let SubprocVecEnv's forkserver import SB3 (and torch) once, instead of once per child.

    SubprocVecEnv's default start method is forkserver, and each child then imports torch by
    itself: seconds per env on a loaded machine, which would dominate ``--quick``.
    Children forked from a preloaded forkserver run the very same stepping loop, so the measured
    throughput is unchanged; only "start s" is smaller than a default SubprocVecEnv's. No effect
    if the forkserver is already running."""
    import multiprocessing

    try:
        multiprocessing.set_forkserver_preload(
            ["stable_baselines3.common.vec_env.subproc_vec_env", "sc2pool.bench.envs"]
        )
    except (ValueError, AttributeError):
        pass


def _autogroup() -> str | None:
    """The scheduler autogroup and its niceness (what really sets our CPU share against other
    sessions when ``kernel.sched_autogroup_enabled`` is on), or None where there is none."""
    try:
        with open("/proc/self/autogroup") as f:
            return f.read().strip()
    except OSError:
        return None


def _code_version() -> str:
    """Which sc2pool was measured: its path, and the git commit (+dirty) when it is a checkout."""
    import subprocess

    import sc2pool

    where = os.path.dirname(os.path.dirname(os.path.abspath(sc2pool.__file__)))
    try:
        rev = subprocess.run(
            ["git", "-C", where, "describe", "--always", "--dirty"],
            capture_output=True,
            text=True,
            timeout=5,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        rev = "unknown"
    return f"{where} @ {rev}"


def run_benchmark(config: BenchConfig) -> dict[str, Any]:
    """Run every scenario of ``config``; return the JSON-able result (see ``report``)."""
    log = config.log or (lambda msg: None)
    # Import the peers up front, so that "start s" measures building the vector env, not torch's import.
    import gymnasium.vector  # noqa: F401
    import stable_baselines3.common.vec_env  # noqa: F401

    _preload_forkserver()

    load_before = os.getloadavg()
    t0 = time.perf_counter()
    measurements: list[Measurement] = []
    for scenario in config.scenarios:
        log(f"[{scenario.name}] {scenario.description}")
        measurements.extend(run_scenario(scenario, config))
    leftovers = leftover_children()
    if leftovers:
        log(f"WARNING: {len(leftovers)} child process(es) left behind; killing them: {leftovers}")
        _kill([p["pid"] for p in leftovers])
    from sc2pool.bench.report import evaluate_targets

    result: dict[str, Any] = {
        "meta": {
            "timestamp": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "host": platform.node(),
            "cpus": os.cpu_count(),
            "python": sys.version.split()[0],
            "platform": platform.platform(),
            "loadavg_before": load_before,
            "loadavg_after": os.getloadavg(),
            "seconds": config.seconds,
            "repeats": config.repeats,
            "warmup": config.warmup,
            "wall_s": time.perf_counter() - t0,
            "ratio_basis": "best of the rounds (env steps/s); median also reported",
            "nice": os.nice(0),
            "autogroup": _autogroup(),
            "code": _code_version(),
        },
        "scenarios": [
            {
                "name": s.name,
                "description": s.description,
                "env": s.env.kind,
                "env_kwargs": s.env.kwargs,
                "n_envs": s.n_envs,
            }
            for s in config.scenarios
        ],
        "results": [m.to_json() for m in measurements],
        "leftover_processes": leftovers,
    }
    result["targets"] = evaluate_targets(result)
    return result
