#!/bin/bash
# run.sh - threadlens against perf: recording overhead, trace size, analysis
# speed.  bench/README.md explains each benchmark; bench/RESULTS.md holds
# the last full run.
#
#   bench/run.sh BUILD_DIR [--quick]
#
# `make bench` runs it after building BUILD_DIR/threadlens.  Needs root
# (both recorders open CPU-wide tracepoints), perf (linux-perf), python3
# and cc.  --quick is a smoke test: 2 repetitions, shorter workloads, a
# 1M-event analysis trace, one timing each.
#
# Every result is a ratio against perf measured in the same run, with the
# variants interleaved (plain, threadlens, perf in a rotating order, one
# repetition after another), because the machine is shared and noisy.
#
# Output: progress on stderr, the summary table on stdout at the end.  Raw
# data (one key=value line per run) and the summary (summary.md,
# summary.json) stay in BUILD_DIR/bench/; the big files (traces, perf.data)
# go to BUILD_DIR/bench/work/ and are deleted at the end.
#
# Environment (defaults full / --quick):
#   BENCH_REPS             repetitions of the overhead benchmark (11 / 2)
#   BENCH_HANDOFFS         ping-pong hand-offs per run (150000 / 40000)
#   BENCH_RATE             target context switches per second (100000)
#   BENCH_MODES            ping-pong mechanisms ("futex pipe")
#   BENCH_VARIANTS         what runs the workload ("plain threadlens perf
#                          threadlens-perf threadlens-nofutex plain-again";
#                          threadlens is the default back end, eBPF, and
#                          threadlens-perf its perf back end; plain and perf
#                          are needed for the ratios; plain-again, a second
#                          plain run, measures the noise floor)
#   BENCH_ANALYSIS_EVENTS  events in the analysis trace (10000000 / 1000000)
#   BENCH_ANALYSIS_REPS    timings of each analysis command (5 / 1)
#   BENCH_QUIET_WAIT       seconds to wait for the machine to be quiet (less
#                          than 15% busy) before measuring (300 / 0)
#   BENCH_KEEP=1           keep the big files in BUILD_DIR/bench/work/
set -u

usage() {
	echo "usage: bench/run.sh BUILD_DIR [--quick]" >&2
	exit 2
}
[ $# -ge 1 ] || usage
BUILD=$1
shift
QUICK=0
for a in "$@"; do
	case "$a" in
	--quick) QUICK=1 ;;
	*) usage ;;
	esac
done

HERE=$(cd "$(dirname "$0")" && pwd)
BUILD=$(cd "$BUILD" 2>/dev/null && pwd) || {
	echo "bench: no build directory '$1'" >&2
	exit 1
}
TL=$BUILD/threadlens
OUT=$BUILD/bench
WORK=$OUT/work
BIN=$OUT/bin

if [ $QUICK = 1 ]; then
	REPS=${BENCH_REPS:-2}
	HANDOFFS=${BENCH_HANDOFFS:-40000}
	AEVENTS=${BENCH_ANALYSIS_EVENTS:-1000000}
	AREPS=${BENCH_ANALYSIS_REPS:-1}
	QUIET_WAIT=${BENCH_QUIET_WAIT:-0}
else
	REPS=${BENCH_REPS:-11}
	HANDOFFS=${BENCH_HANDOFFS:-150000}
	AEVENTS=${BENCH_ANALYSIS_EVENTS:-10000000}
	AREPS=${BENCH_ANALYSIS_REPS:-5}
	QUIET_WAIT=${BENCH_QUIET_WAIT:-300}
fi
RATE=${BENCH_RATE:-100000}
MODES=${BENCH_MODES:-futex pipe}
VARIANTS=${BENCH_VARIANTS:-plain threadlens perf threadlens-perf threadlens-nofutex plain-again}

say() { echo "bench: $*" >&2; }
die() {
	echo "bench: $*" >&2
	exit 1
}

# ---- prerequisites -------------------------------------------------------

[ "$(id -u)" = 0 ] || die "needs root: both recorders open CPU-wide tracepoints (running as uid $(id -u))"
[ -x "$TL" ] || die "'$TL' is not built (run make first)"
command -v perf >/dev/null 2>&1 || die "perf is not installed (apt-get install linux-perf)"
command -v python3 >/dev/null 2>&1 || die "python3 is needed for the statistics"
command -v cc >/dev/null 2>&1 || die "cc is needed to build the workload"
if [ ! -d /sys/kernel/tracing/events/sched ]; then
	mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
	[ -d /sys/kernel/tracing/events/sched ] || die "no tracefs at /sys/kernel/tracing"
fi

mkdir -p "$OUT" "$WORK" "$BIN" || die "cannot create '$OUT'"
cleanup() {
	[ "${BENCH_KEEP:-0}" = 1 ] || rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# perf.data takes about 110 bytes per event; the analysis trace's perf.data
# is the big one (about half the threadlens event count, as samples).
need_kb=$((AEVENTS / 1000 * 80 + 400000))
avail_kb=$(df -Pk "$WORK" | awk 'NR == 2 { print $4 }')
say "disk: $((avail_kb / 1024)) MB free in $WORK, about $((need_kb / 1024)) MB needed"
[ "$avail_kb" -gt "$need_kb" ] || die "not enough disk space in '$WORK' ($((avail_kb / 1024)) MB free, need $((need_kb / 1024)) MB)"

cc -O2 -pthread -Wall -Wextra "$HERE/wl_pingpong.c" -o "$BIN/wl_pingpong" || die "cannot build bench/wl_pingpong.c"
cc -O2 -Wall -Wextra "$HERE/runstat.c" -o "$BIN/runstat" || die "cannot build bench/runstat.c"
WL=$BIN/wl_pingpong
RS=$BIN/runstat

# ---- helpers -------------------------------------------------------------

# kv FILE KEY: the value of KEY=VALUE in FILE's first line that has it.
kv() {
	sed -n "s/^\(.* \)\{0,1\}$2=\([^ ]*\).*/\2/p" "$1" | head -n 1
}

# Fraction (percent) of all CPUs that was busy over $1 seconds.
busy_pct() {
	a=$(awk '/^cpu / { print $2+$3+$4+$7+$8+$9, $2+$3+$4+$5+$6+$7+$8+$9 }' /proc/stat)
	sleep "$1"
	b=$(awk '/^cpu / { print $2+$3+$4+$7+$8+$9, $2+$3+$4+$5+$6+$7+$8+$9 }' /proc/stat)
	echo "$a $b" | awk '{ d = $4 - $2; printf "%.0f\n", (d > 0 ? 100 * ($3 - $1) / d : 0) }'
}

top_procs() {
	ps -eo pcpu=,comm= --sort=-pcpu | head -n 4 | awk '{ printf "%s%s %s%%", (NR > 1 ? ", " : ""), $2, $1 }'
}

# perf report --stats: "SAMPLES LOST" (lost = the per-event LOST_SAMPLES
# counts, which perf reads from the kernel at the end of the recording).
perf_counts() {
	perf report --stats -i "$1" 2>/dev/null | awk '
		/^Aggregated stats:/ { agg = 1; next }
		/ stats:$/ { agg = 0; ev = 1; next }
		agg && /SAMPLE events:/ && !s { s = $3 }
		ev && /LOST_SAMPLES events:/ { l += $3 }
		END { printf "%.0f %.0f\n", s, l }'
}

size_of() { stat -c %s "$1" 2>/dev/null || echo 0; }

# ---- the machine -----------------------------------------------------------

META=$OUT/meta.txt
{
	echo "date=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
	echo "command=bench/run.sh $BUILD$([ $QUICK = 1 ] && echo ' --quick')"
	echo "quick=$QUICK"
	echo "kernel=$(uname -r)"
	echo "cpus=$(getconf _NPROCESSORS_ONLN)"
	echo "cpu_model=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)"
	echo "mem=$(awk '/MemTotal/ { printf "%.1f GB", $2 / 1048576 }' /proc/meminfo)"
	echo "perf=$(perf --version)"
	echo "threadlens=$("$TL" --version 2>/dev/null || echo unknown)"
	echo "git=$(git -C "$HERE/.." rev-parse --short HEAD 2>/dev/null || echo unknown)$(git -C "$HERE/.." status --porcelain 2>/dev/null | grep -q . && echo ' (with uncommitted changes)')"
	echo "reps=$REPS"
	echo "handoffs=$HANDOFFS"
	echo "variants=$VARIANTS"
	echo "rate_target=$RATE"
	echo "analysis_events_target=$AEVENTS"
	echo "analysis_reps=$AREPS"
} >"$META"

busy=$(busy_pct 2)
waited=0
while [ "$busy" -gt 15 ] && [ "$waited" -lt "$QUIET_WAIT" ]; do
	say "machine is ${busy}% busy ($(top_procs)); waiting for a quieter moment ($waited/${QUIET_WAIT}s)"
	sleep 8
	waited=$((waited + 10))
	busy=$(busy_pct 2)
done
say "machine ${busy}% busy before the start; load $(cut -d' ' -f1-3 /proc/loadavg); top: $(top_procs)"
{
	echo "busy_before_pct=$busy"
	echo "load_before=$(cut -d' ' -f1-3 /proc/loadavg)"
	echo "top_before=$(top_procs)"
} >>"$META"

# ---- calibration -------------------------------------------------------------
# The spin per hand-off that gives about $RATE switches/s, and a hog that
# does as much work as the ping-pong takes, both measured plain.

NS_ITER=$("$WL" --calibrate | sed 's/.*=//')
echo "ns_per_iter=$NS_ITER" >>"$META"
CAL_H=$((HANDOFFS / 4))
[ $CAL_H -lt 20000 ] && CAL_H=20000
for mode in $MODES; do
	"$WL" --mode "$mode" --handoffs $CAL_H >"$WORK/cal" || die "workload failed: $(cat "$WORK/cal")"
	spin=$(awk -v pp="$(kv "$WORK/cal" pp_s)" -v sw="$(kv "$WORK/cal" switches)" -v h=$CAL_H -v r=$RATE -v ns="$NS_ITER" \
		'BEGIN { s = ((sw / h) / r - pp / h) * 1e9 / ns; printf "%d\n", (s > 0 ? s : 0) }')
	for _ in 1 2; do
		"$WL" --mode "$mode" --handoffs $CAL_H --spin "$spin" >"$WORK/cal" || die "workload failed"
		spin=$(awk -v pp="$(kv "$WORK/cal" pp_s)" -v sw="$(kv "$WORK/cal" switches)" -v h=$CAL_H -v r=$RATE -v ns="$NS_ITER" -v s="$spin" \
			'BEGIN { s += ((sw / h) / r - pp / h) * 1e9 / ns; printf "%d\n", (s > 0 ? s : 0) }')
	done
	"$WL" --mode "$mode" --handoffs "$HANDOFFS" --spin "$spin" >"$WORK/cal" || die "workload failed"
	hog=$(awk -v pp="$(kv "$WORK/cal" pp_s)" -v ns="$NS_ITER" 'BEGIN { printf "%.0f\n", pp * 1e9 / ns }')
	eval "SPIN_$mode=$spin HOG_$mode=$hog"
	say "calibrated $mode: --spin $spin --hog $hog: $(kv "$WORK/cal" switch_rate) switches/s, ping-pong $(kv "$WORK/cal" pp_s) s"
	echo "calib_$mode=--spin $spin --hog $hog rate=$(kv "$WORK/cal" switch_rate)" >>"$META"
done

# ---- benchmarks 1 and 2: recording overhead and trace size ------------------

RAW=$OUT/overhead.txt
: >"$RAW"

# run_variant MODE VARIANT REP: one run; appends a key=value line to $RAW.
run_variant() {
	mode=$1 variant=$2 rep=$3
	eval "spin=\$SPIN_$mode hog=\$HOG_$mode"
	f=$WORK/run
	rm -f "$f".* "$WORK/cur.tl" "$WORK/cur.data" "$WORK/cur.data.old"
	args="--mode $mode --handoffs $HANDOFFS --spin $spin --hog $hog"
	load=$(cut -d' ' -f1 /proc/loadavg)
	case $variant in
	plain | plain-again) "$RS" "$f.rs" "$WL" $args >"$f.wl" 2>"$f.err" ;;
	threadlens) "$RS" "$f.rs" "$TL" record -o "$WORK/cur.tl" -- "$WL" $args >"$f.wl" 2>"$f.err" ;;
	threadlens-nofutex) "$RS" "$f.rs" "$TL" record --no-futex -o "$WORK/cur.tl" -- "$WL" $args >"$f.wl" 2>"$f.err" ;;
	threadlens-perf) "$RS" "$f.rs" "$TL" record --backend perf -o "$WORK/cur.tl" -- "$WL" $args >"$f.wl" 2>"$f.err" ;;
	perf) "$RS" "$f.rs" perf sched record -o "$WORK/cur.data" -- "$WL" $args >"$f.wl" 2>"$f.err" ;;
	*) die "unknown variant '$variant'" ;;
	esac
	rc=$?
	if [ $rc -ne 0 ] || ! grep -q elapsed_s= "$f.wl"; then
		say "$variant run of $mode failed (exit $rc): $(head -c 400 "$f.err")"
		return 1
	fi
	extra=""
	case $variant in
	threadlens*)
		ev=$(sed -n 's/.*recorded \([0-9]*\) events (\([0-9]*\) lost).*/\1 \2/p' "$f.err")
		set -- $ev
		dump=$("$TL" dump "$WORK/cur.tl" | grep -vc '^#')
		extra="events=${1:-0} lost=${2:-0} dump_events=$dump bytes=$(size_of "$WORK/cur.tl")"
		;;
	perf)
		set -- $(perf_counts "$WORK/cur.data")
		extra="events=$1 lost=$2 bytes=$(size_of "$WORK/cur.data")"
		if [ "$rep" = 1 ]; then
			extra="$extra script_events=$(perf script -i "$WORK/cur.data" 2>/dev/null | wc -l)"
		fi
		;;
	esac
	echo "bench=overhead mode=$mode variant=$variant rep=$rep load1=$load $(cat "$f.wl") $(sed 's/\([a-z_]*=\)/rs_\1/g' "$f.rs") $extra" >>"$RAW"
	say "  rep $rep $mode $variant: elapsed $(kv "$f.wl" elapsed_s) s, $(kv "$f.wl" switch_rate) sw/s${extra:+, $extra}"
	rm -f "$WORK/cur.tl" "$WORK/cur.data" "$WORK/cur.data.old"
}

say "overhead and size: $REPS repetitions of $MODES x ($VARIANTS), $HANDOFFS hand-offs each"
for rep in $(seq 1 "$REPS"); do
	# Rotate the order by one each repetition, so that no variant always
	# runs right after another (caches, the page cache, perf's file writes).
	set -- $VARIANTS
	for _ in $(seq 2 "$rep"); do
		set -- "$@" "$1"
		shift
	done
	order="$*"
	for mode in $MODES; do
		for v in $order; do
			run_variant "$mode" "$v" "$rep"
		done
	done
done

# ---- benchmark 3: analysis speed ---------------------------------------------

ARAW=$OUT/analysis.txt
: >"$ARAW"
mode=futex
case " $MODES " in *" futex "*) ;; *) mode=${MODES%% *} ;; esac
eval "spin=\$SPIN_$mode hog0=\$HOG_$mode"
# Events per hand-off from the overhead runs, to size the analysis trace.
eph=$(awk -v m=$mode '$0 ~ "mode=" m " variant=threadlens " {
		for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
		if (v["handoffs"] > 0) { s += v["events"] / v["handoffs"]; n++ } }
	END { printf "%.3f\n", n ? s / n : 5 }' "$RAW")
ah=$(awk -v e="$AEVENTS" -v eph="$eph" 'BEGIN { h = int(e * 1.08 / eph); h += h % 2; print h }')
ahog=$(awk -v h0="$hog0" -v h="$ah" -v n="$HANDOFFS" 'BEGIN { printf "%.0f\n", h0 * h / n }')
aargs="--mode $mode --handoffs $ah --spin $spin --hog $ahog"
ATL=$WORK/analysis.tl
APERF=$WORK/analysis.data
mpages=""
for attempt in 1 2 3; do
	say "analysis trace: threadlens record ${mpages:+$mpages }-- wl_pingpong $aargs ($eph events per hand-off)"
	rm -f "$ATL"
	"$RS" "$WORK/arec.rs" "$TL" record $mpages -o "$ATL" -- "$WL" $aargs >"$WORK/arec.wl" 2>"$WORK/arec.err" ||
		die "recording the analysis trace failed: $(head -c 400 "$WORK/arec.err")"
	set -- $(sed -n 's/.*recorded \([0-9]*\) events (\([0-9]*\) lost).*/\1 \2/p' "$WORK/arec.err")
	tl_events=${1:-0} tl_lost=${2:-0}
	say "  $tl_events events, $tl_lost lost, $(size_of "$ATL") bytes"
	if [ "$tl_lost" -gt 0 ] && [ -z "$mpages" ]; then
		mpages="-m 8192"
		continue
	fi
	[ "$tl_events" -ge "$AEVENTS" ] && break
	ah=$(awk -v a="$ah" -v e="$AEVENTS" -v got="$tl_events" 'BEGIN { h = int(a * e * 1.05 / (got > 0 ? got : 1)); h += h % 2; print h }')
	ahog=$(awk -v h0="$hog0" -v h="$ah" -v n="$HANDOFFS" 'BEGIN { printf "%.0f\n", h0 * h / n }')
	aargs="--mode $mode --handoffs $ah --spin $spin --hog $ahog"
done
say "analysis trace: perf sched record -- wl_pingpong $aargs"
rm -f "$APERF" "$APERF.old"
"$RS" "$WORK/aperf.rs" perf sched record -o "$APERF" -- "$WL" $aargs >"$WORK/aperf.wl" 2>"$WORK/aperf.err" ||
	die "perf sched record failed: $(head -c 400 "$WORK/aperf.err")"
set -- $(perf_counts "$APERF")
perf_events=$1 perf_lost=$2
say "  $perf_events samples, $perf_lost lost, $(size_of "$APERF") bytes"
echo "bench=analysis_trace tool=threadlens events=$tl_events lost=$tl_lost bytes=$(size_of "$ATL") mpages=${mpages#-m } $(cat "$WORK/arec.wl")" >>"$ARAW"
echo "bench=analysis_trace tool=perf events=$perf_events lost=$perf_lost bytes=$(size_of "$APERF") $(cat "$WORK/aperf.wl")" >>"$ARAW"

# analyse NAME EVENTS CMD...: one timed run, output to /dev/null.
analyse() {
	name=$1 events=$2
	shift 2
	"$RS" "$WORK/an.rs" "$@" >/dev/null 2>"$WORK/an.err"
	rc=$?
	[ $rc -eq 0 ] || say "$name exited $rc: $(head -c 300 "$WORK/an.err")"
	echo "bench=analysis cmd=$name rep=$r events=$events $(cat "$WORK/an.rs")" >>"$ARAW"
	say "  rep $r $name: $(kv "$WORK/an.rs" wall_s) s, $(kv "$WORK/an.rs" maxrss_kb) KB peak RSS"
}
say "analysis speed: $AREPS timings of each command"
for r in $(seq 1 "$AREPS"); do
	case $((r % 3)) in
	1) order="report json timehist" ;;
	2) order="json timehist report" ;;
	0) order="timehist report json" ;;
	esac
	for c in $order; do
		case $c in
		report) analyse tl_report "$tl_events" "$TL" report "$ATL" ;;
		json) analyse tl_report_write_json "$tl_events" "$TL" report --json "$ATL" ;;
		timehist) analyse perf_timehist "$perf_events" perf sched timehist -s -i "$APERF" ;;
		esac
	done
done

{
	echo "busy_after_pct=$(busy_pct 2)"
	echo "load_after=$(cut -d' ' -f1-3 /proc/loadavg)"
	echo "top_after=$(top_procs)"
} >>"$META"

python3 "$HERE/stats.py" "$OUT"
