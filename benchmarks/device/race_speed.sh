#!/bin/bash
# The full-game speed targets on a many-core machine with no package registry, every game on a
# core of its own (issue 23 item 8, issue 24 item 6, issue 25 item 5): per `step(8)` engine time
# (benchmarks/bench_melee.py) and whole burnysc2 games over the websocket with the server's peak
# memory (benchmarks/bench_melee_game.py), for Terran against the Hard Computer, 20-minute
# VeryHard late games (random builds, and the Terran tech builds: air, bio, mech, whose units reach
# the top of the tech tree), and Zerg/Protoss match-ups and mirrors. Run from the repository root with the
# wheels of benchmarks/device/prepare_wheels.sh in ./.whl; writes <job>.json / <job>.txt per run
# and machine.txt into $OUT, and all of them as race_speed.tgz.
#
#   bash benchmarks/device/race_speed.sh
#   ARCHIVE=$OUT/race_speed.tgz OUT=$(mktemp -d) bash benchmarks/device/race_speed.sh   # a device call
#
# One job per physical core (the first logical CPU of each core, from sysfs), in waves; JOBS
# (default: all) picks jobs by name, MINUTES (15) and LATE_MINUTES (20) set the game lengths, LIMIT
# (420) bounds each job with `timeout`; WHEELS=0 skips the wheels (a machine with the packages).
# A smoke run here: JOBS="tvt-ws pvz-step" MINUTES=1 WHEELS=0 bash benchmarks/device/race_speed.sh
set -u -o pipefail
OUT=${OUT:-/tmp/race-speed-out}
MINUTES=${MINUTES:-15}
LATE_MINUTES=${LATE_MINUTES:-20}
LIMIT=${LIMIT:-420}
SITE=${SITE:-/tmp/site}
MAP=${MAP:-AcidPlantLE}
mkdir -p "$OUT"
t0=$(date +%s)
stamp() { echo "[race_speed.sh +$(( $(date +%s) - t0 )) s] $*"; }

if [ "${WHEELS:-1}" = 1 ] && ls .whl/*.whl >/dev/null 2>&1; then
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target "$SITE" .whl/*.whl \
        || { echo "wheel install failed"; exit 1; }
    export PYTHONPATH=$SITE:$PWD${PYTHONPATH:+:$PYTHONPATH}
fi
export PYTHONUNBUFFERED=1
sc2=$(mktemp -d)/sc2
python3 -m sc2pool engine install "$sc2" >/dev/null || { echo "engine install failed"; exit 1; }
export SC2PATH=$sc2
# one logical CPU per physical core, so two jobs never share a core's hyperthreads
mapfile -t CPUS < <(for c in /sys/devices/system/cpu/cpu[0-9]*; do
    s=$(cat "$c/topology/thread_siblings_list" 2>/dev/null) || continue; echo "${s%%[,-]*}"; done | sort -n -u)
[ ${#CPUS[@]} -gt 0 ] || CPUS=(0)
{ echo "cpus: $(nproc), physical cores used: ${#CPUS[@]} (${CPUS[*]})"; uptime; python3 --version
  grep -m1 "model name" /proc/cpuinfo; git log -1 --format='commit %h %s' 2>/dev/null; } > "$OUT/machine.txt"
cat "$OUT/machine.txt"
stamp "installed"

M=$MINUTES
L=$LATE_MINUTES
# name|command (each a single-threaded game; taskset pins it and its server to one core)
ALL=(
  "tvt-ws|python3 benchmarks/bench_melee_game.py --map $MAP --minutes $M --difficulty 5 --seed 1"
  "tvt-step|python3 benchmarks/bench_melee.py --opponent bot --map $MAP --minutes $M --difficulty 5 --seed 1"
  "tvt-ws2|python3 benchmarks/bench_melee_game.py --map $MAP --minutes $M --difficulty 5 --seed 2"
  "tvt-step2|python3 benchmarks/bench_melee.py --opponent bot --map $MAP --minutes $M --difficulty 5 --seed 2"
  "tvt-late|python3 benchmarks/bench_melee.py --map $MAP --minutes $L --difficulty 7 --seed 1"
  "zvp-late|python3 benchmarks/bench_melee.py --map $MAP --minutes $L --difficulty 7 --seed 1 --race zerg --computer-race protoss"
  "tvt-cvc|python3 benchmarks/bench_melee.py --map $MAP --minutes $M --difficulty 5 --seed 1"
  "zvp-cvc|python3 benchmarks/bench_melee.py --map $MAP --minutes $M --difficulty 5 --seed 1 --race zerg --computer-race protoss"
  "zvz-cvc|python3 benchmarks/bench_melee.py --map $MAP --minutes $M --difficulty 5 --seed 1 --race zerg --computer-race zerg"
  "pvp-cvc|python3 benchmarks/bench_melee.py --map $MAP --minutes $M --difficulty 5 --seed 1 --race protoss --computer-race protoss"
  "pvz-ws|python3 benchmarks/bench_melee_game.py --map $MAP --minutes $M --difficulty 5 --bot baseline --race protoss --computer-race zerg"
  "pvp-ws|python3 benchmarks/bench_melee_game.py --map $MAP --minutes $M --difficulty 5 --bot baseline --race protoss --computer-race protoss"
  "zvp-ws|python3 benchmarks/bench_melee_game.py --map $MAP --minutes $M --difficulty 5 --bot baseline --race zerg --computer-race protoss"
  "zvz-ws|python3 benchmarks/bench_melee_game.py --map $MAP --minutes $M --difficulty 5 --bot baseline --race zerg --computer-race zerg"
  "pvz-step|python3 benchmarks/bench_melee.py --opponent bot --bot baseline --map $MAP --minutes $M --difficulty 5 --race protoss --computer-race zerg"
  "zvp-step|python3 benchmarks/bench_melee.py --opponent bot --bot baseline --map $MAP --minutes $M --difficulty 5 --race zerg --computer-race protoss"
  "tvz-ws|python3 benchmarks/bench_melee_game.py --map $MAP --minutes $M --difficulty 5 --computer-race zerg"
  "tvt-late-air|python3 benchmarks/bench_melee.py --map $MAP --minutes $L --difficulty 7 --seed 1 --builds air,macro"
  "tvt-late-bio|python3 benchmarks/bench_melee.py --map $MAP --minutes $L --difficulty 7 --seed 1 --builds power,air"
  "tvt-late-mech|python3 benchmarks/bench_melee.py --map $MAP --minutes $L --difficulty 7 --seed 2 --builds macro,macro"
)
JOBS=${JOBS:-}
todo=()
for j in "${ALL[@]}"; do
    name=${j%%|*}
    if [ -z "$JOBS" ] || [[ " $JOBS " == *" $name "* ]]; then todo+=("$j"); fi
done

i=0
while [ $i -lt ${#todo[@]} ]; do
    pids=()
    for cpu in "${CPUS[@]}"; do
        [ $i -lt ${#todo[@]} ] || break
        j=${todo[$i]}; name=${j%%|*}; cmd=${j#*|}
        stamp "cpu $cpu: $name: $cmd"
        ( timeout -k 15 "$LIMIT" taskset -c "$cpu" $cmd --json "$OUT/$name.json" > "$OUT/$name.txt" 2>&1
          echo "exit $?" >> "$OUT/$name.txt" ) &
        pids+=($!)
        i=$((i + 1))
    done
    wait "${pids[@]}"
    stamp "wave done ($i of ${#todo[@]} jobs)"
done
for j in "${todo[@]}"; do name=${j%%|*}; echo "$name: $(tail -1 "$OUT/$name.txt")"; done
left=$(pgrep -f -- "$sc2" | wc -l)
stamp "done; game processes still running: $left"
# one archive (a device call brings back only a few files: run with OUT in a temporary folder and
# ARCHIVE under the call's $OUT), written beside the folder first so tar does not read it growing
ARCHIVE=${ARCHIVE:-$OUT/race_speed.tgz}
tmp_tgz=$(mktemp --suffix=.tgz)
tar czf "$tmp_tgz" -C "$OUT" --exclude "$(basename "$ARCHIVE")" . && mv "$tmp_tgz" "$ARCHIVE" && stamp "wrote $ARCHIVE"
