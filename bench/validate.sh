#!/bin/bash
# validate.sh - `threadlens predict` against real OpenMP runs (issue 27,
# section 3): the 3x3 filter chain of tests/live/wl_filter.c, recorded
# sequentially with its tasks, predicted for 1 and 2 cores under four
# scenarios (the filters' row loops parallel, "outer", or each row's
# column blocks, "inner"; static or dynamic), then its OpenMP version run
# with 1 and 2 threads, BENCH_REPS times each (default 7, interleaved):
# the medians against the predictions.
#
#   bench/validate.sh BUILD_DIR
#
# Needs root (record) and python3.  The runtime costs are this machine's:
# threadlens calibrate runs first.  Prints a Markdown table with each
# error, then the mean absolute and the largest error.
set -u
BUILD=${1:-build}
REPS=${BENCH_REPS:-7}
TL=$BUILD/threadlens
WL=$BUILD/tests/wl_filter
WORK=$BUILD/bench/validate
mkdir -p "$WORK" || exit 1
for f in "$TL" "$WL"; do
	[ -x "$f" ] || { echo "validate.sh: '$f' is not built (make tests)" >&2; exit 1; }
done
"$TL" calibrate --reps 11 -o "$WORK/platform.json" 2>/dev/null || exit 1
"$TL" record -o "$WORK/rows.tl" -- "$WL" --seq rows >/dev/null 2>&1 || exit 1
"$TL" record -o "$WORK/blocks.tl" -- "$WL" --seq blocks >/dev/null 2>&1 || exit 1
for s in static dynamic; do
	printf 'blur = parallel for schedule(%s)\nsobel = parallel for schedule(%s)\nthreshold = parallel for schedule(%s)\n' \
		$s $s $s >"$WORK/outer-$s.omp"
	printf 'row = parallel for schedule(%s)\n' $s >"$WORK/inner-$s.omp"
done
for level in outer inner; do
	trace=$WORK/rows.tl
	[ $level = inner ] && trace=$WORK/blocks.tl
	for s in static dynamic; do
		"$TL" predict --json --platform "$WORK/platform.json" --directives "$WORK/$level-$s.omp" --cores 2 "$trace" \
			>"$WORK/pred-$level-$s.json" || exit 1
	done
done
: >"$WORK/runs"
for rep in $(seq "$REPS"); do
	for level in outer inner; do
		for s in static dynamic; do
			for t in 1 2; do
				echo "$level $s $t $("$WL" --omp $t $level $s | sed 's/[^0-9]//g')" >>"$WORK/runs"
			done
		done
	done
done
python3 - "$WORK" <<'PY'
import json, statistics as st, sys
w = sys.argv[1]
runs = {}
for l in open(w + "/runs"):
    level, s, t, ns = l.split()
    runs.setdefault((level, s, int(t)), []).append(int(ns))
print("| scenario | threads | measured (median) | predicted | error |")
print("|---|---|---|---|---|")
errs = []
for level in ("outer", "inner"):
    for s in ("static", "dynamic"):
        p = json.load(open("%s/pred-%s-%s.json" % (w, level, s)))["predictions"]
        for t in (1, 2):
            m = st.median(runs[(level, s, t)])
            pr = p[t - 1]["time_ns"]
            e = (pr - m) / m
            errs.append(abs(e))
            print("| %s %s | %d | %.1f ms | %.1f ms | %+.1f%% |" % (level, s, t, m / 1e6, pr / 1e6, 100 * e))
print()
print("mean absolute error %.1f%%, largest %.1f%% (%d cases)" % (100 * sum(errs) / len(errs), 100 * max(errs), len(errs)))
PY
[ "${BENCH_KEEP:-0}" = 1 ] || rm -f "$WORK"/*.tl
