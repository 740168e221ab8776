#!/bin/bash
# test_predict.sh - `threadlens predict` through the binary.
#
# Live (root): a recording of tests/live/wl_tasks --skew (8 iterations of
# 1..8 ms of CPU time, each measured by the program's own clock, between
# 5 ms of setup and 5 ms of finishing): with no runtime costs the 1-core
# prediction is the sequential time exactly, every core count's
# categories sum to cores x time, and the 2- and 3-core times of static
# blocks and of dynamic chunks match the schedules computed here from the
# program's own iteration times by its wall clock (the trace's clock: a
# preempted iteration is longer in both), within 5%.
# Then the errors: no --directives, a bad directive, a trace without
# tasks, a missing trace.
#
#   tests/cli/test_predict.sh BUILD_DIR
. "$(dirname "$0")/lib.sh"
cli_init "$1"

printf 'loop = parallel for schedule(static)\n' >"$TMP/static.omp"
printf 'loop = parallel for schedule(dynamic)\n' >"$TMP/dynamic.omp"

if can_record && command -v python3 >/dev/null && [ -x "$BUILD/tests/wl_tasks" ]; then
	timeout -k 5 60 "$TL" record -o "$TMP/tasks.tl" -- "$BUILD/tests/wl_tasks" --skew >"$TMP/truth" 2>"$TMP/rec.err"
	for sched in static dynamic; do
		tl predict --json --directives "$TMP/$sched.omp" --cores 4 "$TMP/tasks.tl"
		res=$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
t = json.load(open(sys.argv[2]))
sched = sys.argv[3]
it = t["iterations_wall_ns"]   # the trace times are wall-clock times: preemption is in them
bad = []
p = d["predictions"]
if len(p) != 4 or d["tasks"] != 12 or d["platform"]["measured"]:
    bad.append("%d predictions, %d tasks" % (len(p), d["tasks"]))
else:
    if p[0]["time_ns"] != d["sequential_ns"]:
        bad.append("1 core: %d, sequential %d" % (p[0]["time_ns"], d["sequential_ns"]))
    for x in p:
        if sum(x["core_ns"].values()) != x["cores"] * x["time_ns"]:
            bad.append("%d cores: categories %d, cores x time %d" % (x["cores"], sum(x["core_ns"].values()), x["cores"] * x["time_ns"]))
    for n in (2, 3):
        if sched == "static":
            b = -(-len(it) // n)
            loop = max(sum(it[i:i + b]) for i in range(0, len(it), b))
        else:
            free = [0] * n
            for c in it:
                k = free.index(min(free))
                free[k] += c
            loop = max(free)
        want = t["setup_wall_ns"] + t["finish_wall_ns"] + loop
        got = p[n - 1]["time_ns"]
        if abs(got - want) > 0.05 * want:
            bad.append("%s on %d cores: %.2f ms, from the program clock %.2f ms" % (sched, n, got / 1e6, want / 1e6))
print("; ".join(bad))
' "$OUT" "$TMP/truth" "$sched" 2>&1)
		[ "$RC" = 0 ] && [ -z "$res" ] && pass "predict-$sched" || fail "predict-$sched" "exit $RC; $res" "$(head -c 300 "$ERR")"
	done
	tl predict --directives "$TMP/dynamic.omp" --cores 1-8 "$TMP/tasks.tl"
	if [ "$RC" = 0 ] && grep -q "^region loop: 1 instance" "$OUT" && grep -q "^    8 " "$OUT" &&
		[ "$(awk 'length > 100' "$OUT" | wc -l)" = 0 ]; then
		pass predict-text
	else
		fail predict-text "exit $RC, or a line over 100 columns" "$(head -n 12 "$OUT")"
	fi
	# a terminal of 80 columns: no efficiency column, categories in 8, every line within 80
	tl predict --width 80 --directives "$TMP/dynamic.omp" --cores 1-8 "$TMP/tasks.tl"
	if [ "$RC" = 0 ] && grep -q "^cores      time  speedup  amdahl    seq.    par.  imbal." "$OUT" &&
		[ "$(awk 'length > 80' "$OUT" | wc -l)" = 0 ]; then
		pass predict-text-80
	else
		fail predict-text-80 "exit $RC, or a line over 80 columns" "$(head -n 12 "$OUT")"
	fi
else
	skip predict-live "needs root, python3 and $BUILD/tests/wl_tasks"
fi

# calibrate (no root needed): every figure measured and plausible on any machine, its median
# between its min and max (derived costs too: a half of a difference has the range its parts'
# extremes allow); the memory
# latencies grow from the first cache level to memory; then predict with those costs: on one
# core the loop costs exactly what the model adds (docs/PREDICT.md: open, join, prologues,
# a chunk each of 8 iterations, epilogues, barrier, close).
tl calibrate --reps 3 -o "$TMP/platform.json"
res=$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
c = d["costs_ns"]
bad = []
if d["schema"] != "threadlens-platform" or d["machine"]["ncpus"] < 1 or not d["machine"]["openmp"]:
    bad.append("machine %s" % d.get("machine"))
folded = {"thr_create", "launch_master", "thr_prologue", "thr_epilogue"}   # inside the region figures: 0, not measured alone
if d["machine"]["ncpus"] == 1:
    folded |= {"thr_launch", "thr_free"}   # no second thread to measure
for k, v in c.items():
    if not (0 <= v["median"] < 1e7 and v["min"] <= v["median"] <= v["max"] and (v["reps"] == 3 or (k in folded and v == {"median": 0, "min": 0, "max": 0, "reps": 0}))):
        bad.append("%s %s" % (k, v))
for f in d["region_ns"] + [d["context_switch_ns"], d["minor_fault_ns"]] + [l["latency"] for l in d["memory_latency_ns"]]:
    if not f["min"] <= f["median"] <= f["max"]:
        bad.append("figure %s" % f)
if not 0 < d["context_switch_ns"]["median"] < 1e6 or not 0 < d["minor_fault_ns"]["median"] < 1e6:
    bad.append("switch %s, fault %s" % (d["context_switch_ns"], d["minor_fault_ns"]))
m = d["memory_latency_ns"]
if len(m) < 2 or m[-1]["level"] != "memory" or not m[0]["latency"]["median"] < m[-1]["latency"]["median"]:
    bad.append("memory %s" % m)
if len(d["region_ns"]) != d["machine"]["ncpus"] and len(d["region_ns"]) != 64:
    bad.append("%d region figures" % len(d["region_ns"]))
if set(d["counters"]) != {"cycles", "instructions", "cache-references", "cache-misses", "branch-instructions", "branch-misses"}:
    bad.append("counters %s" % d["counters"])
print("; ".join(bad))
' "$TMP/platform.json" 2>&1)
[ "$RC" = 0 ] && [ -z "$res" ] && pass calibrate || fail calibrate "exit $RC; $res" "$(head -c 300 "$ERR")"
if [ -f "$TMP/tasks.tl" ]; then
	tl predict --json --platform "$TMP/platform.json" --directives "$TMP/dynamic.omp" --cores 2 "$TMP/tasks.tl"
	res=$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
c = {k: int(v["median"] + 0.5) for k, v in json.load(open(sys.argv[2]))["costs_ns"].items()}   # as the loader rounds: half away from 0
p = d["predictions"][0]
want = (c["par_open"] + c["launch_master"] + c["thr_prologue"] + c["for_prologue"] + 8 * c["next_chunk"] +
        c["for_epilogue"] + c["barrier"] + c["thr_epilogue"] + c["par_close"])
if not d["platform"]["measured"] or p["time_ns"] - d["sequential_ns"] != want or p["core_ns"]["overhead"] != want:
    print("1 core: %d more than sequential, overhead %d, the costs add %d" % (p["time_ns"] - d["sequential_ns"], p["core_ns"]["overhead"], want))
m = d["markers"]   # what was taken out for the markers is accounted for exactly
if m["calls"] != 2 * d["tasks"] or d["sequential_ns"] + m["removed_ns"] != m["recorded_ns"] or m["removed_ns"] > m["calls"] * m["ns_each"]:
    print("markers %s, sequential %d" % (m, d["sequential_ns"]))
' "$OUT" "$TMP/platform.json" 2>&1)
	[ "$RC" = 0 ] && [ -z "$res" ] && pass predict-platform || fail predict-platform "exit $RC; $res" "$(head -c 300 "$ERR")"
fi
printf '{"version": 1}' >"$TMP/bad-platform.json"
tl predict --platform "$TMP/bad-platform.json" --directives "$TMP/static.omp" "$(dirname "$0")/../data/traces/v1.5-frames.tl"
expect_err predict-bad-platform 1 "bad-platform.json: no cost costs_ns.par_open.median"

# ---- errors ----
tl predict "$(dirname "$0")/../data/traces/v1.5-frames.tl"
if [ "$RC" = 2 ] && head -n 1 "$ERR" | grep -q "^threadlens: predict needs --directives FILE"; then
	pass predict-no-directives
else
	fail predict-no-directives "exit $RC" "$(cat "$ERR")"
fi
printf 'loop = parallel\nrows = for schedule(sometimes)\n' >"$TMP/bad.omp"
tl predict --directives "$TMP/bad.omp" "$(dirname "$0")/../data/traces/v1.5-frames.tl"
expect_err predict-bad-directive 1 "bad.omp, line 2: unknown schedule \(static, dynamic or guided\) 'sometimes'"
tl predict --directives "$TMP/static.omp" "$(dirname "$0")/../data/traces/v1.5-frames.tl"
expect_err predict-no-tasks 1 "no complete task in the trace"
tl predict --directives "$TMP/static.omp" "$TMP/missing.tl"
expect_err predict-missing-trace 1 "missing.tl"
tl predict --directives "$TMP/static.omp" --cores 0 "$TMP/missing.tl"
[ "$RC" = 2 ] && pass predict-bad-cores || fail predict-bad-cores "exit $RC, want 2" "$(cat "$ERR")"
tl predict --directives "$TMP/static.omp" --marker-ns -5 "$TMP/missing.tl"
if [ "$RC" = 2 ] && head -n 1 "$ERR" | grep -q "^threadlens: invalid --marker-ns '-5'"; then
	pass predict-bad-marker-ns
else
	fail predict-bad-marker-ns "exit $RC, want 2 and the option named" "$(cat "$ERR")"
fi

cli_done
