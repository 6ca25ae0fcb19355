"""The raw ZeroMQ baseline: a ROUTER round trip to DEALER echo peers, nothing else.

The issue asks that ZmqVecEnv's per-step overhead on a no-op env stays within 1.5x of "a raw
DEALER/ROUTER round trip with the same payload". This module is that baseline: the measuring
process holds a ROUTER, each peer is a separate process holding a DEALER that answers every
request with a preallocated reply of the same size as the pool's (header + observations + rewards
+ flags). No serialisation, no asyncio, no threads: the floor that any ZeroMQ design can reach on
this machine, measured with the same loop as the vector envs.

Run as ``python -m sc2pool.bench.rawzmq ENDPOINT REPLY_NBYTES HEADER_NBYTES`` (the peer); the
``RawZmqPool`` class starts and stops the peers itself.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time

import zmq

_READY = b"READY"
_STOP = b"STOP"
#: pyzmq copies small messages anyway; zero-copy only pays above this size.
_ZERO_COPY_MIN = 65536


class RawZmqPool:
    """``n_peers`` DEALER echo processes behind one ROUTER; ``step()`` is one lockstep round trip.

    ``request_nbytes``/``reply_nbytes`` are the payload per peer per step; each message also carries
    a ``header_nbytes`` header frame, as the pool's messages carry a msgpack header. ``endpoint``
    (e.g. ``tcp://127.0.0.1:0``, the remote workers' transport) defaults to an ipc socket.
    """

    def __init__(
        self,
        n_peers: int,
        request_nbytes: int,
        reply_nbytes: int,
        header_nbytes: int = 32,
        start_timeout: float = 30.0,
        endpoint: str | None = None,
    ) -> None:
        if n_peers < 1:
            raise ValueError(f"n_peers must be >= 1, got {n_peers}")
        self._closed = False
        self._procs: list[subprocess.Popen[bytes]] = []
        self._dir = tempfile.mkdtemp(prefix="sc2pool-raw-")
        self._ctx = zmq.Context()
        self._router = self._ctx.socket(zmq.ROUTER)
        self._router.linger = 0
        try:
            self._router.bind(endpoint or f"ipc://{os.path.join(self._dir, 'router')}")
            endpoint = self._router.getsockopt_string(zmq.LAST_ENDPOINT)
            for _ in range(n_peers):
                self._procs.append(
                    subprocess.Popen(
                        [
                            sys.executable,
                            "-m",
                            "sc2pool.bench.rawzmq",
                            endpoint,
                            str(reply_nbytes),
                            str(header_nbytes),
                        ],
                        stdin=subprocess.DEVNULL,
                    )
                )
            self._ids: list[bytes] = []
            deadline = time.monotonic() + start_timeout
            while len(self._ids) < n_peers:
                remaining = deadline - time.monotonic()
                if remaining <= 0 or not self._router.poll(int(remaining * 1000)):
                    raise TimeoutError(
                        f"raw zmq baseline: only {len(self._ids)} of {n_peers} echo peers connected "
                        f"within {start_timeout:.0f} s"
                    )
                ident, msg = self._router.recv_multipart()
                if msg == _READY:
                    self._ids.append(ident)
        except BaseException:
            self.close()
            raise
        self._header = b"h" * header_nbytes
        payload = bytes(request_nbytes)
        self._payload: bytes | zmq.Frame = payload
        self._copy = request_nbytes < _ZERO_COPY_MIN
        self.n_peers = n_peers

    def step(self) -> None:
        router = self._router
        for ident in self._ids:
            router.send_multipart([ident, self._header, self._payload], copy=self._copy)
        for _ in self._ids:
            router.recv_multipart(copy=False)

    def close(self) -> None:
        """Stop the peers (politely, then by force) and remove the socket directory. Idempotent."""
        if self._closed:
            return
        self._closed = True
        try:
            for ident in getattr(self, "_ids", []):
                try:
                    self._router.send_multipart([ident, _STOP], flags=zmq.NOBLOCK)
                except zmq.ZMQError:
                    pass
            for proc in self._procs:
                try:
                    proc.wait(timeout=3)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait(timeout=5)
        finally:
            for proc in self._procs:
                if proc.poll() is None:
                    proc.kill()
                    proc.wait(timeout=5)
            self._router.close(linger=0)
            self._ctx.term()
            shutil.rmtree(self._dir, ignore_errors=True)

    def __enter__(self) -> RawZmqPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _peer_main(endpoint: str, reply_nbytes: int, header_nbytes: int) -> int:
    """The echo peer: answer every request with a preallocated reply until STOP or orphaned."""
    parent = os.getppid()
    ctx = zmq.Context()
    sock = ctx.socket(zmq.DEALER)
    sock.linger = 0
    sock.connect(endpoint)
    sock.send(_READY)
    header = b"r" * header_nbytes
    reply = bytes(reply_nbytes)
    copy = reply_nbytes < _ZERO_COPY_MIN
    try:
        while True:
            # Poll with a timeout so that a peer whose parent died exits instead of lingering.
            if not sock.poll(1000):
                if os.getppid() != parent:
                    return 1
                continue
            frames = sock.recv_multipart(copy=False)
            if frames[0].bytes == _STOP:
                return 0
            sock.send_multipart([header, reply], copy=copy)
    finally:
        sock.close(linger=0)
        ctx.term()


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit("usage: python -m sc2pool.bench.rawzmq ENDPOINT REPLY_NBYTES HEADER_NBYTES")
    sys.exit(_peer_main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3])))
