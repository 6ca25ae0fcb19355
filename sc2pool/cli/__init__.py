"""The ``sc2pool`` command line.

Each sub-command lives in its own module, which exposes ``register(subparsers)``. ``register``
must stay cheap (no torch, no burnysc2 imports at module level) so that ``sc2pool --help`` and
``sc2pool worker`` start fast; heavy imports happen inside the command's handler.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from sc2pool.cli.args import Parser

# module path -> provides register(subparsers); order is the order shown in --help.
_COMMAND_MODULES: tuple[str, ...] = (
    "sc2pool.cli.train",  # train, eval
    "sc2pool.cli.replay",  # replay
    "sc2pool.cli.worker",  # worker
    "sc2pool.cli.bench",  # bench
    "sc2pool.engine.cli",  # engine install|serve
    "sc2pool.cli.keygen",  # keygen
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="sc2pool",
        description="ZeroMQ vectorized environment pool for stable-baselines3 and StarCraft II.",
    )
    # every sub-command's parser (and their sub-commands', which inherit the class) shows its defaults
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True, parser_class=Parser)
    for name in _COMMAND_MODULES:
        importlib.import_module(name).register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    rc = args.func(args)
    return int(rc or 0)


if __name__ == "__main__":
    sys.exit(main())
