"""A tiny zmq peer run inside a test namespace (stdlib + pyzmq only).

    router ENDPOINT         bind a ROUTER and echo every message back to its sender
    dealer ENDPOINT NAME    lockstep: send NAME:seq, wait for the echo, print "NAME seq", repeat

Both exit when their stdin closes or reaches EOF (the parent died or closed it), so a lost
parent cannot leave them running.
"""

from __future__ import annotations

import select
import sys

import zmq


def _parent_gone() -> bool:
    r, _, _ = select.select([sys.stdin], [], [], 0)
    return bool(r) and sys.stdin.read(1) == ""


def router(endpoint: str) -> None:
    ctx = zmq.Context()
    s = ctx.socket(zmq.ROUTER)
    s.linger = 0
    s.bind(endpoint)
    print("ready", flush=True)
    while not _parent_gone():
        if s.poll(100):
            ident, payload = s.recv_multipart()
            s.send_multipart([ident, payload])


def dealer(endpoint: str, name: str) -> None:
    ctx = zmq.Context()
    s = ctx.socket(zmq.DEALER)
    s.linger = 0
    s.connect(endpoint)
    seq = 0
    s.send(f"{name}:{seq}".encode())
    while not _parent_gone():
        if s.poll(100):
            reply = s.recv().decode()
            assert reply == f"{name}:{seq}", reply
            print(f"{name} {seq}", flush=True)
            seq += 1
            s.send(f"{name}:{seq}".encode())


if __name__ == "__main__":
    if sys.argv[1] == "router":
        router(sys.argv[2])
    else:
        dealer(sys.argv[2], sys.argv[3])
