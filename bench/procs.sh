#!/bin/bash
# procs.sh - reading a system-wide trace of many short processes: a shell
# workload (LOOPS loops, each starting `sleep 0.005` again and again, so
# thousands of processes live a few ms each) recorded for SECONDS with
# `threadlens record -a` and, the same workload on, with `perf sched record
# -a`; then each trace read BENCH_PROCS_REPS times (default 3, interleaved)
# by `threadlens report`, `threadlens report --json`, `threadlens html` and
# the peer, `perf sched timehist -s`.  Prints per command the median wall
# time, the peak RSS, and the peer's wall over threadlens report's.
#
#   bench/procs.sh BUILD_DIR [LOOPS] [SECONDS]      (defaults 200, 2)
#
# Cost that grows with processes x threads shows here, not in the
# ping-pong benchmarks (two threads).  Needs root and perf.
set -u

if [ $# -lt 1 ] || [ $# -gt 3 ]; then
	echo "usage: bench/procs.sh BUILD_DIR [LOOPS] [SECONDS]" >&2
	exit 2
fi
HERE=$(cd "$(dirname "$0")" && pwd)
BUILD=$(cd "$1" 2>/dev/null && pwd) || {
	echo "bench/procs.sh: no build directory '$1'" >&2
	exit 1
}
LOOPS=${2:-200}
SECS=${3:-2}
REPS=${BENCH_PROCS_REPS:-3}
TL=$BUILD/threadlens
WORK=$(mktemp -d /tmp/tl-bench-procs.XXXXXX)
say() { echo "bench/procs: $*" >&2; }
die() {
	say "$*"
	exit 1
}
loops=()
stop_loops() {
	[ ${#loops[@]} -gt 0 ] && kill "${loops[@]}" 2>/dev/null
	wait 2>/dev/null
	loops=()
}
trap 'stop_loops; rm -rf "$WORK"' EXIT

[ -x "$TL" ] || die "'$TL' is not built; run make first"
command -v perf >/dev/null || die "perf is not installed"
cc -O2 -Wall -Wextra "$HERE/runstat.c" -o "$WORK/runstat" || die "cannot build bench/runstat.c"
RS=$WORK/runstat

start_loops() {
	for _ in $(seq "$LOOPS"); do
		(while :; do sleep 0.005; done) >/dev/null 2>&1 &
		loops+=($!)
	done
	sleep 1 # all of them going
}

start_loops
"$TL" record -a -d "${SECS}s" -o "$WORK/procs.tl" >/dev/null 2>"$WORK/rec.err" ||
	die "threadlens record failed: $(tail -n 2 "$WORK/rec.err")"
perf sched record -a -o "$WORK/procs.data" -- sleep "$SECS" >/dev/null 2>"$WORK/prec.err" ||
	die "perf sched record failed: $(tail -n 2 "$WORK/prec.err")"
stop_loops

say "threadlens: $(tail -n 1 "$WORK/rec.err")"
"$TL" report --all --json "$WORK/procs.tl" >"$WORK/procs.json" 2>/dev/null || die "threadlens report --json failed"
python3 - "$WORK/procs.json" <<'EOF' >&2
import json, sys
d = json.load(open(sys.argv[1]))
print("bench/procs: threadlens trace: %d threads in %d processes" % (len(d["threads"]), len(d["processes"])))
EOF
say "perf trace: $(stat -c %s "$WORK/procs.data") bytes"

cmds=(report json html timehist)
run() {
	case $1 in
	report) "$RS" "$WORK/$1.rs.$2" "$TL" report "$WORK/procs.tl" ;;
	json) "$RS" "$WORK/$1.rs.$2" "$TL" report --json "$WORK/procs.tl" ;;
	html) "$RS" "$WORK/$1.rs.$2" "$TL" html -o "$WORK/procs.html" "$WORK/procs.tl" ;;
	timehist) "$RS" "$WORK/$1.rs.$2" perf sched timehist -s -i "$WORK/procs.data" ;;
	esac >/dev/null 2>&1
}
for r in $(seq "$REPS"); do
	for c in "${cmds[@]}"; do
		run "$c" "$r" || die "$c failed (run $r)"
	done
done
python3 - "$WORK" "$REPS" "${cmds[@]}" <<'EOF'
import os, statistics, sys
work, reps, cmds = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
names = {"report": "threadlens report", "json": "threadlens report --json", "html": "threadlens html",
         "timehist": "perf sched timehist -s"}
med = {}
print("| command | wall s (median of %d) | peak RSS | all runs (s) |" % reps)
print("|---|---|---|---|")
for c in cmds:
    runs = [dict(kv.split("=") for kv in open(os.path.join(work, "%s.rs.%d" % (c, r + 1))).read().split())
            for r in range(reps)]
    walls = [float(x["wall_s"]) for x in runs]
    med[c] = statistics.median(walls)
    print("| `%s` | %.3f | %.1f MB | %s |" % (names[c], med[c], max(int(x["maxrss_kb"]) for x in runs) / 1024,
                                         " ".join("%.3f" % w for w in walls)))
print("\nperf sched timehist wall / threadlens report wall: %.2fx" % (med["timehist"] / med["report"]))
if os.path.exists(os.path.join(work, "procs.html")):
    print("page: %.1f MB" % (os.path.getsize(os.path.join(work, "procs.html")) / 1e6))
EOF
