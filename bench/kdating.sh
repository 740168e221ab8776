#!/bin/sh
# kdating.sh - how the kernel dates a sleep (section 13 of RESULTS.md; the
# self-check's lag_sleep allowance, lib/analysis/kcheck/kcheck.h): per
# sleep of one thread of tests/live/wl_kernel, its run + run-queue wait as
# the trace dates them (the tracepoints' times) minus the kernel's own
# accounting of the same (sum_exec_runtime + run_delay), without any
# recording: bench/kdating.bpf.c reads both in the kernel.  Also where the
# kernel dates each enqueue, before the WAKEUP event.
#
#   bench/kdating.sh BUILD_DIR      (after `make tests`; needs root)
#
# Builds bench/kdating.{bpf.c,c} with clang -target bpf, bpftool's skeleton
# and libbpf (scripts/deps.sh installs them), in a temporary directory.
set -eu
BUILD=${1:-build}
HERE=$(cd "$(dirname "$0")" && pwd)
WL=$BUILD/tests/wl_kernel
WORK=$(mktemp -d /tmp/tl-bench-kdating.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
[ -x "$WL" ] || { echo "kdating.sh: no $WL: run make tests" >&2; exit 1; }
ARCH=$(uname -m | sed 's/x86_64/x86/; s/aarch64/arm64/')

bpftool btf dump file /sys/kernel/btf/vmlinux format c >"$WORK/vmlinux.h"
clang -g -O2 -Wall -target bpf -D__TARGET_ARCH_$ARCH -I"$WORK" -c "$HERE/kdating.bpf.c" -o "$WORK/kdating.bpf.o"
bpftool gen skeleton "$WORK/kdating.bpf.o" >"$WORK/kdating.skel.h"
cc -O2 -Wall -I"$WORK" "$HERE/kdating.c" -o "$WORK/kdating" -lbpf

echo "# $(date -u +%Y-%m-%d) $(uname -r), $(nproc) CPUs; trace - kernel per sleep (0 = the same dating)"
# contend+: with two busy loops beside it, so that wakeups find their CPU busy
for case in "dio reader" "dio writer" "pipeline filter" "pipeline consumer" "contend lockA" "contend+ lockA"; do
	set -- $case
	hogs=
	if [ "$1" = contend+ ]; then
		set -- contend "$2"
		for i in 1 2; do
			sh -c 'while :; do :; done' &
			hogs="$hogs $!"
		done
	fi
	"$WORK/kdating" "$2" >"$WORK/out" 2>"$WORK/err" &
	pid=$!
	while ! grep -q ready "$WORK/err" 2>/dev/null; do
		kill -0 $pid 2>/dev/null || { cat "$WORK/err" >&2; exit 1; }
		sleep 0.05
	done
	"$WL" "$1" --truth "$WORK/truth.json" >/dev/null
	kill -INT $pid
	wait $pid
	[ -z "$hogs" ] || kill $hogs
	echo "wl_kernel $1, '$2'${hogs:+, two busy loops beside it}:"
	sed 's/^/  /' "$WORK/out"
done
