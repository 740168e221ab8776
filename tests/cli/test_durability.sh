#!/bin/bash
# test_durability.sh - a recorder killed with SIGKILL leaves a trace that
# reads: `record -a` while wl_kernel pingpong runs over and over, killed
# at a random moment between 1.0 and 2.5 s, three times.  Each trace must
# read with `report --json` and `dump`, say that it did not finish
# cleanly, and hold everything but at most the last 0.5 s before the kill
# (its last instant, against CLOCK_MONOTONIC read right before the kill,
# and no later than the clock read right after it: starting python3 takes
# 0.15-0.2 s here, which must not count against the recorder; the recorder
# writes a chunk at least every 250 ms, each up to 10 ms behind its time).
# Then a clean recording's summary line states the file's final size.
#
#   tests/cli/test_durability.sh BUILD_DIR
. "$(dirname "$0")/lib.sh"
cli_init "$1"

mono_ns() {
	python3 -c 'import time; print(time.monotonic_ns())'
}

if ! can_record; then
	skip durability/kill9 "need root to record"
else
	for i in 1 2 3; do
		# a loop that ends by itself (4 s), so that nothing is left running
		(end=$((SECONDS + 4)); while [ $SECONDS -lt $end ]; do "$BUILD/tests/wl_kernel" pingpong >/dev/null 2>&1 || sleep 0.1; done) &
		wl=$!
		"$TL" record -a -o "$TMP/k$i.tl" >"$TMP/rec.out" 2>"$TMP/rec.err" &
		rec=$!
		delay=$(awk -v s="$RANDOM" 'BEGIN { srand(s); printf "%.2f", 1.0 + 1.5 * rand() }')
		sleep "$delay"
		before=$(mono_ns)
		kill -9 $rec
		after=$(mono_ns)
		wait $rec 2>/dev/null
		wait $wl 2>/dev/null
		tl report --json "$TMP/k$i.tl"
		got=$(python3 - "$OUT" "$before" "$after" "$ERR" <<'PY'
import json, sys
bad = []
try:
    t = json.load(open(sys.argv[1]))["trace"]
except ValueError as e:
    print("report --json: %s" % e)
    sys.exit()
end = t["start_ns"] + t["duration_ns"]
lag = (int(sys.argv[2]) - end) / 1e9
if t["complete"] or t["events"] < 1000:
    bad.append("complete %s, %d events" % (t["complete"], t["events"]))
if lag > 0.5:
    bad.append("the trace ends %.3f s before the kill (at most 0.5 s)" % lag)
if end > int(sys.argv[3]):
    bad.append("the trace ends %.3f s after the kill" % ((end - int(sys.argv[3])) / 1e9))
if "did not finish cleanly" not in open(sys.argv[4]).read():
    bad.append("report does not say the recording did not finish")
print("; ".join(bad) if bad else "ok %.3f" % lag)
PY
)
		rc_report=$RC
		tl dump "$TMP/k$i.tl"
		case "$rc_report:$RC:$got" in
		0:0:ok*) pass "durability/kill9-$i" ;;
		*) fail "durability/kill9-$i" "killed after $delay s; report exit $rc_report, dump exit $RC" "$got" ;;
		esac
	done
	# a clean recording: the summary's size is the file's
	tl record -o "$TMP/clean.tl" -- "$BUILD/tests/wl_kernel" pingpong
	said=$(sed -n "s/.*into '[^']*' (\([0-9.]*\) \([kM]B\)).*/\1 \2/p" "$ERR")
	size=$(stat -c %s "$TMP/clean.tl")
	want=$(awk -v b="$size" -v u="${said#* }" 'BEGIN { printf "%.1f", u == "kB" ? b / 1e3 : b / 1e6 }')
	if [ "$RC" = 0 ] && [ -n "$said" ] && [ "${said% *}" = "$want" ]; then
		pass durability/summary-size
	else
		fail durability/summary-size "exit $RC; summary says '$said', the file is $size bytes ($want)" "$(tail -n 1 "$ERR")"
	fi
fi

cli_done
