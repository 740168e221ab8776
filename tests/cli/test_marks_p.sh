#!/bin/bash
# test_marks_p.sh - markers of a process that threadlens did not start:
# `record -p` (and -a) puts uprobes on the marker library's functions
# (capture/umarks.h, capture/bpf/umarks.h), so its frames and steps are in
# the trace as a command's would be.
#
#   tests/cli/test_marks_p.sh BUILD_DIR
#
# The oracle is the program's own clock: wl_frames writes each frame's
# CLOCK_MONOTONIC time just before its tl_frame_begin() call and just after
# its tl_frame_end() returns.  The uprobe on the function's entry dates the
# marker between the two, so every recorded frame must begin at most EPS
# after the program's begin time and end at most EPS before its end time,
# and never outside them.  EPS is the cost of a uprobe hit on this kind of
# machine (a trap into the kernel and the eBPF program: a few us, tens
# on a loaded VM) plus the clock read: 200 us, a fiftieth of a frame.
# Needs root (eBPF, uprobes).
. "$(dirname "$0")/lib.sh"
cli_init "$1"

if ! can_record; then
	skip marks-p/frames "need root to load eBPF programs (running as uid $(id -u))"
	cli_done
fi

# check_frames TRACE LO HI: every complete frame of the trace against the program's clock; LO..HI of them
check_frames() {
	tl frames --json "$1"
	[ "$RC" = 0 ] || { echo "frames exit $RC: $(head -n 1 "$ERR")"; return; }
	python3 - "$OUT" "$TMP/truth.json" "$2" "$3" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1])); truth = json.load(open(sys.argv[2]))
EPS = 200000
start = d["trace"]["start_ns"]
done = [f for f in d["frames"] if f["complete"]]
bad = []
if not int(sys.argv[3]) <= len(done) <= int(sys.argv[4]):
    bad.append("%d complete frames, want %s to %s" % (len(done), sys.argv[3], sys.argv[4]))
for f in done:
    b, e = truth["frame_ns"][f["id"]]
    db, de = start + f["begin_ns"] - b, e - (start + f["end_ns"])
    if not (0 <= db <= EPS and 0 <= de <= EPS):
        bad.append("frame %d: begin %+d ns after the program's, end %+d ns before" % (f["id"], db, de))
    steps = {s["name"]: s["count"] for s in f["steps"]}
    if steps != {"capture": 1, "filter": 2, "encode": 1, "output": 1}:
        bad.append("frame %d: steps %s" % (f["id"], steps))
print("; ".join(bad[:4]))
EOF
}

# A pipeline at 100 frames/s for 2.5 s; recorded for 1 s of it, from 0.5 s on: 100 frames, give or
# take the edges.
frames_p() {
	local wl
	"$BUILD/tests/wl_frames" --frames 250 --fps 100 --truth "$TMP/truth.json" &
	wl=$!
	sleep 0.5
	tl record -p "$wl" -d 1s -o "$TMP/p.tl"
	wait "$wl"
	[ "$RC" = 0 ] || { echo "record exit $RC: $(tail -n 1 "$ERR")"; return; }
	grep -q ' markers (0 lost)' "$ERR" || { echo "no markers in the summary: $(tail -n 1 "$ERR")"; return; }
	check_frames "$TMP/p.tl" 98 101
}
retry_once marks-p/frames frames_p

# The whole system (-a, no filter): the same program's frames, among whatever else runs.
frames_a() {
	local wl
	"$BUILD/tests/wl_frames" --frames 150 --fps 100 --truth "$TMP/truth.json" &
	wl=$!
	sleep 0.4
	tl record -a -d 0.5s -o "$TMP/a.tl"
	wait "$wl"
	[ "$RC" = 0 ] || { echo "record exit $RC: $(tail -n 1 "$ERR")"; return; }
	check_frames "$TMP/a.tl" 48 51
}
retry_once marks-p/system-wide frames_a

# An OpenMP program without markers: the function GCC outlined from its `parallel for` is a region of
# each thread that runs it, once per parallel region: wl_fast runs 5 frames of 2 passes on 2 threads.
tl record -o "$TMP/omp.tl" -- "$BUILD/tests/wl_fast" --omp 2 outer static --frames 5
if [ "$RC" = 0 ] && ! grep -q "OpenMP regions took" "$ERR" && grep -q ', 20 OpenMP region instances (2 functions)$' "$ERR" &&
	tl hist --json --span wl_rows_omp._omp_fn.0 "$TMP/omp.tl" &&
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(d["span"]["counted"] != 20 or d["span"]["incomplete"] != 0)' "$OUT"; then
	pass marks-p/omp-regions
else
	fail marks-p/omp-regions "exit $RC; want 20 instances of wl_rows_omp._omp_fn.0" "$(head -c 300 "$OUT")" "$(head -n 2 "$ERR")"
fi

# The report splits the OpenMP worker's time on a CPU: inside its instances, around them in a
# round, between the regions; the three parts make up its EXECUTING (no nested regions here).
if tl report --json "$TMP/omp.tl" && python3 - "$OUT" <<'PY' && tl report "$TMP/omp.tl" && grep -q '^OpenMP workers of wl_fast' "$OUT"; then
import json, sys
d = json.load(open(sys.argv[1]))
p = [p for p in d["processes"] if p["name"] == "wl_fast"][0]
w = p["omp_workers"]
t = [t for t in d["threads"] if t["pid"] == p["pid"] and t["tid"] != p["pid"]]
ok = w["threads"] == 1 and len(t) == 1 and w["exec_ns"] == t[0]["state_ns"]["EXECUTING"] > 0
ok = ok and w["inside_ns"] + w["around_ns"] + w["between_ns"] == w["exec_ns"] and w["inside_ns"] > 0
sys.exit(not ok)
PY
	pass marks-p/omp-workers-split
else
	fail marks-p/omp-workers-split "want omp_workers of wl_fast's one worker, its parts adding up to its EXECUTING" "$(grep -o '"omp_workers"[^}]*' "$OUT" | head -n 2)"
fi

# Tiny regions: the probes' own time is told (wl_filter's inner loop, 2 frames: 6,144 instances of
# about 2.6 us; none for wl_fast's 20 of milliseconds above).
tl record -o "$TMP/tiny.tl" -- "$BUILD/tests/wl_filter" --omp 2 inner static --frames 2
if [ "$RC" = 0 ] && grep -q "warning: the OpenMP regions took 12288 uprobe hits, about [0-9]* ms" "$ERR"; then
	pass marks-p/omp-tiny-told
else
	fail marks-p/omp-tiny-told "exit $RC; want the probes' time told" "$(head -n 3 "$ERR")"
fi

# ... and of a running one (-p): 40 frames of 2 passes take over a second; 0.3 s of them holds
# complete instances of the loop on both threads.
"$BUILD/tests/wl_fast" --omp 2 outer static --frames 40 >/dev/null &
wl=$!
sleep 0.3
tl record -p "$wl" -d 0.3s -o "$TMP/omp-p.tl"
wait "$wl"
if [ "$RC" = 0 ] && tl hist --json --span wl_rows_omp._omp_fn.0 "$TMP/omp-p.tl" &&
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(d["span"]["counted"] < 4)' "$OUT" &&
	tl dump --type region_begin "$TMP/omp-p.tl" && [ "$(grep -o 'tid=[0-9]*' "$OUT" | sort -u | wc -l)" = 2 ]; then
	pass marks-p/omp-regions-p
else
	fail marks-p/omp-regions-p "exit $RC; want instances of wl_rows_omp._omp_fn.0 on 2 threads" "$(head -n 2 "$ERR")"
fi

# OpenMP code in a shared library: found as the loader will find it before the command starts
# (its RUNPATH $ORIGIN; LD_LIBRARY_PATH), and among the maps of a running process (-p).
# 10 rounds of a parallel loop on 2 threads: exactly 20 instances.
mkdir -p "$TMP/ol/lib"
cat >"$TMP/ol/kern.c" <<'CEOF'
#include <math.h>
double kern_rows(int n)
{
	double s = 0;
#pragma omp parallel for schedule(static) reduction(+ : s)
	for (int i = 0; i < n; i++)
		for (int j = 0; j < (i + 1) * 500; j++)
			s += sqrt((double)j);
	return s;
}
CEOF
cat >"$TMP/ol/main.c" <<'CEOF'
#include <stdio.h>
#include <stdlib.h>
double kern_rows(int n);
int main(int argc, char **argv)
{
	double s = 0;
	for (int r = 0; r < atoi(argv[1]); r++)
		s += kern_rows(200);
	printf("%g\n", s);
	return 0;
}
CEOF
if cc -O1 -fopenmp -fPIC -shared -o "$TMP/ol/lib/libtlkern.so" "$TMP/ol/kern.c" -lm &&
	cc -O1 -o "$TMP/ol/app" "$TMP/ol/main.c" -L"$TMP/ol/lib" -ltlkern -Wl,-rpath,'$ORIGIN/lib' &&
	cc -O1 -o "$TMP/ol/app-env" "$TMP/ol/main.c" -L"$TMP/ol/lib" -ltlkern; then
	for v in app app-env; do
		OMP_NUM_THREADS=2 LD_LIBRARY_PATH=$([ $v = app-env ] && echo "$TMP/ol/lib") \
			tl record -o "$TMP/ol/$v.tl" -- "$TMP/ol/$v" 10
		if [ "$RC" = 0 ] && tl hist --json --span kern_rows._omp_fn.0 "$TMP/ol/$v.tl" &&
			python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(d["span"]["counted"] != 20 or d["span"]["incomplete"] != 0)' "$OUT"; then
			pass marks-p/omp-shared-lib-$v
		else
			fail marks-p/omp-shared-lib-$v "exit $RC; want 20 instances of kern_rows._omp_fn.0" "$(head -c 300 "$OUT")" "$(head -n 2 "$ERR")"
		fi
	done
	# the library stripped: no names to find, and the recording says why (once; not when names are found)
	mkdir -p "$TMP/ol/s/lib" && cp "$TMP/ol/app" "$TMP/ol/s/" && strip -o "$TMP/ol/s/lib/libtlkern.so" "$TMP/ol/lib/libtlkern.so"
	OMP_NUM_THREADS=2 tl record -o "$TMP/ol/s.tl" -- "$TMP/ol/s/app" 2
	if [ "$RC" = 0 ] && [ "$(grep -c 'uses OpenMP (libgomp.so.* but no function outlined from an OpenMP construct was found' "$ERR")" = 1 ] &&
		OMP_NUM_THREADS=2 tl record -o "$TMP/ol/s.tl" -- "$TMP/ol/app" 2 && ! grep -q 'uses OpenMP' "$ERR"; then
		pass marks-p/omp-stripped-told
	else
		fail marks-p/omp-stripped-told "exit $RC; want one line for the stripped library, none for the other" "$(head -n 3 "$ERR")"
	fi
	OMP_NUM_THREADS=2 "$TMP/ol/app" 60 >/dev/null &
	wl=$!
	sleep 0.3
	tl record -p "$wl" -d 0.3s -o "$TMP/ol/p.tl"
	wait "$wl"
	if [ "$RC" = 0 ] && tl dump --type region_begin "$TMP/ol/p.tl" && grep -q kern_rows._omp_fn.0 "$OUT" &&
		[ "$(grep -o 'tid=[0-9]*' "$OUT" | sort -u | wc -l)" = 2 ]; then
		pass marks-p/omp-shared-lib-p
	else
		fail marks-p/omp-shared-lib-p "exit $RC; want instances of kern_rows._omp_fn.0 on 2 threads" "$(head -n 3 "$OUT")" "$(head -n 2 "$ERR")"
	fi
	# ... and under -a: every process's files are looked at when the recording starts
	OMP_NUM_THREADS=2 "$TMP/ol/app" 60 >/dev/null &
	wl=$!
	sleep 0.3
	tl record -a -d 0.3s -o "$TMP/ol/a.tl"
	wait "$wl"
	if [ "$RC" = 0 ] && tl dump --type region_begin "$TMP/ol/a.tl" && grep -q kern_rows._omp_fn.0 "$OUT" &&
		[ "$(grep kern_rows "$OUT" | grep -o 'tid=[0-9]*' | sort -u | wc -l)" = 2 ]; then
		pass marks-p/omp-system-wide
	else
		fail marks-p/omp-system-wide "exit $RC; want instances of kern_rows._omp_fn.0 on 2 threads" "$(head -n 3 "$OUT")" "$(head -n 2 "$ERR")"
	fi
else
	fail marks-p/omp-shared-lib "cannot build the OpenMP library and its program with cc -fopenmp"
fi

# OpenMP tasks: GCC outlines a task's body like a region's (main._omp_fn.1 here, the parallel
# region main._omp_fn.0) and the team runs the tasks inside its region's instances. They are
# nested there, and the workers' split counts that time once: its parts add up to EXECUTING
# (it read 176% inside before).
mkdir -p "$TMP/tk"
cat >"$TMP/tk/tk.c" <<'CEOF'
#include <stdio.h>
static double work(int n)
{
	double s = 0;
	for (int i = 0; i < n * 20000; i++)
		s += i * 0.5;
	return s;
}
int main(void)
{
	double tot = 0;
	for (int r = 0; r < 10; r++) {
#pragma omp parallel
#pragma omp single
		for (int t = 0; t < 2; t++) {
#pragma omp task shared(tot)
			{
				double v = work(t ? 100 : 400);
#pragma omp atomic
				tot += v;
			}
		}
	}
	printf("%g\n", tot);
	return 0;
}
CEOF
if cc -O1 -fopenmp -o "$TMP/tk/tk" "$TMP/tk/tk.c"; then
	OMP_NUM_THREADS=2 tl record -o "$TMP/tk/tk.tl" -- "$TMP/tk/tk"
	if [ "$RC" = 0 ] && tl report --json "$TMP/tk/tk.tl" && python3 - "$OUT" <<'PYEOF2'
import json, sys
d = json.load(open(sys.argv[1]))
w = [p["omp_workers"] for p in d["processes"] if p["omp_workers"]["threads"]][0]
assert w["threads"] == 1 and w["inside_ns"] <= w["exec_ns"], w
assert w["inside_ns"] + w["around_ns"] + w["between_ns"] == w["exec_ns"], w
reg = {r["name"]: r for r in d["regions"]}
task, par = reg["main._omp_fn.1"], reg["main._omp_fn.0"]
assert par["rounds"]["parallel"] == 10 and all(t["nested"] == 0 for t in par["threads"]), par
assert sum(t["nested"] for t in task["threads"]) > 0, task
assert all(t["nested"] == t["instances"] for t in task["threads"]), task
PYEOF2
	then
		pass marks-p/omp-tasks-counted-once
	else
		fail marks-p/omp-tasks-counted-once "exit $RC; want the tasks nested, the workers' split adding up" "$(grep -o '"omp_workers"[^}]*' "$OUT" | head -n 2)"
	fi
	# its two tasks a round, 4:1 in size, run side by side: imbalance of tasks, with the tasks' fix
	# (not a loop's schedule)
	if tl diagnose --json "$TMP/tk/tk.tl" && python3 - "$OUT" <<'PYEOF2'
import json, sys
f = [x for x in json.load(open(sys.argv[1]))["findings"] if x["kind"] == "barrier-imbalance"]
assert len(f) == 1 and f[0]["region"] == "main._omp_fn.1", f
assert f[0]["title"].startswith("tasks 'main._omp_fn.1'") and "OpenMP task" in f[0]["cause"], f
assert "split the long tasks" in f[0]["fix"] and "schedule" not in f[0]["fix"], f
# the same idle time is not told twice
assert not [x for x in json.load(open(sys.argv[1]))["findings"] if x["kind"] == "task-starvation"]
PYEOF2
	then
		pass marks-p/omp-tasks-imbalance
	else
		fail marks-p/omp-tasks-imbalance "exit $RC; want barrier-imbalance on the task main._omp_fn.1, told as tasks" "$(head -c 400 "$OUT")"
	fi
	# one task a round for two threads: the other waits at the barrier with none to run (about half
	# of the team's time): task-starvation on the region, not on the task
	sed 's/t < 2;/t < 1;/' "$TMP/tk/tk.c" >"$TMP/tk/one.c"
	if cc -O1 -fopenmp -o "$TMP/tk/one" "$TMP/tk/one.c" &&
		OMP_NUM_THREADS=2 tl record -o "$TMP/tk/one.tl" -- "$TMP/tk/one" && tl diagnose --json "$TMP/tk/one.tl" &&
		python3 - "$OUT" <<'PYEOF2'
import json, sys
f = json.load(open(sys.argv[1]))["findings"]
s = [x for x in f if x["kind"] == "task-starvation"]
assert len(s) == 1 and s[0]["region"] == "main._omp_fn.0", f
assert not [x for x in f if x["kind"] == "barrier-imbalance"], f
PYEOF2
	then
		pass marks-p/omp-task-starvation
	else
		fail marks-p/omp-task-starvation "exit $RC; want task-starvation on main._omp_fn.0" "$(head -c 400 "$OUT")"
	fi
else
	fail marks-p/omp-tasks-counted-once "cannot build the OpenMP task program with cc -fopenmp"
fi

# A parallel region with two `omp for` loops: their barriers are inside main._omp_fn.0, so its
# instances end together however uneven the first loop is (static halves of 4:1). record probes
# libgomp's barriers; the instances are cut there into parts that line up in rounds, and the
# uneven loop is found (before: no finding), from the second round on (the first shows whether tasks
# run inside the barriers).
cat >"$TMP/tk/bar.c" <<'CEOF'
#include <stdio.h>
static double work(int n)
{
	double s = 0;
	for (int i = 0; i < n * 20000; i++)
		s += i * 0.5;
	return s;
}
int main(void)
{
	double tot = 0;
	for (int r = 0; r < 10; r++) {
#pragma omp parallel reduction(+ : tot)
		{
#pragma omp for schedule(static)
			for (int t = 0; t < 8; t++)
				tot += work(t < 4 ? 400 : 100);
#pragma omp for schedule(static)
			for (int t = 0; t < 8; t++)
				tot += work(100);
		}
	}
	printf("%g\n", tot);
	return 0;
}
CEOF
if cc -O1 -fopenmp -o "$TMP/tk/bar" "$TMP/tk/bar.c"; then
	OMP_NUM_THREADS=2 tl record -o "$TMP/tk/bar.tl" -- "$TMP/tk/bar"
	if [ "$RC" = 0 ] && tl report --json "$TMP/tk/bar.tl" && python3 - "$OUT" <<'PYEOF2'
import json, sys
d = json.load(open(sys.argv[1]))
g = {r["name"]: r for r in d["regions"]}["main._omp_fn.0"]
# the second round on: 2 barriers a call; the parts after the last, tiny, may not overlap (serial)
assert g["instances"] == 20 and g["barriers"] >= 18 and g["rounds"]["parallel"] >= 18, g
w = [p["omp_workers"] for p in d["processes"] if p["omp_workers"]["threads"]][0]
assert w["inside_ns"] + w["around_ns"] + w["between_ns"] == w["exec_ns"], w
PYEOF2
	then
		pass marks-p/omp-inner-barrier-parts
	else
		fail marks-p/omp-inner-barrier-parts "exit $RC; want the instances cut at libgomp's barriers" "$(grep -o '"barriers"[^,]*' "$OUT" | head -n 2)" "$(head -n 2 "$ERR")"
	fi
	if tl diagnose --json "$TMP/tk/bar.tl" && python3 - "$OUT" <<'PYEOF2'
import json, sys
f = [x for x in json.load(open(sys.argv[1]))["findings"] if x["kind"] == "barrier-imbalance"]
assert len(f) == 1 and f[0]["region"] == "main._omp_fn.0", f
# the main thread has the heavy half of the static split: the laggard (its tid is the pid)
assert f[0]["threads"][0]["role"] == "laggard" and f[0]["threads"][0]["tid"] == f[0]["pid"], f
PYEOF2
	then
		pass marks-p/omp-inner-barrier
	else
		fail marks-p/omp-inner-barrier "exit $RC; want barrier-imbalance on main._omp_fn.0" "$(head -c 400 "$OUT")"
	fi
else
	fail marks-p/omp-inner-barrier "cannot build the OpenMP program with cc -fopenmp"
fi

# The uprobes as perf events (kernels before 6.6 have no uprobe_multi links): the same regions.
TL_BPF_NO_UPROBE_MULTI=1 tl record -o "$TMP/omp-pe.tl" -- "$BUILD/tests/wl_fast" --omp 2 outer static --frames 5
if [ "$RC" = 0 ] && tl hist --json --span wl_rows_omp._omp_fn.0 "$TMP/omp-pe.tl" &&
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(d["span"]["counted"] != 20 or d["span"]["incomplete"] != 0)' "$OUT"; then
	pass marks-p/omp-regions-perf-events
else
	fail marks-p/omp-regions-perf-events "exit $RC; want 20 instances of wl_rows_omp._omp_fn.0" "$(head -c 300 "$OUT")" "$(head -n 2 "$ERR")"
fi

# The perf back end probes neither: it says so, once each, and not when asked for no OpenMP.
tl record --backend perf -o "$TMP/pe.tl" -- "$BUILD/tests/wl_fast" --omp 2 outer static --frames 2
if [ "$RC" = 0 ] && [ "$(grep -c '2 OpenMP functions are not recorded as regions: the perf back end' "$ERR")" = 1 ] &&
	! grep -q 'markers of processes' "$ERR" &&
	tl record --backend perf --no-omp -o "$TMP/pe.tl" -- "$BUILD/tests/wl_fast" --omp 2 outer static --frames 2 &&
	! grep -q OpenMP "$ERR"; then
	pass marks-p/perf-backend-omp-told
else
	fail marks-p/perf-backend-omp-told "exit $RC; want one line for wl_fast's 2 OpenMP functions, none with --no-omp" "$(head -n 3 "$ERR")"
fi
"$BUILD/tests/wl_frames" --frames 100 --fps 100 >/dev/null &
wl=$!
sleep 0.2
tl record --backend perf -p "$wl" -d 0.2s -o "$TMP/pe-p.tl"
wait "$wl"
if [ "$RC" = 0 ] && [ "$(grep -c 'markers of processes threadlens did not start are not recorded: the perf back end' "$ERR")" = 1 ]; then
	pass marks-p/perf-backend-marks-told
else
	fail marks-p/perf-backend-marks-told "exit $RC; want one line for the markers not recorded" "$(head -n 3 "$ERR")"
fi

# The command's own markers still come through shared memory, once: no uprobes then.
tl record -o "$TMP/c.tl" -- "$BUILD/tests/wl_frames" --frames 20 --fps 200 --truth "$TMP/c.json"
if [ "$RC" = 0 ] && grep -q ', 240 markers (0 lost)' "$ERR"; then
	pass marks-p/command-once
else
	fail marks-p/command-once "exit $RC; want 240 markers (20 frames: a begin, an end and 5 regions of 2 markers each)" "$(tail -n 1 "$ERR")"
fi

cli_done
