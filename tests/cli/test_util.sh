#!/bin/bash
# test_util.sh - `threadlens util` through the binary.
#
#   tests/cli/test_util.sh BUILD_DIR
#
# Needs no privilege: the hand-written trace of tests/unit/test_util.c
# (`test_util --write-trace`), whose numbers were computed by hand: the
# JSON must hold exactly them (a span hit by an IRQ, a softirq and a
# preemption; the statistics; the admission test), the text must fit 100
# columns and label both intervals, and bad input gives one clear line.
# The recorded workloads are checked by tests/live/util.sh.
. "$(dirname "$0")/lib.sh"
cli_init "$1"

UT=$BUILD/tests/test_util
if ! command -v python3 >/dev/null; then
	skip util "python3 is needed to read the JSON"
	cli_done
fi

# jcheck NAME PYTHON: run PYTHON with d = the JSON on stdout ($OUT); it
# prints problems, if any.
jcheck() {
	name=$1
	if [ "$RC" != 0 ]; then
		fail "$name" "exit status $RC" "stderr: $(head -c 600 "$ERR")"
		return
	fi
	problems=$(python3 - "$OUT" "$2" <<'EOF' 2>&1
import json, sys
d = json.load(open(sys.argv[1]))
exec(sys.argv[2])
EOF
	)
	if [ -n "$problems" ]; then
		fail "$name" "$problems"
	else
		pass "$name"
	fi
}

# ---- the hand-written trace ----
if [ ! -x "$UT" ] || ! "$UT" --write-trace "$TMP/u.tl" >/dev/null 2>&1; then
	fail util/setup "'$UT --write-trace' did not write a trace"
	cli_done
fi

tl util --rate step=1000 --instances --json "$TMP/u.tl"
jcheck util/json-exact '
s = d["spans"][0]
want = {"count": 3, "incomplete": 1, "threads": 1, "unmeasured": 0, "period_ns": 1000000}
for k, v in want.items():
    if s[k] != v: print(k, s[k], "!=", v)
c = s["cpu"]
for k, v in {"mean_ns": 17000, "min_ns": 8000, "max_ns": 28000, "total_ns": 51000, "p50_ns": 15000,
             "p99_ns": 28000, "worst_ns": 28000, "sd_ns": 10149}.items():
    if c[k] != v: print("cpu", k, c[k], "!=", v)
if c["values_central95"] != {"low_ns": 8000, "high_ns": 28000}: print("central95", c["values_central95"])
ci = c["mean_ci95"]
if ci["df"] != 2 or abs(ci["t"] - 4.302653) > 1e-6 or abs((ci["high_ns"] - ci["low_ns"]) / 2 - 25211) > 1: print("ci", ci)
i = s["instances"][0]
for k, v in {"elapsed_ns": 50000, "cpu_ns": 28000, "irq_ns": 7000, "ready_ns": 15000, "asleep_ns": 0,
             "unknown_ns": 0, "page_fault_ns": 0, "start_ns": 10000}.items():
    if i[k] != v: print("instance 1", k, i[k], "!=", v)
i = s["instances"][1]
if (i["cpu_ns"], i["asleep_ns"], i["ready_ns"]) != (15000, 10000, 5000): print("instance 2", i)
for i in s["instances"]:
    if i["cpu_ns"] + i["irq_ns"] + i["ready_ns"] + i["asleep_ns"] + i["unknown_ns"] != i["elapsed_ns"]: print("split", i)
if abs(s["utilization"]["mean_pct"] - 1.7) > 1e-9: print("utilization", s["utilization"])
a = d["admission"]
if a["mean"]["u_pct"] != 1.7 or a["worst"]["u_pct"] != 2.8 or not a["mean"]["edf_fits"]: print("admission", a)
if d["schema"] != "threadlens-util" or d["version"] != 1: print("schema")
if d["page_faults"]["recorded"] is not False: print("page_faults")
if sorted(d["other_spans"]) != ["late", "other-step", "outer", "woke"]: print("other_spans", d["other_spans"])
'

# Three modules: step (17 us at 10 kHz: 17%), outer (20 us at 25 kHz: 50%),
# late (10 us at 20 kHz: 20%).  EDF takes all (87%); RM admits step and
# outer (67% <= 82.8%) and rejects late (87% > 78.0%).
tl util --rate step=10000 --rate outer=25000 --rate late=20000 --worst max --json "$TMP/u.tl"
jcheck util/json-admission '
a = d["admission"]
if a["worst_case"] != "max": print("worst_case", a["worst_case"])
m = a["mean"]
rows = [(r["name"], r["u_pct"], r["rm_admitted"], r["edf_admitted"]) for r in m["modules"]]
if rows != [("step", 17.0, True, True), ("outer", 50.0, True, True), ("late", 20.0, False, True)]: print("rows", rows)
if m["u_pct"] != 87.0 or m["rm_fits"] or not m["edf_fits"] or m["rm_admitted"] != 2 or m["edf_admitted"] != 3: print("mean", m)
if abs(m["rm_bound_pct"] - 77.976) > 0.001 or abs(m["rm_slack_pct"] - (77.976 - 87)) > 0.002: print("bound", m)
if abs(m["modules"][2]["rm_slack_pct"] - (77.976 - 87)) > 0.002: print("late slack", m["modules"][2])
w = a["worst"]
if [r["p_ns"] for r in w["modules"]] != [28000, 20000, 10000]: print("worst P", w["modules"])
'

tl util --span step --span late --rate outer=25000 --instances "$TMP/u.tl"
long=$(awk 'length($0) > 100' "$OUT")
if [ "$RC" = 0 ] && [ -z "$long" ] && grep -q "confidence interval of the MEAN" "$OUT" &&
	grep -q "central 95% of SINGLE values" "$OUT" && grep -q "page-fault stalls *not recorded" "$OUT" &&
	grep -q "admission test" "$OUT" && [ ! -s "$ERR" ]; then
	pass util/text
else
	fail util/text "exit $RC; lines over 100 columns: $long" "stdout: $(head -c 1500 "$OUT")" "stderr: $(head -c 300 "$ERR")"
fi

tl util --span frob "$TMP/u.tl"
expect_err util/missing-span 1 "no span 'frob' in '$TMP/u.tl'" "'step'"
tl util --span frob --span step --json "$TMP/u.tl"
if [ "$RC" = 0 ] && grep -q "^threadlens: warning: no span 'frob'" "$ERR"; then
	pass util/one-missing-span
else
	fail util/one-missing-span "exit $RC (want 0 with a warning)" "stderr: $(head -c 300 "$ERR")"
fi
tl util --span step "$TMP/missing.tl"
expect_err util/missing-file 1 "'$TMP/missing.tl'" "[Nn]o such file"
printf 'not a trace\n' >"$TMP/text.tl"
tl util --span step "$TMP/text.tl"
expect_err util/not-a-trace 1 "'$TMP/text.tl'" "not a threadlens trace"

# expect_usage NAME REGEX: status 2, the first stderr line in git's style
# matches REGEX, and the second points to --help (as for every command).
expect_usage() {
	line=$(head -n 1 "$ERR")
	style=$(msg_style "$line")
	if [ "$RC" = 2 ] && [ -z "$style" ] && printf '%s\n' "$line" | grep -Eq -- "$2" &&
		sed -n 2p "$ERR" | grep -q "threadlens util --help" && [ ! -s "$OUT" ]; then
		pass "$1"
	else
		fail "$1" "exit $RC (want 2) $style" "stderr: $(head -c 400 "$ERR")"
	fi
}
tl util "$TMP/u.tl"
expect_usage util/no-span "needs a span"
tl util --rate step=fast "$TMP/u.tl"
expect_usage util/bad-rate "invalid --rate 'step=fast'"
tl util --span step --worst p0 "$TMP/u.tl"
expect_usage util/bad-worst "invalid --worst 'p0'"
tl util --span step --period 0 "$TMP/u.tl"
expect_usage util/bad-period "invalid --period '0'"

cli_done
