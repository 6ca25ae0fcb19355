"""``sc2pool keygen``: create CurveZMQ key pairs for a remote pool.

Typical setup (see :mod:`sc2pool.pool.security`)::

    sc2pool keygen keys/                        # keys/broker.key, keys/broker.key_secret, keys/authorized_workers/
    sc2pool keygen wkeys/ --name worker-a --authorize-into keys/authorized_workers
    # copy wkeys/worker-a.key_secret and keys/broker.key to the worker host

Only public ``.key`` files ever need to be copied between machines, apart from each worker's
own secret. Existing keys are never overwritten without ``--force``.
"""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path
from typing import Any


def register(sub: Any) -> None:
    p: argparse.ArgumentParser = sub.add_parser(
        "keygen",
        help="create a CurveZMQ key pair (broker or worker) for authenticated remote pools",
        description=(
            "Write NAME.key (public) and NAME.key_secret (secret, mode 0600) into DIR. With the default "
            "name 'broker' also create DIR/authorized_workers/, the directory whose *.key files the broker "
            "accepts. Refuses to overwrite existing keys unless --force."
        ),
    )
    p.add_argument("directory", metavar="DIR", help="directory for the key files (created 0700 if missing)")
    p.add_argument("--name", default="broker", help="key name: 'broker' (default) or e.g. 'worker-a'")
    p.add_argument("--force", action="store_true", help="overwrite existing key files")
    p.add_argument(
        "--authorize-into",
        metavar="AUTH_DIR",
        default=None,
        help="also copy the new public key into AUTH_DIR (a broker's authorized_workers/ directory)",
    )
    p.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    from sc2pool.pool.security import AUTHORIZED_DIRNAME, SecurityError, generate_keypair

    try:
        public, secret = generate_keypair(args.directory, args.name, force=args.force)
    except (SecurityError, OSError) as e:
        print(f"sc2pool keygen: error: {e}", file=sys.stderr)
        return 1
    print(f"public key: {public}")
    print(f"secret key: {secret}  (mode 0600; never copy it anywhere but the host that uses it)")
    if args.name == "broker":
        auth = Path(args.directory) / AUTHORIZED_DIRNAME
        auth.mkdir(mode=0o700, exist_ok=True)
        print(f"authorised worker keys go into: {auth}/ (copy each worker's .key file there)")
    if args.authorize_into:
        dest = Path(args.authorize_into)
        if not dest.is_dir():
            print(f"sc2pool keygen: error: --authorize-into {dest} is not a directory", file=sys.stderr)
            return 1
        target = dest / public.name
        if target.exists() and not args.force:
            print(f"sc2pool keygen: error: {target} already exists (use --force)", file=sys.stderr)
            return 1
        shutil.copyfile(public, target)
        print(f"authorised: {target}")
    return 0
