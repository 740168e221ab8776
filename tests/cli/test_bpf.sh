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
# differ by one per edge of the window (2 in all), and by the few switches
# into idle that even a BPF program does not see under load (one in about
# four 200 ms windows beside stress-ng; 83 out against 80 into once in a
# full check): 2 + 5% of the larger count is allowed.  perf_event_open
# delivery on some kernels misses every switch out of idle on a CPU (0
# against thousands), which this still fails.  Needs root.
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
		n++; total += out; if (d > 2 + 0.05 * (out > into ? out : into)) printf "%s %s: %d out of idle, %d into idle; ", $1, $2, out, into }
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

# The kernel's clock lag rides on every switch and enqueue of an eBPF trace
# (format 1.6): at its median, schedule()'s time from its clock update to
# the switch, 0.3-6 us here (10th to 90th percentile); an offset estimate
# gone wrong reads 0 or milliseconds.  The perf back end has none.
tl dump "$TMP/bpf.tl"
n=$(awk '$3 == "switch" || $3 == "wakeup" || $3 == "wakeup_new"' "$OUT" | wc -l)
m=$(awk '$3 == "switch" || $3 == "wakeup" || $3 == "wakeup_new"' "$OUT" | grep -c ' clock_lag=[0-9]*ns')
med=$(sed -n 's/.* clock_lag=\([0-9]*\)ns.*/\1/p' "$OUT" | sort -n | awk '{ v[NR] = $1 } END { print NR ? v[int((NR + 1) / 2)] : -1 }')
got=
if [ "$n" -lt 10 ] || [ "$m" != "$n" ] || [ "$med" -lt 64 ] || [ "$med" -gt 20000 ]; then
	got="$m of $n switches and wakeups with a lag, median $med ns"
fi
if [ "$RC" = 0 ] && [ -z "$got" ]; then
	pass bpf/clock-lag
else
	fail bpf/clock-lag "exit $RC" "$got"
fi

# --backend perf records through perf_event_open, and says so.
tl record --backend perf -o "$TMP/perf.tl" -- "$WL" mutex --truth "$TMP/perf.json"
if [ "$RC" = 0 ] && tl report --json "$TMP/perf.tl" && grep -q '"backend": "perf"' "$OUT"; then
	pass bpf/perf-backend
else
	fail bpf/perf-backend "exit $RC" "$(grep '"backend"' "$OUT" | head -n 2)" "$(head -n 3 "$ERR")"
fi
tl dump "$TMP/perf.tl"
if [ "$RC" = 0 ] && grep -q ' switch ' "$OUT" && ! grep -q 'clock_lag=' "$OUT"; then
	pass bpf/perf-no-clock-lag
else
	fail bpf/perf-no-clock-lag "exit $RC" "$(grep -m 2 'clock_lag=' "$OUT")"
fi

# A forced overrun through the real path: an 8 KiB ring (-m 1) under four
# fork loops drops records (27 to 730 here; three loops lost none 1 run in
# 8 once the programs got cheaper, December 2026).  The loss must be
# reported: in the summary line, as LOST events in the trace, and in the
# report's header and JSON, with the same count.  Nothing may be invented
# in the gaps (exactly: tests/unit/test_sched_gaps.c): against the
# kernel's accounting every thread must agree, what the gaps hid being
# UNKNOWN (the fork loops' shells lost up to 53 switches and 8.7 ms on a CPU
# in their sleeps before sleepers became UNKNOWN for a gap).
# The loss is the precondition, not what is tested: a run that lost nothing (0 once in a full check
# with four loops) is tried again with more loops.
for loops in 4 6 8; do
	tl record -m 1 -o "$TMP/over.tl" -- sh -c 'for k in $(seq '$loops'); do (for i in $(seq 500); do /bin/true; done) & done; wait'
	lost=$(sed -n 's/.*recorded [0-9]* events (\([0-9]*\) lost).*/\1/p' "$ERR")
	[ "$RC" != 0 ] || [ "${lost:-0}" -gt 0 ] && break
done
dumped=$("$TL" dump --type lost "$TMP/over.tl" 2>/dev/null | awk '!/^#/ { sub(/.*count=/, ""); n += $1 } END { print n + 0 }')
if [ "$RC" = 0 ] && [ "${lost:-0}" -gt 0 ] && [ "$dumped" = "$lost" ] && tl report --json "$TMP/over.tl" &&
	grep -q "\"total\": $lost," "$OUT" && tl report "$TMP/over.tl" && grep -q "^!! LOST EVENTS: $lost events" "$OUT"; then
	pass bpf/forced-overrun
else
	fail bpf/forced-overrun "exit $RC, lost ${lost:-?} (want > 0), LOST events in the trace count $dumped (want the same)" \
		"$(grep -m1 -E 'total|LOST' "$OUT")" "$(tail -n 2 "$ERR")"
fi
# The self-check of the lossy trace; a second attempt records another
# (where the loss falls is chance).  Once in about ten full checks a
# /bin/true of 0.6 ms disagreed: 2 involuntary switches and 0.25 ms on a CPU
# hidden by a gap were not counted as unseen (December 2026, not yet
# explained: the trace of a failing attempt is kept as
# BUILD/artifacts/forced-overrun-failed.tl).  One such trace (2026-12-08): a
# seq's EXIT was lost, and its run from its switch-in to the gap, which its
# exit totals lacked, was not allowed for (tests/data/kcheck/exit-at-gap.tl).  Another, once in forty
# recordings, was not the gaps': exit totals read before the EXIT closed
# the window early (unit test_kcheck exit_totals_read_before_exit).
overrun_kernel() {
	local trace=$TMP/over.tl
	if [ -e "$TMP/over.tried" ]; then
		trace=$TMP/over2.tl
		"$TL" record -m 1 -o "$trace" -- sh -c 'for k in $(seq 4); do (for i in $(seq 500); do /bin/true; done) & done; wait' \
			>/dev/null 2>&1 || { echo "record failed"; return; }
	fi
	touch "$TMP/over.tried"
	tl report --all --json "$trace"
	if [ "$RC" != 0 ] || ! python3 "$(dirname "$0")/../live/check_kernel.py" --all "$OUT" >"$TMP/over.why"; then
		mkdir -p "$BUILD/artifacts" && cp "$trace" "$BUILD/artifacts/forced-overrun-failed.tl"
		echo "the self-check disagrees on a lossy trace: $(head -n 3 "$TMP/over.why" | tr '\n' ' ')"
	fi
}
retry_once bpf/forced-overrun-kernel overrun_kernel

# A short `record -p` of a thread that spins through both readings: each
# reading holds its run time as of the CPU's last tick (up to 4 ms old),
# so the kernel's delta over 100 ms was 1.5-2.5 ms off in 5 runs of 6 and
# the self-check cried foul; taken as of their update, every run agrees.
# Alone on its CPU (the recorder on the other), the spinner may see no
# switch for the whole recording: its interrupts, naming it from the first
# tick on, say it ran there since the start (docs/STATES.md), and it must
# be known at least 90% of the time (it was UNKNOWN up to its first switch:
# 77 ms of a 200 ms `record -a`, the self-check 39.6% off and excusing it;
# 100% of a 100 ms one here, once in 3).  Measured: 0% in 15 of 16; 3.6%
# once: this VM's agent thread preempted it and no tracepoint reported its
# switch back, which leaves up to a tick (4 ms) UNKNOWN (docs/STATES.md).
spinning_p() {
	local spin i
	taskset -c 1 sh -c 'while :; do :; done' &
	spin=$!
	for i in 1 2 3; do
		tl record -p "$spin" -d 0.1s -o "$TMP/spin.tl"
		[ "$RC" = 0 ] || { echo "record exit $RC: $(tail -n 1 "$ERR")"; break; }
		tl report --json "$TMP/spin.tl"
		if ! python3 "$(dirname "$0")/../live/check_kernel.py" --all "$OUT" >"$TMP/spin.why"; then
			# kept for a look.  Found this way (2026-12-07, a busy loop on the other CPU: 5 of
			# 90): a reading dated after the recorder was preempted in its middle (kwatch.c,
			# read_dated), a wait across the start reading taken from its second interval
			# (kcheck.c); what remains there is the host's steal, which /proc/stat counts in 10 ms
			mkdir -p "$BUILD/artifacts" && cp "$TMP/spin.tl" "$BUILD/artifacts/spinning-p-failed.tl"
			echo "run $i: $(head -n 1 "$TMP/spin.why")"
			break
		fi
		python3 -c 'import json, sys
t = [t for t in json.load(open(sys.argv[1]))["threads"] if t["tid"] == int(sys.argv[2])]
u = t[0]["state_ns"]["UNKNOWN"] / t[0]["lifetime_ns"] if t else 1
print("" if u <= 0.1 else "the spinner UNKNOWN %.1f%% of its life" % (100 * u))' "$OUT" "$spin" >"$TMP/spin.why"
		grep -q . "$TMP/spin.why" && { echo "run $i: $(cat "$TMP/spin.why")"; break; }
	done
	kill "$spin" 2>/dev/null
	wait "$spin" 2>/dev/null
}
retry_once bpf/self-check-spinning-p spinning_p

# A system-wide recording agrees with the kernel on every thread.  On this project's VM no switch out
# of the agent's threads (PID 1) is ever reported, and their stays ran on to the CPU's next switch
# (17-29 ms against the kernel's 0.3-0.4 ms in 1 s, THE KERNEL DISAGREES in 3 of 3) until an interrupt
# of the idle task ended them (docs/STATES.md).
system_check() {
	tl record -a -d 0.5s -o "$TMP/sys.tl"
	[ "$RC" = 0 ] || { echo "record exit $RC: $(tail -n 1 "$ERR")"; return; }
	tl report --json "$TMP/sys.tl"
	if ! python3 "$(dirname "$0")/../live/check_kernel.py" --all "$OUT" >"$TMP/sys.why"; then
		# kept for reading: an agent thread's unreported switches once made 40 ms of its 0.3 ms run
		mkdir -p "$BUILD/artifacts" && cp "$TMP/sys.tl" "$BUILD/artifacts/self-check-system-wide-failed.tl"
		echo "$(head -n 2 "$TMP/sys.why") (trace kept: $BUILD/artifacts/self-check-system-wide-failed.tl)"
	fi
}
retry_once bpf/self-check-system-wide system_check

# An unknown back end: one line, exit 2.
tl record --backend dtrace -o "$TMP/x.tl" -- true
if [ "$RC" = 2 ] && grep -q "unknown back end 'dtrace' (bpf or perf)" "$ERR" && [ ! -e "$TMP/x.tl" ]; then
	pass bpf/unknown-backend
else
	fail bpf/unknown-backend "exit $RC (want 2)" "$(head -n 3 "$ERR")"
fi
# --func on both back ends (eBPF uprobes by default, tracefs ones with perf): every call of wlf_spin
# that wl_funcs counted itself is one FUNC_ENTRY and one FUNC_EXIT of its thread (tests/live/funcs.sh
# checks the rest on the default back end).
for be in bpf perf; do
	tl record --backend $be --func wlf_spin -o "$TMP/f-$be.tl" -- "$BUILD/tests/wl_funcs" --truth "$TMP/f-$be.json"
	[ "$RC" = 0 ] && tl dump --type func_entry,func_exit "$TMP/f-$be.tl"
	bad=$(python3 - "$TMP/f-$be.json" "$OUT" <<'EOF'
import json, re, sys
truth = json.load(open(sys.argv[1]))
want = {t["tid"]: t["calls_wlf_spin"] for t in truth["threads"].values() if t["calls_wlf_spin"]}
got = {}
for line in open(sys.argv[2]):
    m = re.search(r"(func_entry|func_exit)\s.*tid=(\d+)", line)
    if m and "wlf_spin" in line:
        got.setdefault(int(m.group(2)), [0, 0])[m.group(1) == "func_exit"] += 1
bad = [("tid %d: %s entries and exits, want %d" % (t, got.get(t), n)) for t, n in want.items() if got.get(t) != [n, n]]
print("; ".join(bad) if want else "no calls in the truth")
EOF
)
	if [ "$RC" = 0 ] && [ -z "$bad" ]; then
		pass bpf/func-$be
	else
		fail bpf/func-$be "exit $RC; $bad" "$(head -n 3 "$ERR")"
	fi
done

# With a command (or -p), only events about the recorded processes leave the
# kernel (record.bpf.c, "Filtering"); other processes' CPU time comes as the
# kernel's totals.  The oracle is the kernel's own run time of a busy
# neighbour pinned to CPU 0 (/proc/PID/schedstat), read just before and
# after the recording: its share of CPU 0 in the report cannot exceed that
# by more than the CPU's steal time (the kernel does not count it as run
# time; /proc/stat, in 10 ms ticks, so 2 ticks of rounding), nor fall short
# of it by more than the wall time outside the trace's window, the time
# before the CPU's first switch (unknown) and the interrupts the totals set
# apart; each side with the self-check's tolerance, max(1% of the window,
# 1 ms), for the kernel's own dating of switches (lib/analysis/kcheck/kcheck.h:
# seen once under the sanitizers, 0.9 ms short of the bound without it).  And the trace holds no event of the
# neighbour's but the switches and wakeups that name it as "other".
taskset -c 0 sh -c 'while :; do :; done' &
nb=$!
sleep 0.1
s0=$(awk '$1 == "cpu0" { print $9 }' /proc/stat)
t0=$(date +%s%N)
r0=$(cut -d' ' -f1 "/proc/$nb/schedstat")
tl record -o "$TMP/filt.tl" -- taskset -c 1 "$WL" mutex --truth "$TMP/filt.json"
rec_rc=$RC
rec_err=$(cat "$ERR")
r1=$(cut -d' ' -f1 "/proc/$nb/schedstat")
t1=$(date +%s%N)
s1=$(awk '$1 == "cpu0" { print $9 }' /proc/stat)
kill "$nb"
wait "$nb" 2>/dev/null
tl dump "$TMP/filt.tl"
cp "$OUT" "$TMP/filt.dump"
tl report --all --json "$TMP/filt.tl"
verdict=$(python3 - "$OUT" "$TMP/filt.dump" "$nb" "$r0" "$r1" "$t0" "$t1" "$s0" "$s1" <<'PY'
import json, re, sys
rep, dump, nb = json.load(open(sys.argv[1])), sys.argv[2], int(sys.argv[3])
r0, r1, t0, t1, s0, s1 = (int(x) for x in sys.argv[4:10])
bad = []
win = rep["window"]["to_ns"] - rep["window"]["from_ns"]
if any(t["pid"] == nb for t in rep["threads"]):
    bad.append("the neighbour has thread rows")
cpu0 = rep["cpus"][0]
share = sum(p["ns"] for p in cpu0["processes"] if p["pid"] == nb)
delta, outside = r1 - r0, (t1 - t0) - (win or 0)
steal = (s1 - s0 + 2) * 10_000_000
tol = max((win or 0) // 100, 1_000_000)
if not win:
    bad.append("no window_ns in the report")
elif not (delta - outside - cpu0["irq_ns"] - cpu0["softirq_ns"] - cpu0["unknown_ns"] - tol <= share <= delta + steal + tol):
    bad.append(f"neighbour share {share} ns, kernel run time {delta} ns, outside the window {outside} ns, steal <= {steal} ns")
for c in rep["cpus"]:
    tot = c["busy_ns"] + c["idle_ns"] + c["irq_ns"] + c["softirq_ns"] + c["unknown_ns"]
    if win and abs(tot - win) > 1000:
        bad.append(f"cpu {c['cpu']}: its times sum to {tot} ns, the window is {win} ns")
mine = re.compile(r"(?:tid|prev|next|woken)=%d\(" % nb)
strays = [l for l in open(dump) if mine.search(l) and " other=" not in l and " filtered " not in l]
if strays:
    bad.append(f"{len(strays)} events of the neighbour's left the kernel, e.g. {strays[0].strip()}")
print("; ".join(bad))
import os
if os.environ.get("TL_SHOW"): print(f"share {share} delta {delta} outside {outside} unknown {cpu0['unknown_ns']} steal<= {steal}", file=sys.stderr)
PY
)
if [ "$rec_rc" = 0 ] && [ -z "$verdict" ] && echo "$rec_err" | grep -q 'events of other processes left in the kernel'; then
	pass bpf/filter-neighbour
else
	fail bpf/filter-neighbour "record exit $rec_rc; ${verdict:-}" "$(echo "$rec_err" | tail -n 2)"
fi

# A recorded thread woken by a process that is not recorded (format 1.7): the wakeup names its waker,
# flagged other=waker, and the waker's mask stays in the kernel (no AFFINITY).  The writer, a shell of
# this script's, wakes the recorded shell by opening the fifo it waits on, once the shell sleeps there
# (state S in /proc: the open is its only wait).  It used to wait a fixed 0.2 s after the shell wrote
# its pid, and 3 times in full checks' ASan tier the shell was not there yet: the writer's open then
# waits for the reader's, which wakes the writer instead (no wakeup by the writer recorded at all).
# The waker is the current task of sched_waking: sched_wakeup fires where the woken task is queued,
# and when that CPU is idle the kernel queues the wakeup to it by an IPI (TTWU_QUEUE), so its current
# task is the idle one ("waker=0(swapper)": attempt 1 failed so in about one full check of three, the
# waking event, not looked at then, naming the writer).  Still a live test with one retry (retry_once).
other_waker() {
	local writer wrc wake
	rm -f "$TMP/wfifo" "$TMP/wready"
	mkfifo "$TMP/wfifo"
	(while [ ! -s "$TMP/wready" ]; do sleep 0.01; done
	 r=$(cat "$TMP/wready")
	 while [ "$(cut -d' ' -f3 "/proc/$r/stat" 2>/dev/null)" != S ]; do sleep 0.01; done
	 sleep 0.05
	 echo x >"$TMP/wfifo") &
	writer=$!
	tl record -o "$TMP/waker.tl" -- sh -c "echo \$\$ >'$TMP/wready'; read x <'$TMP/wfifo'"
	wrc=$RC
	wait "$writer"
	tl dump "$TMP/waker.tl"
	wake=$(grep -E "^ *[0-9.]+ \[[0-9]+\] waking +woken=[0-9]+\(sh\) waker=$writer[( ]" "$OUT" | head -n 1)
	if [ "$wrc" != 0 ] || ! echo "$wake" | grep -q ' other=waker' || grep -Eq "affinity +tid=$writer\(" "$OUT"; then
		echo "record exit $wrc; want a wakeup by $writer flagged other=waker and no AFFINITY of it:" \
			"${wake:-no waking by $writer (wakings: $(grep -cE ' waking ' "$OUT"))}" \
			"$(grep -E "affinity +tid=$writer\(" "$OUT")" \
			"$(grep -E ' (waking|wakeup|switch) .*\(sh\)' "$OUT" | cut -c1-120 | head -n 8)"
	fi
}
retry_once bpf/filter-other-waker other_waker

# A block I/O completion interrupts whatever runs: its tid is only the context. Another process's
# task there (two spinners beside a dd of direct writes) must not bring its mask out of the
# kernel (an AFFINITY): the completion is flagged other=tid. Before: 2 AFFINITY events of other
# threads in such a recording.
io_context() {
	local n
	(timeout 1.5 sh -c 'while :; do :; done' &
	 timeout 1.5 sh -c 'while :; do :; done' &
	 timeout 1.5 dd if=/dev/zero of="$TMP/ddf" bs=64k count=100000 oflag=direct 2>/dev/null &
	 wait) &
	sleep 0.2
	tl record -o "$TMP/io.tl" -- sleep 0.5
	wait
	rm -f "$TMP/ddf"
	tl dump --type block_complete "$TMP/io.tl"
	n=$(grep -c ' block_complete ' "$OUT")
	if [ "$RC" != 0 ] || [ "$n" -lt 100 ]; then
		echo "SKIP only $n block completions recorded (direct writes to $TMP)"
		return
	fi
	tl dump --type affinity "$TMP/io.tl"
	grep -E '^ *[0-9.]+ \[[0-9]+\] affinity ' "$OUT" | grep -v "tid=$(sed -n 's/^# target: command \([0-9]*\).*/\1/p' "$OUT")(" | head -n 2
}
res=$(io_context)
case $res in
"") pass bpf/filter-io-context ;;
SKIP*) skip bpf/filter-io-context "${res#SKIP }" ;;
*) fail bpf/filter-io-context "AFFINITY of a thread the recording does not record" "$res" ;;
esac

cli_done
