"""Hostile peers against live processes: a rogue client against a running trainer's broker, and a
rogue broker against a real ``sc2pool worker``.

Both the trainer and the worker run as child processes, so a crash (a decoder segfault, an
uncaught exception) is a test failure with an exit status, not the end of the pytest session.
Every process is killed in teardown, whatever happens.
"""

from __future__ import annotations

import random
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import gymnasium as gym
import msgpack
import pytest
import zmq
from helpers.waiting import HANG_S

from sc2pool.pool import protocol as P
from sc2pool.pool.spaces import space_to_msg

from .reliability_helpers import TrainerProc, free_port, kill_group, wait_for

pytestmark = pytest.mark.timeout(90)


def _nested_tuple_bomb(depth: int = 400) -> bytes:
    """A ~2 KB header: a tuple nested ``depth`` deep (each level re-enters the C unpacker)."""
    blob = P.pack(())
    for _ in range(depth):
        blob = msgpack.packb(msgpack.ExtType(P.EXT_TUPLE, b"\x91" + blob), use_bin_type=True)
    return msgpack.packb(
        {"v": P.PROTOCOL_VERSION, "k": int(P.Kind.HELLO), "x": msgpack.ExtType(P.EXT_TUPLE, blob)}
    )


def _garbage_battery(rng: random.Random) -> list[list[bytes]]:
    """Malformed, truncated, wrong-version, oversized and out-of-place messages."""
    cartpole = gym.make("CartPole-v1")
    hello = P.header(
        P.Kind.HELLO,
        name="rogue",
        host="nowhere",
        pid=1,
        n=1,
        obs=space_to_msg(cartpole.observation_space),
        act=space_to_msg(cartpole.action_space),
        render_mode=None,
        local=False,
    )
    cartpole.close()
    msgs: list[list[bytes]] = [[rng.randbytes(rng.randint(0, 64))] for _ in range(100)]
    msgs += [[hello[:i]] for i in range(0, len(hello), max(1, len(hello) // 20))]  # truncated
    msgs += [
        [b""],
        [b"", b"", b""],
        [msgpack.packb({"v": 999, "k": int(P.Kind.HELLO)})],  # wrong version (HELLO: refused)
        [msgpack.packb({"v": "1", "k": int(P.Kind.RESULT)})],
        [msgpack.packb({"v": P.PROTOCOL_VERSION, "k": 77})],  # unknown kind
        [msgpack.packb([P.PROTOCOL_VERSION, 1])],  # header not a map
        [P.header(P.Kind.RESULT, s=1, ri=[])],  # out of place from a stranger
        [P.header(P.Kind.STEP, s=1, ad="0@", **{"as": [1]}), b"\x00"],
        [P.header(P.Kind.HELLO, name=5)],  # malformed HELLO
        [b"\xdd\xff\xff\xff\xff"],  # 4G-element array claim
        [b"\x91" * 100_000 + b"\xc0"],  # deep plain nesting
        [rng.randbytes(20 * 2**20)],  # 20 MB of noise
        [
            msgpack.packb(
                {
                    "v": P.PROTOCOL_VERSION,
                    "k": 1,
                    "obs": msgpack.ExtType(1, b"\x93\xa3<f8\x91\xce\xff\xff\xff\xff\xc4\x00"),
                }
            )
        ],
    ]
    msgs.append([hello])
    msgs.append([hello])  # the same connection says HELLO twice
    return msgs


# ------------------------------------------------------------------------------------ broker side


def test_broker_keeps_serving_through_hostile_frames(trainer: Callable[..., TrainerProc]) -> None:
    t = trainer("--bind", "tcp://127.0.0.1:0", "--envs", "2", "--local-workers", "1", "--local-envs", "2")
    endpoint = t.wait_ready()["endpoints"][0]
    t.assert_progressing()
    ctx: zmq.Context[Any] = zmq.Context()
    try:
        rogue = ctx.socket(zmq.DEALER)
        rogue.linger = 0
        rogue.connect(endpoint)
        battery = _garbage_battery(random.Random(1))
        for msg in battery:
            rogue.send_multipart(msg)
        t.assert_progressing(by=100)
        # the pool counted what it dropped or refused, and told the rogue why when it could
        wait_for(lambda: t.stats.get("malformed", 0) + t.stats.get("refused", 0) >= 50, HANG_S, "drops counted")
        refusals: list[str] = []

        def wrong_version() -> bool:
            return any("999" in r and str(P.PROTOCOL_VERSION) in r for r in refusals)

        def pool_full() -> bool:
            return any("no slot is free" in r or "no more workers" in r or "duplicate" in r for r in refusals)

        deadline = time.monotonic() + HANG_S
        while not (wrong_version() and pool_full()):
            assert time.monotonic() < deadline, f"the rogue was not told both refusals: {refusals}"
            if rogue.poll(100):
                hdr = P.unpack(rogue.recv_multipart()[0])
                if isinstance(hdr, dict) and hdr.get("k") == int(P.Kind.REFUSE):
                    refusals.append(str(hdr.get("reason")))
    finally:
        ctx.destroy(linger=0)
    assert t.stop() == 0, t.describe()


def test_broker_survives_nested_tuple_bomb(trainer: Callable[..., TrainerProc]) -> None:
    """A ~2 KB header whose tuples nest 400 deep must be dropped, not crash the trainer."""
    t = trainer("--bind", "tcp://127.0.0.1:0", "--envs", "2", "--local-workers", "1", "--local-envs", "2")
    endpoint = t.wait_ready()["endpoints"][0]
    t.assert_progressing()
    ctx: zmq.Context[Any] = zmq.Context()
    try:
        rogue = ctx.socket(zmq.DEALER)
        rogue.linger = 0
        rogue.connect(endpoint)
        rogue.send(_nested_tuple_bomb())
        t.assert_progressing(by=100)
    finally:
        ctx.destroy(linger=0)
    assert t.stop() == 0, t.describe()


def test_worker_with_duplicate_id_is_refused_and_pool_still_fills(
    trainer: Callable[..., TrainerProc],
) -> None:
    """Two remote workers claim the id 'dup': one is refused with a reason naming the duplicate,
    the other keeps its slot, and the pool still fills with a third worker."""
    port = free_port()  # the trainer announces endpoints only once the pool is full
    endpoint = f"tcp://127.0.0.1:{port}"
    t = trainer("--bind", endpoint, "--envs", "3", "--local-workers", "1", "--local-envs", "1")
    workers: list[subprocess.Popen[str]] = []

    def worker(name: str) -> subprocess.Popen[str]:
        p = subprocess.Popen(
            [sys.executable, "-m", "sc2pool", "worker", "--connect", endpoint, "--env", "CartPole-v1"]
            + ["--envs", "1", "--name", name, "--connect-timeout", "30", "--log-level", "WARNING"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )
        workers.append(p)
        return p

    try:
        a, b = worker("dup"), worker("dup")
        wait_for(lambda: a.poll() is not None or b.poll() is not None, HANG_S, "one 'dup' worker to be refused")
        refused, kept = (a, b) if a.poll() is not None else (b, a)
        _, err = refused.communicate(timeout=10)
        assert refused.returncode is not None and refused.returncode > 0, err
        assert "duplicate" in err.lower(), err
        assert kept.poll() is None, "the worker that joined first must keep its slot"
        worker("other")
        t.wait_ready()
        t.assert_progressing()
    finally:
        t.stop()
        for p in workers:
            kill_group(p)


# ------------------------------------------------------------------------------------ worker side


class FakeBroker:
    """A ROUTER that speaks just enough protocol to get a real worker serving."""

    def __init__(self) -> None:
        self.ctx: zmq.Context[Any] = zmq.Context()
        self.sock = self.ctx.socket(zmq.ROUTER)
        self.sock.linger = 0
        port = self.sock.bind_to_random_port("tcp://127.0.0.1")
        self.endpoint = f"tcp://127.0.0.1:{port}"
        self.main: bytes | None = None

    def recv(self, timeout: float = HANG_S) -> tuple[bytes, dict[Any, Any], list[bytes]]:
        """Next message from the worker's main socket; heartbeats are answered on the way."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if not self.sock.poll(100):
                continue
            ident, *frames = self.sock.recv_multipart()
            if ident.endswith(P.HEARTBEAT_SUFFIX):
                self.sock.send_multipart([ident, P.header(P.Kind.HEARTBEAT)])
                continue
            return ident, P.decode_header(frames[0]), frames[1:]
        raise AssertionError("the worker sent nothing")

    def pump_heartbeats(self, seconds: float) -> list[dict[Any, Any]]:
        """Answer heartbeats for ``seconds``; return headers the main socket sent meanwhile."""
        got: list[dict[Any, Any]] = []
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if self.sock.poll(50):
                ident, *frames = self.sock.recv_multipart()
                if ident.endswith(P.HEARTBEAT_SUFFIX):
                    self.sock.send_multipart([ident, P.header(P.Kind.HEARTBEAT)])
                else:
                    got.append(P.decode_header(frames[0]))
        return got

    def send(self, *frames: bytes) -> None:
        assert self.main is not None
        self.sock.send_multipart([self.main, *frames])

    def close(self) -> None:
        self.ctx.destroy(linger=0)


@pytest.fixture
def serving_worker() -> Iterator[tuple[FakeBroker, subprocess.Popen[str]]]:
    """A real ``sc2pool worker`` that said HELLO, got WELCOME and is READY, against a FakeBroker."""
    broker = FakeBroker()
    proc = subprocess.Popen(
        [sys.executable, "-m", "sc2pool", "worker", "--connect", broker.endpoint, "--env", "CartPole-v1"]
        + ["--envs", "1", "--connect-timeout", "30", "--log-level", "WARNING"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        ident, hello, _ = broker.recv()
        assert hello["k"] == P.Kind.HELLO
        broker.main = ident
        broker.send(P.header(P.Kind.WELCOME, slots=[0, 1], shm=None, hb={"interval": 0.5, "timeout": 60.0}))
        _, ready, _ = broker.recv()
        assert ready["k"] == P.Kind.READY
        yield broker, proc
    finally:
        kill_group(proc)
        broker.close()


def _assert_still_serving(broker: FakeBroker, proc: subprocess.Popen[str]) -> None:
    broker.send(P.header(P.Kind.RESET, s=4242, seeds=[1], opts=[None]))
    deadline = time.monotonic() + HANG_S
    while time.monotonic() < deadline:
        assert proc.poll() is None, (
            f"worker died with status {proc.returncode}: {proc.stderr.read()[-1500:] if proc.stderr else ''}"
        )
        for hdr in broker.pump_heartbeats(0.2):
            if hdr.get("s") == 4242:
                assert hdr["k"] == P.Kind.RESULT, hdr
                return
    pytest.fail("the worker stopped answering after hostile messages")


def test_worker_keeps_serving_through_hostile_frames(
    serving_worker: tuple[FakeBroker, subprocess.Popen[str]],
) -> None:
    broker, proc = serving_worker
    rng = random.Random(2)
    for msg in _garbage_battery(rng):
        broker.send(*msg)
    broker.send(P.header(P.Kind.STEP, s=7, ad="<i8", **{"as": [5]}), b"\x00" * 8)  # wrong action count
    broker.send(P.header(P.Kind.STEP, s=8, ad="<i8", **{"as": [1]}))  # missing data frame
    broker.send(P.header(P.Kind.CALL, s=9, op="no_such_op", name="x", idx=[0]))
    broker.send(P.header(P.Kind.CALL, s=10, op="get_attr", name="x", idx=[99]))
    _assert_still_serving(broker, proc)
    broker.send(P.header(P.Kind.CLOSE))
    assert proc.wait(timeout=20) == 0


def test_worker_survives_nested_tuple_bomb(serving_worker: tuple[FakeBroker, subprocess.Popen[str]]) -> None:
    broker, proc = serving_worker
    broker.send(_nested_tuple_bomb())
    _assert_still_serving(broker, proc)


def test_remote_worker_ignores_shared_memory_path_from_broker(tmp_path: Path) -> None:
    """A broker must not be able to make a *remote* worker map and overwrite a file of its choice."""
    victim = tmp_path / "victim.bin"
    victim.write_bytes(b"precious" * 4096)
    before = victim.read_bytes()
    broker = FakeBroker()
    proc = subprocess.Popen(
        [sys.executable, "-m", "sc2pool", "worker", "--connect", broker.endpoint, "--env", "CartPole-v1"]
        + ["--envs", "1", "--connect-timeout", "30", "--log-level", "WARNING"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        ident, hello, _ = broker.recv()
        assert hello["k"] == P.Kind.HELLO and not hello.get("local")
        broker.main = ident
        shm = {"path": str(victim), "n": 1}
        broker.send(P.header(P.Kind.WELCOME, slots=[0, 1], shm=shm, hb={"interval": 0.5, "timeout": 60.0}))
        # Not a fixed wait: the worker either refuses (exits) or gets READY and answers a reset,
        # with its observation in hand; only then is the file looked at.
        _, ready, _ = broker.recv()
        assert ready["k"] == P.Kind.READY, ready
        broker.send(P.header(P.Kind.RESET, s=1, seeds=[3], opts=[None]))
        _, result, frames = broker.recv()
        assert result["k"] == P.Kind.RESULT and result.get("s") == 1, result
        assert frames, "a remote worker sends its observations in the message, not through a file"
        assert victim.read_bytes() == before, (
            "a remote worker wrote observations into a file named by the broker"
        )
    finally:
        kill_group(proc)
        broker.close()


def test_stranger_cannot_claim_a_local_workers_slot(trainer: Callable[..., TrainerProc]) -> None:
    """A peer that says ``local=True, name="local-0"`` before the real local worker does must be
    refused: the slot (and the shared-memory path in its WELCOME) belongs to the process the
    trainer spawned. The rogue connects before the trainer even binds, so it always wins the race."""
    port = free_port()
    ctx: zmq.Context[Any] = zmq.Context()
    try:
        rogue = ctx.socket(zmq.DEALER)
        rogue.linger = 0
        rogue.connect(f"tcp://127.0.0.1:{port}")  # zmq keeps retrying until the trainer binds
        cartpole = gym.make("CartPole-v1")
        rogue.send(
            P.header(
                P.Kind.HELLO,
                name="local-0",
                host="elsewhere",
                pid=1,
                n=1,
                obs=space_to_msg(cartpole.observation_space),
                act=space_to_msg(cartpole.action_space),
                render_mode=None,
                local=True,
            )
        )
        cartpole.close()
        t = trainer(
            *(
                "--bind",
                f"tcp://127.0.0.1:{port}",
                "--envs",
                "2",
                "--local-workers",
                "1",
                "--local-envs",
                "1",
            ),
            *("--join-timeout", "10"),
        )
        assert rogue.poll(30_000), f"the broker never answered the rogue: {t.describe()}"
        hdr = P.decode_header(rogue.recv_multipart()[0])
        assert hdr["k"] == P.Kind.REFUSE, f"a stranger was welcomed into a local worker's slot: {hdr}"
    finally:
        ctx.destroy(linger=0)
