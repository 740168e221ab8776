#!/bin/sh
# run.sh - the live tests: record each wl_states scenario with threadlens and
# compare the report with the ground truth the workload measured itself
# (live/NAME), and with the kernel's own accounting of the same threads,
# which the trace holds (live/NAME/kernel, check_kernel.py).
#
#   tests/live/run.sh BUILD_DIR [SCENARIO...]
#
# Prints one line per scenario: "ok live/NAME", "FAIL live/NAME" (followed by
# indented details) or "skip live/NAME: REASON"; "skip: REASON" alone when
# the tier cannot run at all (not root, no tracefs).  With TL_REQUIRE_LIVE=1
# (CI) every skip is printed as a FAIL instead.  Exit status 1 if anything
# failed, else 0.
#
# Environment: TL_LIVE_SCENARIOS="yield" names the scenarios to run when
# none is given on the command line (scripts/check.sh passes none).
# TL_LIVE_RETRIES (default 1) reruns a failed scenario that many
# times, since timing on a shared VM can be disturbed by a neighbour; a pass
# on a rerun still shows the first attempt's numbers.  TL_LIVE_VERBOSE=1 also
# prints every comparison that passed.  TL_LIVE_SCALE scales the workloads'
# durations (default 1).  TL_LIVE_CPU=N pins every workload thread to CPU N
# (wl_states --cpu), to tell a rule that is wrong from events that are
# missing on one CPU.  The recordings, truths and reports are left in
# BUILD_DIR/live/ for a look after a failure.
set -u

BUILD=${1:-build}
[ $# -gt 0 ] && shift
SCENARIOS=${*:-${TL_LIVE_SCENARIOS:-spin sleep mutex io preempt quantum yield}}
HERE=$(cd "$(dirname "$0")" && pwd)
TL=$BUILD/threadlens
WL=$BUILD/tests/wl_states
OUT=$BUILD/live
RETRIES=${TL_LIVE_RETRIES:-1}
SCALE=${TL_LIVE_SCALE:-1}
CPUOPT=
[ -n "${TL_LIVE_CPU:-}" ] && CPUOPT="--cpu $TL_LIVE_CPU"
VFLAG=
[ "${TL_LIVE_VERBOSE:-0}" = 1 ] && VFLAG=-v
PIN=
NCPU=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)
[ "$NCPU" -ge 2 ] && command -v taskset >/dev/null && PIN="taskset -c 0"

skip_all() {
	if [ "${TL_REQUIRE_LIVE:-0}" = 1 ]; then
		echo "FAIL live: cannot run: $1 (TL_REQUIRE_LIVE=1)"
		exit 1
	fi
	echo "skip: live tests: $1"
	exit 0
}

[ "$(id -u)" = 0 ] || skip_all "need root to record kernel tracepoints (running as uid $(id -u))"
if [ ! -d /sys/kernel/tracing/events/sched ]; then
	mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
	[ -d /sys/kernel/tracing/events/sched ] || skip_all "no tracefs at /sys/kernel/tracing and cannot mount it"
fi
command -v python3 >/dev/null 2>&1 || skip_all "python3 is needed for the checker"
for f in "$TL" "$WL"; do
	if [ ! -x "$f" ]; then
		echo "FAIL live: '$f' is not built"
		exit 1
	fi
done
mkdir -p "$OUT" || exit 1

# One attempt at scenario $1; sets $why to the details on failure, or $skip.
# Returns 0 pass, 1 fail, 2 skip.
attempt() {
	s=$1
	base=$OUT/$s
	rm -f "$base.tl" "$base.truth.json" "$base.report.json" "$base.check"
	# The recorder is kept off the workloads' CPU (the last one), so that its
	# own wakeups do not preempt the threads whose waits are measured.
	$PIN "$TL" record -o "$base.tl" -- "$WL" "$s" --scale "$SCALE" $CPUOPT --truth "$base.truth.json" \
		>"$base.record.out" 2>"$base.record.err"
	rc=$?
	if [ -s "$base.truth.json" ] && grep -q '"skip"' "$base.truth.json"; then
		skip=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["skip"])' "$base.truth.json")
		return 2
	fi
	if [ $rc -ne 0 ] || [ ! -s "$base.truth.json" ]; then
		why="  record exited $rc; stderr: $(head -c 600 "$base.record.err")"
		return 1
	fi
	if ! "$TL" report --json "$base.tl" >"$base.report.json" 2>"$base.report.err"; then
		why="  report --json failed: $(head -c 600 "$base.report.err")"
		return 1
	fi
	python3 "$HERE/check_truth.py" $VFLAG "$base.truth.json" "$base.report.json" >"$base.check" 2>&1
	rc=$?
	why=$(cat "$base.check")
	if [ $rc -ne 0 ]; then
		# what the trace itself says of lost or inferred data, and the
		# attempt's files kept beside the next attempt's (a retry overwrites)
		why="$why
  record: $(tail -n 1 "$base.record.err")
  report: $(python3 -c 'import json, sys; d = json.load(open(sys.argv[1]))
print("lost_events %s, anomalies %s, inferred %s" % tuple(json.dumps(d.get(k)) for k in ("lost_events", "anomalies", "inferred")))' "$base.report.json" 2>&1 | head -c 600)"
		for f in "$base".*; do
			case $f in *.attempt*) ;; *) cp "$f" "${f%.*}.attempt$((n + 1)).${f##*.}" ;; esac
		done
	fi
	return $rc
}

failed=0
for s in $SCENARIOS; do
	n=0
	first=
	while :; do
		why=
		skip=
		attempt "$s"
		r=$?
		n=$((n + 1))
		if [ $r -ne 1 ] || [ $n -gt "$RETRIES" ]; then
			break
		fi
		first="$first
  attempt $n failed:
$why"
	done
	case $r in
	0)
		if [ -n "$first" ]; then
			echo "ok live/$s (flaky: passed on attempt $n)$first"
		else
			echo "ok live/$s"
		fi
		[ -n "$VFLAG" ] && [ -n "$why" ] && echo "$why"
		;;
	2)
		if [ "${TL_REQUIRE_LIVE:-0}" = 1 ]; then
			echo "FAIL live/$s: cannot run: $skip (TL_REQUIRE_LIVE=1)"
			failed=1
		else
			echo "skip live/$s: $skip"
		fi
		;;
	*)
		echo "FAIL live/$s$first"
		[ -n "$first" ] && echo "  attempt $n failed:"
		echo "$why"
		failed=1
		;;
	esac
	# The second oracle, on the last attempt's report: the kernel's own
	# accounting of the same threads (check_kernel.py, docs/TESTING.md).
	if [ $r -ne 2 ] && [ -s "$OUT/$s.report.json" ]; then
		if kwhy=$(python3 "$HERE/check_kernel.py" $VFLAG "$OUT/$s.truth.json" "$OUT/$s.report.json" 2>&1); then
			echo "ok live/$s/kernel"
			[ -n "$VFLAG" ] && [ -n "$kwhy" ] && echo "$kwhy"
		else
			echo "FAIL live/$s/kernel"
			echo "$kwhy"
			failed=1
		fi
	fi
done
exit $failed
