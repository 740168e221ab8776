#!/bin/sh
# demo.sh - record the bundled demo pipeline and show where its time went.
#
#   scripts/demo.sh THREADLENS BUILD_DIR      (what `make demo` runs)
#
# Records BUILD_DIR/demo/tl-demo (a video-analysis pipeline with its five
# threading bugs on, about 1.5 s) into demo.tl in the current directory,
# prints the report (it ends with the diagnosis), writes the HTML report
# demo.html beside it and prints its path, and leaves the trace there for `threadlens report`, `dump`, etc.  Recording
# kernel tracepoints needs root; without it this says what to run instead
# and exits 1.  Mounts tracefs if it is missing.
set -u

TL=${1:-build/threadlens}
BUILD=${2:-build}
DEMO=$BUILD/demo/tl-demo
TRACE=demo.tl

for f in "$TL" "$DEMO"; do
	if [ ! -x "$f" ]; then
		echo "demo: '$f' is not built; run 'make' first" >&2
		exit 1
	fi
done
if [ "$(id -u)" != 0 ]; then
	echo "demo: recording kernel scheduler events needs root (or CAP_PERFMON and a readable tracefs)" >&2
	echo "run: sudo $0 $TL $BUILD" >&2
	exit 1
fi
if [ ! -d /sys/kernel/tracing/events/sched ]; then
	if ! mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null || [ ! -d /sys/kernel/tracing/events/sched ]; then
		echo "demo: no tracefs at /sys/kernel/tracing and it cannot be mounted" >&2
		echo "run: mount -t tracefs nodev /sys/kernel/tracing" >&2
		exit 1
	fi
fi

echo "demo: recording $DEMO into $TRACE ..."
"$TL" record -o "$TRACE" -- "$DEMO" || exit 1
echo
"$TL" report "$TRACE" || exit 1
echo
"$TL" html -o demo.html "$TRACE" || exit 1
echo "demo: the trace is $(pwd)/$TRACE; try '$TL report --json $TRACE' or '$TL dump $TRACE | less'"
echo "demo: open the report in a browser (it works offline): $(pwd)/demo.html"
