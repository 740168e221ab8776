#!/bin/bash
# test_hist.sh - `threadlens hist` on traces with known durations.
#
#   tests/cli/test_hist.sh BUILD_DIR
#
# The traces come from BUILD_DIR/tests/gen_spans (bench/gen_spans.c), which
# writes regions "work" of known durations through the trace writer and
# prints their count, sum, min, max and nearest-rank percentiles; the JSON
# must hold exactly those.  Then: the thread filters, the three modes and
# --compare, the ETP as text and CSV, the iterative range saved and widened
# over runs until it converges, bursts and latencies of an imported perf
# trace against `report --json`, and the error messages.  Needs no
# privilege, except one test that records tests/live/wl_frames and compares
# the per-step and frame counts (exact) and means (within 5%) with the
# workload's own truth; python3 reads the JSON.
. "$(dirname "$0")/lib.sh"
cli_init "$1"

GEN=$BUILD/tests/gen_spans
if [ ! -x "$GEN" ]; then
	fail hist/setup "'$GEN' is not built (make tests builds it)"
	cli_done
fi
if ! command -v python3 >/dev/null; then
	skip hist "python3 is needed to read the JSON"
	cli_done
fi

# jcheck NAME PYTHON: run PYTHON with d = the JSON on stdout ($OUT) and
# g = gen_spans' numbers ($TMP/g.txt as a dict); it prints problems, if any.
jcheck() {
	name=$1
	if [ "$RC" != 0 ]; then
		fail "$name" "exit status $RC" "stderr: $(head -c 600 "$ERR")"
		return
	fi
	problems=$(python3 - "$OUT" "$TMP/g.txt" "$2" <<'EOF' 2>&1
import json, sys
d = json.load(open(sys.argv[1]))
g = dict(kv.split("=") for kv in open(sys.argv[2]).read().split())
g = {k: int(v) for k, v in g.items()}
exec(sys.argv[3])
EOF
	)
	if [ -n "$problems" ]; then
		fail "$name" "$problems"
	else
		pass "$name"
	fi
}

A=$TMP/run1.tl
"$GEN" "$A" 2000 >"$TMP/g.txt" || fail hist/gen "gen_spans exited $?"
cp "$TMP/g.txt" "$TMP/g1.txt"

# -- exact statistics -------------------------------------------------------
tl hist --span work --json "$A"
jcheck hist/json-exact-stats '
s = d["stats"]
for k in ("min_ns", "max_ns", "p50_ns", "p90_ns", "p99_ns", "p99_9_ns"):
    if s[k] != g[k]: print(k, s[k], "!=", g[k])
if s["count"] != g["spans"]: print("count", s["count"], g["spans"])
if abs(s["mean_ns"] * g["spans"] - g["sum_ns"]) > g["spans"] * 0.001: print("mean", s["mean_ns"], g["sum_ns"] / g["spans"])
if d["span"]["incomplete"] != 1: print("incomplete", d["span"]["incomplete"])
if d["schema"] != "threadlens-hist" or d["version"] != 1: print("schema")
h = d["histograms"][0]
if h["mode"] != "iterative" or h["k"] != 128 or len(h["bins"]) != 128: print("mode/k/bins", h["mode"], h["k"])
if sum(b["count"] for b in h["bins"]) != g["spans"]: print("bins do not sum to the count")
for a, b in zip(h["bins"], h["bins"][1:]):
    if b["lower_ns"] != a["upper_ns"] + 1: print("bins not contiguous at", a, b); break
if h["bins"][-1]["upper_ns"] is not None: print("last bin not open")
if h["step_ns"] != (g["max_ns"] - g["min_ns"]) // 126 + 1: print("Eq. 1 step", h["step_ns"])
if h["coverage_pct"] != 100: print("coverage", h["coverage_pct"])
if d["iteration"]["range_from"] != "this run" or not d["iteration"]["converged"]: print("iteration", d["iteration"])
if d["etp_values"] is not None: print("etp_values for 2000 spans")
for i, e in enumerate(h["etp"]):
    if e["above"] != sum(b["count"] for b in h["bins"][i + 1:]): print("etp", e); break
'

# -- filters -------------------------------------------------------------------
tl hist --span work --tid 1001 --json "$A"
jcheck hist/tid-filter 'if d["stats"]["count"] != 500 or d["span"]["filtered_out"] != 1500: print(d["span"])'
tl hist --span work --comm gen-1 --json "$A"
jcheck hist/comm-filter 'if d["stats"]["count"] != 500: print(d["span"])'
tl hist --span work --comm gen-1 --tid 1001 "$A"
expect_err hist/filters-leave-nothing 1 "^threadlens: no complete span 'work'" "2000 of threads"

# -- modes ----------------------------------------------------------------------
tl hist --span work --mode linear --step 20us -k 10 --json "$A"
jcheck hist/linear '
h = d["histograms"][0]
if [b["lower_ns"] for b in h["bins"]] != [20000 * j for j in range(10)]: print([b["lower_ns"] for b in h["bins"]])
if h["inner"] != {"first_bin": 0, "last_bin": 8, "lower_ns": 0, "upper_ns": 179999}: print(h["inner"])
if h["params"]["step_from"] != "given": print(h["params"])
'
tl hist --span work --mode centered --ref 50us --below 6 -k 10 --json "$A"
jcheck hist/centered '
h = d["histograms"][0]
if h["step_ns"] != 5000 or h["bins"][6]["lower_ns"] != 50000 or h["bins"][0]["upper_ns"] != 24999: print(h["bins"][:7])
p = h["params"]
if (p["ref_ns"], p["below"], p["above"], p["factor"], p["fallback"]) != (50000, 6, 4, 1, False): print(p)
'
tl hist --span work --compare --json "$A"
jcheck hist/compare-json '
modes = [h["mode"] for h in d["histograms"]]
if modes != ["linear", "centered", "iterative"]: print(modes)
cov = {h["mode"]: h["coverage_pct"] for h in d["histograms"]}
if cov["iterative"] != 100 or cov["linear"] != 100 or not cov["centered"] < 100: print(cov)
if d["histograms"][1]["params"]["ref_ns"] != d["stats"]["first_ns"]: print("centered r is not the first value")
c = d["compare"]
if not c or c[0]["above"]["exact"] != g["spans"] or c[-1]["t_ns"] != g["max_ns"] or c[-1]["above"]["exact"] != 0: print(c[:1], c[-1:])
for row in c:
    for m in ("linear", "centered", "iterative"):
        if row["above"][m] < row["above"]["exact"]: print("a bound below the truth", row); break
'
tl hist --span work --compare --csv "$A"
if [ "$RC" = 0 ] && [ "$(head -n 1 "$OUT")" = "t_ns,exact_above,exact,linear,centered,iterative" ] &&
	[ "$(wc -l <"$OUT")" -gt 100 ]; then
	pass hist/compare-csv
else
	fail hist/compare-csv "exit $RC" "$(head -n 3 "$OUT")"
fi
tl hist --span work --etp "$A"
if [ "$RC" = 0 ] && grep -q 'execution time profile' "$OUT" && [ "$(grep -c '^ *[0-9.]* *[0-9]* *[01]\.[0-9]*$' "$OUT")" -ge 127 ]; then
	pass hist/etp-text
else
	fail hist/etp-text "exit $RC" "$(head -n 20 "$OUT")"
fi
tl hist --span work --csv -k 16 "$A"
if [ "$RC" = 0 ] && [ "$(head -n 1 "$OUT")" = "t_ns,above,etp" ] && [ "$(wc -l <"$OUT")" = 16 ]; then
	pass hist/etp-csv
else
	fail hist/etp-csv "exit $RC, $(wc -l <"$OUT") lines (want a header and 15 bounds)" "$(head -n 3 "$OUT")"
fi
# few spans: the ETP at every observed value too
tl hist --span other --json "$A"
jcheck hist/etp-at-values 'if d["etp_values"] != [{"t_ns": 1000, "above": 0, "p": 0.0}]: print(d["etp_values"])'

# -- the iterative range over runs ---------------------------------------------
B=$TMP/run2.tl
C=$TMP/run3.tl
"$GEN" "$B" 2000 150 >"$TMP/g2.txt"
"$GEN" "$C" 2000 50 >"$TMP/g3.txt"
BINS=$TMP/bins.txt
tl hist --span work --bins "$BINS" --save-bins "$BINS" "$A"
if [ "$RC" = 0 ] && grep -q "has no range for this span yet" "$OUT" &&
	grep -Eq "^work 128 $(sed 's/.*min_ns=\([0-9]*\) max_ns=\([0-9]*\).*/\1 \2/' "$TMP/g1.txt") " "$BINS"; then
	pass hist/iterative-first-run
else
	fail hist/iterative-first-run "exit $RC" "$(cat "$OUT" | head -n 12)" "bins: $(cat "$BINS" 2>&1)"
fi
tl hist --span work --bins "$BINS" --save-bins "$BINS" "$B"
if [ "$RC" = 0 ] && grep -Eq "[0-9]+ values outside .*run again with --bins $BINS to widen" "$OUT"; then
	pass hist/iterative-widen
else
	fail hist/iterative-widen "exit $RC" "$(head -n 12 "$OUT")"
fi
cp "$TMP/g2.txt" "$TMP/g.txt"
tl hist --span work --bins "$BINS" --json "$B"
jcheck hist/iterative-converged '
it = d["iteration"]
g1 = dict(kv.split("=") for kv in open(sys.argv[2].replace("g.txt", "g1.txt")).read().split())
if it["range_from"] != "saved" or not it["converged"] or it["outside_below"] or it["outside_above"]: print(it)
if (it["c_min_ns"], it["c_max_ns"]) != (int(g1["min_ns"]), g["max_ns"]): print("range", it, g1, g)
'
tl hist --span work --bins "$BINS" "$B"
if [ "$RC" = 0 ] && grep -q "converged: no value outside the inner bins" "$OUT"; then
	pass hist/iterative-converged-text
else
	fail hist/iterative-converged-text "exit $RC" "$(head -n 12 "$OUT")"
fi
# a faster run widens the range downwards; other spans' lines stay
printf 'frame 3 7 7 1\n' >>"$BINS"
tl hist --span work --bins "$BINS" --save-bins "$BINS" --json "$C"
cp "$TMP/g3.txt" "$TMP/g.txt"
jcheck hist/iterative-widen-down '
it = d["iteration"]
if it["outside_below"] == 0 or it["outside_above"] != 0 or it["converged"]: print(it)
if it["next"]["c_min_ns"] != g["min_ns"]: print("next", it["next"], g)
'
if grep -q '^frame 3 7 7 1$' "$BINS"; then pass hist/save-keeps-other-lines; else fail hist/save-keeps-other-lines "$(cat "$BINS")"; fi

# -- --save-bins without --bins only widens the saved range, and says so -------
# Before: a run over [a, b] overwrote a saved wider range with [a, b], and
# in linear and centered modes saved without a word.
W=$TMP/widen.txt
tl hist --span work --save-bins "$W" "$A"
python3 - "$W" <<'PY'
import sys
lines = open(sys.argv[1]).read().splitlines()
def wide(l):  # the same k over [1 ns, 1000 s], with its Eq. 1 step
    k = int(l.split()[1])
    return "work %d 1 1000000000000 %d" % (k, (10**12 - 1) // (k - 2) + 1)
out = [wide(l) if l.startswith("work ") else l for l in lines]
open(sys.argv[1], "w").write("\n".join(out) + "\n")
PY
tl hist --span work --save-bins "$W" "$A"
if [ "$RC" = 0 ] && grep -Eq '^work 128 1 1000000000000 ' "$W" &&
	grep -q "saved k 128 over \[1ns, 1000.0s\] to '$W'" "$OUT"; then
	pass hist/save-only-widens
else
	fail hist/save-only-widens "exit $RC; saved: $(grep '^work ' "$W")" "$(grep saved "$OUT")"
fi
for mode in linear centered; do
	tl hist --span work --mode $mode --save-bins "$W" "$A"
	if [ "$RC" = 0 ] && grep -q "saved k 128 over \[1ns, 1000.0s\] to '$W'" "$OUT"; then
		pass hist/save-says-so-$mode
	else
		fail hist/save-says-so-$mode "exit $RC: no 'saved k 128 over [1ns, 1000.0s]' line" "$(head -n 8 "$OUT")"
	fi
done
tl hist --span work --mode linear --save-bins "$W" --json "$A"
jcheck hist/save-json-linear '
it = d["iteration"]
if not it or it.get("saved_to") != sys.argv[2].replace("g.txt", "widen.txt") or it["next"]["c_max_ns"] != 10**12: print(it)
'

# -- bursts and latencies agree with report ------------------------------------
P=$TMP/perf.tl
if tl import -q -o "$P" tests/data/perf-sched.txt && [ "$RC" = 0 ]; then
	"$TL" report --all --json "$P" >"$TMP/report.json"
	for what in burst latency; do
		tl hist --span "@$what" --all --json "$P"
		key=$([ $what = burst ] && echo bursts || echo sched_latency)
		jcheck "hist/$what-matches-report" '
r = json.load(open(sys.argv[2].replace("g.txt", "report.json")))
n = sum(t["'$key'"]["count"] for t in r["threads"])
mx = max(t["'$key'"]["max_ns"] for t in r["threads"])
if (d["stats"]["count"], d["stats"]["max_ns"]) != (n, mx): print("hist", d["stats"], "report", n, mx)
# "max at": the same moment (and thread) in both
at = [(t["'$key'"].get("max_at_ns"), t["tid"]) for t in r["threads"] if t["'$key'"]["max_ns"] == mx]
if (d["stats"]["max_at_ns"], d["stats"]["max_tid"]) not in at: print("max at", d["stats"], "report", at)
'
	done
else
	fail hist/import "import of tests/data/perf-sched.txt failed: $(head -c 300 "$ERR")"
fi

# -- a recorded, instrumented program: step means against its own truth ---------
WLF=$BUILD/tests/wl_frames
if ! can_record; then
	skip hist/recorded-steps "need root and tracefs to record"
elif [ ! -x "$WLF" ]; then
	skip hist/recorded-steps "'$WLF' is not built"
else
	R=$TMP/frames.tl
	if timeout -k 5 60 "$TL" record -o "$R" -- "$WLF" --frames 40 --fps 100 --truth "$TMP/truth.json" \
		>"$TMP/rec.out" 2>"$TMP/rec.err"; then
		problems=
		for step in capture filter encode output; do
			tl hist --span "$step" --json "$R"
			p=$(python3 - "$OUT" "$TMP/truth.json" "$step" <<'EOF'
import json, sys
d, t, step = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), sys.argv[3]
st = t["steps"][step]
want = t["completed"] * st["count_per_frame"]
if d["stats"]["count"] != want: print(step, "count", d["stats"]["count"], "!=", want)
# the truth sums a step's occurrences in a frame
mean = d["stats"]["mean_ns"] * st["count_per_frame"]
if abs(mean - st["mean_ns"]) > 0.05 * st["mean_ns"]: print(step, "mean per frame", mean, "vs", st["mean_ns"])
EOF
			)
			[ "$RC" = 0 ] || p="$step: exit $RC $(head -c 300 "$ERR")"
			problems="$problems$p"
		done
		tl hist --span frame --json "$R"
		p=$(python3 -c '
import json, sys
d, t = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
if d["stats"]["count"] != t["completed"]: print("frames", d["stats"]["count"], "!=", t["completed"])
if abs(d["stats"]["mean_ns"] - t["latency_mean_ns"]) > 0.05 * t["latency_mean_ns"]: print("frame latency", d["stats"]["mean_ns"], "vs", t["latency_mean_ns"])
' "$OUT" "$TMP/truth.json")
		problems="$problems$p"
		if [ -n "$problems" ]; then fail hist/recorded-steps "$problems"; else pass hist/recorded-steps; fi
	else
		fail hist/recorded-steps "record exited $?" "$(head -c 600 "$TMP/rec.err")"
	fi
fi

# -- errors ----------------------------------------------------------------------
# expect_usage NAME REGEX: status 2, the message (in git's style, matching
# REGEX) and at most the "see 'threadlens hist --help'" line after it.
expect_usage() {
	problems=
	[ "$RC" = 2 ] || problems="exit status $RC, expected 2"
	[ "$(wc -l <"$ERR")" -le 2 ] || problems="$problems; more than 2 lines on stderr"
	line=$(head -n 1 "$ERR")
	style=$(msg_style "$line")
	[ -n "$style" ] && problems="$problems; $style"
	printf '%s\n' "$line" | grep -Eq -- "$2" || problems="$problems; first line does not match /$2/"
	if [ -n "$problems" ]; then
		fail "$1" "$problems" "stderr: $(head -c 600 "$ERR")"
	else
		pass "$1"
	fi
}
tl hist --span work "$TMP/missing.tl"
expect_err hist/missing-file 1 "^threadlens: cannot [a-z]+ '$TMP/missing.tl'" "[Nn]o such file"
tl hist "$A"
expect_usage hist/no-span "needs --span"
tl hist --span nothing "$A"
expect_err hist/unknown-span 1 "^threadlens: no span 'nothing' in '$A'; it has 'work', 'other'$"
tl hist --span work --mode linear --bins "$BINS" "$A"
expect_usage hist/bins-with-linear "--bins"
tl hist --span work --mode sideways "$A"
expect_usage hist/bad-mode "invalid --mode 'sideways'"
tl hist --span work -k 2 "$A"
expect_usage hist/bad-k "invalid --bins-count '2'"
tl hist --span work --ref 1ms "$A"
expect_usage hist/ref-without-centered "--mode centered"
tl hist --span work --compare --mode linear "$A"
expect_usage hist/compare-with-mode "--compare"
tl hist --span work --mode centered -k 10 --below 11 "$A"
expect_usage hist/below-too-many "--below"
printf 'threadlens-bins 1\nwork 128 5 1 1\n' >"$TMP/bad-bins.txt"
tl hist --span work --bins "$TMP/bad-bins.txt" "$A"
expect_err hist/bad-bins-file 1 "^threadlens: cannot use bins file '$TMP/bad-bins.txt': line 2: "
tl hist --span work --bins "$TMP/no-bins.txt" "$A"
expect_err hist/missing-bins-file 1 "'$TMP/no-bins.txt'" "[Nn]o such file"
tl hist --span work - <"$A"
expect_err hist/stdin 1 "needs a file, not standard input"
printf 'not a trace at all\n' >"$TMP/text.tl"
tl hist --span work "$TMP/text.tl"
expect_err hist/not-a-trace 1 "'$TMP/text.tl'" "not a threadlens trace"

cli_done
