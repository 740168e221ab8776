#!/bin/bash
# marks.sh - what one marker call costs (bench/marks.c), recorded and not,
# with the static and the shared library.
#
#   bench/marks.sh BUILD_DIR [--quick]
#
# `make bench` runs it after bench/run.sh; `make bench-marks` runs only this
# (about 2 minutes; --quick: 25 s).  Recorded runs need root (without it
# only the plain rows are measured).  The target: at most 50 ns per call
# when recorded (issue 3), "close to nothing" when not.
#
# Each run of bench/marks.c times BENCH_MARKS_BURSTS bursts of 1000 calls,
# with a 10 ms pause after each so that the recorder empties the ring (a
# call into a full ring only counts a drop, which is cheaper and would
# flatter the figure), and reports the median ns per call over its bursts.
# Every (library, recorded or not, kind) runs BENCH_MARKS_REPS times,
# interleaved; the table shows the median of those medians and their range.
# "clock_gettime alone" (plain, static) is the floor of a recorded call.
# A recorded run that lost markers is reported as such.
#
# Output: the table on stdout; raw lines in BUILD_DIR/bench/marks.txt, the
# table as Markdown in BUILD_DIR/bench/marks.md (pasted into RESULTS.md).
set -u

usage() {
	echo "usage: bench/marks.sh BUILD_DIR [--quick]" >&2
	exit 2
}
[ $# -ge 1 ] || usage
QUICK=0
[ "${2:-}" = --quick ] && QUICK=1
[ $# -le 2 ] || usage
HERE=$(cd "$(dirname "$0")" && pwd)
BUILD=$(cd "$1" 2>/dev/null && pwd) || {
	echo "bench: no build directory '$1'" >&2
	exit 1
}
TL=$BUILD/threadlens
OUT=$BUILD/bench
BIN=$OUT/bin
WORK=$(mktemp -d "${TMPDIR:-/tmp}/tl-marks.XXXXXX") || exit 1
trap 'rm -rf "$WORK"' EXIT
REPS=${BENCH_MARKS_REPS:-$([ $QUICK = 1 ] && echo 2 || echo 7)}
BURSTS=${BENCH_MARKS_BURSTS:-$([ $QUICK = 1 ] && echo 30 || echo 100)}
KINDS=${BENCH_MARKS_KINDS:-pair dynamic dynamic2 instant frame clock}

say() { echo "bench: $*" >&2; }
die() {
	echo "bench: $*" >&2
	exit 1
}

[ -f "$BUILD/libthreadlens.a" ] && [ -f "$BUILD/libthreadlens.so" ] || die "the marker library is not built in '$BUILD' (make)"
mkdir -p "$BIN" || die "cannot create '$BIN'"
cc -O2 -std=c17 -D_GNU_SOURCE -Wall -Wextra -I "$HERE/../include" "$HERE/marks.c" "$BUILD/libthreadlens.a" -lpthread \
	-o "$BIN/marks_static" || die "cannot build bench/marks.c"
cc -O2 -std=c17 -D_GNU_SOURCE -Wall -Wextra -I "$HERE/../include" "$HERE/marks.c" -L "$BUILD" -lthreadlens \
	-lpthread -Wl,-rpath,"$BUILD" -o "$BIN/marks_shared" || die "cannot build bench/marks.c (shared)"

RECORD=1
if [ "$(id -u)" != 0 ] || [ ! -x "$TL" ]; then
	say "not root (or no '$TL'): plain runs only"
	RECORD=0
fi

RAW=$OUT/marks.txt
: >"$RAW"
say "marker cost: $REPS repetitions of ($KINDS) x (static, shared) x (plain$([ $RECORD = 1 ] && echo ', recorded')), $BURSTS bursts of 1000 calls"
for rep in $(seq 1 "$REPS"); do
	for kind in $KINDS; do
		for lib in static shared; do
			for rec in 0 1; do
				[ $rec = 1 ] && [ $RECORD = 0 ] && continue
				# clock_gettime() alone: the floor of a recorded call, measured once per rep.
				[ $kind = clock ] && { [ $rec = 1 ] || [ $lib = shared ]; } && continue
				args="--kind $kind --bursts $BURSTS --calls 1000 --pause-us 10000"
				if [ $rec = 1 ]; then
					"$TL" record -o "$WORK/m.tl" -- "$BIN/marks_$lib" $args >"$WORK/out" 2>"$WORK/err"
				else
					"$BIN/marks_$lib" $args >"$WORK/out" 2>"$WORK/err"
				fi
				rc=$?
				line=$(grep '^recording=' "$WORK/out")
				if [ $rc != 0 ] || [ -z "$line" ]; then
					say "run failed (exit $rc): $(head -c 300 "$WORK/err")"
					continue
				fi
				lost=0
				[ $rec = 1 ] && lost=$(sed -n 's/.* markers (\([0-9]*\) lost).*/\1/p' "$WORK/err")
				echo "bench=marks rep=$rep lib=$lib recorded=$rec lost=${lost:-0} $line" >>"$RAW"
				say "  rep $rep $kind $lib $([ $rec = 1 ] && echo recorded || echo plain): $(echo "$line" | sed 's/.*ns_per_call_median=\([^ ]*\).*/\1/') ns/call${lost:+, $lost lost}"
				rm -f "$WORK/m.tl"
			done
		done
	done
done

# The table: median and range of the per-run medians.
awk -v cpu="$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)" '
function median(list, n,    a, i, j, t) {
	n = split(list, a, " ")
	for (i = 2; i <= n; i++)
		for (j = i; j > 1 && a[j - 1] + 0 > a[j] + 0; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
{
	for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
	key = v["kind"] " " v["lib"] " " v["recorded"]
	if (!(key in runs)) order[++nk] = key
	runs[key] = runs[key] " " v["ns_per_call_median"]
	x = v["ns_per_call_median"] + 0
	if (!(key in n) || x < lo[key]) lo[key] = x
	if (!(key in n) || x > hi[key]) hi[key] = x
	lost[key] += v["lost"]
	n[key]++
}
END {
	print "| call | library | recorded | ns per call (median of runs) | range | runs | markers lost |"
	print "|---|---|---|---|---|---|---|"
	for (k = 1; k <= nk; k++) {
		split(order[k], p, " ")
		call = p[1] == "pair" ? "tl_region_begin/end" : p[1] == "instant" ? "tl_instant" : \
			p[1] == "dynamic" ? "tl_region_begin/end, a new name pointer each call" : \
			p[1] == "dynamic2" ? "the same, a second thread doing it too" : \
			p[1] == "frame" ? "tl_frame_begin/end" : "clock_gettime alone"
		printf "| %s | %s | %s | %.1f | %.1f-%.1f | %d | %d |\n", call, p[2], p[1] == "clock" ? "-" : p[3] ? "yes" : "no",
			median(runs[order[k]]), lo[order[k]], hi[order[k]], n[order[k]], lost[order[k]]
	}
	printf "\nMachine: %s. Target: at most 50 ns per call when recorded.\n", cpu
}' "$RAW" | tee "$OUT/marks.md"
