#!/bin/sh
# The wheels benchmarks/device/melee_scale.sh installs on a machine with no package registry
# (Python 3.12, x86-64; torch, numpy, msgpack, scipy, aiohttp, protobuf, psutil, cloudpickle,
# typing-extensions, six, matplotlib, pillow already there), into ./.whl of the checkout (not
# committed: add "/.whl/" to the repository's info/exclude).
#
#   sh benchmarks/device/prepare_wheels.sh [DIR]      # DIR defaults to .whl
#
# The versions are the ones pyproject.toml's ranges resolve to in the development venv. Two are
# built here: mpyq has no wheel on PyPI (pure Python: built from its sdist), and sc2maptool's
# wheel (68 MB, every 2017-2018 ladder season) is cut down to the maps --task Melee plays by
# default (LADDER_2018_S3 in workers/sc2/tasks/melee.py: year2018/Season3, ~9 MB), so that the
# whole set stays well under the 64 MiB a device call may carry.
set -eu
dir=${1:-.whl}
py=${PYTHON:-python3}
mkdir -p "$dir"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# one version of each, no dependencies resolved: the list is the dependency closure, checked
# against each wheel's Requires-Dist
"$py" -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
    --platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 --platform manylinux_2_26_x86_64 \
    --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 --platform manylinux1_x86_64 \
    -d "$dir" pyzmq==27.3.0 burnysc2==7.3.0 loguru==0.7.3 portpicker==1.6.0 pys2clientprotocol==1.0.2 \
    gymnasium==1.4.0 farama-notifications==0.0.6 stable-baselines3==2.9.2
"$py" -m pip wheel -q --no-deps --no-binary=:all: -w "$dir" mpyq==0.2.5
"$py" -m pip download -q --no-deps --only-binary=:all: -d "$tmp" sc2maptool==1.0.12
"$py" - "$tmp"/sc2maptool-1.0.12-py3-none-any.whl "$dir"/sc2maptool-1.0.12-py3-none-any.whl <<'PY'
import sys, zipfile
src, dest = sys.argv[1:3]
keep = "sc2maptool/maps/Ladder/mode1v1/year2018/Season3/"
def wanted(name: str) -> bool:
    return not name.startswith("sc2maptool/maps/") or name.startswith(keep) or name.endswith("/")
with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dest, "w", zipfile.ZIP_DEFLATED) as zout:
    for item in zin.infolist():
        if not wanted(item.filename):
            continue
        data = zin.read(item.filename)
        if item.filename.endswith(".dist-info/RECORD"):
            lines = data.decode().splitlines(keepends=True)
            data = "".join(line for line in lines if wanted(line.split(",", 1)[0])).encode()
        zout.writestr(item, data)
PY
ls -l "$dir"
du -ch "$dir"/*.whl | tail -1
