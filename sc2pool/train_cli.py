"""Placeholder for the `sc2pool train` sub-command (being written)."""

from __future__ import annotations

import argparse
from typing import Any


def register(sub: Any) -> None:
    p: argparse.ArgumentParser = sub.add_parser("train", help="(not implemented yet)")
    p.set_defaults(func=lambda args: print("not implemented yet") or 2)
