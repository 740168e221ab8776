#!/bin/bash
# test_sql.sh - `threadlens sql` and `export -f sqlite` through the binary.
#
# On the committed v1.5 trace (no root needed) and, live, on a recording
# of the demo: every thread's time per state summed from thread_state
# equals `report --json --all` exactly (threads the report leaves out may
# only have UNKNOWN time); the spans table has the markers
# `export -f csv` writes; --save keeps a database sqlite opens; --csv and
# --json carry the same rows.  A results database is queried as it is.
# Errors, one line each: bad SQL, two statements, a missing target, a
# --save path that exists, and options that do not fit.
#
#   tests/cli/test_sql.sh BUILD_DIR
. "$(dirname "$0")/lib.sh"
cli_init "$1"

V15="$(dirname "$0")/../data/traces/v1.5-frames.tl"

# the state sums of every thread, from SQL, against the report's
check_sums() { # NAME TRACE
	tl sql --json "$2" "SELECT tid, state, sum(dur) FROM thread_state GROUP BY tid, state"
	cp "$OUT" "$TMP/$1.sql.json"
	rc1=$RC
	tl report --json --all "$2"
	res=$(python3 - "$TMP/$1.sql.json" "$OUT" <<'PY' 2>&1
import json, sys
q = json.load(open(sys.argv[1]))
r = json.load(open(sys.argv[2]))
got = {(tid, st): ns for tid, st, ns in q["rows"]}
want = {}
for t in r["threads"]:   # a reused tid is two threads in the report, one tid in the table
    for s, ns in t["state_ns"].items():
        if ns:
            want[(t["tid"], s)] = want.get((t["tid"], s), 0) + ns
bad = []
if q["columns"] != ["tid", "state", "sum(dur)"]:
    bad.append("columns %s" % q["columns"])
# a thread the trace only names (another process's, in a filtered recording) is in the table with
# its whole time UNKNOWN, and not in the report: nothing else may differ
listed = {tid for tid, _ in want}
extra = {k: v for k, v in got.items() if k[0] not in listed}
if any(st != "UNKNOWN" for _, st in extra):
    bad.append("threads with states in sql only: %s" % sorted(extra.items())[:4])
got = {k: v for k, v in got.items() if k[0] in listed}
if not want or got != want:
    diff = sorted(set(got.items()) ^ set(want.items()))[:6]
    bad.append("%d sums from sql, %d from report; first differences %s" % (len(got), len(want), diff))
print("; ".join(bad))
PY
)
	[ "$rc1" = 0 ] && [ "$RC" = 0 ] && [ -z "$res" ] && pass "sql/$1-state-sums" || fail "sql/$1-state-sums" "exit $rc1/$RC; $res" "$(head -c 300 "$ERR")"
}

if command -v python3 >/dev/null; then
	check_sums v15 "$V15"
	# the spans are the markers export writes as CSV
	"$TL" export -f csv -o "$TMP/v15" "$V15" 2>/dev/null
	tl sql --csv "$V15" "SELECT kind, name, tid, ts, ts + dur FROM spans ORDER BY ts, tid, kind"
	res=$(python3 - "$TMP/v15-spans.csv" "$OUT" <<'PY' 2>&1
import csv, sys
want = sorted((r["kind"], r["name"], int(r["tid"]), int(r["begin_ns"]), int(r["end_ns"])) for r in csv.DictReader(open(sys.argv[1])))
got = sorted((r["kind"], r["name"] or "frame", int(r["tid"]), int(r["ts"]), int(r["ts + dur"]))   # frames: NULL here, "frame" there
             for r in csv.DictReader(open(sys.argv[2])))
print("" if got == want and got else "%d spans from sql, %d from export" % (len(got), len(want)))
PY
)
	[ "$RC" = 0 ] && [ -z "$res" ] && pass sql/spans-as-export || fail sql/spans-as-export "exit $RC; $res" "$(head -c 300 "$ERR")"
else
	skip sql/v15-state-sums "needs python3"
fi

# the table: a header, the rows, their count
tl sql "$V15" "SELECT key, value FROM trace WHERE key IN ('ncpus', 'lost_events') ORDER BY key"
if [ "$RC" = 0 ] && [ "$(head -n 1 "$OUT" | tr -s ' ')" = "key value" ] && grep -q "^ncpus  *[0-9]" "$OUT" &&
	[ "$(tail -n 1 "$OUT")" = "(2 rows)" ]; then
	pass sql/text
else
	fail sql/text "exit $RC" "$(cat "$OUT" "$ERR")"
fi

# --save keeps the tables; a database target is queried as it is; the window is for traces only
tl sql --save "$TMP/v15.db" "$V15" "SELECT count(*) FROM thread_state"
n1=$(tail -n 2 "$OUT" | head -n 1)
tl sql "$TMP/v15.db" "SELECT count(*) FROM thread_state"
if [ "$RC" = 0 ] && [ -n "$n1" ] && [ "$(tail -n 2 "$OUT" | head -n 1)" = "$n1" ] && [ "$n1" -gt 0 ]; then
	pass sql/save
else
	fail sql/save "exit $RC: $n1" "$(cat "$OUT" "$ERR")"
fi
tl sql --save "$TMP/v15.db" "$V15" "SELECT 1"
expect_err sql/save-exists 1 "the database .*v15.db exists"
tl sql --from 1 "$TMP/v15.db" "SELECT 1"
if [ "$RC" = 2 ] && head -n 1 "$ERR" | grep -q "is a database: --save, --from and --to are for a trace"; then pass sql/db-window; else fail sql/db-window "exit $RC" "$(cat "$ERR")"; fi
tl export -f sqlite -o "$TMP/exported.db" "$V15"
tl sql --csv "$TMP/exported.db" "SELECT count(*) FROM spans"
[ "$RC" = 0 ] && [ "$(tail -n 1 "$OUT")" -gt 0 ] && pass sql/export-sqlite || fail sql/export-sqlite "exit $RC" "$(cat "$OUT" "$ERR")"

# errors
tl sql "$V15" "SELEC 1"
expect_err sql/bad-sql 1 'bad SQL: near "SELEC": syntax error'
tl sql "$V15" "SELECT 1; SELECT 2"
expect_err sql/two-statements 1 "one SQL statement at a time"
tl sql "$TMP/missing.tl" "SELECT 1"
expect_err sql/missing 1 "cannot read .*missing.tl: No such file"
tl sql "$V15"
if [ "$RC" = 2 ] && head -n 1 "$ERR" | grep -q "sql needs a trace or a database, and one query"; then pass sql/no-query; else fail sql/no-query "exit $RC" "$(cat "$ERR")"; fi

# live: the demo
if can_record && command -v python3 >/dev/null && [ -x "$BUILD/demo/tl-demo" ]; then
	timeout -k 5 120 "$TL" record -o "$TMP/demo.tl" -- "$BUILD/demo/tl-demo" --frames 40 >/dev/null 2>&1
	check_sums demo "$TMP/demo.tl"
else
	skip sql/demo-state-sums "needs root, python3 and the demo"
fi

cli_done
