"""Spaces and array layouts across the wire: key order, nesting, dtypes (byte order included),
zero-size and scalar shapes survive HELLO exactly; ZmqVecEnv's results equal DummyVecEnv's step by
step for random spaces, on the local fast lane, the local ZeroMQ path and remote CLI workers; any
disagreement between a worker's layout and the trainer's is a typed error at HELLO."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

import msgpack
import numpy as np
import portpicker
import pytest
import wire_envs
import zmq
from gymnasium import spaces
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from pool_helpers import worker_env
from stable_baselines3.common.vec_env import DummyVecEnv

from sc2pool import ZmqVecEnv
from sc2pool.errors import PoolError, SpaceMismatchError
from sc2pool.pool import protocol as P
from sc2pool.pool import spaces as S

N_ENVS = 3
STEPS = 12


# ------------------------------------------------------------------------------------- compare
def same(a: Any, b: Any, where: str) -> None:
    """Deep equality, numpy dtypes (byte order included) and dict key *order* included."""
    if isinstance(a, dict):
        assert isinstance(b, dict), where
        assert list(a) == list(b), f"{where}: keys {list(a)} != {list(b)}"
        for k in a:
            same(a[k], b[k], f"{where}[{k!r}]")
    elif isinstance(a, (list, tuple)):
        assert type(a) is type(b) and len(a) == len(b), f"{where}: {a!r} != {b!r}"
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            same(x, y, f"{where}[{i}]")
    elif isinstance(a, (np.ndarray, np.generic)) or isinstance(b, (np.ndarray, np.generic)):
        assert type(a) is type(b), f"{where}: {type(a)} != {type(b)}"
        a_arr, b_arr = np.asarray(a), np.asarray(b)
        assert a_arr.dtype.str == b_arr.dtype.str, f"{where}: dtype {a_arr.dtype.str} != {b_arr.dtype.str}"
        assert a_arr.shape == b_arr.shape, f"{where}: shape {a_arr.shape} != {b_arr.shape}"
        assert np.array_equal(a_arr, b_arr), f"{where}: {a_arr} != {b_arr}"
    else:
        assert a == b, f"{where}: {a!r} != {b!r}"


def compare(pool: Any, dummy: DummyVecEnv, steps: int, seed: int) -> None:
    assert list(S.leaves(pool.observation_space)) == list(S.leaves(dummy.observation_space))
    assert S.spaces_equal(pool.observation_space, dummy.observation_space)
    assert S.spaces_equal(pool.action_space, dummy.action_space)
    for venv in (pool, dummy):
        venv.seed(seed)
    same(pool.reset(), dummy.reset(), "reset obs")
    same(pool.reset_infos, dummy.reset_infos, "reset_infos")
    act_space = dummy.action_space
    act_space.seed(seed)
    for t in range(steps):
        actions = [act_space.sample() for _ in range(dummy.num_envs)]
        if not isinstance(act_space, (spaces.Dict, spaces.Tuple)):
            actions = np.stack([np.asarray(a) for a in actions])
        got = pool.step(actions)
        want = dummy.step(actions)
        for part, x, y in zip(("obs", "rewards", "dones", "infos"), got, want, strict=True):
            same(x, y, f"step {t} {part}")
        same(pool.reset_infos, dummy.reset_infos, f"step {t} reset_infos")


# ------------------------------------------------------------------------------------ strategies
KEYS = st.lists(st.sampled_from(["alpha", "b", "c9", "delta", "e", "zz", "M", "_k"]), min_size=1, max_size=4, unique=True)
SHAPES = st.lists(st.integers(0, 3), min_size=0, max_size=2).map(list)
OBS_DTYPES = ["<f4", ">f4", "<f8", "<i4", ">i8", "|u1", "<i2", "|i1"]
ACT_DTYPES = ["<f4", "<f8", ">f4", "<i8", "<i4"]


def leaf(dtypes: list[str]) -> st.SearchStrategy[Any]:
    return st.one_of(
        st.tuples(st.just("box"), st.sampled_from(dtypes), SHAPES).map(list),
        st.tuples(st.just("discrete"), st.integers(2, 5), st.integers(-2, 2)).map(list),
        st.tuples(
            st.just("multidiscrete"), st.lists(st.integers(2, 5), min_size=1, max_size=3), st.sampled_from(["<i8", "<i4"])
        ).map(list),
        st.tuples(st.just("multibinary"), st.lists(st.integers(1, 3), min_size=1, max_size=2)).map(list),
    )


@st.composite
def obs_spec(draw: st.DrawFn) -> Any:
    kind = draw(st.sampled_from(["dict", "dict", "tuple", "flat"]))
    if kind == "flat":
        return draw(leaf(OBS_DTYPES))
    if kind == "tuple":
        return ["tuple", draw(st.lists(leaf(OBS_DTYPES), min_size=1, max_size=4))]
    keys = draw(KEYS)
    return ["dict", [[k, draw(leaf(OBS_DTYPES))] for k in keys]]


@st.composite
def act_spec(draw: st.DrawFn, depth: int = 0) -> Any:
    kind = draw(st.sampled_from(["leaf", "dict", "tuple"] if depth < 2 else ["leaf"]))
    if kind == "leaf":
        return draw(leaf(ACT_DTYPES))
    if kind == "tuple":
        return ["tuple", [draw(act_spec(depth + 1)) for _ in range(draw(st.integers(1, 3)))]]
    keys = draw(KEYS)
    return ["dict", [[k, draw(act_spec(depth + 1))] for k in keys]]


# ------------------------------------------------------------------------------ property tests
# No shrinking: each example starts worker processes, and a failing example is printed as drawn.
PROPERTY = settings(
    max_examples=10,
    deadline=None,
    derandomize=True,
    phases=[Phase.explicit, Phase.generate],
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)


@pytest.mark.timeout(300)
@PROPERTY
@given(obs=obs_spec(), act=act_spec(), shared_memory=st.booleans(), scramble=st.booleans(), seed=st.integers(0, 2**16))
def test_random_spaces_match_dummy_vec_env_locally(
    obs: Any, act: Any, shared_memory: bool, scramble: bool, seed: int
) -> None:
    """Local workers (2 of them, uneven), over the shared-memory fast lane or ZeroMQ frames; the
    env's arrays C-contiguous in native byte order, or not (``scramble``)."""
    fns = [lambda: wire_envs.make_spec_env(obs=obs, act=act, scramble=scramble) for _ in range(N_ENVS)]
    dummy = DummyVecEnv(fns)
    pool = ZmqVecEnv(fns, n_workers=2, shared_memory=shared_memory, join_timeout=60)
    try:
        compare(pool, dummy, STEPS, seed)
    finally:
        pool.close()
        dummy.close()


@pytest.mark.timeout(300)
@settings(PROPERTY, max_examples=5)
@given(obs=obs_spec(), act=act_spec(), scramble=st.booleans(), seed=st.integers(0, 2**16))
def test_random_spaces_match_dummy_vec_env_remotely(obs: Any, act: Any, scramble: bool, seed: int) -> None:
    """Two envs in a real ``sc2pool worker`` CLI process over tcp, one in a local worker."""
    kwargs = {"obs": obs, "act": act, "scramble": scramble}
    fns = [lambda: wire_envs.make_spec_env(**kwargs) for _ in range(N_ENVS)]
    endpoint = f"tcp://127.0.0.1:{portpicker.pick_unused_port()}"
    remote = subprocess.Popen(
        [sys.executable, "-m", "sc2pool", "worker", "--connect", endpoint, "--log-level", "WARNING",
         "--env", "wire_envs:make_spec_env", "--env-kwargs", json.dumps(kwargs), "--envs", "2"],
        env=worker_env(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, start_new_session=True,
    )
    dummy = DummyVecEnv(fns)
    try:
        pool = ZmqVecEnv(
            env="wire_envs:make_spec_env", env_kwargs=kwargs, n_envs=N_ENVS, bind=endpoint,
            n_local_workers=1, n_local_envs=1, join_timeout=60,
        )
        try:
            assert sorted(w.local for w in pool.workers) == [False, True]
            compare(pool, dummy, STEPS, seed)
        finally:
            pool.close()
        assert remote.wait(timeout=15) == 0  # told to close by the pool
    finally:
        dummy.close()
        if remote.poll() is None:
            remote.kill()
            remote.wait()
        assert remote.stderr is not None
        remote.stderr.close()


# ------------------------------------------------------------------------- the example
make_unsorted = wire_envs.make_unsorted


@pytest.mark.timeout(120)
@pytest.mark.parametrize("shared_memory", [True, False], ids=["lane", "zmq"])
def test_unsorted_dict_keys_keep_their_order(make_pool: Callable[..., Any], shared_memory: bool) -> None:
    fns = [make_unsorted] * N_ENVS
    pool = make_pool(fns, shared_memory=shared_memory)
    assert list(pool.observation_space.spaces) == ["z_float", "md", "a"]
    compare(pool, DummyVecEnv(fns), 20, seed=5)
    obs = pool.reset()
    assert list(obs) == ["z_float", "md", "a"]
    assert obs["md"].dtype == np.int64 and ((obs["md"] >= 0) & (obs["md"] < [4, 5])).all()


# ------------------------------------------------------------------------- HELLO layout check
def _sorting_space_from_msg(msg: Any) -> Any:
    """The rebuild as it once was: a Dict from a plain dict, which gymnasium sorts by key."""
    if isinstance(msg, dict) and msg.get("type") == "Dict":
        return spaces.Dict({key: _sorting_space_from_msg(sub) for key, sub in msg["spaces"]})
    return S.space_from_msg(msg)


@pytest.mark.timeout(120)
def test_a_rebuilt_space_that_lays_out_differently_is_a_typed_error_at_hello(
    make_pool: Callable[..., Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    import sc2pool.broker.admission

    monkeypatch.setattr(sc2pool.broker.admission, "space_from_msg", _sorting_space_from_msg)
    with pytest.raises(SpaceMismatchError, match=r"key order") as exc_info:
        make_pool([make_unsorted] * 2, join_timeout=60)
    assert "'z_float'" in str(exc_info.value) and "'a'" in str(exc_info.value)


def test_check_layout_names_each_kind_of_difference() -> None:
    space = spaces.Dict(OrderedDict([("b", spaces.Box(0, 1, (2,), np.float32)), ("a", spaces.Discrete(3))]))
    good = S.layout_to_msg(space)
    assert good == [[["b"], "<f4", [2]], [["a"], "<i8", []]]
    S.check_layout(space, P.unpack(P.pack(good)), "observation space")  # survives msgpack as is

    def bad(i: int, field: int, value: Any) -> list[Any]:
        out = json.loads(json.dumps(good))
        out[i][field] = value
        return out

    for declared, pattern in [
        (list(reversed(good)), "key order"),
        (bad(0, 1, ">f4"), "dtype '>f4' on the worker but '<f4'"),
        (bad(1, 2, [1]), r"shape \[1\] on the worker but \[\]"),
        (good[:1], "lays out 1 arrays, the trainer 2"),
        (good + [[["c"], "<f4", []]], "lays out 3 arrays"),
        ("nonsense", "malformed layout"),
    ]:
        with pytest.raises(SpaceMismatchError, match=pattern):
            S.check_layout(space, declared, "observation space")
    nested = spaces.Tuple((spaces.Discrete(2), spaces.Dict(OrderedDict([("y", spaces.MultiBinary(2)), ("x", spaces.Discrete(2))]))))
    assert [p for p, _, _ in S.leaves(nested)] == [(0,), (1, "y"), (1, "x")]


NESTED = spaces.Tuple(
    (
        spaces.Dict(OrderedDict([("zz", spaces.Discrete(3)), ("aa", spaces.Box(0, 1, (0, 2), np.dtype(">f8")))])),
        spaces.MultiDiscrete([2, 3], dtype=np.int32),
        spaces.Box(-1, 1, (), np.float32),
    )
)


def test_nested_spaces_round_trip_in_order_through_the_wire() -> None:
    back = S.space_from_msg(P.unpack(P.pack(S.space_to_msg(NESTED))))
    assert S.spaces_equal(back, NESTED)
    assert S.leaves(back) == S.leaves(NESTED)
    assert list(back[0].spaces) == ["zz", "aa"] and back[0]["aa"].dtype.str == ">f8"


def _hello(endpoint: str, **fields: Any) -> dict[str, Any]:
    ctx: Any = zmq.Context.instance()
    sock = ctx.socket(zmq.DEALER)
    sock.setsockopt(zmq.LINGER, 0)
    sock.connect(endpoint)
    try:
        sock.send(P.header(P.Kind.HELLO, name="probe", host="h", pid=1, n=1, render_mode=None, local=False, **fields))
        assert sock.poll(20_000), "no answer from the broker"
        return dict(msgpack.unpackb(sock.recv(), raw=False))
    finally:
        sock.close()


@pytest.mark.timeout(120)
def test_remote_hellos_with_a_wrong_or_missing_layout_are_refused(make_pool: Callable[..., Any]) -> None:
    """A remote worker whose declared layout disagrees with its space description (or that
    declares none) is refused with the reason; the pool keeps waiting for good workers."""
    import threading

    endpoint = f"tcp://127.0.0.1:{portpicker.pick_unused_port()}"
    space = make_unsorted().observation_space
    act = spaces.Discrete(2)
    built: dict[str, Any] = {}

    def build() -> None:
        try:
            built["pool"] = make_pool(
                env="wire_envs:make_unsorted", n_envs=2, bind=endpoint, n_local_workers=1,
                n_local_envs=1, join_timeout=60,
            )
        except BaseException as exc:  # reported below
            built["error"] = exc

    builder = threading.Thread(target=build)
    builder.start()
    try:
        msg = {"obs": S.space_to_msg(space), "act": S.space_to_msg(act)}
        good = {"obs": S.layout_to_msg(space), "act": S.layout_to_msg(act)}
        answer = _hello(endpoint, **msg)
        assert answer["k"] == P.Kind.REFUSE and "declares no array layout" in answer["reason"]
        answer = _hello(endpoint, lay={"obs": list(reversed(good["obs"])), "act": good["act"]}, **msg)
        assert answer["k"] == P.Kind.REFUSE and "key order" in answer["reason"], answer
        answer = _hello(endpoint, lay={"obs": good["obs"], "act": [[[], ">i8", []]]}, **msg)
        assert answer["k"] == P.Kind.REFUSE and "action space" in answer["reason"] and ">i8" in answer["reason"]
        answer = _hello(endpoint, lay=good, **msg)
        assert answer["k"] == P.Kind.WELCOME, answer  # the same HELLO with the right layout joins
    finally:
        builder.join(timeout=90)
    # the probe then falls silent (no READY, no heartbeat): the build fails on that, not on spaces
    assert isinstance(built.get("error"), PoolError) and not isinstance(built["error"], SpaceMismatchError)


# ---------------------------------------------------------------------- structured actions
make_dict_action_env = wire_envs.make_dict_action_env


@pytest.mark.timeout(120)
@pytest.mark.parametrize("shared_memory", [True, False], ids=["lane", "zmq"])
def test_dict_and_tuple_actions_reach_each_env(make_pool: Callable[..., Any], shared_memory: bool) -> None:
    fns = [make_dict_action_env] * N_ENVS
    pool = make_pool(fns, n_workers=2, shared_memory=shared_memory)
    compare(pool, DummyVecEnv(fns), 10, seed=3)
    pool.reset()
    actions = [
        {"fire": i % 2, "move": np.array([i, -i], np.float32), "aux": (np.array([1, 0, i % 2], np.int8), i + 1)}
        for i in range(N_ENVS)
    ]
    _, rewards, _, infos = pool.step(actions)
    for i, info in enumerate(infos):
        assert list(info["act"]) == ["move", "fire", "aux"]  # the space's order, whatever the caller's
        assert np.array_equal(info["act"]["move"], [i, -i]) and info["act"]["fire"] == i % 2
        assert info["act"]["aux"][1] == i + 1
    assert np.allclose(rewards, [0 + 0 + 1 + 1, 0 + 1 + 2 + 2, 0 + 0 + 1 + 3])  # move + fire + aux
    with pytest.raises(ValueError, match=r"action of env 1 has no \['fire'\]"):
        pool.step([actions[0], {"move": actions[1]["move"]}, actions[2]])
    with pytest.raises(ValueError, match="got 2 actions for 3 envs"):
        pool.step(actions[:2])
    with pytest.raises(ValueError, match="must be numeric"):
        pool.step([{**a, "fire": "yes"} for a in actions])
    pool.step(actions)  # still usable: nothing was sent for the refused batches


def test_structured_actions_decode_what_they_encode() -> None:
    codec = S.StructuredActions(NESTED)
    NESTED.seed(1)
    actions = [NESTED.sample() for _ in range(4)]
    arrays = codec.encode(actions, 4)
    assert [a.shape for a, _ in arrays] == [(4,), (4, 0, 2), (4, 2), (4,)]
    assert [nd for _, nd in arrays] == [False, False, False, True]  # Box(shape=()) samples 0-d arrays
    back = codec.decode([(P.unpack(P.pack(a)), nd) for a, nd in arrays], 4)
    for a, b in zip(actions, back, strict=True):
        same(b, a, "action")
