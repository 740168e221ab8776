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

. "$HERE/bigtrace.sh"
big_trace

"$WORK/runstat" "$WORK/html.rs" "$TL" html -o "$WORK/big.html" "$WORK/big.tl" 2>"$WORK/html.err"
echo "html: $(cat "$WORK/html.rs") bytes=$(stat -c %s "$WORK/big.html") bytes_per_event=$(awk -v b="$(stat -c %s "$WORK/big.html")" -v e="$events" 'BEGIN { printf "%.2f", b / e }')"
tail -n 1 "$WORK/html.err"
"$TL" export -o "$WORK/big.pftrace" "$WORK/big.tl" 2>/dev/null
echo "export perfetto: bytes=$(stat -c %s "$WORK/big.pftrace")"
python3 "$HERE/html_paint.py" "$WORK/big.html" 3
