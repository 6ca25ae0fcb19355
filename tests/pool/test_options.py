"""``ZmqVecEnv``'s option objects (:mod:`sc2pool.options`): their checks, the old flat keywords'
mapping onto them, and that a pool built the new way gets what it was given."""

from __future__ import annotations

import dataclasses
import os
import signal
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pool_envs
import pytest

from sc2pool import FailurePolicy, LocalTuning, RemoteWorkers, Timeouts, ZmqVecEnv, options
from sc2pool.errors import JoinTimeoutError
from sc2pool.pool.security import BrokerCurveConfig, InsecureBindError

# ------------------------------------------------------------------------ the objects' checks


@pytest.mark.parametrize(
    ("build", "error", "message"),
    [
        (lambda: FailurePolicy("ignore"), ValueError, r"FailurePolicy.on_failure must be 'raise' or 'restart'"),
        (lambda: FailurePolicy(max_restarts=-1), ValueError, r"FailurePolicy.max_restarts must be >= 0"),
        (lambda: FailurePolicy(max_restarts=2.5), TypeError, r"FailurePolicy.max_restarts must be an int"),
        (lambda: FailurePolicy(replace_timeout=0), ValueError, r"FailurePolicy.replace_timeout must be > 0"),
        (lambda: Timeouts(join=0), ValueError, r"Timeouts.join must be > 0"),
        (lambda: Timeouts(start=-1.0), ValueError, r"Timeouts.start must be > 0"),
        (lambda: Timeouts(step=0), ValueError, r"Timeouts.step must be > 0"),
        (lambda: Timeouts(step="5"), TypeError, r"Timeouts.step must be a number or None"),
        (lambda: Timeouts(heartbeat_interval=float("nan")), ValueError, r"Timeouts.heartbeat_interval must be > 0"),
        (lambda: Timeouts(heartbeat=0.5, heartbeat_interval=0.5), ValueError, r"Timeouts.heartbeat .* must exceed"),
        (lambda: Timeouts(close=-1), ValueError, r"Timeouts.close must be >= 0"),
        (lambda: Timeouts(join=True), TypeError, r"Timeouts.join must be a number"),
        (lambda: RemoteWorkers(bind=5555), TypeError, r"RemoteWorkers.bind must be an endpoint string"),
        (lambda: RemoteWorkers(local_envs=1), ValueError, r"RemoteWorkers.local_envs needs bind or launcher"),
        (lambda: RemoteWorkers(bind="tcp://127.0.0.1:0", local_envs=-1), ValueError, r"local_envs must be >= 0"),
        (lambda: RemoteWorkers(allow_insecure="yes"), TypeError, r"RemoteWorkers.allow_insecure must be True or False"),
        (lambda: RemoteWorkers(curve=42), TypeError, r"RemoteWorkers.curve must be a keys directory"),
        (lambda: LocalTuning(shared_memory=1), TypeError, r"LocalTuning.shared_memory must be True or False"),
        (lambda: LocalTuning(disable_aslr=None), TypeError, r"LocalTuning.disable_aslr must be True or False"),
        (lambda: LocalTuning(cpu_affinity="all"), ValueError, r"LocalTuning.cpu_affinity must be 'auto'"),
        (lambda: LocalTuning(cpu_affinity=3), ValueError, r"LocalTuning.cpu_affinity must be 'auto'"),
    ],
)
def test_bad_fields_are_refused_naming_the_field(build: Callable[[], Any], error: type[Exception], message: str) -> None:
    with pytest.raises(error, match=message):
        build()


def test_a_public_bind_needs_curve_a_launcher_or_consent() -> None:
    with pytest.raises(InsecureBindError):
        RemoteWorkers(bind="tcp://0.0.0.0:5555")
    assert RemoteWorkers(bind="tcp://0.0.0.0:5555", allow_insecure=True).accepts_remote
    curve = BrokerCurveConfig.__new__(BrokerCurveConfig)  # any config object: only its presence is checked here
    assert RemoteWorkers(bind="tcp://0.0.0.0:5555", curve=curve).accepts_remote
    assert not RemoteWorkers().accepts_remote


def test_objects_are_frozen_and_keep_no_caller_list() -> None:
    cores = [0]
    tuning = LocalTuning(cpu_affinity=cores)
    cores.append(1)
    assert tuning.cpu_affinity == (0,)
    assert LocalTuning(cpu_affinity=False).cpu_affinity is None
    with pytest.raises(dataclasses.FrozenInstanceError):
        tuning.shared_memory = False  # type: ignore[misc]


# ------------------------------------------------------------------ old keywords -> option objects

_SAMPLES: dict[str, Any] = {
    "on_failure": "restart",
    "max_restarts": 3,
    "replace_timeout": 7.0,
    "join_timeout": 11.0,
    "start_timeout": 13.0,
    "step_timeout": 17.0,
    "heartbeat_interval": 0.25,
    "heartbeat_timeout": 19.0,
    "close_timeout": 23.0,
    "bind": "tcp://127.0.0.1:0",
    "curve": "keys/",
    "allow_insecure_remote": True,
    "shared_memory": False,
    "cpu_affinity": None,
    "fixed_layout": False,
}


def test_every_old_keyword_has_a_sample() -> None:
    # n_local_envs and launcher need company (bind; a launcher object): tested below
    assert set(options.DEPRECATED_KEYWORDS) - set(_SAMPLES) == {"n_local_envs", "launcher"}


@pytest.mark.parametrize("keyword", sorted(_SAMPLES))
def test_old_keyword_maps_onto_its_field_with_a_warning(keyword: str) -> None:
    arg, field = options.DEPRECATED_KEYWORDS[keyword]
    with pytest.warns(DeprecationWarning, match=rf"ZmqVecEnv\({keyword}=\.\.\.\) is deprecated.*use {arg}=\w+\({field}=") as rec:
        opts = options.resolve({keyword: _SAMPLES[keyword]}, stacklevel=2)
    assert rec[0].filename == __file__  # the warning points at the code that used the keyword
    assert getattr(getattr(opts, arg), field) == _SAMPLES[keyword]
    # everything else keeps its default
    defaults = options.PoolOptions()
    for other in ("failure", "timeouts", "remote", "tuning"):
        if other != arg:
            assert getattr(opts, other) == getattr(defaults, other)


def test_old_keywords_combine_into_one_object() -> None:
    with pytest.warns(DeprecationWarning):
        opts = options.resolve({"bind": "tcp://127.0.0.1:0", "n_local_envs": 2, "join_timeout": 9.0, "heartbeat_timeout": 8.0})
    assert opts.remote == RemoteWorkers(bind="tcp://127.0.0.1:0", local_envs=2)
    assert opts.timeouts == Timeouts(join=9.0, heartbeat=8.0)


def test_fixed_layout_true_means_aslr_off() -> None:
    with pytest.warns(DeprecationWarning, match=r"LocalTuning\(disable_aslr="):
        assert options.resolve({"fixed_layout": True}).tuning.disable_aslr is True


def test_old_values_are_checked_like_new_ones() -> None:
    with pytest.warns(DeprecationWarning), pytest.raises(ValueError, match="FailurePolicy.on_failure"):
        options.resolve({"on_failure": "ignore"})


@pytest.mark.parametrize("keyword", sorted(options.DEPRECATED_KEYWORDS))
def test_old_keyword_and_its_object_together_is_a_type_error(keyword: str) -> None:
    arg, _ = options.DEPRECATED_KEYWORDS[keyword]
    with pytest.raises(TypeError, match=rf"got both {keyword}= and {arg}="):
        options.resolve({keyword: _SAMPLES.get(keyword)}, **{arg: options._GROUPS[arg]()})


def test_unknown_keyword_and_wrong_object_type_are_type_errors() -> None:
    with pytest.raises(TypeError, match="unexpected keyword argument 'join'"):
        options.resolve({"join": 3})
    with pytest.raises(TypeError, match=r"ZmqVecEnv\(timeouts=...\) must be a Timeouts, got float"):
        options.resolve({}, timeouts=3.0)  # type: ignore[arg-type]


# ------------------------------------------------------------------- through the constructor


def test_constructor_conflicts_are_type_errors_before_anything_starts() -> None:
    # (the pool_tmpdir fixture checks that nothing was created)
    with pytest.raises(TypeError, match="got both join_timeout= and timeouts="):
        ZmqVecEnv([pool_envs.make_cartpole], join_timeout=5.0, timeouts=Timeouts())
    with pytest.raises(TypeError, match="got both n_local_workers= and n_workers="):
        ZmqVecEnv([pool_envs.make_cartpole], n_workers=1, n_local_workers=1)
    with pytest.raises(TypeError, match="unexpected keyword argument 'n_local'"):
        ZmqVecEnv([pool_envs.make_cartpole], n_local=1)


def test_constructor_warns_at_the_callers_line() -> None:
    with pytest.warns(DeprecationWarning, match=r"use n_workers=") as rec, pytest.raises(ValueError, match="env_fns is empty"):
        ZmqVecEnv([], n_local_workers=1)
    assert rec[0].filename == __file__


@pytest.mark.timeout(90)
def test_new_form_options_reach_the_pool(make_pool: Callable[..., Any], pool_tmpdir: Path) -> None:
    """FailurePolicy("restart") is what turns a killed worker into a truncated episode (the default
    raises WorkerDied), and LocalTuning(shared_memory=False) sends observations over ZeroMQ."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)  # the new form warns about nothing
        pool = make_pool(
            [pool_envs.make_cartpole] * 3,
            n_workers=2,
            failure=FailurePolicy("restart", max_restarts=1),
            timeouts=Timeouts(join=30.0, heartbeat_interval=0.2, heartbeat=3.0),
            tuning=LocalTuning(shared_memory=False, cpu_affinity=None, disable_aslr=False),
        )
    assert [w.env_indices for w in pool.workers] == [(0, 1), (2,)]
    assert not list(pool_tmpdir.rglob("*.shm")), "shared_memory=False still made a shared-memory file"
    pool.reset()
    os.kill(pool.worker_pids[1], signal.SIGKILL)
    actions = np.zeros(3, dtype=np.int64)
    for _ in range(200):
        _, _, dones, infos = pool.step(actions)
        if infos[2].get("sc2pool.restarted"):
            assert dones[2] and not infos[0].get("sc2pool.restarted")
            break
    else:
        raise AssertionError("the killed worker's env never ended as restarted")
    assert pool.restart_counts == {"local-1": 1}


@pytest.mark.timeout(60)
@pytest.mark.parametrize("spelling", ["new", "old"])
def test_remote_options_reach_the_broker(spelling: str) -> None:
    """bind + local_envs leave one env for a remote worker that never comes: the join timeout fires."""
    if spelling == "new":
        kwargs: dict[str, Any] = {
            "n_workers": 1,
            "remote": RemoteWorkers(bind="tcp://127.0.0.1:0", local_envs=1),
            "timeouts": Timeouts(join=1.0),
        }
        ctx: Any = warnings.catch_warnings()
    else:
        kwargs = {"n_local_workers": 1, "bind": "tcp://127.0.0.1:0", "n_local_envs": 1, "join_timeout": 1.0}
        ctx = pytest.warns(DeprecationWarning)
    with ctx, pytest.raises(JoinTimeoutError, match=r"tcp://127\.0\.0\.1:\d+"):
        ZmqVecEnv(env="pool_envs:make_count", n_envs=2, **kwargs)


def test_worker_failure_calls_the_machine_hostname() -> None:
    from sc2pool.errors import WorkerDied

    exc = WorkerDied("gone", worker="w", pid=3, hostname="node-a", env_indices=[0])
    assert exc.hostname == "node-a" and "(pid 3 on node-a)" in str(exc)
    with pytest.warns(DeprecationWarning, match=r"use \.hostname"):
        assert exc.host == "node-a"
    assert WorkerDied("gone", worker="w", pid=3, host="node-b").hostname == "node-b"  # the old keyword
    with pytest.raises(TypeError, match="old spelling of hostname"):
        WorkerDied("gone", worker="w", host="a", hostname="b")
