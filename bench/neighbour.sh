#!/bin/bash
# neighbour.sh - what recording one program costs the programs beside it.
#
#   bench/neighbour.sh BUILD_DIR [--quick]
#
# A target (`sleep`, pinned to the last CPU) is recorded with -p while an
# unrelated neighbour, bench/wl_pingpong in pipe mode (two threads pinned to
# CPU 0 handing a token back and forth: a context switch per hand-off, the
# worst case for a scheduler tracer), does a fixed amount of work and times
# it by its own clock (pp_s).  The neighbour's slowdown is its median pp_s
# under each recorder over its median pp_s with none, the variants
# interleaved in a rotating order, one repetition after another:
#
#   plain            no recorder
#   threadlens       record -p (eBPF: the neighbour's events stay in the
#                    kernel, summed; docs/RECORD.md, "Filtering")
#   threadlens-perf  record --backend perf -p (perf delivers every CPU's
#                    scheduler events; the recorder keeps them all)
#   perf             perf sched record -p (perf's per-task events: only
#                    the target's own context, so no CPU picture at all)
#   perf-a           perf sched record -a (what perf needs to see who else
#                    held the CPUs)
#
# Needs root, perf, cc.  Output: a markdown table on stdout; raw lines in
# BUILD_DIR/bench/neighbour.txt.  Environment: BENCH_REPS (7 / 2 with
# --quick), BENCH_HANDOFFS (200000 / 50000).
set -u
[ $# -ge 1 ] || {
	echo "usage: bench/neighbour.sh BUILD_DIR [--quick]" >&2
	exit 2
}
BUILD=$(cd "$1" 2>/dev/null && pwd) || {
	echo "bench: no build directory '$1'" >&2
	exit 1
}
QUICK=0
[ "${2:-}" = --quick ] && QUICK=1
HERE=$(cd "$(dirname "$0")" && pwd)
TL=$BUILD/threadlens
OUT=$BUILD/bench
WORK=$OUT/work
mkdir -p "$OUT/bin" "$WORK"
REPS=${BENCH_REPS:-$([ $QUICK = 1 ] && echo 2 || echo 7)}
HANDOFFS=${BENCH_HANDOFFS:-$([ $QUICK = 1 ] && echo 50000 || echo 200000)}
VARIANTS="plain threadlens threadlens-perf perf perf-a"
LAST=$(($(nproc) - 1))
WL=$OUT/bin/wl_pingpong
RAW=$OUT/neighbour.txt

die() {
	echo "bench: $*" >&2
	exit 1
}
[ "$(id -u)" = 0 ] || die "needs root (both recorders open CPU-wide tracepoints)"
command -v perf >/dev/null || die "needs perf (linux-perf)"
cc -O2 -pthread -Wall -Wextra "$HERE/wl_pingpong.c" -o "$WL" || die "cannot build bench/wl_pingpong.c"
: >"$RAW"

# One run of variant $1: the recorder (if any) on a fresh target, then the neighbour.
run_one() {
	local v=$1 rec=
	taskset -c "$LAST" sleep 600 &
	local target=$!
	case "$v" in
	threadlens) "$TL" record -p "$target" -o "$WORK/n.tl" 2>"$WORK/n.err" & rec=$! ;;
	threadlens-perf) "$TL" record --backend perf -p "$target" -o "$WORK/n.tl" 2>"$WORK/n.err" & rec=$! ;;
	perf) perf sched record -p "$target" -o "$WORK/n.data" >/dev/null 2>"$WORK/n.err" & rec=$! ;;
	perf-a) perf sched record -a -o "$WORK/n.data" >/dev/null 2>"$WORK/n.err" & rec=$! ;;
	esac
	[ -n "$rec" ] && sleep 1 # both recorders are set up well within a second here
	line=$("$WL" --mode pipe --handoffs "$HANDOFFS" --hog 0) || die "wl_pingpong failed"
	if [ -n "$rec" ]; then
		kill -TERM "$rec" # a background job of a script ignores SIGINT
		wait "$rec" 2>/dev/null || true
	fi
	kill "$target"
	wait "$target" 2>/dev/null
	echo "variant=$v $line" >>"$RAW"
}

set -- $VARIANTS
for r in $(seq "$REPS"); do
	for v in "$@"; do
		echo "neighbour: rep $r/$REPS $v" >&2
		run_one "$v"
	done
	set -- "${@:2}" "$1" # rotate the order
done
rm -f "$WORK/n.tl" "$WORK/n.data" "$WORK/n.data.old"

python3 - "$RAW" "$HANDOFFS" <<'PY'
import statistics as st, sys
runs = {}
for line in open(sys.argv[1]):
    kv = dict(f.split("=", 1) for f in line.split())
    runs.setdefault(kv["variant"], []).append(float(kv["pp_s"]))
base = st.median(runs["plain"])
print(f"neighbour: wl_pingpong --mode pipe --handoffs {sys.argv[2]} on CPU 0, {len(runs['plain'])} runs each")
print()
print("| recorder | neighbour pp_s (median) | slowdown | overhead |")
print("|---|---|---|---|")
over = {}
for v in ["plain", "threadlens", "threadlens-perf", "perf", "perf-a"]:
    m = st.median(runs[v])
    over[v] = m / base - 1
    print(f"| {v} | {m:.3f} s | x{m / base:.3f} | {100 * over[v]:+.1f}% |")
if over["perf-a"] > 0:
    print()
    print(f"threadlens (eBPF, -p) overhead over perf sched record -a's: {over['threadlens'] / over['perf-a']:.2f}")
PY
