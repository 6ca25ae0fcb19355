"""``python -m sc2pool.engine -listen HOST -port P ...``: the engine as the fake SC2_x64 binary.

The listening socket is bound before the heavy imports (see :mod:`sc2pool.engine.sc2args`).
"""

import os
import sys

from sc2pool.engine.sc2args import bind_listen_socket, parse_sc2_args

_parent = os.getppid()  # before anything slow: the watchdog must know who launched us
_args = parse_sc2_args(sys.argv[1:])
try:
    _sock = bind_listen_socket(_args.listen, _args.port)
except OSError as _exc:  # e.g. port in use: say so on stdout, burnysc2 hides stderr
    print(f"sc2pool engine: cannot listen on {_args.listen}:{_args.port}: {_exc}", flush=True)
    sys.exit(1)

from sc2pool.engine.server import main  # noqa: E402  (heavy: aiohttp, numpy, the simulation)

sys.exit(main(sys.argv[1:], sock=_sock, parent_pid=_parent))
