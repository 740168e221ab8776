#!/bin/bash
# test_bpf.sh - the eBPF back end's first piece (capture/bpf_probe.h):
# `record --list-events` loads the CO-RE sched_switch program and shows, per
# CPU, the switches out of and into the idle task that it saw in 200 ms.
#
#   tests/cli/test_bpf.sh BUILD_DIR
#
# The oracle is the idle task's own bookkeeping: on each CPU every switch
# into idle is followed by one out of it, so in any window the two counts
# differ by at most one per edge of the window (2 in all).  perf_event_open
# delivery on some kernels misses every switch out of idle on a CPU (0
# against thousands); a BPF program sees them.  Needs root.
. "$(dirname "$0")/lib.sh"
cli_init "$1"

if ! can_record; then
	skip bpf/list-events "need root to load eBPF programs (running as uid $(id -u))"
	cli_done
fi

# Keep both CPUs switching in and out of idle while the probe counts.
(for i in $(seq 100); do sleep 0.002; done) &
load=$!
tl record --list-events
wait "$load"
if [ "$RC" != 0 ] || ! grep -q '^bpf       available' "$OUT"; then
	fail bpf/list-events "exit $RC, want a 'bpf available' line:" "$(tail -n 8 "$OUT")" "$(cat "$ERR")"
else
	bad=$(awk '/^ +CPU [0-9]+: / { out = $3; into = $8; d = out - into; if (d < 0) d = -d;
		n++; total += out; if (d > 2) printf "%s %s: %d out of idle, %d into idle; ", $1, $2, out, into }
		END { if (!n) print "no CPU lines"; else if (!total) print "no switch out of idle at all" }' "$OUT")
	if [ -z "$bad" ]; then
		pass bpf/list-events
	else
		fail bpf/list-events "$bad" "$(tail -n 8 "$OUT")"
	fi
fi

cli_done
