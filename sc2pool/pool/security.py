"""Transport security for sc2pool: CurveZMQ keys, authentication, and the bind policy.

Threat model. A pool's broker accepts connections from workers and hands them actions; a worker
obeys its broker (it calls env methods and sets attributes by name, and follows its WELCOME).
Anyone who can connect to the broker can impersonate a worker (feed the learner garbage, read
the actions); anyone who can impersonate the broker can drive the worker's envs at will.
Therefore:

* **Local pools bind only loopback or ipc** (:func:`check_bind_address`). A tcp bind on any other
  interface without CURVE is refused unless the user explicitly opts in with
  ``RemoteWorkers(allow_insecure=True)`` (a research cluster on a private, trusted network), which logs a
  loud warning every time.
* **Remote pools use CurveZMQ.** The broker owns a key pair; every worker owns a key pair and the
  broker's public key; the broker accepts only workers whose public key is in its *authorised
  keys directory*. The check runs in a ZAP handler (:class:`CurveAuthenticator`), so an
  unauthorised peer is refused during the handshake: it never reaches the broker's message loop
  and can neither send nor read a single application message. Every refusal is logged with the
  peer address and counted.

Keys use pyzmq's certificate file format (``zmq.auth.load_certificate`` reads them): ``NAME.key``
holds the public key, ``NAME.key_secret`` holds both keys and is created with mode 0600.

Integration (what the broker and worker call)::

    # broker thread, before binding its ROUTER socket
    auth = CurveAuthenticator(ctx, broker_cfg).start()     # one per zmq.Context
    apply_server(router, broker_cfg)                         # before router.bind(...)
    auth.watch(router)                                       # also count non-CURVE handshakes
    ...
    router.close(); auth.stop()                              # before ctx.term()

    # worker, before connecting its DEALER socket
    apply_client(dealer, worker_cfg)
"""

from __future__ import annotations

import hmac
import ipaddress
import logging
import os
import secrets
import stat
import tempfile
import threading
import time
import weakref
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import zmq
from zmq.utils import z85
from zmq.utils.monitor import parse_monitor_message

log = logging.getLogger("sc2pool.security")

#: The ZAP endpoint libzmq consults for every CURVE handshake in a context (RFC 27).
ZAP_ENDPOINT = "inproc://zeromq.zap.01"
#: The ZAP domain sc2pool servers announce; refusals name it so logs are unambiguous.
ZAP_DOMAIN = "sc2pool"
#: Name of the directory, next to the broker's key pair, holding authorised worker public keys.
AUTHORIZED_DIRNAME = "authorized_workers"
PUBLIC_SUFFIX = ".key"
SECRET_SUFFIX = ".key_secret"

_Z85_KEY_LEN = 40  # a 32-byte curve25519 key, z85-encoded


# --------------------------------------------------------------------------------------- errors


class SecurityError(Exception):
    """Base class of every security-policy and key-handling error raised by sc2pool."""


class KeyFileError(SecurityError, ValueError):
    """A key file or directory is missing, malformed, or has unsafe permissions."""


class KeyExistsError(KeyFileError, FileExistsError):
    """``keygen`` would overwrite an existing key (pass ``force=True`` / ``--force`` to allow it)."""


class InsecureBindError(SecurityError, ValueError):
    """A bind endpoint would expose an unauthenticated pool to the network."""


class AuthenticatorError(SecurityError, RuntimeError):
    """The ZAP authenticator could not start, or a CURVE server was configured without one."""


# ------------------------------------------------------------------------------------ key files


@dataclass(frozen=True)
class KeyPair:
    """A CurveZMQ key pair, both keys z85-encoded (40 ASCII bytes each)."""

    public: bytes
    secret: bytes

    def __repr__(self) -> str:  # never print a secret key into a log or traceback
        return f"KeyPair(public={self.public.decode('ascii')!r}, secret=<hidden>)"


def _key_line(kind: str, key: bytes) -> str:
    return f'    {kind} = "{key.decode("ascii")}"\n'


def _render_key_file(public: bytes, secret: bytes | None, name: str) -> str:
    now = datetime.now(timezone.utc).isoformat(timespec="seconds")
    what = "SECRET key pair: never share this file, keep it mode 0600" if secret else "public key"
    text = (
        f"#   sc2pool CurveZMQ {what}\n"
        f"#   name: {name}, generated {now}\n"
        "#   format: ZeroMQ certificate (zmq.auth.load_certificate reads it)\n\n"
        "metadata\n"
        f'    name = "{name}"\n'
        "curve\n" + _key_line("public-key", public)
    )
    if secret is not None:
        text += _key_line("secret-key", secret)
    return text


def _write_exclusive(path: Path, text: str, mode: int, force: bool) -> None:
    """Write ``text`` to ``path`` with ``mode`` atomically, never leaving a half-written key.

    The content goes to a private temporary file first (created 0600 by mkstemp, so a secret
    is never readable by others, not even briefly), gets its final mode, and is then linked into
    place: ``os.link`` fails if the target exists (no silent overwrite, no race with a second
    keygen), ``os.replace`` is used only with ``force``.
    """
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="ascii") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, mode)
        if force:
            os.replace(tmp, path)
        else:
            try:
                os.link(tmp, path)
            except FileExistsError:
                raise KeyExistsError(
                    f"{path} already exists; refusing to overwrite a key (use --force to replace it)"
                ) from None
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def generate_keypair(
    directory: str | os.PathLike[str], name: str, *, force: bool = False
) -> tuple[Path, Path]:
    """Create ``DIR/NAME.key`` (public, 0644) and ``DIR/NAME.key_secret`` (both keys, 0600).

    ``DIR`` is created (mode 0700) if missing. Refuses to overwrite either file unless ``force``:
    silently replacing a broker key would lock every worker out, replacing a worker key would
    orphan its authorisation. Returns ``(public_path, secret_path)``.
    """
    if not name or "/" in name or name.startswith(".") or os.sep in name:
        raise KeyFileError(f"invalid key name {name!r}: use a plain file name such as 'broker' or 'worker-a'")
    d = Path(directory)
    d.mkdir(mode=0o700, parents=True, exist_ok=True)
    public_path = d / f"{name}{PUBLIC_SUFFIX}"
    secret_path = d / f"{name}{SECRET_SUFFIX}"
    if not force:
        for p in (public_path, secret_path):
            if p.exists():
                raise KeyExistsError(
                    f"{p} already exists; refusing to overwrite a key (use --force to replace it)"
                )
    public, secret = zmq.curve_keypair()
    # secret first: if it cannot be written there is no orphan public key that looks usable
    _write_exclusive(secret_path, _render_key_file(public, secret, name), 0o600, force)
    _write_exclusive(public_path, _render_key_file(public, None, name), 0o644, force)
    return public_path, secret_path


def _parse_key_file(path: Path) -> tuple[bytes, bytes | None]:
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise KeyFileError(f"key file {path} does not exist") from None
    except OSError as e:
        raise KeyFileError(f"cannot read key file {path}: {e}") from None
    public: bytes | None = None
    secret: bytes | None = None
    for line in raw.splitlines():
        line = line.strip()
        if line.startswith(b"#"):
            continue
        if line.startswith(b"public-key"):
            public = line.split(b"=", 1)[1].strip(b" \t'\"")
        elif line.startswith(b"secret-key"):
            secret = line.split(b"=", 1)[1].strip(b" \t'\"")
    if public is None:
        raise KeyFileError(f"{path} holds no public-key line; is it a ZeroMQ certificate?")
    for what, key in (("public", public), ("secret", secret)):
        if key is None:
            continue
        if len(key) != _Z85_KEY_LEN:
            raise KeyFileError(f"{path}: {what} key must be 40 z85 characters, found {len(key)}")
        try:
            z85.decode(key)
        except Exception:
            raise KeyFileError(f"{path}: {what} key is not valid z85") from None
    return public, secret


def load_public_key(path: str | os.PathLike[str]) -> bytes:
    """The z85 public key stored in a ``.key`` (or ``.key_secret``) file."""
    return _parse_key_file(Path(path))[0]


def check_secret_permissions(path: str | os.PathLike[str]) -> None:
    """Refuse a secret key file that group or others can read or write (as ssh does).

    A leaked worker secret lets anyone join the pool; a leaked broker secret lets anyone
    impersonate the broker and make workers import code by name.
    """
    if os.name != "posix":
        return
    p = Path(path)
    try:
        mode = p.stat().st_mode
    except FileNotFoundError:
        raise KeyFileError(f"secret key file {p} does not exist") from None
    if mode & (stat.S_IRWXG | stat.S_IRWXO):
        raise KeyFileError(
            f"secret key file {p} has mode {stat.S_IMODE(mode):04o}: group/others may access it; "
            f"run `chmod 600 {p}`"
        )


def load_keypair(secret_path: str | os.PathLike[str]) -> KeyPair:
    """Load a ``.key_secret`` file (checking its permissions) as a :class:`KeyPair`."""
    p = Path(secret_path)
    public, secret = _parse_key_file(p)
    if secret is None:
        raise KeyFileError(f"{p} holds no secret-key line; pass the .key_secret file, not the .key file")
    check_secret_permissions(p)
    return KeyPair(public=public, secret=secret)


def load_authorized_keys(directory: str | os.PathLike[str]) -> dict[bytes, str]:
    """Map each public key in ``DIR/*.key`` to its file's stem (the worker's name).

    Malformed files raise :class:`KeyFileError` naming the file: a typo in an authorisation must
    not pass silently.
    """
    d = Path(directory)
    if not d.is_dir():
        raise KeyFileError(f"authorised keys directory {d} does not exist or is not a directory")
    keys: dict[bytes, str] = {}
    for f in sorted(d.glob(f"*{PUBLIC_SUFFIX}")):
        keys[load_public_key(f)] = f.name[: -len(PUBLIC_SUFFIX)]
    return keys


def ephemeral_keypair() -> KeyPair:
    """A fresh in-memory key pair, never written to disk.

    For *local* workers of a CURVE pool: the broker's ROUTER applies CURVE to every endpoint it
    binds (ipc included), so the trainer gives each local worker an ephemeral pair through the
    worker's start-up channel (stdin) and authorises it with :meth:`CurveAuthenticator.authorize`.
    """
    public, secret = zmq.curve_keypair()
    return KeyPair(public=public, secret=secret)


def new_token() -> str:
    """A 256-bit random token (URL-safe text) for binding a local worker to its slot.

    Why: a HELLO says ``local=True, name="local-0"``; without proof, any peer that reaches the
    broker first (e.g. another local user over loopback tcp) could claim that slot. The trainer
    hands each local worker a token on stdin and the broker admits a local HELLO only if it
    carries the same token (:func:`tokens_equal`).
    """
    return secrets.token_urlsafe(32)


def tokens_equal(expected: str | bytes | None, given: object) -> bool:
    """Constant-time token comparison; False for a missing or mistyped token."""
    if expected is None or not isinstance(given, (str, bytes)):
        return False
    a = expected.encode() if isinstance(expected, str) else expected
    b = given.encode() if isinstance(given, str) else given
    return hmac.compare_digest(a, b)


# ------------------------------------------------------------------------------------- configs


@dataclass(frozen=True)
class BrokerCurveConfig:
    """What a CURVE broker needs: its own key pair and where the authorised worker keys live.

    The directory is re-read whenever its modification time changes, so adding or removing a
    ``.key`` file authorises or revokes a worker without restarting training (revocation affects
    new connections only).
    """

    keypair: KeyPair
    authorized_dir: Path

    @classmethod
    def from_files(
        cls, secret_key_file: str | os.PathLike[str], authorized_dir: str | os.PathLike[str]
    ) -> BrokerCurveConfig:
        cfg = cls(keypair=load_keypair(secret_key_file), authorized_dir=Path(authorized_dir))
        load_authorized_keys(cfg.authorized_dir)  # fail now, not at the first handshake
        return cfg

    @classmethod
    def from_directory(cls, keys_dir: str | os.PathLike[str], name: str = "broker") -> BrokerCurveConfig:
        """The layout ``sc2pool keygen DIR`` creates: ``DIR/broker.key_secret`` + ``DIR/authorized_workers/``."""
        d = Path(keys_dir)
        return cls.from_files(d / f"{name}{SECRET_SUFFIX}", d / AUTHORIZED_DIRNAME)


@dataclass(frozen=True)
class WorkerCurveConfig:
    """What a CURVE worker needs: its own key pair and the broker's public key (to authenticate it)."""

    keypair: KeyPair
    server_public_key: bytes

    @classmethod
    def from_files(
        cls, secret_key_file: str | os.PathLike[str], server_public_key_file: str | os.PathLike[str]
    ) -> WorkerCurveConfig:
        return cls(
            keypair=load_keypair(secret_key_file), server_public_key=load_public_key(server_public_key_file)
        )


# -------------------------------------------------------------------------------- socket setup

# Contexts that have a running CurveAuthenticator. libzmq *accepts every CURVE client* when no
# ZAP handler is bound in the context, so apply_server refuses to configure a server without one.
_AUTHENTICATORS: weakref.WeakKeyDictionary[zmq.Context[Any], CurveAuthenticator] = weakref.WeakKeyDictionary()
_AUTH_LOCK = threading.Lock()


def apply_server(socket: zmq.Socket[Any], cfg: BrokerCurveConfig) -> None:
    """Make ``socket`` a CURVE server. Call before ``bind``.

    Raises :class:`AuthenticatorError` if no :class:`CurveAuthenticator` is running in the
    socket's context: without one libzmq would let any CURVE client in (fail-open).
    """
    with _AUTH_LOCK:
        auth = _AUTHENTICATORS.get(socket.context)
    if auth is None or not auth.is_alive():
        raise AuthenticatorError(
            "refusing to configure a CURVE server without a running CurveAuthenticator in its "
            "zmq.Context (libzmq would accept any client key); call CurveAuthenticator(ctx, cfg).start() first"
        )
    socket.curve_secretkey = cfg.keypair.secret
    socket.curve_publickey = cfg.keypair.public
    socket.curve_server = True
    socket.zap_domain = ZAP_DOMAIN.encode()
    try:  # fail closed if the handler ever goes away (a DRAFT option; older libzmq ignores it)
        socket.setsockopt(zmq.ZAP_ENFORCE_DOMAIN, 1)
    except (zmq.ZMQError, AttributeError):
        pass


def apply_client(socket: zmq.Socket[Any], cfg: WorkerCurveConfig) -> None:
    """Make ``socket`` a CURVE client of the broker whose public key is in ``cfg``. Call before ``connect``."""
    socket.curve_serverkey = cfg.server_public_key
    socket.curve_publickey = cfg.keypair.public
    socket.curve_secretkey = cfg.keypair.secret


# ----------------------------------------------------------------------------------- bind policy

_LOOPBACK_NAMES = {"localhost", "lo", "ip6-localhost", "ip6-loopback"}


def _is_loopback_host(host: str) -> bool:
    host = host.strip("[]")
    if host.lower() in _LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False  # '*', an interface name, or a host name: may face the network


def check_bind_address(endpoint: str, curve_enabled: bool, *, allow_insecure_remote: bool = False) -> None:
    """Enforce "local pools bind only loopback or ipc".

    * ``ipc://`` and ``inproc://`` are always allowed (the caller should put ipc files in a
      private 0700 directory, see :func:`make_private_ipc_dir`).
    * ``tcp://`` on a loopback address (``127.0.0.0/8``, ``::1``, ``localhost``) is allowed.
    * ``tcp://`` on anything else (``*``, ``0.0.0.0``, an interface, a public or private address,
      a host name) requires CURVE, because an unauthenticated broker lets anyone on the network
      impersonate a worker. ``allow_insecure_remote=True`` (``RemoteWorkers(allow_insecure=True)``)
      overrides this for a trusted private network (a cluster behind a firewall); it logs a warning
      on every bind, because the choice should stay visible in every training log.
    * other transports (pgm, udp, ws, ...) are refused: sc2pool neither needs nor secures them.
    """
    parts = urlsplit(endpoint)
    scheme = parts.scheme.lower()
    if scheme in ("ipc", "inproc"):
        return
    if scheme != "tcp":
        raise InsecureBindError(f"unsupported transport in bind endpoint {endpoint!r}: use ipc:// or tcp://")
    netloc = parts.netloc
    host = netloc.rsplit(":", 1)[0] if ":" in netloc and not netloc.endswith("]") else netloc
    if not host:
        raise InsecureBindError(f"bind endpoint {endpoint!r} names no host")
    if _is_loopback_host(host) or curve_enabled:
        return
    if allow_insecure_remote:
        log.warning(
            "SECURITY: binding %s WITHOUT CurveZMQ: anyone who can reach this address can join the pool "
            "as a worker and read its actions. Use this only on a trusted private network; enable CURVE "
            "keys (sc2pool keygen) otherwise.",
            endpoint,
        )
        return
    raise InsecureBindError(
        f"refusing to bind {endpoint!r} without CurveZMQ: a non-loopback tcp endpoint lets anyone on the "
        "network join the pool. Bind tcp://127.0.0.1:PORT or ipc:// for a local pool, enable CURVE "
        "(sc2pool keygen) for remote workers, or pass RemoteWorkers(allow_insecure=True) on a trusted private "
        "network."
    )


_IPC_PATH_MAX = 107  # sizeof(sockaddr_un.sun_path) - 1 on Linux


def make_private_ipc_dir(prefix: str = "sc2pool-") -> Path:
    """A fresh directory only the current user can enter (0700), for ipc socket files.

    ipc files inherit the umask; inside a private directory other local users cannot connect
    to the broker and impersonate a worker. The caller removes the directory on close.
    """
    base = os.environ.get("XDG_RUNTIME_DIR") or None
    d = Path(tempfile.mkdtemp(prefix=prefix, dir=base))
    os.chmod(d, 0o700)
    return d


def ipc_endpoint(directory: str | os.PathLike[str], name: str) -> str:
    """``ipc://DIR/NAME``, refusing paths longer than a unix socket address can hold.

    libzmq would otherwise fail with a bare ``ENAMETOOLONG``-style error at bind time.
    """
    path = os.path.join(os.fspath(directory), name)
    if len(path.encode()) > _IPC_PATH_MAX:
        raise ValueError(
            f"ipc path {path!r} is {len(path.encode())} bytes; unix sockets allow {_IPC_PATH_MAX}: use a shorter "
            "directory (e.g. set TMPDIR=/tmp)"
        )
    return f"ipc://{path}"


# --------------------------------------------------------------------------------- authenticator


@dataclass(frozen=True)
class Refusal:
    """One refused connection attempt."""

    time: float
    address: str  # peer IP from ZAP; for handshake failures the local endpoint (libzmq gives no peer)
    reason: str  # 'unknown-key', 'not-curve', 'handshake-failed', 'bad-zap-request'
    detail: str = ""


@dataclass
class AuthStats:
    """Counters of a :class:`CurveAuthenticator` (a snapshot; safe to keep)."""

    accepted: int = 0
    refused: int = 0
    refused_by_reason: dict[str, int] = field(default_factory=dict)
    accepted_by_name: dict[str, int] = field(default_factory=dict)
    recent_refusals: list[Refusal] = field(default_factory=list)


_HANDSHAKE_FAIL_EVENTS = zmq.EVENT_HANDSHAKE_FAILED_NO_DETAIL | zmq.EVENT_HANDSHAKE_FAILED_PROTOCOL
# libzmq protocol error codes (zmq.h, ZMQ_PROTOCOL_ERROR_*) worth naming in a refusal log
_PROTOCOL_ERRORS: Mapping[int, str] = {
    0x11000001: "ZMTP unspecified",
    0x11000002: "unexpected command (peer does not speak CURVE?)",
    0x11000003: "invalid sequence",
    0x11000004: "key exchange failed",
    0x11000011: "malformed command",
    0x11000012: "malformed HELLO",
    0x11000013: "malformed INITIATE",
    0x11000014: "malformed ERROR",
    0x11000015: "malformed READY",
    0x11000016: "malformed WELCOME",
    0x11000017: "invalid metadata",
    0x11000018: "cryptographic failure (wrong server key?)",
    0x11000019: "security mechanism mismatch (peer does not use CURVE)",
    0x20000000: "ZAP unspecified",
    0x20000001: "ZAP malformed reply",
    0x20000002: "ZAP bad request id",
    0x20000003: "ZAP bad version",
    0x20000004: "ZAP invalid status code",
    0x20000005: "ZAP invalid metadata",
}
_NOT_CURVE_CODES = frozenset({0x11000002, 0x11000019})  # unexpected command, mechanism mismatch


class CurveAuthenticator:
    """ZAP handler thread for one ``zmq.Context``: admits only authorised CURVE worker keys.

    Why not ``zmq.auth.thread.ThreadAuthenticator``: it runs an asyncio loop per thread, logs
    refusals at DEBUG only and keeps no counters. This handler is a plain poll loop that logs
    each refusal (peer address, key, reason) at WARNING, rate-limited per address so a flood
    cannot fill the disk, counts them (:meth:`stats`), and can also watch a server socket's
    handshake failures, which catches peers that do not speak CURVE at all (those never reach
    ZAP). Accepted connections get the key file's name as ZMQ ``User-Id``, so the broker can read
    which worker key a message came with: ``frame.get("User-Id")`` on a ``copy=False`` frame.

    Start it before binding the CURVE socket and stop it after closing that socket and before
    terminating the context. It is a context manager.
    """

    def __init__(
        self,
        context: zmq.Context[Any],
        cfg: BrokerCurveConfig | str | os.PathLike[str],
        *,
        logger: logging.Logger | None = None,
        max_recent: int = 100,
        log_interval_s: float = 1.0,
    ) -> None:
        self.context = context
        self.authorized_dir = Path(cfg.authorized_dir if isinstance(cfg, BrokerCurveConfig) else cfg)
        self._keys = load_authorized_keys(self.authorized_dir)
        self._keys_mtime = self._dir_mtime()
        self._extra_keys: dict[bytes, str] = {}  # authorised in memory (ephemeral local-worker keys)
        self.log = logger or log
        self._log_interval_s = log_interval_s
        self._lock = threading.Lock()
        self._stats = AuthStats()
        self._recent: deque[Refusal] = deque(maxlen=max_recent)
        self._last_log: dict[str, tuple[float, int]] = {}  # address -> (last log time, suppressed)
        self._pipe_addr = f"inproc://sc2pool-zap-ctl-{id(self):x}"
        self._pipe: zmq.Socket[Any] | None = None
        self._pipe_lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._started = threading.Event()
        self._start_error: BaseException | None = None
        self._monitor_seq = 0

    # -- lifecycle ----------------------------------------------------------------------------

    def start(self) -> CurveAuthenticator:
        """Bind the ZAP endpoint in a background thread. Raises if one is already bound in this context."""
        if self._thread is not None:
            raise AuthenticatorError("CurveAuthenticator already started")
        self._pipe = self.context.socket(zmq.PAIR)
        self._pipe.linger = 0
        self._pipe.bind(self._pipe_addr)
        self._thread = threading.Thread(target=self._run, name="sc2pool-zap", daemon=True)
        self._thread.start()
        if not self._started.wait(timeout=10.0) or self._start_error is not None:
            err = self._start_error
            self._thread.join(timeout=5.0)
            self._pipe.close()
            self._pipe, self._thread = None, None
            if isinstance(err, zmq.ZMQError) and err.errno == zmq.EADDRINUSE:
                raise AuthenticatorError(
                    "another ZAP handler is already bound in this zmq.Context (one authenticator per context)"
                ) from err
            raise AuthenticatorError(f"ZAP handler thread failed to start: {err!r}") from err
        with _AUTH_LOCK:
            _AUTHENTICATORS[self.context] = self
        return self

    def stop(self, timeout: float = 5.0) -> None:
        """Stop the thread and close every socket it owns. Idempotent."""
        if self._thread is None or self._pipe is None:
            return
        with _AUTH_LOCK:
            if _AUTHENTICATORS.get(self.context) is self:
                del _AUTHENTICATORS[self.context]
        with self._pipe_lock:
            try:
                self._pipe.send(b"STOP")
            except zmq.ZMQError:
                pass
            self._thread.join(timeout=timeout)
            alive = self._thread.is_alive()
            self._pipe.close()
            self._pipe, self._thread = None, None
        if alive:
            raise AuthenticatorError("ZAP handler thread did not stop in time")

    def is_alive(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def __enter__(self) -> CurveAuthenticator:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- public API ---------------------------------------------------------------------------

    def watch(self, socket: zmq.Socket[Any]) -> None:
        """Count and log handshake failures on ``socket`` (peers without CURVE, wrong server key).

        Call from the thread that owns ``socket``, after :meth:`start`. The monitor ends when the
        socket closes.
        """
        if self._pipe is None:
            raise AuthenticatorError("CurveAuthenticator is not running")
        with self._pipe_lock:
            self._monitor_seq += 1
            addr = f"inproc://sc2pool-zap-mon-{id(self):x}-{self._monitor_seq}"
            socket.monitor(addr, _HANDSHAKE_FAIL_EVENTS | zmq.EVENT_MONITOR_STOPPED)
            self._pipe.send_multipart([b"WATCH", addr.encode()])
            # wait until the thread's PAIR is connected: monitor events are dropped before that
            if not self._pipe.poll(5000):
                raise AuthenticatorError("ZAP handler thread did not acknowledge WATCH")
            self._pipe.recv()

    def authorize(self, public_key: bytes, name: str) -> None:
        """Admit ``public_key`` (z85) as ``name`` in addition to the directory's keys (in memory only).

        Used for ephemeral local-worker keys; takes effect for the next handshake.
        """
        if len(public_key) != _Z85_KEY_LEN:
            raise KeyFileError(f"public key must be 40 z85 characters, got {len(public_key)}")
        with self._lock:
            self._extra_keys[bytes(public_key)] = name

    def revoke(self, public_key: bytes) -> None:
        """Forget a key given to :meth:`authorize` (new connections only; live ones stay up)."""
        with self._lock:
            self._extra_keys.pop(bytes(public_key), None)

    def stats(self) -> AuthStats:
        """A snapshot of the counters and the most recent refusals."""
        with self._lock:
            s = self._stats
            return AuthStats(
                accepted=s.accepted,
                refused=s.refused,
                refused_by_reason=dict(s.refused_by_reason),
                accepted_by_name=dict(s.accepted_by_name),
                recent_refusals=list(self._recent),
            )

    @property
    def refused(self) -> int:
        with self._lock:
            return self._stats.refused

    # -- thread -------------------------------------------------------------------------------

    def _dir_mtime(self) -> int:
        try:
            return self.authorized_dir.stat().st_mtime_ns
        except OSError:
            return -1

    def _current_keys(self) -> dict[bytes, str]:
        mtime = self._dir_mtime()
        if mtime != self._keys_mtime:
            try:
                self._keys = load_authorized_keys(self.authorized_dir)
                self.log.info(
                    "reloaded %d authorised worker keys from %s", len(self._keys), self.authorized_dir
                )
            except KeyFileError as e:
                # fail closed: a broken authorisation directory admits nobody until fixed
                self._keys = {}
                self.log.error("authorised keys unusable, refusing all workers until fixed: %s", e)
            self._keys_mtime = mtime
        return self._keys

    def _record_refusal(self, address: str, reason: str, detail: str) -> None:
        now = time.monotonic()
        with self._lock:
            self._stats.refused += 1
            self._stats.refused_by_reason[reason] = self._stats.refused_by_reason.get(reason, 0) + 1
            self._recent.append(Refusal(time=time.time(), address=address, reason=reason, detail=detail))
            last, suppressed = self._last_log.get(address, (-1e18, 0))
            if now - last < self._log_interval_s:
                self._last_log[address] = (last, suppressed + 1)
                return
            self._last_log[address] = (now, 0)
            if len(self._last_log) > 4096:  # bound memory under a scan from many addresses
                self._last_log.clear()
        more = f" (+{suppressed} similar refusals suppressed)" if suppressed else ""
        self.log.warning(
            "SECURITY: refused connection from %s: %s %s%s", address or "?", reason, detail, more
        )

    def _handle_zap(self, zap: zmq.Socket[Any]) -> None:
        """Answer one ZAP request. Always replies, so the REP socket never gets stuck."""
        frames = zap.recv_multipart()
        request_id = frames[1] if len(frames) >= 2 else b""
        try:
            code, text, user_id = self._decide(frames)
        except Exception:  # never let a bad request kill authentication; fail closed
            self.log.exception("error in ZAP handler; refusing the connection")
            code, text, user_id = b"500", b"internal error", b""
        zap.send_multipart([b"1.0", request_id, code, text, user_id, b""])

    def _decide(self, frames: list[bytes]) -> tuple[bytes, bytes, bytes]:
        """(status code, status text, user id) for one ZAP request (RFC 27)."""
        if len(frames) < 6:
            self._record_refusal("", "bad-zap-request", f"{len(frames)} frames")
            return b"400", b"malformed ZAP request", b""
        version, _request_id, domain, address_b, _routing_id, mechanism = frames[:6]
        credentials = frames[6:]
        address = address_b.decode("utf-8", "replace")
        if version != b"1.0":
            self._record_refusal(address, "bad-zap-request", f"version {version!r}")
            return b"400", b"bad ZAP version", b""
        if mechanism != b"CURVE" or len(credentials) != 1 or len(credentials[0]) != 32:
            self._record_refusal(address, "not-curve", f"mechanism {mechanism.decode('ascii', 'replace')}")
            return b"400", b"CURVE required", b""
        key = z85.encode(credentials[0])
        with self._lock:
            name = self._extra_keys.get(key)
        if name is None:
            name = self._current_keys().get(key)
        if name is None:
            detail = f"key {key.decode('ascii')} domain {domain.decode('ascii', 'replace')}"
            self._record_refusal(address, "unknown-key", detail)
            return b"400", b"unknown key", b""
        with self._lock:
            self._stats.accepted += 1
            self._stats.accepted_by_name[name] = self._stats.accepted_by_name.get(name, 0) + 1
        self.log.info("accepted CURVE worker key %r from %s", name, address)
        return b"200", b"OK", name.encode("utf-8")

    def _handle_monitor(self, mon: zmq.Socket[Any]) -> bool:
        """Process one monitor event; return False once the monitored socket is gone."""
        msg = parse_monitor_message(mon.recv_multipart())
        event = msg["event"]
        if event == zmq.EVENT_MONITOR_STOPPED:
            return False
        endpoint = (
            msg["endpoint"].decode("utf-8", "replace")
            if isinstance(msg["endpoint"], bytes)
            else str(msg["endpoint"])
        )
        value = int(msg["value"])
        if event == zmq.EVENT_HANDSHAKE_FAILED_NO_DETAIL:  # value is an errno (the peer hung up...)
            detail = f"errno {value} ({os.strerror(value)})"
            reason = "handshake-failed"
        else:  # value is a ZMQ_PROTOCOL_ERROR_* code
            detail = _PROTOCOL_ERRORS.get(value, f"protocol error 0x{value:x}")
            # A NULL-mechanism peer shows up as "unexpected command" (libzmq does not compare the
            # mechanisms in the greeting; the CURVE server then receives READY instead of HELLO).
            reason = "not-curve" if value in _NOT_CURVE_CODES else "handshake-failed"
        self._record_refusal(f"peer of {endpoint}", reason, detail)
        return True

    def _run(self) -> None:
        zap: zmq.Socket[Any] | None = None
        pipe: zmq.Socket[Any] | None = None
        monitors: list[zmq.Socket[Any]] = []
        try:
            try:
                zap = self.context.socket(zmq.REP)
                zap.linger = 0
                zap.bind(ZAP_ENDPOINT)
                pipe = self.context.socket(zmq.PAIR)
                pipe.linger = 0
                pipe.connect(self._pipe_addr)
            except BaseException as e:  # reported to start()
                self._start_error = e
                return
            finally:
                self._started.set()
            poller = zmq.Poller()
            poller.register(zap, zmq.POLLIN)
            poller.register(pipe, zmq.POLLIN)
            while True:
                events = dict(poller.poll())
                if pipe in events:
                    cmd = pipe.recv_multipart()
                    if cmd[0] == b"STOP":
                        return
                    if cmd[0] == b"WATCH" and len(cmd) == 2:
                        mon = self.context.socket(zmq.PAIR)
                        mon.linger = 0
                        mon.connect(cmd[1].decode())
                        monitors.append(mon)
                        poller.register(mon, zmq.POLLIN)
                        pipe.send(b"OK")
                if zap in events:
                    self._handle_zap(zap)
                for mon in list(monitors):
                    if mon in events and not self._handle_monitor(mon):
                        poller.unregister(mon)
                        monitors.remove(mon)
                        mon.close()
        finally:
            for s in (*monitors, zap, pipe):
                if s is not None:
                    s.close(linger=0)
