#!/bin/bash
# predict.sh - how fast `threadlens predict` is (issue 27, "Speed": 1..64
# cores for a trace with 1M tasks in under 2 s).
#
#   bench/predict.sh BUILD_DIR [N_TASKS]
#
# Writes a trace of N_TASKS tasks (default 1000000; bench/gen_tasks.c: 10
# frames, each a loop of rows with a nested pixel task) into
# BUILD_DIR/bench/predict/, then times `predict --cores 64` under two
# scenarios, BENCH_REPS times each (default 3, interleaved): the rows loop
# with schedule(dynamic, 4) (every chunk handed out in order), and with
# static chunks plus a critical section per pixel (every piece simulated
# in time order).  Prints the median wall and user times.  No root needed.
set -u

if [ $# -lt 1 ] || [ $# -gt 2 ]; then
	echo "usage: bench/predict.sh BUILD_DIR [N_TASKS]" >&2
	exit 2
fi
BUILD=$1
N=${2:-1000000}
REPS=${BENCH_REPS:-3}
WORK=$BUILD/bench/predict
mkdir -p "$WORK" || exit 1
for f in "$BUILD/threadlens" "$BUILD/tests/gen_tasks"; do
	[ -x "$f" ] || { echo "predict.sh: '$f' is not built (make tests)" >&2; exit 1; }
done
tasks=$("$BUILD/tests/gen_tasks" "$WORK/tasks.tl" "$N") || exit 1
printf 'rows = parallel for schedule(dynamic, 4)\n' >"$WORK/dynamic.omp"
printf 'rows = parallel for schedule(static, 4)\npixel = critical\n' >"$WORK/critical.omp"
rows=()
for rep in $(seq "$REPS"); do
	for v in dynamic critical; do
		t=$( { /usr/bin/time -f '%e %U' "$BUILD/threadlens" predict --directives "$WORK/$v.omp" --cores 64 \
			"$WORK/tasks.tl" >/dev/null; } 2>&1 | tail -n 1)
		rows+=("$v $t")
	done
done
printf '%s\n' "${rows[@]}" | python3 -c '
import sys, statistics as st
by = {}
for l in sys.stdin:
    v, w, u = l.split()
    by.setdefault(v, []).append((float(w), float(u)))
print("| scenario | tasks | cores | wall (median) | user (median) |")
print("|---|---|---|---|---|")
for v in ("dynamic", "critical"):
    print("| %s | %s | 1..64 | %.2f s | %.2f s |" % (v, sys.argv[1], st.median(r[0] for r in by[v]), st.median(r[1] for r in by[v])))
' "$tasks"
[ "${BENCH_KEEP:-0}" = 1 ] || rm -f "$WORK/tasks.tl"
