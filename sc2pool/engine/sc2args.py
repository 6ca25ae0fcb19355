"""The real SC2 client's command line, and an early listening socket (stdlib only, imports fast).

burnysc2 starts SC2 and, after a fixed 1 s sleep, tries to connect once per second. The engine binds
its listening socket before importing anything heavy (aiohttp, numpy, the simulation): the kernel
then completes burnysc2's TCP connection at once, and its websocket handshake simply waits the few
hundred milliseconds until the server is ready, so a slow start on a busy machine never costs
another whole second.
"""

from __future__ import annotations

import argparse
import socket
from collections.abc import Sequence


def parse_sc2_args(argv: Sequence[str]) -> argparse.Namespace:
    """Parse SC2's ``-listen H -port P -dataDir D -tempDir T ...``; flags the engine does not use are ignored."""
    p = argparse.ArgumentParser(prog="SC2_x64 (sc2pool engine)", allow_abbrev=False, add_help=True)
    p.add_argument("-listen", default="127.0.0.1", help="address to listen on")
    p.add_argument("-port", type=int, default=None, help="websocket port (required)")
    p.add_argument("-dataDir", default=None)
    p.add_argument("-tempDir", default=None)
    p.add_argument("-dataVersion", default=None, help="the release's data hash (burnysc2's sc2_version)")
    p.add_argument("-verbose", action="store_true")
    args, _unknown = p.parse_known_args(list(argv))
    if args.port is None:
        p.error("-port is required")
    return args


def bind_listen_socket(host: str, port: int, backlog: int = 128) -> socket.socket:
    """A bound, listening TCP socket for ``host:port`` (raises OSError, e.g. port in use)."""
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    family, stype, proto, _, addr = infos[0]
    sock = socket.socket(family, stype, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(addr)
        sock.listen(backlog)
        sock.setblocking(False)
    except BaseException:
        sock.close()
        raise
    return sock
