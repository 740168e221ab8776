#!/bin/bash
# test_critical.sh - `threadlens critical` on a recording of the demo
# pipeline: for its three longest frames, the parts along the critical
# path sum exactly to each frame's latency, the path runs without a gap or
# an overlap from the frame's end back to its start, it begins on the
# thread that ended the frame ('output'), and it crosses other stages'
# threads.  A trace without frames: the recorded command's main thread,
# over its life (a shell that waits for a 50 ms sleep: the path crosses
# into the sleep, woken by its timer), and --tid.  Then the errors: no
# such frame or thread, a bad option.
#
#   tests/cli/test_critical.sh BUILD_DIR
#
# Recording needs root; python3 reads the JSON.
. "$(dirname "$0")/lib.sh"
cli_init "$1"

if ! can_record; then
	skip critical/demo "need root to record"
elif ! command -v python3 >/dev/null; then
	skip critical/demo "python3 is needed to read the JSON"
else
	timeout -k 5 120 "$TL" record -o "$TMP/demo.tl" -- "$BUILD/demo/tl-demo" --frames 60 >"$TMP/rec.out" 2>"$TMP/rec.err"
	if [ $? != 0 ]; then
		fail critical/demo "record failed" "$(tail -n 2 "$TMP/rec.err")"
	else
		tl critical --worst 3 --json "$TMP/demo.tl"
		got=$(python3 - "$OUT" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
bad = []
if d["schema"] != "threadlens-critical" or len(d["frames"]) != 3 or d["frames_seen"] != 60:
    bad.append("want 3 of 60 frames, got %d of %d" % (len(d["frames"]), d["frames_seen"]))
for f in d["frames"]:
    lat = f["latency_ns"]
    s = sum(p["ns"] for p in f["parts"])
    if s != lat:
        bad.append("frame %d: parts sum to %d, latency %d" % (f["frame"], s, lat))
    path = f["path"]
    end = f["begin_ns"] + lat
    if not path or path[0]["to_ns"] != end or path[-1]["from_ns"] != f["begin_ns"]:
        bad.append("frame %d: the path does not run from its end to its start" % f["frame"])
    for a, b in zip(path, path[1:]):
        if a["from_ns"] != b["to_ns"]:
            bad.append("frame %d: a gap or overlap at %d" % (f["frame"], a["from_ns"]))
            break
    if f["ended_by"]["name"] != "output" or path[0]["tid"] != f["ended_by"]["tid"]:
        bad.append("frame %d: ended by %s, path starts on %d" % (f["frame"], f["ended_by"]["name"], path[0]["tid"]))
    names = {p["name"] for p in f["parts"]}
    if len(names) < 3:
        bad.append("frame %d: the path stays on %s" % (f["frame"], sorted(names)))
print("; ".join(bad))
PY
)
		if [ "$RC" = 0 ] && [ -z "$got" ]; then
			pass critical/demo-json
		else
			fail critical/demo-json "exit $RC" "$got" "$(head -n 3 "$ERR")"
		fi
		tl critical --frame 10 "$TMP/demo.tl"
		if [ "$RC" = 0 ] && grep -q '^frame 10: ' "$OUT" && grep -q 'ended by output' "$OUT" &&
			grep -q '^  path, latest first: output ' "$OUT"; then
			pass critical/demo-text
		else
			fail critical/demo-text "exit $RC" "$(head -n 8 "$OUT")"
		fi
		tl critical --frame 999 "$TMP/demo.tl"
		expect_err critical/no-such-frame 1 "no complete frame 999"
		tl critical --tid 999999 "$TMP/demo.tl"
		expect_err critical/no-such-thread 1 "no thread 999999"
		# a terminal of 80 columns, its usual default: no line of the text commands is wider
		wide=""
		for cmd in report frames critical diagnose "hist --span frame" "hist --span detect --compare" \
			"util --rate detect=150 --rate motion=150 --instances" "diff $TMP/demo.tl"; do
			# shellcheck disable=SC2086 # the command's words
			tl $cmd --width 80 "$TMP/demo.tl"
			most=$(awk '{ if (length($0) > m) m = length($0) } END { print m + 0 }' "$OUT")
			[ "$RC" = 0 ] && [ "$most" -le 80 ] || wide="$wide $cmd: exit $RC, a line of $most columns;"
		done
		[ -z "$wide" ] && pass critical/demo-width-80 || fail critical/demo-width-80 "$wide"
	fi
	timeout -k 5 60 "$TL" record -o "$TMP/sh.tl" -- sh -c 'sleep 0.05; :' >"$TMP/rec.out" 2>"$TMP/rec.err"
	if [ $? != 0 ]; then
		fail critical/main-thread "record failed" "$(tail -n 2 "$TMP/rec.err")"
	else
		tl critical --json "$TMP/sh.tl"
		got=$(python3 - "$OUT" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
bad = []
if d["scope"] != "thread" or len(d["frames"]) != 1:
    bad.append("want one thread's life, got scope %s, %d" % (d["scope"], len(d["frames"])))
else:
    f = d["frames"][0]
    if f["ended_by"]["name"] != "sh" or f["frame"] != -1:
        bad.append("the path is of %s, not the shell" % f["ended_by"]["name"])
    if sum(p["ns"] for p in f["parts"]) != f["latency_ns"]:
        bad.append("parts sum to %d, life %d" % (sum(p["ns"] for p in f["parts"]), f["latency_ns"]))
    path = f["path"]
    if any(a["from_ns"] != b["to_ns"] for a, b in zip(path, path[1:])):
        bad.append("a gap or overlap in the path")
    # the shell waits for its child: that wait is the child's 50 ms sleep (its own clock: sleep(1))
    slept = sum(p["ns"] for p in f["parts"] if p["name"] == "sleep" and p["state"] == "SLEEPING")
    if not 49.5e6 <= slept < 60e6:  # its switch-out comes a few us after the call
        bad.append("the sleep's SLEEPING on the path %.1f ms, want 49.5-60" % (slept / 1e6))
print("; ".join(bad))
PY
)
		if [ "$RC" = 0 ] && [ -z "$got" ]; then
			pass critical/main-thread
		else
			fail critical/main-thread "exit $RC" "$got" "$(head -n 3 "$ERR")"
		fi
		tl critical "$TMP/sh.tl"
		if [ "$RC" = 0 ] && grep -Eq '^thread sh \([0-9]+\): ' "$OUT" && grep -Eq '^  sleep +[0-9]+  SLEEPING ' "$OUT"; then
			pass critical/main-thread-text
		else
			fail critical/main-thread-text "exit $RC" "$(head -n 8 "$OUT")"
		fi
	fi
fi

tl critical "$TMP/none.tl"
expect_err critical/missing-file 1 "none\.tl"
tl critical --worst 0 "$TMP/none.tl"
if [ "$RC" = 2 ] && head -n 1 "$ERR" | grep -q "invalid --worst '0'"; then
	pass critical/bad-worst
else
	fail critical/bad-worst "exit $RC, want 2 and a line about --worst" "$(cat "$ERR")"
fi
tl critical
[ "$RC" = 2 ] && pass critical/no-file || fail critical/no-file "exit $RC, want 2"

cli_done
