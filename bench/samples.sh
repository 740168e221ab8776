#!/bin/bash
# samples.sh - how big a sampled profile is (issue 26, "Storage"): bytes per
# sample of `threadlens record --sample` against perf.data recorded with the
# same options in the same run, and against the seed's pipeline (VisPerf:
# perf.data, then `perf script` text, then CSV).
#
#   bench/samples.sh BUILD_DIR [SECONDS]
#
# The workload is tests/live/wl_hot (one thread, all CPU, two functions)
# for SECONDS of CPU time (default 5).  Variants, each recorded REPS times
# (BENCH_REPS, default 3), interleaved:
#   tl        threadlens record --sample -F 997 (frame-pointer stacks, 64+64 frames)
#   tl-dwarf  threadlens record --sample -F 997 --stack dwarf (8 KB of user stack copied per
#             sample and unwound while recording: the trace keeps the frames)
#   perf-fp   perf record -F 997 -g --sample-cpu (frame pointers; the CPU, as threadlens keeps it)
#   perf-dwarf perf record -F 997 --call-graph dwarf --sample-cpu (8 KB of stack per sample)
# For each: file bytes, samples (threadlens: its summary line; perf: `perf
# script` lines), bytes per sample; for perf-fp also the seed's text
# (`perf script -F comm,tid,cpu,time,ip,sym`) and CSV (one line per sample:
# time,cpu,tid,comm,ip) sizes.  Prints a Markdown table; needs root and perf.
set -u
BUILD=${1:-build}
SECS=${2:-5}
REPS=${BENCH_REPS:-3}
TL=$BUILD/threadlens
WL=$BUILD/tests/wl_hot
WORK=$BUILD/bench/samples
mkdir -p "$WORK" || exit 1
for f in "$TL" "$WL"; do
	[ -x "$f" ] || { echo "samples.sh: '$f' is not built" >&2; exit 1; }
done
command -v perf >/dev/null || { echo "samples.sh: perf is not installed (linux-perf)" >&2; exit 1; }
MS=$((SECS * 1000))

sz() { stat -c %s "$1"; }
rows=()
for rep in $(seq "$REPS"); do
	"$TL" record --sample -F 997 -o "$WORK/tl.tl" -- "$WL" --ms "$MS" >/dev/null 2>"$WORK/tl.err"
	n=$(grep -o ', [0-9]* samples' "$WORK/tl.err" | grep -o '[0-9]*')
	rows+=("tl $(sz "$WORK/tl.tl") $n 0 0")
	"$TL" record --sample -F 997 --stack dwarf -o "$WORK/tld.tl" -- "$WL" --ms "$MS" >/dev/null 2>"$WORK/tld.err"
	n=$(grep -o ', [0-9]* samples' "$WORK/tld.err" | grep -o '[0-9]*')
	rows+=("tl-dwarf $(sz "$WORK/tld.tl") $n 0 0")
	perf record -q -F 997 -g --sample-cpu -o "$WORK/fp.data" -- "$WL" --ms "$MS" >/dev/null 2>&1
	perf script -i "$WORK/fp.data" -F comm,tid,cpu,time,ip,sym >"$WORK/fp.txt" 2>/dev/null
	n=$(perf script -i "$WORK/fp.data" -F time 2>/dev/null | wc -l)
	perf script -i "$WORK/fp.data" -F time,cpu,tid,comm,ip 2>/dev/null |
		awk '{ gsub(/:$/, "", $4); print $4 "," $2 "," $1 "," $3 "," $5 }' >"$WORK/fp.csv"
	rows+=("perf-fp $(sz "$WORK/fp.data") $n $(sz "$WORK/fp.txt") $(sz "$WORK/fp.csv")")
	perf record -q -F 997 --call-graph dwarf --sample-cpu -o "$WORK/dw.data" -- "$WL" --ms "$MS" >/dev/null 2>&1
	n=$(perf script -i "$WORK/dw.data" -F time 2>/dev/null | wc -l)
	rows+=("perf-dwarf $(sz "$WORK/dw.data") $n 0 0")
done
printf '%s\n' "${rows[@]}" | python3 -c '
import sys, statistics as st
by = {}
for l in sys.stdin:
    v, b, n, t, c = l.split()
    by.setdefault(v, []).append((int(b), int(n), int(t), int(c)))
def med(v, i):
    return st.median(r[i] for r in by[v])
def bps(v):
    return st.median(r[0] / r[1] for r in by[v] if r[1])
tl = bps("tl")
print("| variant | file (median) | samples | bytes per sample | against threadlens |")
print("|---|---|---|---|---|")
for v in ("tl", "tl-dwarf", "perf-fp", "perf-dwarf"):
    print("| %s | %.0f kB | %d | %.1f | %.1fx |" % (v, med(v, 0) / 1e3, med(v, 1), bps(v), bps(v) / tl))
n = med("perf-fp", 1)
print("| seed pipeline: perf script text | %.0f kB | %d | %.1f | %.1fx |" % (med("perf-fp", 2) / 1e3, n, med("perf-fp", 2) / n, med("perf-fp", 2) / n / tl))
print("| perf-dwarf against tl-dwarf (like for like) | | | | %.1fx |" % (bps("perf-dwarf") / bps("tl-dwarf")))
print("| seed pipeline: CSV | %.0f kB | %d | %.1f | %.1fx |" % (med("perf-fp", 3) / 1e3, n, med("perf-fp", 3) / n, med("perf-fp", 3) / n / tl))
'
[ "${BENCH_KEEP:-0}" = 1 ] || rm -f "$WORK"/*.data "$WORK"/*.tl "$WORK"/*.txt "$WORK"/*.csv
