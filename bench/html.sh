#!/bin/sh
# html.sh - the HTML report at scale (section 8 of RESULTS.md): a recording
# of about EVENTS events of bench/wl_pingpong (futex ping-pong: every
# hand-off a switch pair and a wakeup), its page from `threadlens html`
# (wall time, peak RSS, size, bytes per event), and the page in headless
# Chromium (bench/html_paint.py: first paint, whole-window redraw, zoom to
# 1 ms).  The target (issue "See it"): first paint within 3 s on 10 M events.
#
#   bench/html.sh BUILD_DIR [EVENTS]      (EVENTS default 10000000)
#
# Needs root (recording) and chromium.  There is no offline peer viewer on
# the machine (Perfetto's UI is a web site), so the figures are absolute,
# against the target; the page size is compared with the trace's and with
# `threadlens export` (Perfetto protobuf) of the same trace.
set -eu
BUILD=${1:-build}
EVENTS=${2:-10000000}
TL=$BUILD/threadlens
HERE=$(cd "$(dirname "$0")" && pwd)
WORK=$(mktemp -d /tmp/tl-bench-html.XXXXXX)
trap 'rm -rf "$WORK"' EXIT

cc -O2 -pthread "$HERE/wl_pingpong.c" -o "$WORK/wl_pingpong"
cc -O2 "$HERE/runstat.c" -o "$WORK/runstat"

handoffs=$((EVENTS / 2))
for attempt in 1 2 3; do
	"$TL" record -m 8192 -o "$WORK/big.tl" -- "$WORK/wl_pingpong" --mode futex --handoffs $handoffs --spin 200 --hog 0 \
		>/dev/null 2>"$WORK/rec.err"
	events=$(sed -n 's/.*recorded \([0-9]*\) events (\([0-9]*\) lost).*/\1/p' "$WORK/rec.err")
	lost=$(sed -n 's/.*recorded \([0-9]*\) events (\([0-9]*\) lost).*/\2/p' "$WORK/rec.err")
	echo "trace: $events events, $lost lost, $(stat -c %s "$WORK/big.tl") bytes ($handoffs hand-offs)"
	[ "$events" -ge "$EVENTS" ] && break
	handoffs=$(awk -v h="$handoffs" -v e="$EVENTS" -v got="$events" 'BEGIN { print int(h * e * 1.03 / got) }')
done

"$WORK/runstat" "$WORK/html.rs" "$TL" html -o "$WORK/big.html" "$WORK/big.tl" 2>"$WORK/html.err"
echo "html: $(cat "$WORK/html.rs") bytes=$(stat -c %s "$WORK/big.html") bytes_per_event=$(awk -v b="$(stat -c %s "$WORK/big.html")" -v e="$events" 'BEGIN { printf "%.2f", b / e }')"
tail -n 1 "$WORK/html.err"
"$TL" export -o "$WORK/big.pftrace" "$WORK/big.tl" 2>/dev/null
echo "export perfetto: bytes=$(stat -c %s "$WORK/big.pftrace")"
python3 "$HERE/html_paint.py" "$WORK/big.html" 3
