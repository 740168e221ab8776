#!/bin/sh
# frames.sh - live test of `threadlens frames`: record the instrumented
# pipeline tests/live/wl_frames.c and compare `frames --json` with the
# ground truth the workload measured itself.
#
#   tests/live/frames.sh BUILD_DIR
#
# Two recordings:
#   frames         50 frames at 50 frames/s, run to the end
#   frames-killed  100 frames, but the program kills itself with SIGKILL
#                  after 30 complete frames with frame 30 in flight: the
#                  markers written before the kill must all be in the trace
#
# Checks (exact unless said): frames begun, completed and unfinished (and
# which ids), no end without a begin, no skipped ids, every step in every
# complete frame with its count per frame; per-step mean per frame, mean
# latency and frames/s within 5% of the truth; every complete frame begun
# by source and ended by sink, and the beginner's per-state split summing
# to the frame's latency (within 20 us, marker and kernel clocks).
#
# Prints "ok live/NAME", "FAIL live/NAME" (with indented details) or
# "skip live/NAME: REASON"; "skip: ..." alone when the tier cannot run (not
# root, no tracefs, no python3).  TL_REQUIRE_LIVE=1 turns skips into
# failures; TL_LIVE_RETRIES (default 1) reruns a failed recording, as in
# run.sh; TL_LIVE_VERBOSE=1 prints every comparison.  Exit status 1 if
# anything failed.  Recordings, truths and outputs stay in BUILD_DIR/live/.
set -u

BUILD=${1:-build}
TL=$BUILD/threadlens
WL=$BUILD/tests/wl_frames
OUT=$BUILD/live
RETRIES=${TL_LIVE_RETRIES:-1}
VFLAG=
[ "${TL_LIVE_VERBOSE:-0}" = 1 ] && VFLAG=-v

skip_all() {
	if [ "${TL_REQUIRE_LIVE:-0}" = 1 ]; then
		echo "FAIL live/frames: cannot run: $1 (TL_REQUIRE_LIVE=1)"
		exit 1
	fi
	echo "skip: live frames tests: $1"
	exit 0
}

[ "$(id -u)" = 0 ] || skip_all "need root to record kernel tracepoints (running as uid $(id -u))"
if [ ! -d /sys/kernel/tracing/events/sched ]; then
	mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
	[ -d /sys/kernel/tracing/events/sched ] || skip_all "no tracefs at /sys/kernel/tracing and cannot mount it"
fi
command -v python3 >/dev/null 2>&1 || skip_all "python3 is needed for the checker"
for f in "$TL" "$WL"; do
	if [ ! -x "$f" ]; then
		echo "FAIL live/frames: '$f' is not built"
		exit 1
	fi
done
mkdir -p "$OUT" || exit 1

# check TRUTH JSON: the comparisons; prints the problems, exit 1 if any.
check() {
	python3 - $VFLAG "$1" "$2" <<'EOF'
import json, sys

args = [a for a in sys.argv[1:] if a != "-v"]
verbose = "-v" in sys.argv[1:]
truth = json.load(open(args[0]))
doc = json.load(open(args[1]))
problems, notes = [], []

def exact(what, got, want):
    (notes if got == want else problems).append(f"{what}: {got}, expected {want}")

def near(what, got, want, rel=0.05):
    ok = want > 0 and abs(got - want) <= rel * want
    (notes if ok else problems).append(
        f"{what}: {got}, truth {want} ({(got - want) * 100.0 / want if want else 0:+.2f}%, limit {rel * 100:.0f}%)")

s = doc["summary"]
done, begun = truth["completed"], truth.get("begun", truth["completed"])
exact("frames begun", s["begun"], begun)
exact("frames completed", s["completed"], done)
exact("frames unfinished", s["unfinished"], begun - done)
exact("ids of unfinished frames", s["unfinished_ids"], list(range(done, begun))[:16])
exact("ends without a begin", s["ends_without_begin"], 0)
exact("ids skipped", s["ids"]["skipped"], 0)
exact("markers lost by the program", doc["markers"]["lost"], 0)
near("frames/s", s["fps"], truth["fps"])
near("mean latency (ns)", s["latency"]["mean_ns"], truth["latency_mean_ns"])

steps = {st["name"]: st for st in doc["steps"]}
for name, t in truth["steps"].items():
    st = steps.get(name)
    if not st:
        problems.append(f"step '{name}' missing")
        continue
    exact(f"{name}: frames", st["frames"], done)
    exact(f"{name}: occurrences in complete frames", st["count"], done * t["count_per_frame"])
    near(f"{name}: mean per frame (ns)", st["per_frame"]["mean_ns"], t["mean_ns"])
    names = [th["name"] for th in st["threads"]]
    exact(f"{name}: threads", names, [t["thread"]])

tids = truth["threads"]
complete = [f for f in doc["frames"] if f["complete"]]
exact("complete frames listed", sorted(f["id"] for f in complete), list(range(done)))
bad = []
for f in complete:
    if f["began_by"] != tids["source"] or f["ended_by"] != tids["sink"]:
        bad.append(f"frame {f['id']}: began by {f['began_by']}, ended by {f['ended_by']}")
    b = [t for t in f["threads"] if "began" in t["roles"]]
    total = sum(b[0]["state_ns"].values()) if b else -1
    # its states cover its time in the frame: all of it, but for the last
    # frame, which the source outlives only until it exits
    span = b[0]["to_ns"] - b[0]["from_ns"] if b else -1
    if abs(total - span) > 20000 or (span != f["latency_ns"] and f["id"] != done - 1):
        bad.append(f"frame {f['id']}: beginner's states sum to {total}, its span {span}, latency {f['latency_ns']}")
    workers = sorted(t["name"] for t in f["threads"])
    if workers != ["sink", "source", "worker"]:
        bad.append(f"frame {f['id']}: threads {workers}")
exact("frames with a wrong thread or split", bad[:5], [])

for p in problems:
    print("  " + p)
if verbose:
    for n in notes:
        print("  ok: " + n)
sys.exit(1 if problems else 0)
EOF
}

# attempt NAME WORKLOAD-ARGS...: sets $why; returns 0 pass, 1 fail.
attempt() {
	name=$1
	shift
	base=$OUT/$name
	rm -f "$base.tl" "$base.truth.json" "$base.frames.json"
	"$TL" record -o "$base.tl" -- "$WL" --truth "$base.truth.json" "$@" >"$base.record.out" 2>"$base.record.err"
	rc=$?
	if [ $rc -ne 0 ] || [ ! -s "$base.truth.json" ]; then
		why="  record exited $rc; stderr: $(head -c 600 "$base.record.err")"
		return 1
	fi
	if ! "$TL" frames --json "$base.tl" >"$base.frames.json" 2>"$base.frames.err"; then
		why="  frames --json failed: $(head -c 600 "$base.frames.err")"
		return 1
	fi
	why=$(check "$base.truth.json" "$base.frames.json" 2>&1)
}

failed=0
run() {
	name=$1
	shift
	n=0
	first=
	while :; do
		why=
		attempt "$name" "$@"
		r=$?
		n=$((n + 1))
		if [ $r -eq 0 ] || [ $n -gt "$RETRIES" ]; then
			break
		fi
		first="$first
  attempt $n failed:
$why"
	done
	if [ $r -eq 0 ]; then
		echo "ok live/$name${first:+ (flaky: passed on attempt $n)}$first"
		[ -n "$VFLAG" ] && [ -n "$why" ] && echo "$why"
	else
		echo "FAIL live/$name$first"
		[ -n "$first" ] && echo "  attempt $n failed:"
		echo "$why"
		failed=1
	fi
}

run frames --frames 50 --fps 50
run frames-killed --frames 100 --fps 50 --kill-after 30
exit $failed
