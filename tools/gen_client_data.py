#!/usr/bin/env python3
"""Write the real client's whole ``ResponseData`` in the engine's own form.

Source: python-sc2 (BurnySc2/python-sc2) ``test/pickle_data/AltitudeAIE.xz``, its newest capture of a
real StarCraft II client (``lzma`` + ``pickle`` of ``[Response(data=ResponseData),
Response(game_info=...), ResponseObservation]``).  The script reads the capture either from a file
(``--capture``) or straight out of a bare git mirror of python-sc2 (``--mirror``, the default being
``$SC2POOL_PYSC2_MIRROR`` or ``/work/.mirror/BurnySc2+python-sc2/repo``), and writes
``sc2pool/engine/data/client_data.json.gz`` (the format is documented in
:mod:`sc2pool.engine.data.client`).

The output is deterministic: the same capture gives the same bytes (gzip with ``mtime=0``, no file
name, rows in the client's order, float32 values written as the shortest decimal that reads back as
the same float32).  ``--check`` regenerates in memory and exits 1 when the committed file differs.

Run from the repository root::

    .venv/bin/python tools/gen_client_data.py            # (re)write the file
    .venv/bin/python tools/gen_client_data.py --check    # is the committed file what the capture gives?
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import lzma
import os
import pickle
import struct
import subprocess
import sys
from pathlib import Path
from typing import Any

from google.protobuf.descriptor import Descriptor, FieldDescriptor
from s2clientprotocol import sc2api_pb2 as sc_pb

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "sc2pool" / "engine" / "data" / "client_data.json.gz"
CAPTURE_PATH = "test/pickle_data/AltitudeAIE.xz"
DEFAULT_MIRROR = "/work/.mirror/BurnySc2+python-sc2/repo"
FORMAT = "sc2pool.client_data/1"
SECTIONS = ("abilities", "units", "upgrades", "buffs", "effects")
"""The repeated fields of ``ResponseData``, in field-number order (also the file's order)."""



def _f32(x: float) -> float | int:
    """The shortest decimal that parses back to the same float32 (an int when it is whole)."""
    target = struct.unpack("<f", struct.pack("<f", x))[0]
    for digits in range(1, 10):
        v = float(f"{target:.{digits}g}")
        if struct.unpack("<f", struct.pack("<f", v))[0] == target:
            break
    return int(v) if v.is_integer() and abs(v) < 2**31 else v


def _scalar(field: FieldDescriptor, value: Any) -> Any:
    if field.type == FieldDescriptor.TYPE_FLOAT:
        return _f32(value)
    if field.type == FieldDescriptor.TYPE_DOUBLE:
        return float(value)
    if field.type in (FieldDescriptor.TYPE_BOOL, FieldDescriptor.TYPE_STRING):
        return value
    return int(value)  # ints and enums


def encode(msg: Any, schemas: dict[str, list[str]]) -> list[Any]:
    """One message as a row: its fields in descriptor order, None where the client left a field unset
    (proto2 presence) or a repeated field empty; trailing Nones are dropped."""
    desc: Descriptor = msg.DESCRIPTOR
    schemas.setdefault(desc.name, [f.name for f in desc.fields])
    row: list[Any] = []
    for f in desc.fields:
        if f.is_repeated:
            items = getattr(msg, f.name)
            if not items:
                row.append(None)
            elif f.type == FieldDescriptor.TYPE_MESSAGE:
                row.append([encode(m, schemas) for m in items])
            else:
                row.append([_scalar(f, v) for v in items])
        elif not msg.HasField(f.name):
            row.append(None)
        elif f.type == FieldDescriptor.TYPE_MESSAGE:
            row.append(encode(getattr(msg, f.name), schemas))
        else:
            row.append(_scalar(f, getattr(msg, f.name)))
    while row and row[-1] is None:
        row.pop()
    return row


def digest(data: sc_pb.ResponseData) -> str:
    """sha256 of the deterministic serialization: equal digests mean field-for-field equal data."""
    return "sha256:" + hashlib.sha256(data.SerializeToString(deterministic=True)).hexdigest()


def _git_blob_id(raw: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(raw) + raw).hexdigest()


def read_capture(capture: str | None, mirror: str | None) -> tuple[bytes, str]:
    """The capture's bytes and a description of where they came from."""
    if capture:
        return Path(capture).read_bytes(), capture
    repo = mirror or os.environ.get("SC2POOL_PYSC2_MIRROR") or DEFAULT_MIRROR
    try:
        raw = subprocess.run(["git", "-C", repo, "show", f"HEAD:{CAPTURE_PATH}"], check=True,
                             capture_output=True).stdout
    except (OSError, subprocess.CalledProcessError) as exc:
        raise SystemExit(f"cannot read {CAPTURE_PATH} from the python-sc2 mirror {repo!r} ({exc}); "
                         "pass --capture FILE or --mirror GIT_DIR") from exc
    return raw, f"{repo}:{CAPTURE_PATH}"


def response_data_of(raw: bytes) -> sc_pb.ResponseData:
    """The ResponseData in a python-sc2 capture (a trusted file from python-sc2's test data)."""
    items = pickle.loads(lzma.decompress(raw))  # noqa: S301 - python-sc2's own test capture
    first = items[0]
    if not isinstance(first, sc_pb.Response) or not first.HasField("data"):
        raise SystemExit("the capture's first item is not a Response with ResponseData")
    return first.data


def build(raw: bytes) -> bytes:
    """The generated file's bytes for a capture."""
    data = response_data_of(raw)
    schemas: dict[str, list[str]] = {}
    body = {section: [encode(m, schemas) for m in getattr(data, section)] for section in SECTIONS}
    head = {
        "format": FORMAT,
        "source": {
            "repository": "BurnySc2/python-sc2",
            "path": CAPTURE_PATH,
            "git_blob": _git_blob_id(raw),
            "what": "ResponseData of a real StarCraft II client on a 2023 ladder map, as python-sc2 captured it",
        },
        "digest": digest(data),
        "counts": {section: len(body[section]) for section in SECTIONS},
        "schemas": dict(sorted(schemas.items())),
    }
    # one JSON object; each section row on its own line keeps the decompressed file readable and diffable
    parts = [json.dumps(head, separators=(",", ":"), ensure_ascii=True)[:-1]]
    for section in SECTIONS:
        rows = ",\n".join(json.dumps(r, separators=(",", ":"), ensure_ascii=True) for r in body[section])
        parts.append(f',\n"{section}":[\n{rows}\n]')
    text = "".join(parts) + "}\n"
    return gzip.compress(text.encode("ascii"), compresslevel=9, mtime=0)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--capture", help="the capture file (default: read it from the python-sc2 mirror)")
    ap.add_argument("--mirror", help=f"bare git dir of python-sc2 (default $SC2POOL_PYSC2_MIRROR or {DEFAULT_MIRROR})")
    ap.add_argument("--out", default=str(OUT), help="where to write (default: the package's file)")
    ap.add_argument("--check", action="store_true", help="exit 1 if --out differs from what the capture gives")
    args = ap.parse_args(argv)
    raw, where = read_capture(args.capture, args.mirror)
    out = build(raw)
    path = Path(args.out)
    if args.check:
        same = path.exists() and gzip.decompress(path.read_bytes()) == gzip.decompress(out)
        print(f"{path}: {'up to date' if same else 'DIFFERS from'} {where}")
        return 0 if same else 1
    path.write_bytes(out)
    print(f"wrote {path} ({len(out)} bytes) from {where}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
