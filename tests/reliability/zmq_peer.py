"""A tiny zmq peer run inside a test namespace.

    router ENDPOINT [--curve-keys DIR]
        bind a ROUTER and echo every message back to its sender; with --curve-keys, be a CURVE
        server (DIR laid out by `sc2pool keygen DIR`) and print "refused ADDRESS REASON" for
        every refused connection
    dealer ENDPOINT NAME [--curve-secret FILE --server-key FILE]
        lockstep: send NAME:seq, wait for the echo, print "NAME seq", repeat; a "?" on stdin
        makes it print "at N", N the round trips completed so far

Both exit when their stdin closes or reaches EOF (the parent died or closed it), so a lost
parent cannot leave them running.
"""

from __future__ import annotations

import argparse
import select
import sys
from typing import Any

import zmq


def _stdin() -> str | None:
    """One character from stdin if one is waiting (``""``: EOF, the parent is gone), else None."""
    r, _, _ = select.select([sys.stdin], [], [], 0)
    return sys.stdin.read(1) if r else None


def _parent_gone() -> bool:
    return _stdin() == ""


def router(endpoint: str, curve_keys: str | None) -> None:
    ctx: zmq.Context[Any] = zmq.Context()
    s = ctx.socket(zmq.ROUTER)
    s.linger = 0
    auth = None
    if curve_keys:
        from sc2pool.pool import security

        cfg = security.BrokerCurveConfig.from_directory(curve_keys)
        auth = security.CurveAuthenticator(ctx, cfg).start()
        security.apply_server(s, cfg)
        auth.watch(s)
    s.bind(endpoint)
    print("ready", flush=True)
    reported = 0
    try:
        while not _parent_gone():
            if s.poll(100):
                ident, payload = s.recv_multipart()
                s.send_multipart([ident, payload])
            if auth is not None:
                recent = auth.stats().recent_refusals
                total = auth.refused
                for r in recent[len(recent) - min(len(recent), total - reported) :]:
                    print(f"refused {r.address} {r.reason}", flush=True)
                reported = total
    finally:
        s.close()
        if auth is not None:
            auth.stop()
        ctx.term()


def dealer(endpoint: str, name: str, secret: str | None, server_key: str | None) -> None:
    ctx: zmq.Context[Any] = zmq.Context()
    s = ctx.socket(zmq.DEALER)
    s.linger = 0
    if secret and server_key:
        from sc2pool.pool import security

        security.apply_client(s, security.WorkerCurveConfig.from_files(secret, server_key))
    s.connect(endpoint)
    seq = 0
    s.send(f"{name}:{seq}".encode())
    while (c := _stdin()) != "":
        if c == "?":  # a marker: every line printed before it has reached the parent once it sees it
            print(f"at {seq}", flush=True)
        if s.poll(100):
            reply = s.recv().decode()
            assert reply == f"{name}:{seq}", reply
            print(f"{name} {seq}", flush=True)
            seq += 1
            s.send(f"{name}:{seq}".encode())


if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("role", choices=["router", "dealer"])
    p.add_argument("endpoint")
    p.add_argument("name", nargs="?", default="")
    p.add_argument("--curve-keys", default=None)
    p.add_argument("--curve-secret", default=None)
    p.add_argument("--server-key", default=None)
    a = p.parse_args()
    if a.role == "router":
        router(a.endpoint, a.curve_keys)
    else:
        dealer(a.endpoint, a.name, a.curve_secret, a.server_key)
