#!/bin/sh
# kernel.sh - the kernel oracle on the workloads that made threadlens wrong
# before (issue "Numbers you can trust"): record each, and hold the report
# to the kernel's own accounting of every thread (tests/live/check_kernel.py).
#
#   tests/live/kernel.sh BUILD_DIR
#
# Recordings:
#   kernel-pingpong  tests/live/wl_kernel pingpong: two threads on two CPUs
#                    waking each other onto an idle CPU, 20000 round trips
#   kernel-contend   wl_kernel contend: one mutex, two threads, 10k+ waits/s
#   kernel-pipeline  wl_kernel pipeline: producer -> filter -> consumer
#   kernel-dio       wl_kernel dio: a direct-I/O writer (O_DIRECT|O_DSYNC) and a
#                    direct-I/O reader, every call waiting for the disk
#   kernel-shell     a shell pipeline of real programs (seq | sort | uniq | wc),
#                    every thread of it (check_kernel.py --all)
#
# The oracle holds the switch counts exact too.  The workloads' own CPU clocks are not an oracle here: they are the same
# kernel accounting, which dates a switch-in from the enqueue (see
# lib/analysis/kcheck/kcheck.h), while the trace dates it at the switch.
#
# Prints "ok live/NAME", "FAIL live/NAME" (with indented details) or "skip
# live/NAME: REASON"; "skip: ..." alone when the tier cannot run.
# TL_REQUIRE_LIVE=1 turns skips into failures; TL_LIVE_RETRIES (default 1)
# reruns a failed recording.  Exit status 1 if anything failed.  Recordings
# and reports stay in BUILD_DIR/live/.
set -u

BUILD=${1:-build}
HERE=$(cd "$(dirname "$0")" && pwd)
TL=$BUILD/threadlens
WL=$BUILD/tests/wl_kernel
OUT=$BUILD/live
RETRIES=${TL_LIVE_RETRIES:-1}

skip_all() {
	if [ "${TL_REQUIRE_LIVE:-0}" = 1 ]; then
		echo "FAIL live/kernel: cannot run: $1 (TL_REQUIRE_LIVE=1)"
		exit 1
	fi
	echo "skip: live kernel tests: $1"
	exit 0
}

[ "$(id -u)" = 0 ] || skip_all "need root to record (running as uid $(id -u))"
command -v python3 >/dev/null 2>&1 || skip_all "python3 is needed for the checker"
for f in "$TL" "$WL"; do
	if [ ! -x "$f" ]; then
		echo "FAIL live/kernel: '$f' is not built"
		exit 1
	fi
done
mkdir -p "$OUT" || exit 1

# attempt NAME CMD...: record CMD into $OUT/NAME.tl, report it; sets $why.
attempt() {
	name=$1
	shift
	base=$OUT/$name
	rm -f "$base.tl" "$base.report.json"
	if ! "$TL" record -o "$base.tl" -- "$@" >"$base.record.out" 2>"$base.record.err"; then
		why="  record failed: $(head -c 400 "$base.record.err")"
		return 1
	fi
	if ! "$TL" report --json "$base.tl" >"$base.report.json" 2>"$base.report.err"; then
		why="  report failed: $(head -c 400 "$base.report.err")"
		return 1
	fi
	if [ "$name" = kernel-shell ]; then
		why=$(python3 "$HERE/check_kernel.py" --all "$base.report.json" 2>&1)
	else
		why=$(python3 "$HERE/check_kernel.py" "$base.truth.json" "$base.report.json" 2>&1)
	fi || return 1
	return 0
}

failed=0
run() {
	name=$1
	shift
	n=0
	first=
	while :; do
		why=
		attempt "$name" "$@"
		r=$?
		n=$((n + 1))
		[ $r -eq 0 ] || [ $n -gt "$RETRIES" ] && break
		first="$first
  attempt $n failed:
$why"
	done
	if [ $r -eq 0 ]; then
		echo "ok live/$name${first:+ (flaky: passed on attempt $n)}$first"
	else
		echo "FAIL live/$name$first"
		echo "$why"
		failed=1
	fi
}

for s in pingpong contend pipeline dio; do
	run "kernel-$s" "$WL" "$s" --truth "$OUT/kernel-$s.truth.json"
done
run kernel-shell sh -c 'seq 1 300000 | sort -rn | uniq | wc -l >/dev/null'
exit $failed
