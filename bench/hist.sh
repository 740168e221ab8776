#!/bin/bash
# hist.sh - `threadlens hist` throughput in spans per second on a 10M-span
# trace (issue 3, section 3).
#
#   bench/hist.sh BUILD_DIR [N_SPANS]
#
# Builds BUILD_DIR/tests/gen_spans (bench/gen_spans.c) if needed, writes a
# trace of N_SPANS (default 10000000) "work" regions through the real trace
# writer into BUILD_DIR/bench/work/, checks that the tool's count, min, max,
# mean and percentiles equal what the generator knows, then times each
# variant BENCH_HIST_REPS times (default 3, interleaved) and prints, per
# variant: median wall time, spans per second (N_SPANS / wall), user CPU
# time, the number of passes over the file and the peak RSS.  The trace is
# deleted at the end unless BENCH_KEEP=1.  No root needed; python3 and cc
# are.  The machine is shared, so the wall times move; user CPU time is the
# steadier figure.
set -u

if [ $# -lt 1 ] || [ $# -gt 2 ]; then
	echo "usage: bench/hist.sh BUILD_DIR [N_SPANS]" >&2
	exit 2
fi
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
BUILD=$(cd "$1" 2>/dev/null && pwd) || {
	echo "bench/hist.sh: no build directory '$1'" >&2
	exit 1
}
N=${2:-10000000}
REPS=${BENCH_HIST_REPS:-3}
TL=$BUILD/threadlens
OUT=$BUILD/bench
WORK=$OUT/work
BIN=$OUT/bin
TRACE=$WORK/spans-$N.tl
say() { echo "bench/hist: $*" >&2; }
die() {
	say "$*"
	exit 1
}

mkdir -p "$WORK" "$BIN"
[ -x "$TL" ] || die "'$TL' is not built; run make first"
(cd "$ROOT" && make --no-print-directory BUILD="$(basename "$BUILD")" "$(basename "$BUILD")/tests/gen_spans" >/dev/null) ||
	die "cannot build gen_spans"
cc -O2 -Wall -Wextra "$HERE/runstat.c" -o "$BIN/runstat" || die "cannot build bench/runstat.c"

say "writing $N spans to $TRACE"
"$BUILD/tests/gen_spans" "$TRACE" "$N" >"$OUT/hist-truth.txt" || die "gen_spans failed"
say "$(cat "$OUT/hist-truth.txt"), $(stat -c %s "$TRACE") bytes"

# The numbers must be right before they are timed.
"$TL" hist --span work --json "$TRACE" >"$OUT/hist.json" || die "threadlens hist failed"
python3 - "$OUT/hist.json" "$OUT/hist-truth.txt" <<'EOF' || die "wrong numbers"
import json, sys
d = json.load(open(sys.argv[1]))
g = {k: int(v) for k, v in (kv.split("=") for kv in open(sys.argv[2]).read().split())}
s = d["stats"]
bad = [k for k in ("min_ns", "max_ns", "p50_ns", "p90_ns", "p99_ns", "p99_9_ns") if k in g and s[k] != g[k]]
if s["count"] != g["spans"] or abs(s["mean_ns"] - g["sum_ns"] / g["spans"]) > 0.01:
    bad.append("count/mean")
if bad:
    print("bench/hist: mismatch in", bad, s, g, file=sys.stderr)
    sys.exit(1)
EOF

VARIANTS=("iterative" "compare" "json")
args_of() {
	case $1 in
	iterative) echo "hist --span work" ;;
	compare) echo "hist --span work --compare" ;;
	json) echo "hist --span work --json" ;;
	esac
}

: >"$OUT/hist-runs.txt"
for rep in $(seq "$REPS"); do
	for v in "${VARIANTS[@]}"; do
		# shellcheck disable=SC2046
		"$BIN/runstat" "$OUT/hist-one.txt" "$TL" $(args_of "$v") "$TRACE" >/dev/null || die "$v failed"
		echo "variant=$v rep=$rep $(cat "$OUT/hist-one.txt")" >>"$OUT/hist-runs.txt"
	done
done
passes=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["passes"])' "$OUT/hist.json")

python3 - "$OUT/hist-runs.txt" "$N" "$passes" <<'EOF' | tee "$OUT/hist-summary.md"
import statistics, sys
runs = {}
for line in open(sys.argv[1]):
    kv = dict(x.split("=") for x in line.split())
    runs.setdefault(kv["variant"], []).append(kv)
n, passes = int(sys.argv[2]), sys.argv[3]
print(f"threadlens hist on {n} spans ({passes} passes over the file), medians of {len(next(iter(runs.values())))} runs\n")
print("| variant | wall s | spans/s | user s | peak RSS MB |")
print("|---|---|---|---|---|")
for v, rs in runs.items():
    wall = statistics.median(float(r["wall_s"]) for r in rs)
    user = statistics.median(float(r["user_s"]) for r in rs)
    rss = max(int(r["maxrss_kb"]) for r in rs) / 1024
    print(f"| {v} | {wall:.2f} | {n / wall / 1e6:.2f} M | {user:.2f} | {rss:.1f} |")
EOF
[ "${BENCH_KEEP:-0}" = 1 ] || rm -f "$TRACE"
