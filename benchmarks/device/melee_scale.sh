#!/bin/bash
# Full Melee games at scale on a many-core machine with no package registry (issue 26 item 4):
# benchmarks/bench_melee_scale.py at full size, 8 games in 4 pool workers against SubprocVecEnv
# with 8 processes, the pool unpinned, and a scaling line of 16 and 32 games over 8 and 16
# workers. Run from the repository root with the wheels of benchmarks/device/prepare_wheels.sh
# in ./.whl; writes <name>.json / <name>.txt per run and machine.txt into $OUT.
#
#   bash benchmarks/device/melee_scale.sh
#
# Seconds of stepping per design: MAIN_S (default 100) for the 8-game runs, SCALE_S (default 40)
# for the scaling line; SCALE_AFFINITY (auto) pins the scaling line's workers or not (none);
# RUNS (default "main unpinned scale16 scale32") picks the runs, MAIN_WORKERS (4) the 8-game
# runs' workers (a smoke run here: RUNS=main MAIN_WORKERS=1 MAIN_S=3 SITE=/tmp/mysite).
# About 7.5 minutes in all at the defaults on 16 cores; each run is bounded by `timeout`, whose
# SIGTERM the benchmark turns into its normal clean-up.
set -u -o pipefail
OUT=${OUT:-/tmp/melee-scale-out}
MAIN_S=${MAIN_S:-100}
SCALE_S=${SCALE_S:-40}
SCALE_AFFINITY=${SCALE_AFFINITY:-auto}
RUNS=${RUNS:-main unpinned scale16 scale32}
MAIN_WORKERS=${MAIN_WORKERS:-4}
SITE=${SITE:-/tmp/site}
mkdir -p "$OUT"
t0=$(date +%s)
stamp() { echo "[melee_scale.sh +$(( $(date +%s) - t0 )) s] $*"; }

python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target "$SITE" .whl/*.whl \
    || { echo "wheel install failed"; exit 1; }
export PYTHONPATH=$SITE:$PWD${PYTHONPATH:+:$PYTHONPATH}
export PYTHONUNBUFFERED=1
sc2=$(mktemp -d)/sc2
python3 -m sc2pool engine install "$sc2" || { echo "engine install failed"; exit 1; }
export SC2PATH=$sc2
{ echo "cpus: $(nproc)"; uptime; python3 --version; grep -m1 "model name" /proc/cpuinfo
  git log -1 --format='commit %h %s' 2>/dev/null; python3 -m sc2pool engine maps 2>&1 | head -12; } > "$OUT/machine.txt"
cat "$OUT/machine.txt"
stamp "installed"

run() {  # name, time limit (s), benchmark options...
    local name=$1 limit=$2
    shift 2
    stamp "$name: $*"
    timeout -k 15 "$limit" python3 benchmarks/bench_melee_scale.py "$@" --json "$OUT/$name.json" 2>&1 | tee "$OUT/$name.txt"
    stamp "$name: exit $?"
}
games=$((2 * MAIN_WORKERS))
for r in $RUNS; do
    case $r in
        main) run "main-${games}x$MAIN_WORKERS" $((2 * MAIN_S + 90)) --workers "$MAIN_WORKERS" --envs-per-worker 2 \
                  --seconds "$MAIN_S" ;;
        unpinned) run "pool-${games}x$MAIN_WORKERS-unpinned" $((MAIN_S + 60)) --workers "$MAIN_WORKERS" \
                  --envs-per-worker 2 --seconds "$MAIN_S" --designs pool --affinity none ;;
        scale16) run pool-16x8 $((SCALE_S + 60)) --workers 8 --envs-per-worker 2 --seconds "$SCALE_S" --designs pool \
                  --affinity "$SCALE_AFFINITY" ;;
        scale32) run pool-32x16 $((SCALE_S + 75)) --workers 16 --envs-per-worker 2 --seconds "$SCALE_S" --designs pool \
                  --affinity "$SCALE_AFFINITY" ;;
        *) echo "unknown run $r (main, unpinned, scale16, scale32)"; exit 2 ;;
    esac
done
left=$(pgrep -f -- "$sc2" | wc -l)
stamp "done; game processes of this run still running: $left"
