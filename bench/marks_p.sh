#!/bin/bash
# marks_p.sh - what one marker call costs in a process that `record -p`
# attached to: a uprobe hit (docs/MARKERS.md, "A running process").
#
#   bench/marks_p.sh BUILD_DIR
#
# bench/marks.c (shared library) runs BURSTS bursts of 1000 calls, 10 ms
# apart; 0.2 s after it starts, `threadlens record -p` attaches and records
# until it ends, so nearly all bursts are recorded and their median is the
# recorded cost.  Each kind runs REPS times; the plain run (not recorded)
# is the floor.  Needs root.  Output: one line per run.
set -u
[ $# = 1 ] || {
	echo "usage: bench/marks_p.sh BUILD_DIR" >&2
	exit 2
}
HERE=$(cd "$(dirname "$0")" && pwd)
BUILD=$(cd "$1" && pwd) || exit 1
REPS=${BENCH_MARKS_REPS:-3}
BURSTS=${BENCH_MARKS_BURSTS:-200}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/tl-marks-p.XXXXXX") || exit 1
trap 'rm -rf "$WORK"' EXIT
cc -O2 -std=c17 -D_GNU_SOURCE -I "$HERE/../include" "$HERE/marks.c" -L "$BUILD" -lthreadlens -lpthread \
	-Wl,-rpath,"$BUILD" -o "$WORK/marks" || exit 1
for rep in $(seq "$REPS"); do
	for kind in frame pair instant; do
		"$WORK/marks" --bursts "$BURSTS" --calls 1000 --pause-us 10000 --kind "$kind" >"$WORK/m.txt" &
		p=$!
		sleep 0.2
		"$BUILD/threadlens" record -p "$p" -d 600s -o "$WORK/m.tl" >/dev/null 2>"$WORK/rec.txt" &
		r=$!
		wait "$p"
		kill -INT "$r"
		wait "$r"
		echo "recorded -p: $(cat "$WORK/m.txt") $(tail -n 1 "$WORK/rec.txt" | grep -o '[0-9]* markers ([0-9]* lost)')"
		"$WORK/marks" --bursts 50 --calls 1000 --pause-us 1000 --kind "$kind" | sed 's/^/plain:       /'
	done
done
