#!/bin/bash
# test_predict.sh - `threadlens predict` through the binary.
#
# Live (root): a recording of tests/live/wl_tasks --skew (8 iterations of
# 1..8 ms of CPU time, each measured by the program's own clock, between
# 5 ms of setup and 5 ms of finishing): with no runtime costs the 1-core
# prediction is the sequential time exactly, every core count's
# categories sum to cores x time, and the 2- and 3-core times of static
# blocks and of dynamic chunks match the schedules computed here from the
# program's own iteration times, within 5% (the trace's task times are
# wall-clock times, a little above the CPU times the program measures).
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
it = t["iterations_ns"]
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
        want = t["setup_ns"] + t["finish_ns"] + loop
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
else
	skip predict-live "needs root, python3 and $BUILD/tests/wl_tasks"
fi

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

cli_done
