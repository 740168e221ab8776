#!/bin/bash
# test_frames.sh - what `threadlens frames` does with bad input and bad
# options, and its output on a trace without markers.
#
#   tests/cli/test_frames.sh BUILD_DIR
#
# A missing or foreign file is a failure (status 1) with exactly one line on
# stderr naming it; a bad option value is a usage error (status 2) naming
# the value; an output file that cannot be written is status 1.  A trace
# without markers is not an error: zero frames, a valid JSON document, and
# one warning.  That last test records a short run, so it needs root; the
# rest run anywhere.  (--help and unknown options: test_usage.sh; the
# numbers themselves: tests/unit/test_frames.c and tests/live/frames.sh.)
. "$(dirname "$0")/lib.sh"
cli_init "$1"

tl frames
if [ "$RC" = 2 ] && grep -q "frames needs a trace file" "$ERR"; then
	pass frames-no-file
else
	fail frames-no-file "exit $RC (want 2)" "stderr: $(head -c 300 "$ERR")"
fi

tl frames "$TMP/missing.tl"
expect_err frames-missing-file 1 "^threadlens: cannot [a-z]+ '$TMP/missing.tl'" "[Nn]o such file"

printf 'this is not a trace, just some text\n%.0s' $(seq 100) >"$TMP/text.tl"
tl frames --json "$TMP/text.tl"
expect_err frames-not-a-trace 1 "'$TMP/text.tl'" "not a threadlens trace"
if [ -s "$OUT" ]; then
	fail frames-not-a-trace-no-output "stdout should be empty" "stdout: $(head -c 200 "$OUT")"
else
	pass frames-not-a-trace-no-output
fi

# bad_value NAME ARGS...: status 2, the first line names the value.
bad_value() {
	name=$1
	shift
	tl frames "$@" "$TMP/text.tl"
	if [ "$RC" = 2 ] && head -n 1 "$ERR" | grep -q "^threadlens: invalid" && [ "$(wc -l <"$ERR")" -le 2 ]; then
		pass "$name"
	else
		fail "$name" "exit $RC (want 2) with 'threadlens: invalid ...'" "stderr: $(head -c 300 "$ERR")"
	fi
}
bad_value frames-bad-worst --worst many
bad_value frames-bad-interval --interval 0
bad_value frames-bad-frame --frame 12x
bad_value frames-bad-from --from yesterday
bad_value frames-bad-width --width 20

tl frames --from 2s --to 1s "$TMP/text.tl"
if [ "$RC" = 2 ] && grep -q "window is empty" "$ERR"; then
	pass frames-empty-window
else
	fail frames-empty-window "exit $RC (want 2)" "stderr: $(head -c 300 "$ERR")"
fi

tl frames a.tl b.tl
if [ "$RC" = 2 ] && grep -q "one trace file" "$ERR"; then
	pass frames-two-files
else
	fail frames-two-files "exit $RC (want 2)" "stderr: $(head -c 300 "$ERR")"
fi

if ! can_record; then
	skip frames-no-markers "need root and tracefs to record a trace"
	cli_done
fi
if ! record_short "$TMP/plain.tl"; then
	fail frames-record "record exited $?" "stderr: $(head -c 600 "$TMP/rec.err")"
	cli_done
fi

tl frames --json "$TMP/plain.tl"
problems=
[ "$RC" = 0 ] || problems="exit $RC (want 0)"
if ! python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); s=d["summary"]
assert d["schema"] == "threadlens-frames" and d["version"] == 1
assert s["begun"] == 0 and s["completed"] == 0 and d["frames"] == [] and d["steps"] == []' "$OUT" 2>"$TMP/py.err"; then
	problems="$problems${problems:+; }JSON: $(tail -n 1 "$TMP/py.err")"
fi
grep -q "^threadlens: warning: no frame markers" "$ERR" || problems="$problems${problems:+; }no warning about the missing markers"
if [ -n "$problems" ]; then
	fail frames-no-markers "$problems" "stderr: $(head -c 300 "$ERR")"
else
	pass frames-no-markers
fi

tl frames -o "$TMP/no/such/dir/out.txt" "$TMP/plain.tl"
expect_err frames-unwritable-output 1 "^threadlens: cannot write '$TMP/no/such/dir/out.txt'"

cli_done
