"""``sc2pool engine ...``: install a fake SC2, serve the SC2 API, list scenarios and ladder maps.

``register`` only builds argparse parsers; the engine is imported inside the handlers so that
``sc2pool --help`` stays fast.
"""

from __future__ import annotations

import argparse
from typing import Any


def _install(args: argparse.Namespace) -> int:
    from sc2pool.engine.install import write_install

    root = write_install(args.dir, python=args.python)
    print(f"fake StarCraft II install written to {root}")
    print(f"use it with:  export SC2PATH={root}")
    return 0


def _serve(args: argparse.Namespace) -> int:
    import logging

    from sc2pool.engine.server import configure_logging, serve

    configure_logging(logging.INFO if args.verbose else logging.WARNING, args.log)
    print(f"sc2pool engine: serving the SC2 API on ws://{args.host}:{args.port}/sc2api (Ctrl-C to stop)", flush=True)
    serve(args.host, args.port, exit_on_quit=args.exit_on_quit)
    return 0


def _scenarios(_args: argparse.Namespace) -> int:
    from sc2pool.engine.install import map_relative_paths, scenario_list

    for name, rel in zip(scenario_list(), map_relative_paths(), strict=True):
        print(f"{name:32s} Maps/{rel}")
    return 0


def _maps(args: argparse.Namespace) -> int:
    import os
    from pathlib import Path

    from sc2pool.engine.terrain.catalogue import bundled_maps, playable_maps
    from sc2pool.engine.terrain.reader import MapReadError

    dirs = [Path(d) for d in args.dir]
    if not dirs and os.environ.get("SC2PATH"):
        dirs = [Path(os.environ["SC2PATH"]) / "Maps"]
    maps = playable_maps(dirs)
    if not maps:
        print("no ladder maps found: pip install 'sc2pool[maps]' (bundled maps) or put .SC2Map files in Maps/")
        return 1
    bundled = set(bundled_maps())
    bad = 0
    for name, path in maps.items():
        origin = "bundled" if name in bundled and "sc2maptool" in str(path) else "Maps/"
        if not args.check:
            print(f"{name:28s} {origin:8s} {path}")
            continue
        from sc2pool.engine.terrain import load_map

        try:
            m = load_map(path)
        except MapReadError as e:
            bad += 1
            print(f"{name:28s} {origin:8s} UNREADABLE: {e.what}")
            continue
        print(f"{name:28s} {origin:8s} {m.width}x{m.height} playable {m.playable} {len(m.start_locations)} starts "
              f"{sum(n.is_mineral for n in m.neutrals)} minerals {sum(n.is_geyser for n in m.neutrals)} geysers")
    return 1 if bad else 0


def register(sub: Any) -> None:
    p: argparse.ArgumentParser = sub.add_parser(
        "engine",
        help="the embedded StarCraft II engine (fake install, websocket server)",
        description="The sc2pool engine speaks the StarCraft II API so unmodified burnysc2 bots run without SC2.",
    )
    esub = p.add_subparsers(dest="engine_command", metavar="ACTION", required=True)

    pi = esub.add_parser("install", help="write a fake SC2 install (use with SC2PATH=DIR)")
    pi.add_argument("dir", help="directory to create (or refresh)")
    pi.add_argument("--python", default=None, help="interpreter the launcher runs (default: this one)")
    pi.set_defaults(func=_install)

    ps = esub.add_parser("serve", help="serve the SC2 API on ws://HOST:PORT/sc2api (a session per connection; many games)")
    ps.add_argument("--host", default="127.0.0.1")
    ps.add_argument("--port", type=int, default=5000)
    ps.add_argument("--exit-on-quit", action="store_true", help="exit the server on a quit request, as SC2 does")
    ps.add_argument("--log", default=None, help="also log (INFO) to this file")
    ps.add_argument("-v", "--verbose", action="store_true", help="log connections to stdout")
    ps.set_defaults(func=_serve)

    pl = esub.add_parser("scenarios", help="list the scenarios (map names) the engine plays")
    pl.set_defaults(func=_scenarios)

    pm = esub.add_parser("maps", help="list the real ladder maps the engine plays (bundled and in Maps/ folders)")
    pm.add_argument("--dir", action="append", default=[], help="a Maps/ folder to search too (default: $SC2PATH/Maps)")
    pm.add_argument("--check", action="store_true", help="read every map and report its size, or what could not be read")
    pm.set_defaults(func=_maps)
