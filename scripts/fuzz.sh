#!/bin/sh
# fuzz.sh - run every libFuzzer target of a build for a while.
#
#   scripts/fuzz.sh BUILD_DIR SECONDS
#
# Each BUILD_DIR/fuzz/fuzz_* target runs for SECONDS, starting from its
# committed seeds in tests/fuzz/corpus/<target>/ (if any).  New inputs go to
# a scratch corpus under BUILD_DIR/fuzz/work/, never into the repository;
# crash reproducers go to BUILD_DIR/fuzz/artifacts/.  One line per target:
#   ok fuzz/fuzz_reader (123456 runs in 10 s)
#   FAIL fuzz/fuzz_reader: crash-<sha1> (reproduce: BUILD_DIR/fuzz/fuzz_reader FILE)
# TL_FUZZ_JOBS targets run at once (default: one a CPU), each on its own CPU.
# Exit status 1 if any target crashed, leaked, hung or ran out of memory.
set -u

if [ $# -ne 2 ]; then
	echo "usage: scripts/fuzz.sh BUILD_DIR SECONDS" >&2
	exit 2
fi
BUILD=$1
SECS=$2
ROOT=$(cd "$(dirname "$0")/.." && pwd)
case $SECS in
'' | *[!0-9]*)
	echo "fuzz.sh: SECONDS must be a whole number, not '$SECS'" >&2
	exit 2
	;;
esac

# run_one BIN: fuzz one target; its result line goes to BUILD/fuzz/NAME.result.
run_one() {
	bin=$1
	name=$(basename "$bin")
	work="$BUILD/fuzz/work/$name"
	art="$BUILD/fuzz/artifacts/$name/"
	seeds="$ROOT/tests/fuzz/corpus/$name"
	log="$BUILD/fuzz/$name.log"
	mkdir -p "$work" "$art"
	set -- "$work"
	[ -d "$seeds" ] && set -- "$@" "$seeds"
	"$bin" -max_total_time="$SECS" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
		-artifact_prefix="$art" "$@" >"$log" 2>&1
	rc=$?
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
	if [ $rc -eq 0 ]; then
		echo "ok fuzz/$name (${runs:-?} runs in $SECS s)"
	else
		crash=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -n 1)
		what=$(grep -m1 -E 'ERROR: (AddressSanitizer|UndefinedBehaviorSanitizer|LeakSanitizer|libFuzzer)|runtime error' "$log")
		echo "FAIL fuzz/$name: ${what:-exit status $rc} (reproduce: $bin ${crash:-?}; log: $log)"
	fi >"$BUILD/fuzz/$name.result"
}

# Every target gets its SECONDS of one CPU; JOBS of them (one a CPU) run at
# once, so the run takes targets/JOBS * SECONDS.  Lines come in target order.
JOBS=${TL_FUZZ_JOBS:-$(nproc 2>/dev/null || echo 1)}
status=0
found=0
batch=
flush() {
	wait
	for b in $batch; do
		r="$BUILD/fuzz/$(basename "$b").result"
		cat "$r" 2>/dev/null || echo "FAIL fuzz/$(basename "$b"): no result"
		grep -q '^ok ' "$r" 2>/dev/null || status=1
		rm -f "$r"
	done
	batch=
}
n=0
for bin in "$BUILD"/fuzz/fuzz_*; do
	[ -f "$bin" ] && [ -x "$bin" ] || continue
	found=1
	run_one "$bin" &
	batch="$batch $bin"
	n=$((n + 1))
	[ $((n % JOBS)) -eq 0 ] && flush
done
flush
if [ $found = 0 ]; then
	echo "fuzz.sh: no fuzz targets in $BUILD/fuzz (make $BUILD/fuzz/fuzz_reader builds one)" >&2
	exit 1
fi
exit $status
