#!/bin/bash
# test_bpf.sh - the two recording back ends.  `record --list-events` loads
# the CO-RE sched_switch probe (capture/bpf_probe.h) and shows, per CPU, the
# switches out of and into the idle task that it saw in 200 ms; `record`
# uses eBPF by default (capture/bpf_rec.h) and perf on request, says which
# in the trace, and refuses a back end it does not know.
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

# The default back end is eBPF; the trace and the report say so, and the
# trace holds the kernel's counters of the three threads (how well they
# agree is the live tier's business: tests/live/check_kernel.py).
WL=$BUILD/tests/wl_states
tl record -o "$TMP/bpf.tl" -- "$WL" mutex --truth "$TMP/bpf.json"
if [ "$RC" = 0 ] && tl report --json "$TMP/bpf.tl" && grep -q '"backend": "bpf"' "$OUT" &&
	python3 -c 'import json,sys; k=json.load(open(sys.argv[1]))["kernel_check"]; sys.exit(not k["checked"] >= 3)' "$OUT"; then
	pass bpf/default-backend
else
	fail bpf/default-backend "exit $RC" "$(grep -E '"backend"|"checked"' "$OUT" | head -n 3)" "$(head -n 3 "$ERR")"
fi

# --backend perf records through perf_event_open, and says so.
tl record --backend perf -o "$TMP/perf.tl" -- "$WL" mutex --truth "$TMP/perf.json"
if [ "$RC" = 0 ] && tl report --json "$TMP/perf.tl" && grep -q '"backend": "perf"' "$OUT"; then
	pass bpf/perf-backend
else
	fail bpf/perf-backend "exit $RC" "$(grep '"backend"' "$OUT" | head -n 2)" "$(head -n 3 "$ERR")"
fi

# A forced overrun through the real path: an 8 KiB ring (-m 1) under two
# fork loops drops records.  The loss must be reported (summary line, LOST
# events, the report's header and JSON), and nothing invented: no thread
# may show more on-CPU time or run-queue wait than the kernel's own
# accounting allows (the self-check's rule, one direction only: what the
# gaps hide goes to UNKNOWN, which is less, never more).
tl record -m 1 -o "$TMP/over.tl" -- sh -c 'for i in $(seq 1000); do /bin/true; done &
	for i in $(seq 1000); do /bin/true; done; wait'
lost=$(sed -n 's/.*recorded [0-9]* events (\([0-9]*\) lost).*/\1/p' "$ERR")
dumped=$("$TL" dump --type lost "$TMP/over.tl" 2>/dev/null | grep -vc '^#')
if [ "$RC" = 0 ] && [ "${lost:-0}" -gt 0 ] && [ "$dumped" -gt 0 ] && tl report --json "$TMP/over.tl" &&
	python3 - "$OUT" "$lost" >"$TMP/over.why" <<'PY'; then
import json, sys
d = json.load(open(sys.argv[1]))
bad = []
if d["lost_events"]["total"] != int(sys.argv[2]):
    bad.append("report says %d lost, record said %s" % (d["lost_events"]["total"], sys.argv[2]))
for t in d["kernel_check"]["threads"]:
    w = t["to_ns"] - t["from_ns"]
    tol = max(0.01 * w, 1e6)
    tr, k = t["trace"], t["kernel"]
    if tr["run_ns"] > k["run_ns"] + tol + t["clock_lag_in_ns"] + t["steal_ns"]:
        bad.append("tid %d: on-CPU %d ns, the kernel's %d" % (t["tid"], tr["run_ns"], k["run_ns"]))
    if k["wait_ns"] is not None and tr["wait_ns"] > k["wait_ns"] + tol + t["clock_lag_in_ns"] + t["steal_ns"]:
        bad.append("tid %d: run-queue wait %d ns, the kernel's %d" % (t["tid"], tr["wait_ns"], k["wait_ns"]))
print("; ".join(bad[:4]))
sys.exit(1 if bad else 0)
PY
	pass bpf/forced-overrun
else
	fail bpf/forced-overrun "exit $RC, lost ${lost:-?} (want > 0), $dumped LOST events in the trace" \
		"$(cat "$TMP/over.why" 2>/dev/null)" "$(tail -n 2 "$ERR")"
fi

# An unknown back end, and --func with eBPF (uprobes are perf's): one line, exit 2 / 1.
tl record --backend dtrace -o "$TMP/x.tl" -- true
if [ "$RC" = 2 ] && grep -q "unknown back end 'dtrace' (bpf or perf)" "$ERR" && [ ! -e "$TMP/x.tl" ]; then
	pass bpf/unknown-backend
else
	fail bpf/unknown-backend "exit $RC (want 2)" "$(head -n 3 "$ERR")"
fi
tl record --backend bpf --func main -o "$TMP/x.tl" -- true
if [ "$RC" = 1 ] && [ "$(wc -l <"$ERR")" = 1 ] && grep -q -- "--func works with the perf back end only" "$ERR"; then
	pass bpf/func-needs-perf
else
	fail bpf/func-needs-perf "exit $RC (want 1, one line)" "$(head -n 3 "$ERR")"
fi

cli_done
