"""CurveZMQ keys, the ZAP authenticator and the bind policy, over real tcp 127.0.0.1 sockets."""

from __future__ import annotations

import logging
import os
import shutil
import socket as pysocket
import stat
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import zmq
import zmq.auth
from helpers.waiting import HANG_S

from sc2pool.cli import main as cli_main
from sc2pool.pool import security as sec

pytestmark = pytest.mark.timeout(60)

MARKER = b"SECRET-PAYLOAD-7f3a"


def _wait_for(pred: Callable[[], bool], timeout: float = HANG_S, interval: float = 0.01) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if pred():
            return True
        time.sleep(interval)
    return pred()


@pytest.fixture
def keys(tmp_path: Path) -> Path:
    """broker + worker-a (authorised) + intruder (not authorised), in keygen's layout."""
    assert cli_main(["keygen", str(tmp_path)]) == 0
    auth_dir = tmp_path / sec.AUTHORIZED_DIRNAME
    assert cli_main(["keygen", str(tmp_path), "--name", "worker-a", "--authorize-into", str(auth_dir)]) == 0
    assert cli_main(["keygen", str(tmp_path), "--name", "intruder"]) == 0
    return tmp_path


class Server:
    """A CURVE ROUTER on 127.0.0.1 with its authenticator; echoes b'pong' + payload."""

    def __init__(self, keys: Path) -> None:
        self.cfg = sec.BrokerCurveConfig.from_directory(keys)
        self.ctx: zmq.Context[Any] = zmq.Context()
        self.auth = sec.CurveAuthenticator(self.ctx, self.cfg).start()
        self.router = self.ctx.socket(zmq.ROUTER)
        self.router.linger = 0
        sec.apply_server(self.router, self.cfg)
        self.auth.watch(self.router)
        port = self.router.bind_to_random_port("tcp://127.0.0.1")
        self.endpoint = f"tcp://127.0.0.1:{port}"
        self.port = port
        self.received: list[tuple[bytes, bytes, str | None]] = []

    def pump(self, timeout_ms: int = 20) -> bool:
        """Receive whatever arrived and answer each message; True once anything was ever received."""
        while self.router.poll(timeout_ms):
            ident, payload = self.router.recv_multipart(copy=False)
            user = payload.get("User-Id")
            self.received.append((ident.bytes, payload.bytes, None if user is None else str(user)))
            self.router.send_multipart([ident.bytes, b"pong:" + payload.bytes])
            timeout_ms = 0
        return bool(self.received)

    def close(self) -> None:
        self.router.close(linger=0)
        self.auth.stop()
        self.ctx.term()


@pytest.fixture
def server(keys: Path) -> Iterator[Server]:
    s = Server(keys)
    try:
        yield s
    finally:
        s.close()


@pytest.fixture
def client_ctx() -> Iterator[zmq.Context[Any]]:
    ctx: zmq.Context[Any] = zmq.Context()
    try:
        yield ctx
    finally:
        ctx.destroy(linger=0)


def _dealer(ctx: zmq.Context[Any], endpoint: str, cfg: sec.WorkerCurveConfig | None) -> zmq.Socket[Any]:
    d = ctx.socket(zmq.DEALER)
    d.linger = 0
    d.sndtimeo = 5000  # a send that cannot queue is an error (zmq.Again), never a hang
    if cfg is not None:
        sec.apply_client(d, cfg)
    d.connect(endpoint)
    return d


def _send_refused(d: zmq.Socket[Any], msg: bytes) -> None:
    """Send from a peer the server refuses. A DEALER queues to the pipe its connect made; when the
    refused handshake has already torn that pipe down it has no peer and the send cannot queue
    (``zmq.Again`` after ``sndtimeo``): the message did not get through either way."""
    try:
        d.send(msg)
    except zmq.Again:
        pass


# ---------------------------------------------------------------------------------------- keygen


def test_keygen_writes_loadable_keys_with_safe_permissions(keys: Path) -> None:
    pub, sec_file = keys / "worker-a.key", keys / "worker-a.key_secret"
    # pyzmq's own loader reads our files, and both files hold the same public key
    p1, s1 = zmq.auth.load_certificate(pub)
    p2, s2 = zmq.auth.load_certificate(sec_file)
    assert s1 is None and s2 is not None and p1 == p2
    assert len(p1) == 40 and len(s2) == 40
    # the pair is a real curve25519 pair: the public key derives from the secret
    assert zmq.curve_public(s2) == p1
    assert stat.S_IMODE(sec_file.stat().st_mode) == 0o600
    assert stat.S_IMODE(pub.stat().st_mode) == 0o644
    assert stat.S_IMODE((keys / sec.AUTHORIZED_DIRNAME).stat().st_mode) == 0o700
    assert (keys / sec.AUTHORIZED_DIRNAME / "worker-a.key").read_bytes() == pub.read_bytes()
    assert not list(keys.glob(".*tmp")), "temporary files left behind"


def test_keygen_refuses_overwrite_unless_forced(keys: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = (keys / "broker.key_secret").read_bytes()
    assert cli_main(["keygen", str(keys)]) == 1
    assert "already exists" in capsys.readouterr().err
    assert (keys / "broker.key_secret").read_bytes() == before
    with pytest.raises(sec.KeyExistsError, match="--force"):
        sec.generate_keypair(keys, "broker")
    assert cli_main(["keygen", str(keys), "--force"]) == 0
    after = (keys / "broker.key_secret").read_bytes()
    assert after != before
    assert stat.S_IMODE((keys / "broker.key_secret").stat().st_mode) == 0o600


def test_keygen_cli_subprocess_entry_point(tmp_path: Path) -> None:
    import subprocess
    import sys

    r = subprocess.run(
        [sys.executable, "-m", "sc2pool", "keygen", str(tmp_path / "k"), "--name", "worker-x"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode == 0, r.stderr
    assert sec.load_keypair(tmp_path / "k" / "worker-x.key_secret").public == sec.load_public_key(
        tmp_path / "k" / "worker-x.key"
    )


@pytest.mark.parametrize("bad", ["", "../x", ".hidden", "a/b"])
def test_keygen_rejects_bad_names(tmp_path: Path, bad: str) -> None:
    with pytest.raises(sec.KeyFileError, match="invalid key name"):
        sec.generate_keypair(tmp_path, bad)


def test_load_keypair_refuses_readable_secret(keys: Path) -> None:
    f = keys / "worker-a.key_secret"
    os.chmod(f, 0o644)
    with pytest.raises(sec.KeyFileError, match="chmod 600"):
        sec.load_keypair(f)
    os.chmod(f, 0o600)
    kp = sec.load_keypair(f)
    assert "hidden" in repr(kp) and kp.secret.decode() not in repr(kp)


def test_malformed_key_files_name_the_file(tmp_path: Path) -> None:
    bad = tmp_path / "w.key"
    bad.write_text('curve\n    public-key = "tooshort"\n')
    with pytest.raises(sec.KeyFileError, match=r"w\.key.*40 z85"):
        sec.load_public_key(bad)
    (tmp_path / "empty.key").write_text("# nothing\n")
    with pytest.raises(sec.KeyFileError, match="no public-key"):
        sec.load_authorized_keys(tmp_path)
    with pytest.raises(sec.KeyFileError, match="does not exist"):
        sec.load_public_key(tmp_path / "missing.key")
    with pytest.raises(sec.KeyFileError, match="not a directory"):
        sec.load_authorized_keys(tmp_path / "nope")
    with pytest.raises(sec.KeyFileError, match="no secret-key"):
        sec.generate_keypair(tmp_path, "pub")
        sec.load_keypair(tmp_path / "pub.key")


# ------------------------------------------------------------------------------------ handshakes


def test_authorised_worker_round_trips(keys: Path, server: Server, client_ctx: zmq.Context[Any]) -> None:
    cfg = sec.WorkerCurveConfig.from_files(keys / "worker-a.key_secret", keys / "broker.key")
    d = _dealer(client_ctx, server.endpoint, cfg)
    d.send(b"hello")
    assert _wait_for(server.pump)
    assert d.poll(5000)
    assert d.recv() == b"pong:hello"
    # the broker learns which key the peer used: the key file's name, as ZMQ User-Id
    assert server.received[0][1:] == (b"hello", "worker-a")
    st = server.auth.stats()
    assert st.accepted == 1 and st.accepted_by_name == {"worker-a": 1} and st.refused == 0


def _assert_refused(
    server: Server, intruder: zmq.Socket[Any], *reasons: str, allowed: zmq.Socket[Any] | None = None
) -> None:
    """The intruder's message never reaches the server, nothing reaches the intruder, the refusal
    is counted under one of ``reasons``, and the server goes on serving the authorised peer."""
    _send_refused(intruder, MARKER)

    def counted() -> bool:
        by_reason = server.auth.stats().refused_by_reason
        return sum(by_reason.get(r, 0) for r in reasons) >= 1

    assert _wait_for(counted), server.auth.stats()
    # Rounds of the server broadcasting to every identity it has ever seen; with an authorised
    # peer, a round ends when that peer has its copy, so the intruder had the same chance at it.
    for k in range(5):
        server.pump(0)
        token = b"%s-%d" % (MARKER, k)
        for ident in {i for i, _, _ in server.received}:
            server.router.send_multipart([ident, token])
        if allowed is not None:
            assert _wait_for(lambda t=token: _received(allowed, t)), "the authorised worker stopped being served"
        assert intruder.poll(0) == 0, "an unauthorised peer received data"
    server.pump(0)
    assert all(MARKER not in payload or user == "worker-a" for _, payload, user in server.received)
    assert not any(user != "worker-a" for _, _, user in server.received)


def _received(sock: zmq.Socket[Any], token: bytes) -> bool:
    """Read what ``sock`` has waiting; True once ``token`` was among it."""
    while sock.poll(0):
        if sock.recv() == token:
            return True
    return False


def test_unknown_key_is_refused_logged_and_counted(
    keys: Path, server: Server, client_ctx: zmq.Context[Any], caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="sc2pool.pool.security")
    good = _dealer(
        client_ctx,
        server.endpoint,
        sec.WorkerCurveConfig.from_files(keys / "worker-a.key_secret", keys / "broker.key"),
    )
    good.send(b"x")
    assert _wait_for(server.pump)
    intruder_cfg = sec.WorkerCurveConfig.from_files(keys / "intruder.key_secret", keys / "broker.key")
    bad = _dealer(client_ctx, server.endpoint, intruder_cfg)
    _assert_refused(server, bad, "unknown-key", allowed=good)
    refusal = [r for r in server.auth.stats().recent_refusals if r.reason == "unknown-key"][0]
    assert refusal.address == "127.0.0.1"
    assert intruder_cfg.keypair.public.decode() in refusal.detail
    assert any("refused connection from 127.0.0.1" in r.getMessage() for r in caplog.records)


def test_peer_without_curve_is_refused_and_counted(server: Server, client_ctx: zmq.Context[Any]) -> None:
    bad = _dealer(client_ctx, server.endpoint, None)
    # usually "unexpected command" (not-curve); if libzmq sees the socket close first: EPIPE
    _assert_refused(server, bad, "not-curve", "handshake-failed")
    assert server.auth.stats().accepted == 0


def test_authorised_key_but_wrong_server_key_is_refused(
    keys: Path, server: Server, client_ctx: zmq.Context[Any]
) -> None:
    # a worker pointed at an impostor broker key cannot complete the handshake either way
    cfg = sec.WorkerCurveConfig.from_files(keys / "worker-a.key_secret", keys / "intruder.key")
    bad = _dealer(client_ctx, server.endpoint, cfg)
    _assert_refused(server, bad, "handshake-failed")
    assert server.auth.stats().accepted == 0


def test_raw_tcp_intruder_reads_no_application_bytes(
    keys: Path, server: Server, client_ctx: zmq.Context[Any]
) -> None:
    good = _dealer(
        client_ctx,
        server.endpoint,
        sec.WorkerCurveConfig.from_files(keys / "worker-a.key_secret", keys / "broker.key"),
    )
    good.send(b"x")
    assert _wait_for(server.pump)
    with pysocket.create_connection(("127.0.0.1", server.port), timeout=2) as raw:
        # a ZMTP 3.0 greeting announcing the NULL mechanism, then a READY command
        raw.sendall(
            b"\xff" + b"\x00" * 8 + b"\x7f" + b"\x03\x00" + b"NULL" + b"\x00" * 16 + b"\x00" + b"\x00" * 31
        )
        raw.sendall(b"\x04\x19\x05READY\x0bSocket-Type\x00\x00\x00\x06DEALER")
        got = b""
        raw.settimeout(0.05)
        deadline = time.monotonic() + 1.0
        while time.monotonic() < deadline:
            server.pump(5)
            server.router.send_multipart([server.received[0][0], MARKER])  # traffic for the good peer
            try:
                chunk = raw.recv(65536)
                if not chunk:
                    break  # server hung up: good
                got += chunk
            except TimeoutError:
                pass
            except ConnectionResetError:
                break  # server hung up on the intruder: good
    assert MARKER not in got
    assert len(got) <= 64 + 64, f"intruder received {len(got)} bytes: {got!r}"
    assert good.poll(1000)


def test_authorising_a_key_takes_effect_without_restart(
    keys: Path, server: Server, client_ctx: zmq.Context[Any]
) -> None:
    cfg = sec.WorkerCurveConfig.from_files(keys / "intruder.key_secret", keys / "broker.key")
    bad = _dealer(client_ctx, server.endpoint, cfg)
    _assert_refused(server, bad, "unknown-key")
    bad.close(linger=0)
    shutil.copyfile(keys / "intruder.key", keys / sec.AUTHORIZED_DIRNAME / "intruder.key")
    now_ok = _dealer(client_ctx, server.endpoint, cfg)
    now_ok.send(b"late")
    assert _wait_for(lambda: server.pump() and any(u == "intruder" for _, _, u in server.received))
    assert now_ok.poll(5000) and now_ok.recv() == b"pong:late"


def test_refusal_logging_is_rate_limited_but_counting_is_not(
    keys: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="sc2pool.pool.security")
    ctx: zmq.Context[Any] = zmq.Context()
    auth = sec.CurveAuthenticator(ctx, sec.BrokerCurveConfig.from_directory(keys), log_interval_s=60.0)
    for _ in range(50):
        auth._record_refusal("10.0.0.9", "unknown-key", "k")
    auth._record_refusal("10.0.0.8", "unknown-key", "k")
    assert auth.stats().refused == 51
    assert len([r for r in caplog.records if "10.0.0.9" in r.getMessage()]) == 1
    assert len([r for r in caplog.records if "10.0.0.8" in r.getMessage()]) == 1
    ctx.term()


# ------------------------------------------------------------------------------ lifecycle safety


def test_server_without_authenticator_is_refused(keys: Path) -> None:
    ctx: zmq.Context[Any] = zmq.Context()
    s = ctx.socket(zmq.ROUTER)
    try:
        with pytest.raises(sec.AuthenticatorError, match="without a running CurveAuthenticator"):
            sec.apply_server(s, sec.BrokerCurveConfig.from_directory(keys))
    finally:
        s.close(linger=0)
        ctx.term()


def test_authenticator_lifecycle_leaves_nothing_behind(keys: Path) -> None:
    cfg = sec.BrokerCurveConfig.from_directory(keys)
    ctx: zmq.Context[Any] = zmq.Context()
    auth = sec.CurveAuthenticator(ctx, cfg).start()
    with pytest.raises(sec.AuthenticatorError, match="already bound"):
        sec.CurveAuthenticator(ctx, cfg).start()
    r = ctx.socket(zmq.ROUTER)
    sec.apply_server(r, cfg)
    auth.watch(r)
    r.bind("tcp://127.0.0.1:0")
    r.close(linger=0)
    auth.stop()
    auth.stop()  # idempotent
    assert not auth.is_alive()
    assert not [t for t in threading.enumerate() if t.name == "sc2pool-zap"]
    # ctx.term() blocks while any socket is open: it must return promptly
    t = threading.Thread(target=ctx.term, daemon=True)
    t.start()
    t.join(5)
    assert not t.is_alive(), "zmq context could not terminate: a socket was left open"
    # after stop, a server cannot be configured in a fresh context without a new authenticator
    with sec.CurveAuthenticator(zmq.Context.instance(), cfg) as a2:
        assert a2.is_alive()
    assert not a2.is_alive()


def test_broken_authorisation_directory_fails_closed(
    keys: Path, server: Server, client_ctx: zmq.Context[Any]
) -> None:
    (keys / sec.AUTHORIZED_DIRNAME / "typo.key").write_text("garbage\n")
    cfg = sec.WorkerCurveConfig.from_files(keys / "worker-a.key_secret", keys / "broker.key")
    d = _dealer(client_ctx, server.endpoint, cfg)
    _assert_refused(server, d, "unknown-key")


# ---------------------------------------------------------------------------------- bind policy


@pytest.mark.parametrize(
    "endpoint",
    [
        "ipc:///tmp/x/broker",
        "inproc://broker",
        "tcp://127.0.0.1:5555",
        "tcp://127.1.2.3:5555",
        "tcp://localhost:5555",
        "tcp://[::1]:5555",
        "tcp://lo:5555",
    ],
)
def test_local_binds_are_allowed_without_curve(endpoint: str) -> None:
    sec.check_bind_address(endpoint, curve_enabled=False)


@pytest.mark.parametrize(
    "endpoint",
    [
        "tcp://0.0.0.0:5555",
        "tcp://*:5555",
        "tcp://eth0:5555",
        "tcp://10.1.2.3:5555",
        "tcp://[::]:5555",
        "tcp://host:1",
    ],
)
def test_remote_binds_need_curve(endpoint: str, caplog: pytest.LogCaptureFixture) -> None:
    with pytest.raises(sec.InsecureBindError, match="without CurveZMQ"):
        sec.check_bind_address(endpoint, curve_enabled=False)
    sec.check_bind_address(endpoint, curve_enabled=True)
    caplog.set_level(logging.WARNING, logger="sc2pool.pool.security")
    sec.check_bind_address(endpoint, curve_enabled=False, allow_insecure_remote=True)
    assert any("WITHOUT CurveZMQ" in r.getMessage() and r.levelno == logging.WARNING for r in caplog.records)


@pytest.mark.parametrize(
    "endpoint", ["udp://127.0.0.1:1", "pgm://eth0;239.0.0.1:5555", "tcp://:5555", "nonsense"]
)
def test_odd_endpoints_are_refused(endpoint: str) -> None:
    with pytest.raises(sec.InsecureBindError):
        sec.check_bind_address(endpoint, curve_enabled=True)


def test_private_ipc_dir_and_endpoint() -> None:
    d = sec.make_private_ipc_dir()
    try:
        assert stat.S_IMODE(d.stat().st_mode) == 0o700
        ep = sec.ipc_endpoint(d, "broker")
        assert ep == f"ipc://{d}/broker"
        with pytest.raises(ValueError, match="unix sockets allow"):
            sec.ipc_endpoint(d, "x" * 120)
    finally:
        d.rmdir()


# ------------------------------------------------------------------ local workers of a CURVE pool


def test_ephemeral_local_worker_key_is_admitted_over_ipc_and_revocable(
    keys: Path, client_ctx: zmq.Context[Any]
) -> None:
    """CURVE applies to every endpoint of the server socket, ipc included: local workers get an
    in-memory key pair from the trainer, authorised without touching the keys directory."""
    cfg = sec.BrokerCurveConfig.from_directory(keys)
    ctx: zmq.Context[Any] = zmq.Context()
    ipc_dir = sec.make_private_ipc_dir()
    try:
        with sec.CurveAuthenticator(ctx, cfg) as auth:
            router = ctx.socket(zmq.ROUTER)
            router.linger = 0
            sec.apply_server(router, cfg)
            endpoint = sec.ipc_endpoint(ipc_dir, "broker")
            router.bind(endpoint)
            try:
                local = sec.ephemeral_keypair()
                assert zmq.curve_public(local.secret) == local.public
                wcfg = sec.WorkerCurveConfig(keypair=local, server_public_key=cfg.keypair.public)
                d = _dealer(client_ctx, endpoint, wcfg)
                _send_refused(d, b"before")
                assert _wait_for(lambda: auth.stats().refused_by_reason.get("unknown-key", 0) >= 1)
                assert router.poll(100) == 0
                d.close(linger=0)

                auth.authorize(local.public, "local-0")
                d = _dealer(client_ctx, endpoint, wcfg)
                d.send(b"after")
                assert router.poll(5000)
                frames = router.recv_multipart(copy=False)
                assert frames[1].bytes == b"after" and frames[1].get("User-Id") == "local-0"
                d.close(linger=0)

                auth.revoke(local.public)
                refused = auth.refused
                d = _dealer(client_ctx, endpoint, wcfg)
                _send_refused(d, b"revoked")
                assert _wait_for(lambda: auth.refused > refused)
                assert router.poll(100) == 0
                with pytest.raises(sec.KeyFileError):
                    auth.authorize(b"short", "x")
            finally:
                router.close(linger=0)
        ctx.term()
    finally:
        shutil.rmtree(ipc_dir, ignore_errors=True)


def test_tokens() -> None:
    t = sec.new_token()
    assert len(t) >= 43 and t != sec.new_token()
    assert sec.tokens_equal(t, t) and sec.tokens_equal(t, t.encode())
    assert not sec.tokens_equal(t, t[:-1] + ("A" if t[-1] != "A" else "B"))
    assert not sec.tokens_equal(t, None) and not sec.tokens_equal(t, 5) and not sec.tokens_equal(None, t)
