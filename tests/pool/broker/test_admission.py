"""HELLO admission as a pure function: every rule decided from a HELLO as it came (the frame, read
by the wire schema) and a plain view of the pool, with no socket and no process."""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces

from sc2pool.broker.admission import (
    MAX_SPARES,
    Admit,
    Joined,
    Opening,
    PoolView,
    Refuse,
    Reservation,
    Spare,
    admit_frame,
)
from sc2pool.errors import SpaceMismatchError, WorkerRefusedError
from sc2pool.pool import protocol as P
from sc2pool.pool.spaces import layout_to_msg, space_to_msg

OBS = spaces.Box(-1.0, 1.0, (4,), np.float32)
ACT = spaces.Discrete(2)


def hello(name: str = "w", n: int = 2, obs: spaces.Space[Any] = OBS, act: spaces.Space[Any] = ACT, **extra: Any) -> dict[Any, Any]:
    """A HELLO header as a worker of this version sends it."""
    hdr: dict[Any, Any] = {
        "v": P.PROTOCOL_VERSION,
        "k": int(P.Kind.HELLO),
        "name": name,
        "host": "node1",
        "pid": 1234,
        "n": n,
        "obs": space_to_msg(obs),
        "act": space_to_msg(act),
        "lay": {"obs": layout_to_msg(obs), "act": layout_to_msg(act)},
    }
    hdr.update(extra)
    return hdr


def admit(hdr: dict[Any, Any], view: PoolView) -> object:
    """Admission's decision on the HELLO frame that carries ``hdr``."""
    return admit_frame(P.pack(hdr), view)


def pool(**kw: Any) -> PoolView:
    """A pool of 4 envs with no local workers, empty, unless told otherwise."""
    kw.setdefault("n_envs", 4)
    kw.setdefault("next_remote", 0)
    return PoolView(**kw)


def running_pool(**kw: Any) -> PoolView:
    """A full running pool of two remote workers of 2 envs."""
    kw.setdefault("running", True)
    kw.setdefault("next_remote", 4)
    kw.setdefault("workers", [Joined("a", "n1", 1, 2, False), Joined("b", "n2", 2, 2, False)])
    kw.setdefault("observation_space", OBS)
    kw.setdefault("action_space", ACT)
    return pool(**kw)


def refused(decision: object, *words: str) -> Refuse:
    assert isinstance(decision, Refuse), decision
    for word in words:
        assert word in decision.reason, (word, decision.reason)
    return decision


def test_first_remote_worker_gets_the_first_free_slots_and_sets_the_layout() -> None:
    d = admit(hello(n=3, cz=True), pool())
    assert isinstance(d, Admit)
    assert (d.lo, d.hi, d.local, d.vacancy, d.compact) == (0, 3, False, None, True)
    assert d.layout is not None and d.layout.nbytes == 4 * 4 * 4  # n_envs x 4 float32
    d2 = admit(hello(n=1), pool(next_remote=3, observation_space=OBS, action_space=ACT))
    assert isinstance(d2, Admit) and (d2.lo, d2.hi, d2.layout, d2.compact) == (3, 4, None, False)


def test_wrong_protocol_version_is_refused_naming_both_versions() -> None:
    r = refused(admit(hello(v=P.PROTOCOL_VERSION + 7), pool()), "protocol version mismatch")
    assert f"version {P.PROTOCOL_VERSION + 7}" in r.reason and f"version {P.PROTOCOL_VERSION}" in r.reason


def test_malformed_hello_names_the_field() -> None:
    refused(admit(hello(pid="x"), pool()), "malformed HELLO", "'pid'")
    refused(admit(hello(n=0), pool()), "at least one env")


def test_space_mismatch_is_refused_and_names_both_spaces() -> None:
    view = pool(next_remote=2, observation_space=OBS, action_space=ACT, workers=[Joined("a", "n1", 1, 2, False)])
    other = spaces.Box(-1.0, 1.0, (5,), np.float32)
    r = refused(admit(hello(obs=other), view), "observation space", "differs from the pool's")
    assert r.fatal is None  # a stranger's mistake does not fail the pool
    refused(admit(hello(act=spaces.Discrete(3)), view), "action space")


def test_a_worker_that_renders_otherwise_than_the_pool_is_refused() -> None:
    view = pool(next_remote=2, observation_space=OBS, action_space=ACT, workers=[Joined("a", "n1", 1, 2, False)],
                render_mode="rgb_array")
    refused(admit(hello(), view), "renders None", "'rgb_array'", "same render setting")
    assert isinstance(admit(hello(render_mode="rgb_array"), view), Admit)
    assert isinstance(admit(hello(), pool()), Admit)  # the first worker sets the pool's mode


def test_declared_layout_that_differs_from_the_rebuilt_space_is_refused() -> None:
    h = hello()
    h["lay"] = {"obs": layout_to_msg(spaces.Box(-1.0, 1.0, (4,), np.float64)), "act": layout_to_msg(ACT)}
    refused(admit(h, pool()), "observation space")
    del h["lay"]
    refused(admit(h, pool()), "declares no array layout")


def test_own_local_worker_with_mismatched_spaces_fails_the_pool() -> None:
    view = pool(
        next_remote=4,
        observation_space=OBS,
        action_space=ACT,
        local={"local-1": Reservation("local-1", 2, 4, "tok1", started=True, has_lane=True)},
    )
    r = refused(admit(hello("local-1", obs=spaces.Box(0, 1, (3,), np.float32), local=True, tok="tok1"), view))
    assert isinstance(r.fatal, SpaceMismatchError)


def test_unknown_token_or_remote_claim_of_a_local_name_is_refused() -> None:
    view = pool(next_remote=2, local={"local-0": Reservation("local-0", 0, 2, "secret", started=True, has_lane=True)})
    for h in (
        hello("local-0", local=True, tok="guess"),  # wrong token
        hello("local-0", local=True),  # no token
        hello("local-0", tok="secret"),  # not saying it is local
    ):
        r = refused(admit(h, view), "reserved for a local worker")
        assert r.fatal is None
    not_started = pool(next_remote=2, local={"local-0": Reservation("local-0", 0, 2, "secret", started=False, has_lane=True)})
    refused(admit(hello("local-0", local=True, tok="secret"), not_started), "reserved for a local worker")
    d = admit(hello("local-0", local=True, tok="secret", cz=True), view)
    assert isinstance(d, Admit) and (d.lo, d.hi, d.local) == (0, 2, True)
    assert not d.compact  # it has a lane: requests go there, not compact over ZeroMQ


def test_local_worker_of_the_wrong_size_is_refused() -> None:
    view = pool(next_remote=2, local={"local-0": Reservation("local-0", 0, 2, "t", started=True, has_lane=False)})
    refused(admit(hello("local-0", n=3, local=True, tok="t"), view), "hosts 3 envs, expected 2")


def test_duplicate_name_is_refused_naming_the_connected_one() -> None:
    view = pool(next_remote=2, workers=[Joined("w", "node7", 99, 2, False)], observation_space=OBS, action_space=ACT)
    refused(admit(hello("w"), view), "duplicate worker id 'w'", "node7 pid 99")


def test_too_many_envs_or_a_full_pool_is_refused() -> None:
    refused(admit(hello(n=3), pool(next_remote=2)), "offers 3", "only 2 env slot(s)")
    refused(admit(hello(n=1), pool(next_remote=4)), "all 4 env slots are taken")


def test_running_pool_refuses_everyone_when_restart_is_off() -> None:
    refused(admit(hello("c"), running_pool(restart=False)), "no slot is free")
    refused(admit(hello("c"), pool(closed=True)), "no slot is free")


def test_replacement_takes_a_vacancy_of_its_size_only() -> None:
    view = running_pool(
        restart=True,
        workers=[Joined("a", "n1", 1, 2, False)],
        vacancies=[Opening(0, 1, "local-0"), Opening(2, 4, None)],
        local={"local-0": Reservation("local-0", 0, 1, "t", started=True, has_lane=False)},
    )
    d = admit(hello("c", n=2), view)
    assert isinstance(d, Admit) and (d.lo, d.hi, d.vacancy, d.layout) == (2, 4, 1, None)
    refused(admit(hello("c", n=3), view), "only takes replacement workers of [2] envs")
    d_local = admit(hello("local-0", n=1, local=True, tok="t"), view)
    assert isinstance(d_local, Admit) and d_local.vacancy == 0 and d_local.local


def test_spare_admitted_only_when_allowed() -> None:
    view = running_pool(restart=True)  # full, two remote workers of 2 envs
    assert isinstance(admit(hello("c", n=2), view), Spare)
    # not a size any remote worker has: could never replace one
    refused(admit(hello("c", n=1), view), "no slot is free")
    # restart policy off: no spares
    refused(admit(hello("c", n=2), running_pool(restart=False)), "no slot is free")
    # differing spaces: could never replace one either
    refused(admit(hello("c", n=2, act=spaces.Discrete(5)), view), "no slot is free")
    # rendering otherwise than the pool: the same
    refused(admit(hello("c", n=2, render_mode="rgb_array"), view), "no slot is free")
    # a local worker never waits as a spare
    refused(admit(hello("c", n=2, local=True), view), "no slot is free")
    # bounded: strangers cannot make the broker hold unlimited spares
    refused(admit(hello("c", n=2), running_pool(restart=True, n_spares=MAX_SPARES)), "no slot is free")


def test_first_worker_whose_space_cannot_be_laid_out_fails_a_pool_it_belongs_to() -> None:
    # describable on the wire, but SB3 (and so the pool) takes no nested observation space
    nested = spaces.Dict({"a": spaces.Dict({"b": spaces.Box(0, 1, (2,), np.float32)})})
    r = refused(admit(hello("x", obs=nested), pool()), "nested")
    assert r.fatal is None  # a remote stranger: the pool waits for others
    view = pool(next_remote=2, local={"local-0": Reservation("local-0", 0, 2, "t", started=True, has_lane=True)})
    r = refused(admit(hello("local-0", obs=nested, local=True, tok="t"), view), "nested")
    assert isinstance(r.fatal, WorkerRefusedError)  # its own local worker can never join
