#!/bin/bash
# test_errors.sh - what `report` and `dump` say about bad trace files.
#
#   tests/cli/test_errors.sh BUILD_DIR
#
# A missing or foreign file is a failure (status 1) with exactly one line on
# stderr that names the file.  A damaged trace is not a failure: the reader
# stops at the last good chunk, a warning names the offset where the damage
# starts and how many bytes were lost, and the report is printed (status 0).
# The damaged traces are made from a short recording, so those tests need
# root; the rest run anywhere.
. "$(dirname "$0")/lib.sh"
cli_init "$1"

for c in report dump; do
	tl "$c" "$TMP/missing.tl"
	expect_err "$c-missing-file" 1 "^threadlens: cannot [a-z]+ '$TMP/missing.tl'" "[Nn]o such file"
done

printf 'this is not a trace, just some text\n%.0s' $(seq 100) >"$TMP/text.tl"
for c in report dump; do
	tl "$c" "$TMP/text.tl"
	expect_err "$c-not-a-trace" 1 "'$TMP/text.tl'" "not a threadlens trace" "offset [0-9]+"
done

: >"$TMP/empty.tl"
tl report "$TMP/empty.tl"
expect_err report-empty-file 1 "'$TMP/empty.tl'"

# a filter that matches no thread: one line that says so, and the (empty) report
V16=$(dirname "$0")/../data/traces/v1.6-frames.tl
tl report --tid 99999 "$V16"
if [ "$RC" = 0 ] && [ "$(wc -l <"$ERR")" = 1 ] &&
	grep -q "^threadlens: warning: no thread in the window matches --tid 99999: the tables are empty$" "$ERR" &&
	grep -q "(no threads in the window)" "$OUT"; then
	pass report-filter-matches-nothing
else
	fail report-filter-matches-nothing "exit $RC" "$(cat "$ERR")"
fi
tl report --comm worker "$V16"
if [ "$RC" = 0 ] && [ ! -s "$ERR" ] && grep -q "^worker " "$OUT"; then
	pass report-filter-matches
else
	fail report-filter-matches "exit $RC" "$(cat "$ERR")" "$(grep -A3 '^THREAD STATES' "$OUT")"
fi

# --top: a line says how many rows were left out and how to see them; `all` shows every one
tl report --top 2 "$V16"
top2=$(grep -c '^(.* more threads not shown; --top all shows them)$' "$OUT")
tl report --top all "$V16"
rows=$(sed -n '/^THREAD STATES/,/^$/p' "$OUT" | grep -c '^wl_frames\|^source\|^worker\|^sink')
if [ "$top2" -ge 3 ] && [ "$RC" = 0 ] && ! grep -q 'more threads not shown' "$OUT" && [ "$rows" -ge 4 ]; then
	pass report-top-all
else
	fail report-top-all "--top 2: $top2 'more threads' lines (want one per table); --top all: exit $RC, $rows rows" \
		"$(grep 'not shown' "$OUT")"
fi
tl report --top 0 "$V16"
if [ "$RC" = 2 ] && head -n 1 "$ERR" | grep -q "^threadlens: invalid --top '0' (a number of rows, at least 1, or all)$" &&
	[ "$(wc -l <"$ERR")" -le 2 ]; then
	pass report-top-zero
else
	fail report-top-zero "exit $RC (want 2)" "stderr: $(head -c 300 "$ERR")"
fi

mkdir "$TMP/dir.tl"
tl report "$TMP/dir.tl"
expect_err report-directory 1 "'$TMP/dir.tl'"

if ! can_record; then
	for t in truncated corrupted; do
		skip "report-$t" "need root and tracefs to record a trace to damage"
	done
	cli_done
fi

full=$TMP/full.tl
if ! record_short "$full"; then
	fail record-for-damage "record exited $?" "stderr: $(head -c 600 "$TMP/rec.err")"
	cli_done
fi
size=$(stat -c %s "$full")

# report_damaged NAME FILE JSONCHECK: status 0, a report on stdout, one
# warning naming the offset and how much was lost, and JSONCHECK (a Python
# expression on the JSON's trace object t) true.
report_damaged() {
	name=$1
	file=$2
	jcheck=$3
	tl report "$file"
	problems=
	[ "$RC" = 0 ] || problems="exit status $RC, expected 0"
	[ -s "$OUT" ] || problems="$problems${problems:+; }no report on stdout"
	warn=$(grep '^threadlens: warning: ' "$ERR")
	if [ -z "$warn" ]; then
		problems="$problems${problems:+; }no 'threadlens: warning: ' line"
	else
		printf '%s\n' "$warn" | grep -Eq 'offset [0-9]+' ||
			problems="$problems${problems:+; }warning does not name the offset"
		printf '%s\n' "$warn" | grep -Eq '[0-9][0-9.]* ?(bytes?|[kKMG]i?B)' ||
			problems="$problems${problems:+; }warning does not say how many bytes were lost"
		style=$(printf '%s\n' "$warn" | while read -r l; do msg_style "$l"; done)
		[ -n "$style" ] && problems="$problems${problems:+; }$style"
	fi
	other=$(grep -v '^threadlens: warning: ' "$ERR")
	[ -n "$other" ] && problems="$problems${problems:+; }other stderr lines: $other"
	tl report --json "$file"
	if [ "$RC" != 0 ] || ! python3 -c '
import json, sys
t = json.load(open(sys.argv[1]))["trace"]
sys.exit(0 if (''"$jcheck"'') and t["warnings"] else 1)' "$OUT" 2>/dev/null; then
		problems="$problems${problems:+; }report --json: want exit 0, $jcheck and a warning (exit $RC)"
	fi
	if [ -n "$problems" ]; then
		fail "$name" "$problems" "trace of $size bytes; stderr: $(head -c 600 "$ERR")"
	else
		pass "$name"
	fi
}

head -c $((size * 2 / 3)) "$full" >"$TMP/truncated.tl"
report_damaged report-truncated "$TMP/truncated.tl" 't["complete"] is False'


# One flipped byte in the middle: the chunk that holds it fails its checksum.
cp "$full" "$TMP/corrupted.tl"
python3 - "$TMP/corrupted.tl" <<'EOF'
import sys
with open(sys.argv[1], "r+b") as f:
    data = bytearray(f.read())
    mid = len(data) // 2
    data[mid] ^= 0x5A
    f.seek(0)
    f.write(data)
EOF
# The reader skips that block and reads the rest, to the end block.
report_damaged report-corrupted "$TMP/corrupted.tl" 't["complete"] is True and t["damaged_blocks"] == 1'


# A window past the trace's end is an error, not an empty report (the
# committed trace lasts 0.225 s).
FRAMES_TL=$(dirname "$0")/../data/traces/v1.2-frames.tl
for c in report frames diagnose; do
	tl "$c" --from 5s "$FRAMES_TL"
	expect_err "$c-from-past-end" 1 "the window starts at 5.000 s, after the trace's end \(0.225 s\)"
done

# --sort takes the column labels the report prints, as well as the state names.
tl report --sort SYNC "$FRAMES_TL"
if [ "$RC" = 0 ] && grep -q "sorted by time in SYNC_WAIT" "$OUT"; then
	pass report-sort-label
else
	fail report-sort-label "exit $RC; header: $(grep -m1 sorted "$OUT")" "$(head -c 300 "$ERR")"
fi

cli_done
