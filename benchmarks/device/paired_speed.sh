#!/bin/bash
# The engine's speed, a base tree against this one, on a many-core machine (issue 23 item 8): the
# same single-threaded games run by both trees at once, each on a physical core of its own, the two
# trees swapping cores from round to round, so that what one core or one moment of the machine
# gives is shared out evenly. Sixteen busy cores do not give every job the same speed (a lone tree
# measured on one day against another measured on another day differs by more than a change
# does), so only figures of one run, taken side by side, are compared.
#
#   git archive <base commit> | (mkdir -p .base && tar -x -C .base)    # the base tree, not committed
#   bash benchmarks/device/paired_speed.sh                              # both trees' kernels are built
#   ARCHIVE=$OUT/paired.tgz OUT=$(mktemp -d) bash benchmarks/device/paired_speed.sh   # a device call
#
# BASE (.base) is the base tree; JOBS (tvt-step tvt-ws tvt-late) picks the games, COPIES (2) how
# many of each job run at once per tree, ROUNDS (2) the rounds, MINUTES (15) and LATE_MINUTES (20)
# the games' lengths; WHEELS=0 skips installing the
# wheels of prepare_wheels.sh from ./.whl. Writes <tree>-<job>-r<round>c<copy>.json per game,
# summary.txt (per job and tree: the medians over the copies and rounds, and this tree's ratio to
# the base), and machine.txt, into $OUT. A smoke run here:
# JOBS=tvt-step COPIES=1 ROUNDS=1 MINUTES=1 WHEELS=0 bash benchmarks/device/paired_speed.sh
set -u -o pipefail
OUT=${OUT:-/tmp/paired-speed-out}
BASE=${BASE:-.base}
JOBS=${JOBS:-tvt-step tvt-ws tvt-late}
COPIES=${COPIES:-2}
ROUNDS=${ROUNDS:-2}
LIMIT=${LIMIT:-300}
SITE=${SITE:-/tmp/site}
MAP=${MAP:-AcidPlantLE}
MINUTES=${MINUTES:-15}
LATE_MINUTES=${LATE_MINUTES:-20}
mkdir -p "$OUT"
[ -d "$BASE/sc2pool" ] || { echo "no base tree at $BASE (see the header)"; exit 2; }
t0=$(date +%s)
stamp() { echo "[paired_speed.sh +$(( $(date +%s) - t0 )) s] $*"; }

if [ "${WHEELS:-1}" = 1 ] && ls .whl/*.whl >/dev/null 2>&1; then
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target "$SITE" .whl/*.whl \
        || { echo "wheel install failed"; exit 1; }
    export PYTHONPATH=$SITE${PYTHONPATH:+:$PYTHONPATH}
fi
export PYTHONUNBUFFERED=1
here=$PWD
base=$(cd "$BASE" && pwd)
for tree in "$here" "$base"; do  # each tree's own compiled kernels, for this machine's Python
    (cd "$tree" && python3 setup.py -q build_ext --inplace > /dev/null 2>&1; rm -rf build)
    PYTHONPATH=$tree${PYTHONPATH:+:$PYTHONPATH} python3 -c \
        "import sc2pool.engine.kernels as k; print('$tree kernels:', 'native' if k.native else 'python')"
done | tee "$OUT/kernels.txt"
sc2=$(mktemp -d)/sc2
PYTHONPATH=$here${PYTHONPATH:+:$PYTHONPATH} python3 -m sc2pool engine install "$sc2" >/dev/null \
    || { echo "engine install failed"; exit 1; }
export SC2PATH=$sc2
mapfile -t CPUS < <(for c in /sys/devices/system/cpu/cpu[0-9]*; do
    s=$(cat "$c/topology/thread_siblings_list" 2>/dev/null) || continue; echo "${s%%[,-]*}"; done | sort -n -u)
[ ${#CPUS[@]} -ge 2 ] || { echo "needs two physical cores"; exit 2; }
{ echo "cpus: $(nproc), physical cores: ${#CPUS[@]}"; uptime; python3 --version; grep -m1 "model name" /proc/cpuinfo
  echo "this tree: $(git log -1 --format='%h %s' 2>/dev/null)"; echo "base tree: $base"; } > "$OUT/machine.txt"
cat "$OUT/machine.txt"

command_of() {  # job name -> its benchmark command
    case $1 in
        tvt-step) echo "benchmarks/bench_melee.py --opponent bot --map $MAP --minutes $MINUTES --difficulty 5 --seed 1" ;;
        tvt-ws) echo "benchmarks/bench_melee_game.py --map $MAP --minutes $MINUTES --difficulty 5 --seed 1" ;;
        tvt-late) echo "benchmarks/bench_melee.py --map $MAP --minutes $LATE_MINUTES --difficulty 7 --seed 1" ;;
        zvp-step) echo "benchmarks/bench_melee.py --opponent bot --bot baseline --map $MAP --minutes $MINUTES --difficulty 5 --race zerg --computer-race protoss" ;;
        *) return 1 ;;
    esac
}
# one wave per round: every (job, copy) pair of games, this tree and the base on two cores
slots=0
for job in $JOBS; do command_of "$job" > /dev/null || { echo "unknown job $job"; exit 2; }; slots=$((slots + 2 * COPIES)); done
[ "$slots" -le ${#CPUS[@]} ] || { echo "$slots games at once need $slots physical cores; lower COPIES or JOBS"; exit 2; }
for ((r = 1; r <= ROUNDS; r++)); do
    pids=()
    k=0
    for job in $JOBS; do
        for ((c = 1; c <= COPIES; c++)); do
            a=${CPUS[$k]} b=${CPUS[$((k + 1))]}
            k=$((k + 2))
            if [ $((r % 2)) = 0 ]; then t=$a; a=$b; b=$t; fi  # the trees swap cores every round
            for pair in "this:$here:$a" "base:$base:$b"; do
                IFS=: read -r name tree cpu <<< "$pair"
                out="$OUT/$name-$job-r${r}c$c"
                ( cd "$tree" && PYTHONPATH=$tree${PYTHONPATH:+:$PYTHONPATH} timeout -k 15 "$LIMIT" taskset -c "$cpu" \
                      python3 $(command_of "$job") --json "$out.json" > "$out.txt" 2>&1; echo "exit $?" >> "$out.txt" ) &
                pids+=($!)
            done
        done
    done
    wait "${pids[@]}"
    stamp "round $r done"
done
python3 - "$OUT" $JOBS > "$OUT/summary.txt" <<'PY'
import glob, json, os, statistics, sys
out, jobs = sys.argv[1], sys.argv[2:]
def figures(path):
    d = json.load(open(path))
    if "cpu_ms" in d:
        return {"median ms": d["cpu_ms"]["median"], "p99 ms": d["cpu_ms"]["p99"], "steps": d["steps"]}
    return {"x real time": d["x_real_time"], "server CPU s": d["server_cpu_s"], "bot CPU s": d["bot_process_cpu_s"],
            "game s": d["game_s"]}
for job in jobs:
    got = {}
    for tree in ("base", "this"):
        runs = [figures(p) for p in sorted(glob.glob(os.path.join(out, f"{tree}-{job}-r*.json")))]
        got[tree] = {k: statistics.median(r[k] for r in runs) for k in runs[0]} if runs else {}
        print(f"{job:9s} {tree:4s} n={len(runs)} " + "  ".join(f"{k} {v:.2f}" for k, v in got[tree].items()))
    if got["base"] and got["this"]:
        print(f"{job:9s} this/base " + "  ".join(f"{k} {got['this'][k] / got['base'][k]:.3f}" for k in got["this"]))
PY
cat "$OUT/summary.txt"
left=$(pgrep -f -- "$sc2" | wc -l)
stamp "done; game processes still running: $left"
ARCHIVE=${ARCHIVE:-$OUT/paired.tgz}
tmp_tgz=$(mktemp --suffix=.tgz)
tar czf "$tmp_tgz" -C "$OUT" --exclude "$(basename "$ARCHIVE")" . && mv "$tmp_tgz" "$ARCHIVE" && stamp "wrote $ARCHIVE"
