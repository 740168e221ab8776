#!/bin/bash
# test_diagnose.sh - `threadlens diagnose` on recordings of workloads with a
# known problem, and on healthy ones.
#
#   tests/cli/test_diagnose.sh BUILD_DIR
#
# Each detector must fire on its own workload and name the right thread,
# and stay silent on the healthy ones (docs/DIAGNOSE.md):
#   lock-contention  wl_states mutex: 'waiter' blocks 200 ms on a mutex that
#                    'holder' holds; the finding names holder as the holder
#   io-bound         wl_states io: 'reader' reads with O_DIRECT; wl_kernel
#                    ioqueue: 'reader' feeds 'consumer', named as starving;
#                    a pipeline `dd iflag=direct | wc`: wc, another
#                    process, its consumer
#   wake-storm       wl_kernel poll: 'poller' times out every 100 us
#   preemption-starvation  wl_states preempt: 'victim' preempted by 'fifo'
#                    (SCHED_FIFO) a quarter of its life; fifo is named
#   migration-storm  wl_kernel migrate: 'migrant' moves between two CPUs
#   single-thread-bottleneck  wl_kernel serial: 'maker' computes, 'userA'
#                    and 'userB' wait for its items; both are named
#   irq-interference  wl_kernel net: 'sender' pays NET_RX softirq for its
#                    loopback datagrams (and 'receiver' is no wake storm)
#   barrier-imbalance  wl_kernel imbalance: 'worker1' has 3 ms of work per
#                    round, 'worker0' 1 ms (region "blocks", a barrier)
#   pointless-parallelism  wl_kernel tiny: 'parent' hands 'helper0' and
#                    'helper1' 20 us each per round
#   priority-inversion  wl_kernel inversion: 'high' waits on a mutex 'low'
#                    holds while 'medium' runs (SCHED_FIFO 30, 10, 20)
#   barrier-imbalance (OpenMP)  wl_fast --omp 2 outer static: no markers; the
#                    region is the function GCC outlined from its loop
#                    (uprobes); with a dynamic schedule, none
#   spin-waiting     wl_sort --omp 2 outer dynamic: the main thread fills and
#                    merges the keys alone between the regions while the
#                    OpenMP worker spins in libgomp (65-88% of its time on
#                    a CPU); wl_fast's workers spin 3% (no finding)
#   serialized-threads  wl_kernel baton: 't0'..'t2' compute in turn, passing
#                    a turn on a condition variable; three Python threads
#                    in a loop take turns on its global interpreter lock
#   oversubscription wl_kernel oversub: four workers compute at once on the
#                    CPUs, then one merges alone (the waiting thread named
#                    first varies: "kind:*"); beside a busy process of the
#                    same command, no oversubscription (no CPU left idle)
#   bottleneck-processes  wl_stage: a process 'encode' pipes items to its
#                    child 'mux', which waits for them: single-thread
#                    bottleneck across processes, its cost against mux's
#                    own clock
#   worker-imbalance  wl_spawn: each round 'spawn' creates two workers
#                    with 60 and 20 ms of work and joins them; the loss
#                    against the workers' own clocks; 30 and 30 ms, none
#   thread-churn     wl_spawn with 4000 threads of 10 us: a thread per
#                    task; the waits to run against the kernel's and the
#                    workload's own clocks; the same with child processes
#                    (--procs); children that exec /bin/true, their time
#                    before the exec against their own CPU clocks
#   yield-spinning   wl_yspin: 'waiter' waits for 'yspin' by calling
#                    sched_yield in a loop (each back end); the calls and
#                    the time in runs against the waiter's own count and
#                    its CPU clock in its loops; --block (a condition
#                    variable), none
#   lock-holder      what the holder did while a lock's waiter waited:
#                    asleep in wl_states mutex (against its own clock), on
#                    a CPU in wl_kernel contend; the cause follows
#   lock-convoy      wl_kernel convoy (four threads pass one mutex, on a CPU
#                    only): the holders before a holder that waited too
#                    count, never asleep; each back end
#   affinity-bound   wl_states quantum: busyA and busyB pinned to CPU 1
#                    while CPU 0 idles; their waits beside it against the
#                    kernel's run-queue wait and CPU 0's idle time; wl_states
#                    preempt (victim and fifo on CPU 1) has it too; nothing
#                    else is found in quantum (two threads sharing a CPU
#                    take turns: READY_QUANTUM, not preemption)
#   healthy          wl_states spin (pinned, alone on its CPU), wl_frames
#                    (a pipeline of condition variables: waiting for work is
#                    not contention), wl_kernel pingpong (message passing
#                    switches as often as a poller, but is woken by its
#                    partner; ping and pong are pinned to two CPUs, and a
#                    wakeup's wait for the other CPU to leave idle is not
#                    affinity-bound), wl_kernel balanced (the imbalance workload
#                    with 2 ms each), wl_kernel fit (oversub's work on two
#                    workers: no oversubscription), wl_kernel inherit (inversion with a priority-
#                    inheritance mutex: no inversion; its other findings
#                    are not judged)
#   cpu-throttled    wl_states spin (one thread, CPU 1) and quantum (two on
#                    CPU 1) in a cgroup of half a CPU (50 ms every 100 ms):
#                    the held-back waits against the cgroup's own accounting
#                    (cpu.stat: nr_throttled, throttled time)
#   thundering-herd  wl_pool herd: 'producer' broadcasts each item to six
#                    waiting workers; its findings and the wakeups that
#                    found nothing against the workers' own count; wl_pool
#                    signal (one woken per item) has none
#   cpu-saturation   six processes of wl_states spin (300 ms of CPU each) on
#                    two CPUs: each queued about twice as long as it ran,
#                    asking for about 6 CPUs; two of them, none
# The demo (build/demo/tl-demo): each of its five bugs alone gives its
# finding (judged on that kind: a bug's side effects are true findings too),
# and --bugs none gives none at all.
# Then the errors: a missing file, a bad threshold.  Recording needs root;
# python3 reads the JSON.
. "$(dirname "$0")/lib.sh"
cli_init "$1"

# diag_once NAME WANT CMD...: record CMD (with $REC_ARGS, under $REC_WRAP),
# diagnose it; WANT lists "kind:thread" (the finding's first thread) and
# "kind:thread:other" (it names other too) that must be there, and
# "?kind:thread" that may be (a true side effect that comes and goes), and
# nothing else may be (with $ONLY set to a kind, nothing else of that kind).
# Prints the problems; nothing if it passed.
diag_once() {
	name=$1
	want=$2
	shift 2
	${REC_WRAP:-} "$TL" record ${REC_ARGS:-} -o "$TMP/$name.tl" -- "$@" >"$OUT" 2>"$ERR"
	RC=$?
	if [ "$RC" != 0 ]; then
		echo "record exit $RC: $(tail -n 2 "$ERR")"
		return
	fi
	tl diagnose --json "$TMP/$name.tl"
	if [ "$RC" != 0 ]; then
		echo "diagnose exit $RC: $(head -n 2 "$ERR")"
		return
	fi
	python3 - "$OUT" "$want" "${ONLY:-}" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
want = [w.lstrip("?") for w in sys.argv[2].split()]
must = [w for w in sys.argv[2].split() if not w.startswith("?")]
found = [(f["kind"], [t["name"] for t in f["threads"]]) for f in d["findings"]
         if not sys.argv[3] or f["kind"] == sys.argv[3]]
bad = []
for w in must:
    kind, thread, *others = w.split(":")
    if not any(k == kind and (thread == "*" or ts[0] == thread) and all(o in ts for o in others) for k, ts in found):
        bad.append("no %s finding on %s%s" % (kind, thread, " naming " + ",".join(others) if others else ""))
for k, ts in found:
    if not any(w.split(":")[0] == k and w.split(":")[1] in ("*", ts[0] if ts else "") for w in want):
        bad.append("unexpected %s finding on %s" % (k, ts[0] if ts else "?"))
for det in d["detectors"]:
    if det["kind"] in ("lock-contention", "io-bound", "wake-storm", "preemption-starvation",
                       "migration-storm", "single-thread-bottleneck", "irq-interference", "oversubscription",
                       "priority-inversion", "serialized-threads", "spin-waiting") and (det["skipped"] or not det["checked"]):
        bad.append("detector %s did not run: %s" % (det["kind"], det["skipped"]))
if bad:
    bad.append("found: %s" % (found or "nothing"))
print("; ".join(bad))
PY
}

# twice NAME FN ARGS...: FN ARGS prints its problems, nothing if it passed;
# "cannot run: WHY" is a skip.  A recording is a live run: one that another
# process disturbed (a neighbour that preempted a worker for most of its life
# was seen once in 20 runs) gets one more attempt.
twice() {
	name=$1
	shift
	got=$("$@")
	case $got in
	"") pass "diagnose/$name" && return ;;
	"cannot run: "*) skip "diagnose/$name" "${got#cannot run: }" && return ;;
	esac
	again=$("$@")
	if [ -z "$again" ]; then
		pass "diagnose/$name"
		echo "  (passed on attempt 2; attempt 1: $got)"
	else
		fail "diagnose/$name" "$got" "attempt 2: $again"
	fi
}

# diag NAME WANT CMD...: diag_once, passed or failed (empty WANT: no finding at all).
diag() {
	twice "$1" diag_once "$@"
}

# cg_new NAME: a cgroup whose tasks may use 50 ms of CPU every 100 ms (CPU
# controller of cgroup v2, else v1); its directory in CG, its cpu.stat's
# throttled time field and unit in CG_FIELD, CG_NS.  1 (with CG_WHY) if none.
cg_new() {
	CG=
	if grep -qw cpu /sys/fs/cgroup/cgroup.controllers 2>/dev/null; then
		grep -qw cpu /sys/fs/cgroup/cgroup.subtree_control || echo +cpu >/sys/fs/cgroup/cgroup.subtree_control
		CG=/sys/fs/cgroup/$1 CG_FIELD=throttled_usec CG_NS=1000
		mkdir "$CG" && echo "50000 100000" >"$CG/cpu.max" && return 0
	elif [ -f /sys/fs/cgroup/cpu/cpu.cfs_quota_us ]; then
		CG=/sys/fs/cgroup/cpu/$1 CG_FIELD=throttled_time CG_NS=1
		mkdir "$CG" && echo 100000 >"$CG/cpu.cfs_period_us" && echo 50000 >"$CG/cpu.cfs_quota_us" && return 0
	fi
	CG_WHY="no CPU controller of cgroups to limit a workload with (/sys/fs/cgroup${CG:+: $CG failed})"
	[ -n "$CG" ] && rmdir "$CG" 2>/dev/null
	CG=
	return 1
}

# throttled_once NAME THREADS SCENARIO...: record wl_states SCENARIO in a new
# cgroup of half a CPU; each of THREADS (comma-separated) must be held back
# as often as the cgroup was throttled (nr_throttled) by the thread's end
# at least, and at most by the workload's joins (WL_CG_STAT: the threads
# read cpu.stat as they end, the main thread after the joins; measured:
# one thread ended, the other was throttled once more before its own end;
# the ASan build's leak check after the joins was throttled once, holding
# back only the main thread), and for as long (throttled time)
# within 200 us a throttle (measured: 13-26 us: from
# the quota running out to the switch to idle, and from the period's
# restart to the switch back; a VM wakes an idle CPU in tens of us), and
# diagnose's only finding is cpu-throttled naming them (and any other
# thread of the workload held back, such as that main thread).  The recorder runs
# on CPU 0, the throttled threads on CPU 1: a wait is held back while its
# CPU is idle, and the recorder built with ASan once ran 50 ms on CPU 1
# inside a throttle (held back 211.9 ms of the cgroup's 261.9).  Prints the
# problems.
throttled_once() {
	cg_new "tl-test-$$-$1" || { echo "cannot run: $CG_WHY"; return; }
	WL_CG_STAT="$CG/cpu.stat" taskset -c 0 "$TL" record -o "$TMP/$1.tl" -- \
		sh -c 'echo $$ >"$1/cgroup.procs" && shift && exec "$@"' sh "$CG" \
		"$BUILD/tests/wl_states" "${@:3}" --truth "$TMP/$1.json" >"$OUT" 2>"$ERR"
	RC=$?
	cp "$CG/cpu.stat" "$TMP/$1.stat"
	rmdir "$CG"
	if [ "$RC" != 0 ]; then
		echo "record exit $RC: $(tail -n 2 "$ERR")"
		return
	fi
	"$TL" report --json "$TMP/$1.tl" >"$OUT" 2>"$ERR" && "$TL" diagnose --json "$TMP/$1.tl" >"$OUT.d" 2>>"$ERR" ||
		{ echo "report or diagnose failed: $(head -n 2 "$ERR")"; return; }
	python3 - "$OUT" "$OUT.d" "$TMP/$1.stat" "$CG_FIELD" "$CG_NS" "$2" "$TMP/$1.json" <<'PY'
import json, sys
rep, dg, truth = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), json.load(open(sys.argv[7]))
stat = dict(l.split() for l in open(sys.argv[3]) if l.strip())
total, total_ns = int(stat["nr_throttled"]), int(stat[sys.argv[4]]) * int(sys.argv[5])
want = sys.argv[6].split(",")
bad = []
for name in want:
    ts = [t for t in rep["threads"] if t["name"] == name]
    tt = truth["threads"].get(name, {})
    if len(ts) != 1 or "cg_throttled" not in tt:
        bad.append("%d threads named %s, truth %s" % (len(ts), name, tt))
        continue
    h, lo, lo_ns, n, ns = (ts[0]["throttled"], tt["cg_throttled_end"], tt["cg_throttled_end_ns"],
                           tt["cg_throttled"], tt["cg_throttled_ns"])
    if lo < 2:
        bad.append("the cgroup was throttled %d times: the workload did not reach the limit" % lo)
    if not lo <= h["count"] <= n or not lo_ns - 200000 * lo <= h["wait_ns"] <= ns + 200000 * n:
        bad.append("%s held back %d times for %.3f ms; the kernel: throttled %d times for %.3f ms by its end, "
                   "%d for %.3f ms by the joins (%d for %.3f ms in all)" %
                   (name, h["count"], h["wait_ns"] / 1e6, lo, lo_ns / 1e6, n, ns / 1e6, total, total_ns / 1e6))
# quantum pins both threads to CPU 1 beside an idle CPU 0: affinity-bound is true of it too
found = [(f["kind"], [t["name"] for t in f["threads"]]) for f in dg["findings"] if f["kind"] != "affinity-bound"]
also = {t["name"] for t in rep["threads"] if t["throttled"]["count"]}
if [k for k, _ in found] != ["cpu-throttled"] or not set(want) <= set(found[0][1]) <= set(want) | also:
    bad.append("findings: %s (want cpu-throttled naming %s)" % (found or "none", ",".join(want)))
print("; ".join(bad))
PY
}

throttled() {
	twice "$1" throttled_once "$@"
}

# holder_once NAME: what a lock's holder did while the waiter waited.
# wl_states mutex: 'holder' sleeps 200 ms holding the mutex that 'waiter'
# blocks on; the waiter's lock waits must split as the holder asleep for
# the holder's own measure of its sleep, or the waiter's of its wait if
# shorter (it may begin waiting late), within 200 us (its clock brackets
# the sleep call, the trace dates the switch out and the wakeup: a few us
# apart), on a CPU or queued under 1 ms, and diagnose's lock-contention
# must say the holders sleep or block.  wl_kernel contend: 'lockA' and
# 'lockB' compute 20 us inside the mutex, so each one's lock waits must
# have the holder on a CPU at least 90% of them (measured 99.9%; the rest
# the holder waiting for a CPU).  Prints the problems.
holder_once() {
	"$TL" record -o "$TMP/$1.tl" -- "$BUILD/tests/wl_states" mutex --truth "$TMP/$1.json" >"$OUT" 2>"$ERR" ||
		{ echo "record exit $?: $(tail -n 2 "$ERR")"; return; }
	"$TL" record -o "$TMP/$1-contend.tl" -- "$BUILD/tests/wl_kernel" contend >"$OUT" 2>"$ERR" ||
		{ echo "record exit $?: $(tail -n 2 "$ERR")"; return; }
	"$TL" report --json "$TMP/$1.tl" >"$OUT" 2>"$ERR" && "$TL" diagnose --json "$TMP/$1.tl" >"$OUT.d" 2>>"$ERR" &&
		"$TL" report --json "$TMP/$1-contend.tl" >"$OUT.c" 2>>"$ERR" ||
		{ echo "report or diagnose failed: $(head -n 2 "$ERR")"; return; }
	python3 - "$OUT" "$OUT.d" "$TMP/$1.json" "$OUT.c" <<'PY'
import json, sys
rep, dg, truth, con = (json.load(open(a)) for a in sys.argv[1:5])
bad = []
w = [t for t in rep["threads"] if t["name"] == "waiter"]
# the holder's sleep inside the waiter's wait: the shorter of the two clocks (the waiter once began
# waiting 0.29 ms after the holder began its sleep, when its CPU came late)
slept = min(truth["threads"]["holder"]["SLEEPING_ns"], truth["threads"]["waiter"]["SYNC_WAIT_ns"])
if len(w) != 1:
    bad.append("%d threads named waiter" % len(w))
else:
    h = w[0]["lock_holder"]
    if abs(h["asleep_ns"] - slept) > 200000 or h["running_ns"] + h["queued_ns"] > 1000000:
        bad.append("the holder while waiter waited: %s; it slept %.3f ms holding the lock" % (h, slept / 1e6))
f = [x for x in dg["findings"] if x["kind"] == "lock-contention"]
if len(f) != 1 or not f[0]["cause"].startswith("the holders sleep or block"):
    bad.append("lock-contention: %s" % ([x["cause"] for x in f] or "none"))
for name in ("lockA", "lockB"):
    t = [t for t in con["threads"] if t["name"] == name]
    if len(t) != 1 or not t[0]["lock_wait_ns"] or t[0]["lock_holder"]["running_ns"] < 0.9 * t[0]["lock_wait_ns"]:
        bad.append("%s: holders while it waited %s" % (name, [(x["lock_wait_ns"], x["lock_holder"]) for x in t]))
print("; ".join(bad))
PY
}

# convoy_once NAME [RECORD-ARGS]: wl_kernel convoy: 'conv0'..'conv3' hold
# one mutex 300 us on a CPU and work 100 us outside it, so a waiter's last
# holder has mostly waited for the lock itself (a convoy).  The holders
# never sleep or block holding it (the workload computes only), so each
# thread's lock waits must split with at most 0.5% asleep or blocked
# (measured 0.0%) and 2% unknown (measured up to 0.8%: at the start, and
# where a holder's intervals are older than its ring or 8 holders back
# along the convoy; with two busy loops beside it up to 7.5%, before a
# holder that had exited by the end of the wait its convoy part reached
# was found: now 0-0.3%, and 3.0% where the kernel did not report a
# switch, so 10 ms more for each such switch) and a convoy in at least 20% of its waits (measured
# 49-63%), and diagnose must give one lock-contention finding, of the
# mutex, with the four threads as its waiters, blaming long critical
# sections (the cause names the convoy from 50%, so not always): before
# findings were per lock, there was one per thread.  The report's locks (per futex word): the
# process's most waited-on lock must be the workload's mutex (its
# address, from the truth file), with the four threads as its waiters
# and holders, named by the recorder as the static that holds it with
# the mutex's offset in it (both from the truth file) and the program's
# file ("r.2+0x2b0 (wl_kernel)": GCC names the static r.2), and each
# thread's lock waits must add up over the locks to its lock_wait_ns,
# none of no known word.  Before holders were
# followed along the convoy, 35-53% of the
# waits read "asleep" (the last holder's own wait for the lock) and the
# cause said the holders sleep inside the critical section.
convoy_once() {
	co_name=$1
	shift
	"$TL" record "$@" -o "$TMP/$co_name.tl" -- "$BUILD/tests/wl_kernel" convoy --truth "$TMP/$co_name.json" \
		>"$OUT" 2>"$ERR" || { echo "record exit $?: $(tail -n 2 "$ERR")"; return; }
	"$TL" report --json "$TMP/$co_name.tl" >"$OUT" 2>"$ERR" && "$TL" diagnose --json "$TMP/$co_name.tl" >"$OUT.d" 2>>"$ERR" ||
		{ echo "report or diagnose failed: $(head -n 2 "$ERR")"; return; }
	python3 - "$OUT" "$OUT.d" "$TMP/$co_name.json" <<'PY'
import json, sys
rep, dg, truth = (json.load(open(a)) for a in sys.argv[1:4])
bad = []
conv = [t for t in rep["threads"] if t["name"].startswith("conv")]
addr = "0x%x" % truth["threads"]["conv0"]["lock_addr"]
procs = [p for p in rep["processes"] if conv and p["pid"] == conv[0]["pid"]]
locks = procs[0]["locks"] if procs else []
names = sorted(t["name"] for t in conv)
lname = "+0x%x (wl_kernel)" % truth["threads"]["conv0"]["lock_offset"]
if not locks or locks[0]["addr"] != addr or sorted(x["name"] for x in locks[0]["waiter_threads"]) != names or \
        sorted(x["name"] for x in locks[0]["holder_threads"]) != names or procs[0]["locks_unknown"]["waits"] or \
        not locks[0]["name"].endswith(lname):
    bad.append("locks: %s (the mutex is at %s, *%s)" %
               ([(x["addr"], x["name"], x["waits"], x["waiters"]) for x in locks], addr, lname))
for t in conv:
    on = sum(w["wait_ns"] for x in locks for w in x["waiter_threads"] if w["tid"] == t["tid"])
    if on != t["lock_wait_ns"]:
        bad.append("%s: %d ns of lock waits, %d over its locks" % (t["name"], t["lock_wait_ns"], on))
if len(conv) != 4:
    bad.append("%d conv threads" % len(conv))
# unknown: 2% of the waits, and 10 ms for each switch the kernel did not report (its thread's state is
# unknown from its switch-out to the next sign of it: 8 ms, two ticks, in a recording under load)
slack = 10e6 * rep["inferred"]["switches"]
for t in conv:
    h, w = t["lock_holder"], t["lock_wait_ns"]
    if not w or h["asleep_ns"] + h["blocked_ns"] > 0.005 * w or h["unknown_ns"] > 0.02 * w + slack or \
            t["lock_convoy_ns"] < 0.2 * w:
        bad.append("%s: lock waits %d ns, holders %s, convoy %d" % (t["name"], w, h, t["lock_convoy_ns"]))
f = [x for x in dg["findings"] if x["kind"] == "lock-contention"]
if len(f) != 1 or "): long critical sections" not in f[0]["cause"] or not locks or locks[0]["name"] not in f[0]["title"] or \
        sorted(x["name"] for x in f[0]["threads"] if x["role"] == "waiter") != names:
    bad.append("lock-contention: %s" % ([(x["title"], x["threads"], x["cause"]) for x in f] or "none"))
print("; ".join(bad))
PY
}

# rec_diag NAME CMD...: record CMD (its standard output, the workload's
# line of truth, into $TMP/NAME.truth) and diagnose it into $OUT as JSON;
# prints the problem and returns 1 if either failed.
rec_diag() {
	rd_name=$1
	shift
	"$TL" record -o "$TMP/$rd_name.tl" -- "$@" >"$TMP/$rd_name.truth" 2>"$ERR" ||
		{ echo "record exit $?: $(tail -n 2 "$ERR")"; return 1; }
	"$TL" diagnose --json "$TMP/$rd_name.tl" >"$OUT" 2>"$ERR" ||
		{ echo "diagnose failed: $(head -n 2 "$ERR")"; return 1; }
}

# stage_once NAME: record wl_stage (a process 'encode' computes 20 ms per
# item and pipes 50 items to its child 'mux', which waits for each);
# diagnose's only finding must be single-thread-bottleneck on encode naming
# mux, in another process, and its cost (mux's waits that encode's
# wakeups ended) must match the workload's clocks: each item carries the
# encoder's clock right before its write(), and mux sums, over the reads
# that began before it, the time from the read's start to that write
# (mux_wait_ns), within 20 us a read (the steps from a read's start to its
# block and from the clock read to the wakeup inside write(): +0.0 to
# +2.0 us a read measured, also beside a busy stress-ng), and no more than
# mux's time in read().  The way from the wakeup back into mux is not in
# the cost: a wakeup across CPUs waits for the IPI and the idle CPU's exit
# from idle (92-206 us a read measured with the read's return, varying
# with the VM's host; bounding the cost by it failed on a noisy host).
# Prints the problems.
stage_once() {
	rec_diag "$1" "$BUILD/tests/wl_stage" --items 50 --work 20000 || return
	python3 - "$OUT" "$TMP/$1.truth" <<'PY'
import json, sys
dg, truth = json.load(open(sys.argv[1])), json.loads(open(sys.argv[2]).read().strip().splitlines()[-1])
bad = []
found = [(f["kind"], [t["name"] for t in f["threads"]]) for f in dg["findings"]]
if found != [("single-thread-bottleneck", ["encode", "mux"])]:
    bad.append("findings: %s (want single-thread-bottleneck on encode naming mux)" % (found or "none"))
else:
    f = dg["findings"][0]
    tol = 20000 * truth["mux_reads"]
    lo, hi = truth["mux_wait_ns"] - tol, min(truth["mux_wait_ns"] + tol, truth["mux_read_ns"])
    if not lo <= f["cost_ns"] <= hi:
        bad.append("cost %.3f ms; mux waited %.3f ms for the encoder's writes by the clocks, in %.3f ms of read() "
                   "in %d reads, %.3f ms of it on a run queue (want %.3f-%.3f)" %
                   (f["cost_ns"] / 1e6, truth["mux_wait_ns"] / 1e6, truth["mux_read_ns"] / 1e6, truth["mux_reads"],
                    truth["mux_runq_ns"] / 1e6, lo / 1e6, hi / 1e6))
    if "1 in other processes" not in f["title"]:
        bad.append("title: %s" % f["title"])
print("; ".join(bad))
PY
}

# spawn_once NAME [ARGS]: record wl_spawn ARGS (each of 5 rounds 'spawn'
# creates 'part0' with 60 ms of CPU work and 'part1' with 20 ms, and joins
# them; with --procs, child processes it waits for in order);
# diagnose's only finding must be worker-imbalance on spawn, naming part0
# as the last to finish, and its cost must match the workers' own clocks'
# loss (wl_spawn's loss_ns: the idle CPU after part1's end over 2 CPUs,
# 20 ms a round) within 100 us a round (the trace dates a worker's end at
# its last switch-out, its clock just before it returns: measured within
# 50 us over 5 rounds).  Prints the problems; a failing attempt's trace is
# kept as BUILD/artifacts/NAME-failed.tl (a first attempt has counted 4 of
# 5 rounds as teams a few times: the trace says why).
spawn_once() {
	local got

	rec_diag "$1" "$BUILD/tests/wl_spawn" "${@:2}" || return
	got=$(python3 - "$OUT" "$TMP/$1.truth" <<'PY'
import json, sys
dg, truth = json.load(open(sys.argv[1])), json.loads(open(sys.argv[2]).read().strip().splitlines()[-1])
bad = []
found = [(f["kind"], [t["name"] for t in f["threads"]]) for f in dg["findings"]]
if len(found) != 1 or found[0][0] != "worker-imbalance" or found[0][1][:2] != ["spawn", "part0"]:
    bad.append("findings: %s (want worker-imbalance on spawn, part0 last)" % (found or "none"))
elif abs(dg["findings"][0]["cost_ns"] - truth["loss_ns"]) > 100000 * truth["rounds"]:
    # the evidence says which rounds counted (twice in 30 full checks, attempt 1 counted 4 of 5 rounds)
    bad.append("cost %.3f ms; the workers' clocks: %.3f ms lost in %d rounds; evidence %s" %
               (dg["findings"][0]["cost_ns"] / 1e6, truth["loss_ns"] / 1e6, truth["rounds"],
                [(e["what"], e["value"]) for e in dg["findings"][0]["evidence"]]))
print("; ".join(bad))
PY
)
	if [ -n "$got" ] && mkdir -p "$BUILD/artifacts" && cp "$TMP/$1.tl" "$BUILD/artifacts/$1-failed.tl"; then
		got="$got (trace kept: $BUILD/artifacts/$1-failed.tl)"
	fi
	echo "$got"
}

# churn_once NAME: record wl_spawn with 2000 rounds of two threads of
# 10 us each (a thread per task); diagnose must find thread-churn on
# spawn, counting the 4000 threads but those the workload saw take 0.5 ms
# or more from their creation to their end ("slow": one preempted past
# 1 ms is not short) and 0.5% more (measured: 3986-3997 counted, 13-21
# slow; once 3951 under a busy check), and its cost (the threads' waits to run: NEW,
# RUNNABLE) must lie between the kernel's count of their run-queue waits
# as they began (schedstat, read by each thread first thing: the trace's
# waits hold it, and the NEW stretch and later waits besides) and the
# workload's own start latency (spawn's clock before pthread_create to the
# thread's first clock: the clone and glibc's start besides the wait).
# Measured: 64-74 ms between 39-52 and 103-115.  With --procs, a child
# process per task (a fork each, no exec): 193-200 ms between 154-168 and
# 479-506.  Prints the problems.
churn_once() {
	rec_diag "$1" "$BUILD/tests/wl_spawn" --rounds 2000 --work 10us,10us "${@:2}" || return
	python3 - "$OUT" "$TMP/$1.truth" <<'PY'
import json, sys
dg, truth = json.load(open(sys.argv[1])), json.loads(open(sys.argv[2]).read().strip().splitlines()[-1])
bad = []
f = [x for x in dg["findings"] if x["kind"] == "thread-churn"]
n = truth["rounds"] * truth["workers"]
if len(f) != 1 or f[0]["threads"][0]["name"] != "spawn":
    bad.append("thread-churn: %s (want one, on spawn)" % [x["title"] for x in f])
else:
    got = f[0]["evidence"][0]["value"]
    if got < n - truth["slow"] - 0.005 * n or got > n:
        bad.append("%d short threads counted of the %d created (%d slow)" % (got, n, truth["slow"]))
    if not truth["start_runq_ns"] <= f[0]["cost_ns"] <= truth["start_ns"]:
        bad.append("cost %.3f ms; the kernel: %.3f ms on a run queue as they began; the workload: %.3f ms to start" %
                   (f[0]["cost_ns"] / 1e6, truth["start_runq_ns"] / 1e6, truth["start_ns"] / 1e6))
print("; ".join(bad))
PY
}

# pipe_io_once NAME: record `dd iflag=direct bs=4k | wc -c` of a 40 MB
# file in /var/tmp (on a disk: O_DIRECT reads wait for the device each
# time); diagnose's io-bound must name dd the reader and wc, a process of
# its own that waits for dd's writes, a consumer.  Prints the problems.
pipe_io_once() {
	local f=/var/tmp/tl-cli-pipe.$$

	head -c 40000000 /dev/urandom >"$f" || { echo "cannot write $f"; return; }
	rec_diag "$1" sh -c "dd if=$f iflag=direct bs=4k count=10000 status=none | wc -c"
	rm -f "$f"
	python3 - "$OUT" 2>&1 <<'PY'
import json, sys
dg = json.load(open(sys.argv[1]))
f = [x for x in dg["findings"] if x["kind"] == "io-bound"]
roles = [(t["name"], t["role"]) for t in f[0]["threads"]] if len(f) == 1 else []
pids = {t["name"]: t["pid"] for t in f[0]["threads"]} if len(f) == 1 else {}
if roles != [("dd", "reader"), ("wc", "consumer")] or pids["dd"] == pids["wc"]:
    print("io-bound: %s (want dd the reader, wc in another process its consumer)" % ([x["title"] for x in f], roles))
PY
}

# exec_once NAME: record wl_spawn --exec /bin/true, 800 rounds of two
# children that each exec /bin/true at once (a process per task, as a
# shell loop runs a command per item); diagnose must find thread-churn on
# spawn, "a process per task", counting the 1600 as processes but those
# the workload saw take 0.9 ms or more from their fork to their reaping
# ("slow", after their exit: one preempted past 1 ms is not short) and
# 0.5% (measured 1588-1597 counted, 48-56 slow; once 1523 under a busy
# check, below the 97% asked before), and their time on a
# CPU before their exec (part of the cost) must lie between the
# children's own CPU clocks just before execve (over the share of them
# counted) and that plus 200 us a child: the trace's exec is the end of
# execve, which reads and maps the file first (113-120 us a child
# measured).  Measured: 233-253 ms against clocks of 53-64 ms, 1572-1588
# counted.  A spawner built with ASan takes 11 ms to fork and exec a
# child (its shadow memory): no child is a short task, so the sanitized
# run records the plain build's spawner (the recorder and the analysis
# under test stay the sanitized ones).  Prints the problems.
exec_once() {
	local spawner=$BUILD/tests/wl_spawn

	if grep -q __asan_init "$spawner" 2>/dev/null && [ -x "${BUILD%-san}/tests/wl_spawn" ] &&
		! grep -q __asan_init "${BUILD%-san}/tests/wl_spawn"; then
		spawner=${BUILD%-san}/tests/wl_spawn
	fi
	rec_diag "$1" "$spawner" --rounds 800 --work 1,1 --exec /bin/true || return
	python3 - "$OUT" "$TMP/$1.truth" <<'PY'
import json, sys
dg, truth = json.load(open(sys.argv[1])), json.loads(open(sys.argv[2]).read().strip().splitlines()[-1])
bad = []
n = truth["rounds"] * truth["workers"]
f = [x for x in dg["findings"] if x["kind"] == "thread-churn"]
if len(f) != 1 or f[0]["threads"][0]["name"] != "spawn" or "a process per task" not in f[0]["title"]:
    bad.append("thread-churn: %s (want one on spawn, a process per task)" % [x["title"] for x in f])
else:
    ev = {e["what"]: e["value"] for e in f[0]["evidence"]}
    got, copy = ev.get("of them processes", 0), ev.get("their time on a CPU before exec (fork's copy)", 0)
    lo, hi = truth["exec_cpu_ns"] * got / n, truth["exec_cpu_ns"] + 200000 * n
    if not n - truth["slow"] - 0.005 * n <= got <= n:
        bad.append("%d processes counted of %d (%d slow)" % (got, n, truth["slow"]))
    if not lo <= copy <= hi:
        bad.append("%.3f ms before their exec; their clocks before execve: %.3f ms (%.3f to %.3f allowed)" %
                   (copy / 1e6, truth["exec_cpu_ns"] / 1e6, lo / 1e6, hi / 1e6))
print("; ".join(bad))
PY
}

# yspin_once NAME BACKEND [--block]: record wl_yspin (8 rounds: 'yspin'
# computes 40 ms, 'waiter' waits for it by calling sched_yield in a loop,
# or with --block on a condition variable) with BACKEND.  Spinning,
# diagnose must find yield-spinning on waiter with the cost the report
# gives its runs (JSON yield_spin), whose calls must be the waiter's own
# count less at most its yields that gave the CPU away (READY_YIELD: a
# call that switched joins no run) and one a round, and whose time its
# CPU clock in its loops within 20 us (eBPF; perf 60 us, whose every call
# is traced) a run boundary (runs and rounds: the clock reads and the
# check around a run's calls, an interrupt at its edge) and 0.2% (perf
# 0.5%), less the CPU time its clock counted between two calls more than
# 1 ms apart, which no run spans (TL_YIELD_SPIN_GAP_NS; seen twice in a
# day: 2.9 and 3.1 ms under the clock, where the VM's host held the CPU;
# 0-0.06 ms otherwise).  Measured: 2-14 calls less, 5-231 us under the
# clock in 7-11 runs (eBPF); 0.99-1.02 ms in 24-25 (perf).
# With --block no yield-spinning.  Prints the problems.
yspin_once() {
	"$TL" record --backend "$2" -o "$TMP/$1.tl" -- "$BUILD/tests/wl_yspin" "${@:3}" >"$TMP/$1.truth" 2>"$ERR" ||
		{ echo "record exit $?: $(tail -n 2 "$ERR")"; return; }
	"$TL" report --json "$TMP/$1.tl" >"$TMP/$1.report" 2>"$ERR" || { echo "report failed: $(head -n 2 "$ERR")"; return; }
	"$TL" diagnose --json "$TMP/$1.tl" >"$OUT" 2>"$ERR" || { echo "diagnose failed: $(head -n 2 "$ERR")"; return; }
	python3 - "$OUT" "$TMP/$1.report" "$TMP/$1.truth" "$2" <<'PY'
import json, sys
dg, rp = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
truth, perf = json.loads(open(sys.argv[3]).read().strip().splitlines()[-1]), sys.argv[4] == "perf"
bad = []
f = [x for x in dg["findings"] if x["kind"] == "yield-spinning"]
if not truth["calls"]:
    if f:
        bad.append("yield-spinning with --block: %s" % f[0]["title"])
    print("; ".join(bad))
    sys.exit(0)
w = [t for t in rp["threads"] if t["tid"] == truth["waiter"]]
if len(w) != 1:
    bad.append("no waiter %d in the report" % truth["waiter"])
else:
    y, gave = w[0]["yield_spin"], w[0]["entries"]["READY_YIELD"]
    edges = y["runs"] + truth["rounds"]
    if not truth["calls"] - gave - truth["rounds"] <= y["calls"] <= truth["calls"]:
        bad.append("%d calls in %d runs, %d that gave the CPU away; the waiter counted %d" %
                   (y["calls"], y["runs"], gave, truth["calls"]))
    tol = (60000 if perf else 20000) * edges + (0.005 if perf else 0.002) * truth["loop_cpu_ns"]
    if abs(y["ns"] - (truth["loop_cpu_ns"] - truth["gap_ns"])) > tol:
        bad.append("%.3f ms in %d runs; the waiter's CPU clock in its loops: %.3f ms, %.3f ms of it in gaps "
                   "(%.3f ms allowed)" % (y["ns"] / 1e6, y["runs"], truth["loop_cpu_ns"] / 1e6,
                                          truth["gap_ns"] / 1e6, tol / 1e6))
    if len(f) != 1 or f[0]["threads"][0]["name"] != "waiter" or f[0]["cost_ns"] != y["ns"]:
        bad.append("yield-spinning: %s (want one on waiter, cost %d)" % ([(x["title"], x["cost_ns"]) for x in f], y["ns"]))
print("; ".join(bad))
PY
}

# affinity_once NAME: record wl_states quantum (busyA and busyB pinned to CPU
# 1, CPU 0 idle); diagnose's only finding must be affinity-bound naming both,
# and each thread's wait beside the idle CPU (report JSON: confined) must lie
# between the kernel's run-queue wait (schedstat) less the other CPU's busy
# time in the scenario (the wall time less its idle time by the kernel's
# cpuidle residency: measured 4-6 ms) and the 50 us a wait that is not
# counted (TL_CONFINE_TAKE_NS), and that wait; within 20 us a wait (the
# trace dates a wait by its switches, the kernel from its enqueue to its
# pick: 0.8 ms over 77 waits seen once) and 1 ms.
affinity_once() {
	"$TL" record -o "$TMP/$1.tl" -- "$BUILD/tests/wl_states" quantum --truth "$TMP/$1.json" >"$OUT" 2>"$ERR" ||
		{ echo "record exit $?: $(tail -n 2 "$ERR")"; return; }
	"$TL" report --json "$TMP/$1.tl" >"$OUT" 2>"$ERR" && "$TL" diagnose --json "$TMP/$1.tl" >"$OUT.d" 2>>"$ERR" ||
		{ echo "report or diagnose failed: $(head -n 2 "$ERR")"; return; }
	python3 - "$OUT" "$OUT.d" "$TMP/$1.json" <<'PY'
import json, sys
rep, dg, truth = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), json.load(open(sys.argv[3]))
bad = []
for name, t in truth["threads"].items():
    ts = [x for x in rep["threads"] if x["name"] == name]
    if len(ts) != 1:
        bad.append("%d threads named %s" % (len(ts), name))
        continue
    c = ts[0]["confined"]
    if t["other_cpu_idle_ns"] < 0:
        print("cannot run: the kernel counts no idle time per CPU (cpuidle)")
        sys.exit()
    busy = t["scenario_wall_ns"] - t["other_cpu_idle_ns"]
    tol = 20000 * t["schedstat_slices"] + 1000000
    lo = t["schedstat_wait_ns"] - busy - 50000 * t["schedstat_slices"] - tol
    hi = t["schedstat_wait_ns"] + tol
    if not lo <= c["wait_ns"] <= hi or c["cpus"] != 1:
        bad.append("%s waited %.3f ms beside the idle CPU (%d waits, %d CPUs allowed); the kernel: %.3f ms on the run queue, the other CPU busy %.3f ms (want %.3f-%.3f)" %
                   (name, c["wait_ns"] / 1e6, c["count"], c["cpus"], t["schedstat_wait_ns"] / 1e6, busy / 1e6, lo / 1e6, hi / 1e6))
found = [(f["kind"], sorted(t["name"] for t in f["threads"])) for f in dg["findings"]]
if found != [("affinity-bound", ["busyA", "busyB"])]:
    bad.append("findings: %s (want affinity-bound naming busyA, busyB)" % (found or "none"))
print("; ".join(bad))
PY
}

# herd_once NAME MODE WANT: record wl_pool MODE; with WANT (the waker's name)
# diagnose must find exactly one thundering-herd, naming it first, and the
# woken threads that found nothing to do must agree with the workers' own
# count of wakeups to an empty queue within 5% (measured 0.8%: a futile run
# that the kernel stretched past a quarter of the burst's longest, as a
# preemption in the kernel does, counts as work), the wakeups within 2%
# (those of bursts of 3 or more: all but the last few); without, none.
herd_once() {
	"$TL" record -o "$TMP/$1.tl" -- "$BUILD/tests/wl_pool" "$2" >"$OUT" 2>"$ERR" ||
		{ echo "record exit $?: $(tail -n 2 "$ERR")"; return; }
	tail -n 1 "$OUT" >"$TMP/$1.truth"
	"$TL" report --json "$TMP/$1.tl" >"$OUT" 2>"$ERR" && "$TL" diagnose --json "$TMP/$1.tl" >"$OUT.d" 2>>"$ERR" ||
		{ echo "report or diagnose failed: $(head -n 2 "$ERR")"; return; }
	python3 - "$OUT" "$OUT.d" "$TMP/$1.truth" "${3:-}" <<'PY'
import json, sys
rep, dg, truth, want = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), json.load(open(sys.argv[3])), sys.argv[4]
found = [f for f in dg["findings"] if f["kind"] == "thundering-herd"]
bad = []
if not want:
    if found:
        bad.append("unexpected thundering-herd on %s" % found[0]["threads"][0]["name"])
elif len(found) != 1 or found[0]["threads"][0]["name"] != want:
    bad.append("want one thundering-herd naming %s first; found %s" % (want, [f["title"] for f in found]))
else:
    h = [x for p in rep["processes"] if p["target"] for x in p["herds"] if x["waker_name"] == want]
    if len(h) != 1:
        bad.append("%d herds by %s in the report" % (len(h), want))
    elif abs(h[0]["futile"] - truth["empty"]) > 0.05 * truth["empty"] or \
            abs(h[0]["woken"] - truth["wakeups"]) > 0.02 * truth["wakeups"]:
        bad.append("woken %d, %d for nothing; the workers counted %d wakeups, %d to an empty queue" %
                   (h[0]["woken"], h[0]["futile"], truth["wakeups"], truth["empty"]))
print("; ".join(bad))
PY
}

if ! can_record; then
	skip diagnose/recorded "need root to record"
elif ! command -v python3 >/dev/null; then
	skip diagnose/recorded "python3 is needed to read the JSON"
else
	diag lock-contention "lock-contention:waiter:holder" "$BUILD/tests/wl_states" mutex
	# the perf back end tells a lock's wait from the futex syscall's operation
	REC_ARGS="--backend perf" diag lock-contention-perf "lock-contention:waiter:holder" "$BUILD/tests/wl_states" mutex
	diag io-bound "io-bound:reader" "$BUILD/tests/wl_states" io
	# a reader that feeds a queue: its consumer starves (BLOCK softirqs on its CPU are true findings too)
	ONLY=io-bound diag io-bound-consumer "io-bound:reader:consumer" "$BUILD/tests/wl_kernel" ioqueue
	twice io-bound-pipeline pipe_io_once io-bound-pipeline
	diag wake-storm "wake-storm:poller" "$BUILD/tests/wl_kernel" poll
	# victim and fifo on CPU 1, CPU 0 idle: victim's preempted waits are affinity-bound's too
	diag preemption-starvation "preemption-starvation:victim:fifo affinity-bound:*:victim" "$BUILD/tests/wl_states" \
		preempt
	diag migration-storm "migration-storm:migrant" "$BUILD/tests/wl_kernel" migrate
	diag bottleneck "single-thread-bottleneck:maker:userA:userB" "$BUILD/tests/wl_kernel" serial
	# the sender pays for loopback receive (NET_RX); the receiver, woken per datagram by it, is no wake storm
	diag irq-interference "irq-interference:sender" "$BUILD/tests/wl_kernel" net
	diag barrier-imbalance "barrier-imbalance:worker1:worker0" "$BUILD/tests/wl_kernel" imbalance
	# three threads woken at once on two CPUs, then one: oversubscribed too, truly; and now and then a
	# helper moves to the other CPU on most of its 20 us runs (a migration storm on helper0, seen once)
	diag pointless-parallelism "pointless-parallelism:parent:helper0:helper1 oversubscription:* ?migration-storm:*" \
		"$BUILD/tests/wl_kernel" tiny
	diag healthy-balanced "" "$BUILD/tests/wl_kernel" balanced
	diag oversubscription "oversubscription:*" "$BUILD/tests/wl_kernel" oversub
	# OpenMP without markers: the outlined function of its loop is the region (uprobes); a static split of
	# rows of uneven cost is imbalanced, a dynamic one is not.  Its worker spins in the runtime between
	# the regions 15-19% of its time on a CPU (8 recordings), over spin-waiting's 25% once in a loaded run
	diag omp-static "barrier-imbalance:* ?spin-waiting:*" "$BUILD/tests/wl_fast" --omp 2 outer static
	# OpenMP's worker spins in the runtime while the main thread runs the serial parts alone
	diag spin-serial "spin-waiting:*" "$BUILD/tests/wl_sort" --omp 2 outer dynamic
	ONLY=barrier-imbalance diag omp-dynamic "" "$BUILD/tests/wl_fast" --omp 2 outer dynamic
	# three threads passing a turn on a condition variable: one at a time, a CPU idle
	diag serialized-threads "serialized-threads:t0:t1:t2" "$BUILD/tests/wl_kernel" baton
	# the same with Python's global interpreter lock: three CPU-bound threads (its other findings not judged)
	ONLY=serialized-threads diag serialized-python "serialized-threads:*" python3 -c '
import threading
def work():
    s = 0
    for i in range(2000000): s += i * i
ts = [threading.Thread(target=work) for i in range(3)]
for t in ts: t.start()
for t in ts: t.join()' 
	# the same beside busy processes of the same program: when it under-uses the CPUs they keep them
	# busy, so no CPU is idle and spreading the work in time would recover nothing.  Two of them, one
	# per CPU: beside one, a CPU was still idle 3.7-29 ms of wl_kernel's ~330 ms while it under-used
	# them (12 recordings; the scheduler does not always put the loop where the idle CPU is), up to
	# 9% of its active time where the rule fires at 10%: flagged in 2 of about 10 full checks.
	# Beside two: 1.5-7.7 ms of ~480 ms (6 recordings), no finding
	ONLY=oversubscription diag oversub-busy-sibling "" sh -c \
		'(while :; do :; done) & s=$!; (while :; do :; done) & s2=$!; "$1" oversub >/dev/null; kill $s $s2' \
		sh "$BUILD/tests/wl_kernel"
	# oversub's work on two workers: not oversubscribed.  Only that is judged: w1 waits for w0's serial
	# merge 48-50% of its life, right at the bottleneck detector's half (found in 1 of 6 runs, and
	# in both attempts of one full check), and that finding is true of a serial merge
	ONLY=oversubscription diag healthy-fit "" "$BUILD/tests/wl_kernel" fit
	# the waiter also waits on a lock, and low is preempted: those findings are true, and not tested here
	ONLY=priority-inversion diag priority-inversion "priority-inversion:high:low:medium" \
		"$BUILD/tests/wl_kernel" inversion
	ONLY=priority-inversion diag healthy-inherit "" "$BUILD/tests/wl_kernel" inherit
	# the spinner on CPU 1, the recorder on CPU 0 (as tests/live does): floating,
	# it was once preempted over 20% of its life under the sanitizers (by other
	# tasks of the machine that came to share its CPU with the slower recorder)
	REC_WRAP="taskset -c 0" diag healthy-spin "" "$BUILD/tests/wl_states" spin --cpu 1
	diag healthy-frames "" "$BUILD/tests/wl_frames" --frames 10
	diag healthy-pingpong "" "$BUILD/tests/wl_kernel" pingpong
	# a CPU limit: the spinner alone, then two threads taking turns on one CPU (the one waiting
	# behind the other when the quota runs out is held back too)
	throttled cpu-throttled spinner spin --cpu 1
	throttled cpu-throttled-two busyA,busyB quantum
	twice affinity-bound affinity_once affinity-bound
	twice lock-holder holder_once lock-holder
	twice lock-convoy convoy_once lock-convoy
	twice lock-convoy-perf convoy_once lock-convoy-perf --backend perf
	twice bottleneck-processes stage_once bottleneck-processes
	twice worker-imbalance spawn_once worker-imbalance
	twice worker-imbalance-procs spawn_once worker-imbalance-procs --procs
	twice thread-churn churn_once thread-churn
	twice thread-churn-procs churn_once thread-churn-procs --procs
	twice thread-churn-exec exec_once thread-churn-exec
	twice yield-spinning yspin_once yield-spinning bpf
	twice yield-spinning-perf yspin_once yield-spinning-perf perf
	twice healthy-yield-block yspin_once healthy-yield-block bpf --block
	diag healthy-spawn-even "" "$BUILD/tests/wl_spawn" --work 30,30
	# a broadcast per item to six waiting workers; a signal per item (the producer's 200 us sleeps are a
	# wake storm, judged elsewhere)
	twice thundering-herd herd_once thundering-herd herd producer
	twice healthy-pool-signal herd_once healthy-pool-signal signal
	# six single-threaded processes busy at once on two CPUs: each of them alone is no oversubscription
	ONLY=cpu-saturation diag cpu-saturation "cpu-saturation:*" sh -c 'for i in 1 2 3 4 5 6; do "$1" spin & done; wait' \
		sh "$BUILD/tests/wl_states"
	tl diagnose --json "$TMP/cpu-saturation.tl"
	# each wants a CPU all its life (asked for: 6 less the staggered starts and ends; 5.6 measured) and
	# queues 2/3 of it, twice its run (1.9 measured)
	if [ "$RC" = 0 ] && python3 -c '
import json, sys
f = [x for x in json.load(open(sys.argv[1]))["findings"] if x["kind"] == "cpu-saturation"][0]
ev = {e["what"]: e["value"] for e in f["evidence"]}
sys.exit(not (4.5 <= ev["CPUs asked for (on one or queued, per second)"] <= 6.5 and
              150 <= ev["queued for a CPU, % of that"] <= 250 and ev["processes that ran"] >= 6))' "$OUT"; then
		pass diagnose/cpu-saturation-numbers
	else
		fail diagnose/cpu-saturation-numbers "exit $RC; want 4.5-6.5 CPUs asked for, queued 150-250% of the run" \
			"$(grep -A 12 '"cpu-saturation"' "$OUT" | head -n 30)"
	fi
	ONLY=cpu-saturation diag healthy-two-processes "" sh -c 'for i in 1 2; do "$1" spin & done; wait' \
		sh "$BUILD/tests/wl_states"
	# three of them may use one CPU (taskset): judged against the one, not the machine's two (3 on 2
	# CPUs queue half their run: no finding); the launching shell's mask, seen before taskset narrowed
	# it, is left out (it did under 1/20 of the CPU time)
	ONLY=cpu-saturation diag cpu-saturation-pinned "cpu-saturation:*" taskset -c 1 sh -c \
		'for i in 1 2 3; do "$1" spin & done; wait' sh "$BUILD/tests/wl_states"
	tl diagnose --json "$TMP/cpu-saturation-pinned.tl"
	if [ "$RC" = 0 ] && python3 -c '
import json, sys
f = [x for x in json.load(open(sys.argv[1]))["findings"] if x["kind"] == "cpu-saturation"][0]
ev = {e["what"]: e for e in f["evidence"]}["CPUs asked for (on one or queued, per second)"]
sys.exit(not (ev["threshold"] == 1 and 2.5 <= ev["value"] <= 3.3))' "$OUT"; then
		pass diagnose/cpu-saturation-pinned-cpus
	else
		fail diagnose/cpu-saturation-pinned-cpus "exit $RC; want 2.5-3.3 CPUs asked for, of 1" \
			"$(grep -A 3 'CPUs asked' "$OUT" | head -n 8)"
	fi
	ONLY=cpu-saturation diag healthy-three-processes "" sh -c 'for i in 1 2 3; do "$1" spin & done; wait' \
		sh "$BUILD/tests/wl_states"
	# the text names the finding, its evidence with the threshold, cause and fix
	# the demo pipeline: each bug alone gives its finding; all bugs off, nothing at all
	DEMO="$BUILD/demo/tl-demo"
	diag demo-fixed "" $DEMO --bugs none
	ONLY=wake-storm diag demo-poll "wake-storm:dispatch" $DEMO --bugs poll
	ONLY=barrier-imbalance diag demo-split "barrier-imbalance:pool0:pool1" $DEMO --bugs split
	ONLY=pointless-parallelism diag demo-tiny "pointless-parallelism:weight:weight0:weight1" $DEMO --bugs tiny
	ONLY=preemption-starvation diag demo-starve "preemption-starvation:input" $DEMO --bugs starve
	# 2 x CPUs workers per heavy stage: threads queue for the CPUs all the time (the waiting one named first varies)
	ONLY=oversubscription diag demo-oversub "oversubscription:*" $DEMO --bugs oversub
	tl diagnose "$TMP/lock-contention.tl"
	if [ "$RC" = 0 ] && grep -q '^1\. lock-contention' "$OUT" && grep -q '  (at least 20%)$' "$OUT" &&
		grep -q '^   cause:' "$OUT" && grep -q '^   fix:' "$OUT"; then
		pass diagnose/text
	else
		fail diagnose/text "exit $RC" "$(head -n 12 "$OUT")"
	fi
	# the oversubscribed process alternates: the title says for how long each way (on one line)
	tl diagnose --width 1000 "$TMP/oversubscription.tl"
	if [ "$RC" = 0 ] && grep -Eq '^   [^ ].* \([0-9]+\) wants more than its [0-9]+ CPUs for [0-9]+% of its active time, and leaves some idle for [0-9]+%$' "$OUT"; then
		pass diagnose/oversubscription-title
	else
		fail diagnose/oversubscription-title "exit $RC" "$(grep -m 1 -A 1 '^1\.' "$OUT")"
	fi
	# a threshold option moves the line: just above the waiter's share of its life waiting on the lock
	# (99.8% here: a fixed 99.9 was once under it), the finding goes
	tl diagnose --json "$TMP/lock-contention.tl"
	above=$(python3 -c 'import json,sys
f = [x for x in json.load(open(sys.argv[1]))["findings"] if x["kind"] == "lock-contention"]
print("%.3f" % (f[0]["evidence"][0]["value"] + 0.001) if f else "none")' "$OUT")
	tl diagnose --lock-wait "$above" --json "$TMP/lock-contention.tl"
	if [ "$RC" = 0 ] && python3 -c 'import json,sys
sys.exit(any(x["kind"] == "lock-contention" for x in json.load(open(sys.argv[1]))["findings"]))' "$OUT"; then
		pass diagnose/threshold-option
	else
		fail diagnose/threshold-option "exit $RC; with --lock-wait $above (just above the waiter's share) the finding should go"
	fi
fi

# --width: the prose (titles, where, causes, fixes, what was examined) wraps to it; the evidence
# tables (lines of 5 spaces first) do not, and fit 80 columns.  A committed trace with findings at
# --min-cost 0.
tl diagnose --width 60 --min-cost 0 "$(dirname "$0")/../data/traces/v1.11-rwlock.tl"
wide=$(awk 'NR > 1 && (length > 80 || (length > 60 && !/^     [^ ]/))' "$OUT")
if [ "$RC" = 0 ] && grep -q '^   cause:' "$OUT" && grep -q '^             ' "$OUT" && [ -z "$wide" ]; then
	pass diagnose/width
else
	fail diagnose/width "exit $RC; lines over 60 columns: $(head -n 2 <<<"$wide")"
fi
tl diagnose --width 20 "$TMP/none.tl"
if [ "$RC" = 2 ] && head -n 1 "$ERR" | grep -q "invalid --width '20'"; then
	pass diagnose/bad-width
else
	fail diagnose/bad-width "exit $RC, want 2 and a line about --width" "$(cat "$ERR")"
fi
tl diagnose "$TMP/none.tl"
expect_err diagnose/missing-file 1 "none\.tl"
tl diagnose --lock-wait 0 "$TMP/none.tl"
if [ "$RC" = 2 ] && head -n 1 "$ERR" | grep -q "invalid --lock-wait '0'"; then
	pass diagnose/bad-threshold
else
	fail diagnose/bad-threshold "exit $RC, want 2 and a line about --lock-wait" "$(cat "$ERR")"
fi
tl diagnose
[ "$RC" = 2 ] && pass diagnose/no-file || fail diagnose/no-file "exit $RC, want 2"

cli_done
