# bigtrace.sh - sourced by bench/html.sh and bench/sql.sh: big_trace builds
# bench/wl_pingpong and bench/runstat into $WORK and records $WORK/big.tl,
# a futex ping-pong of at least $EVENTS events (every hand-off a switch
# pair and a wakeup; up to three tries, each scaling the hand-offs by what
# the last one gave).  Sets $events and $lost, and prints the trace line.
# Needs $TL, $HERE, $WORK and $EVENTS.
big_trace() {
	cc -O2 -pthread "$HERE/wl_pingpong.c" -o "$WORK/wl_pingpong"
	cc -O2 "$HERE/runstat.c" -o "$WORK/runstat"
	handoffs=$((EVENTS / 2))
	for attempt in 1 2 3; do
		"$TL" record -m 8192 -o "$WORK/big.tl" -- "$WORK/wl_pingpong" --mode futex --handoffs $handoffs --spin 200 \
			--hog 0 >/dev/null 2>"$WORK/rec.err"
		events=$(sed -n 's/.*recorded \([0-9]*\) events (\([0-9]*\) lost).*/\1/p' "$WORK/rec.err")
		lost=$(sed -n 's/.*recorded \([0-9]*\) events (\([0-9]*\) lost).*/\2/p' "$WORK/rec.err")
		echo "trace: $events events, $lost lost, $(stat -c %s "$WORK/big.tl") bytes ($handoffs hand-offs)"
		[ "$events" -ge "$EVENTS" ] && break
		handoffs=$(awk -v h="$handoffs" -v e="$EVENTS" -v got="$events" 'BEGIN { print int(h * e * 1.03 / got) }')
	done
}
