#!/bin/bash
# validate.sh - `threadlens predict` against real OpenMP runs (issue 27,
# section 3), on the three bundled kernels (tests/live/wl_omp.h):
#   filter  a 3x3 filter chain (wl_filter.c): outer, the rows of each
#           filter (blur, sobel, threshold); inner, each row's half rows;
#   fast    a FAST-like corner detector (wl_fast.c), its cost in the data:
#           outer, the rows of detect and nms; inner, each row's half rows;
#   sort    an integer sort with sequential parts (wl_sort.c): outer, the
#           16 unequal blocks of sort; inner, each block's 4 runs.
# Each kernel's sequential version is recorded SEQ_REPS times (default
# BENCH_REPS) with its tasks ("rows" for the outer loops, "blocks" for the
# inner) and predicted for 1 and 2 cores under static and dynamic
# schedules (the markers' cost taken out, predict's default); its OpenMP
# version runs with 1 and 2 threads BENCH_REPS times each (default 7); the
# recordings and the runs interleaved.  The medians of the runs against
# the medians of the predictions.
#
#   bench/validate.sh BUILD_DIR [KERNEL...]
#
# Needs root (record) and python3.  The runtime costs are this machine's:
# threadlens calibrate runs first.  Prints a Markdown table with each
# error, then the mean absolute and the largest error, per kernel and in
# all.
set -u
BUILD=${1:-build}
shift
KERNELS=${*:-filter fast sort}
REPS=${BENCH_REPS:-7}
SEQ_REPS=${SEQ_REPS:-$REPS}
TL=$BUILD/threadlens
WORK=$BUILD/bench/validate
mkdir -p "$WORK" || exit 1
rm -f "$WORK"/pred-* "$WORK"/runs
[ -x "$TL" ] || { echo "validate.sh: '$TL' is not built (make)" >&2; exit 1; }
"$TL" calibrate --reps 11 -o "$WORK/platform.json" 2>/dev/null || exit 1

loops() { # KERNEL LEVEL: the tasks that become parallel loops
	case $1-$2 in
	filter-outer) echo blur sobel threshold ;;
	fast-outer) echo detect nms ;;
	sort-outer) echo sort ;;
	sort-inner) echo runs ;;
	*) echo row ;;
	esac
}

for k in $KERNELS; do
	[ -x "$BUILD/tests/wl_$k" ] || { echo "validate.sh: '$BUILD/tests/wl_$k' is not built (make tests)" >&2; exit 1; }
	for level in outer inner; do
		for s in static dynamic; do
			for t in $(loops $k $level); do echo "$t = parallel for schedule($s)"; done >"$WORK/$k-$level-$s.omp"
		done
	done
done
# The recordings and the real runs interleaved, so that both meet the same
# machine (this VM's speed drifts by 10% over tens of seconds).
: >"$WORK/runs"
for rep in $(seq "$REPS"); do
	for k in $KERNELS; do
		wl=$BUILD/tests/wl_$k
		for mode in rows blocks; do
			[ "$rep" -le "$SEQ_REPS" ] || continue
			level=outer
			[ $mode = blocks ] && level=inner
			"$TL" record -o "$WORK/$k-$mode.tl" -- "$wl" --seq $mode >/dev/null 2>&1 || exit 1
			for s in static dynamic; do
				"$TL" predict --json --platform "$WORK/platform.json" --directives "$WORK/$k-$level-$s.omp" \
					--cores 2 "$WORK/$k-$mode.tl" >"$WORK/pred-$k-$level-$s-$rep.json" || exit 1
			done
		done
		for level in outer inner; do
			for s in static dynamic; do
				for t in 1 2; do
					echo "$k $level $s $t $("$wl" --omp $t $level $s | sed 's/[^0-9]//g')" >>"$WORK/runs"
				done
			done
		done
	done
done
python3 - "$WORK" "$(( SEQ_REPS < REPS ? SEQ_REPS : REPS ))" $KERNELS <<'PY'
import json, statistics as st, sys
w, nseq, kernels = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
runs = {}
for l in open(w + "/runs"):
    k, level, s, t, ns = l.split()
    runs.setdefault((k, level, s, int(t)), []).append(int(ns))
print("| kernel | scenario | threads | measured (median) | predicted (median) | error |")
print("|---|---|---|---|---|---|")
errs = {}
for k in kernels:
    for level in ("outer", "inner"):
        for s in ("static", "dynamic"):
            preds = [json.load(open("%s/pred-%s-%s-%s-%d.json" % (w, k, level, s, r)))["predictions"]
                     for r in range(1, nseq + 1)]
            for t in (1, 2):
                m = st.median(runs[(k, level, s, t)])
                pr = st.median(p[t - 1]["time_ns"] for p in preds)
                e = (pr - m) / m
                errs.setdefault(k, []).append(abs(e))
                print("| %s | %s %s | %d | %.1f ms | %.1f ms | %+.1f%% |" % (k, level, s, t, m / 1e6, pr / 1e6, 100 * e))
print()
every = [e for k in kernels for e in errs[k]]
for k in kernels:
    print("%s: mean absolute error %.1f%%, largest %.1f%%" % (k, 100 * st.mean(errs[k]), 100 * max(errs[k])))
print("all: mean absolute error %.1f%%, largest %.1f%% (%d cases)" % (100 * st.mean(every), 100 * max(every), len(every)))
PY
[ "${BENCH_KEEP:-0}" = 1 ] || rm -f "$WORK"/*.tl
