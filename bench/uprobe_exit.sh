#!/bin/bash
# uprobe_exit.sh - how long `record` takes to end once its command has,
# with N OpenMP functions probed (two uprobes each): the kernel removes
# each uprobe after a grace period, one at a time when they are perf
# events, side by side when they are uprobe_multi links (capture/bpf_uprobe.c).
#
#   bench/uprobe_exit.sh BUILD_DIR
#
# A program with N `parallel` regions (N = BENCH_UPROBE_FUNCS, 32), each
# run once on 2 threads, is recorded REPS times (BENCH_UPROBE_REPS, 3)
# each way: --no-omp (nothing probed: the floor), the default
# (uprobe_multi links where the kernel has them), and
# TL_BPF_NO_UPROBE_MULTI=1 (perf events).  Output: one line per run, the
# recorder's wall time from start to exit (/usr/bin/time) and the program's
# own run time, then the medians.  Needs root.
set -u
[ $# = 1 ] || {
	echo "usage: bench/uprobe_exit.sh BUILD_DIR" >&2
	exit 2
}
BUILD=$(cd "$1" && pwd) || exit 1
N=${BENCH_UPROBE_FUNCS:-32}
REPS=${BENCH_UPROBE_REPS:-3}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/tl-uprobe-exit.XXXXXX") || exit 1
trap 'rm -rf "$WORK"' EXIT
{
	echo '#include <stdio.h>'
	echo 'static volatile double sink;'
	for i in $(seq "$N"); do
		echo "static void r$i(void) { double s = 0;"
		echo "#pragma omp parallel for reduction(+ : s)"
		echo "for (int k = 0; k < 100000; k++) s += k * 0.5; sink += s; }"
	done
	echo 'int main(void) {'
	for i in $(seq "$N"); do echo "r$i();"; done
	echo 'printf("%g\n", sink); return 0; }'
} >"$WORK/many.c"
cc -O1 -fopenmp -o "$WORK/many" "$WORK/many.c" || exit 1
[ "$(nm "$WORK/many" | grep -c '_omp_fn\.')" = "$N" ] || {
	echo "uprobe_exit.sh: want $N outlined functions in the program" >&2
	exit 1
}
for way in no-omp multi perf-events; do
	for rep in $(seq "$REPS"); do
		case $way in
		no-omp) env OMP_NUM_THREADS=2 /usr/bin/time -f %e -o "$WORK/t" "$BUILD/threadlens" record --no-omp \
			-o "$WORK/m.tl" -- "$WORK/many" >/dev/null 2>"$WORK/err" ;;
		multi) env OMP_NUM_THREADS=2 /usr/bin/time -f %e -o "$WORK/t" "$BUILD/threadlens" record \
			-o "$WORK/m.tl" -- "$WORK/many" >/dev/null 2>"$WORK/err" ;;
		perf-events) env OMP_NUM_THREADS=2 TL_BPF_NO_UPROBE_MULTI=1 /usr/bin/time -f %e -o "$WORK/t" \
			"$BUILD/threadlens" record -o "$WORK/m.tl" -- "$WORK/many" >/dev/null 2>"$WORK/err" ;;
		esac
		regions=$("$BUILD/threadlens" dump --type region_begin "$WORK/m.tl" 2>/dev/null | grep -c region_begin)
		echo "$way rep $rep: record wall $(cat "$WORK/t") s, $regions region instances" | tee -a "$WORK/all"
	done
done
for way in no-omp multi perf-events; do
	grep "^$way " "$WORK/all" | sed 's/.*wall \([0-9.]*\) s.*/\1/' | sort -n |
		awk -v w="$way" '{v[NR] = $1} END {print w ": median record wall " v[int((NR + 1) / 2)] " s"}'
done
