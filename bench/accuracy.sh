#!/bin/bash
# accuracy.sh - threadlens's state times against the kernel's own
# accounting, per workload and per recording back end (issue "Numbers you
# can trust", part 4, "Accuracy").
#
#   bench/accuracy.sh BUILD_DIR
#
# Records every live workload (tests/live: wl_states' scenarios, wl_kernel's
# and a shell pipeline) once with --backend bpf and once with --backend
# perf, and reads the report's self-check (docs/REPORT.md, "Self-check"):
# per thread, the trace's on-CPU time (EXECUTING + INTERRUPTED) and
# run-queue wait (RUNNABLE + READY_*) against the kernel's schedstat, and
# the switch counts.  The table gives, per workload and back end, the
# largest deviation of any checked thread (trace minus kernel, in % of the
# thread's window), the largest switch-count deviation, and how many
# threads the self-check passed (its tolerance: max(1% of the window, 1 ms)
# plus the allowances it computes: clock lag, steal, unknown time).
#
# Needs root.  Output: a markdown table on stdout; the recordings and
# reports stay in BUILD_DIR/bench/accuracy/.  About a minute.
set -u
[ $# -ge 1 ] || {
	echo "usage: bench/accuracy.sh BUILD_DIR" >&2
	exit 2
}
BUILD=$(cd "$1" 2>/dev/null && pwd) || {
	echo "bench: no build directory '$1'" >&2
	exit 1
}
TL=$BUILD/threadlens
OUT=$BUILD/bench/accuracy
mkdir -p "$OUT"
[ "$(id -u)" = 0 ] || {
	echo "bench: needs root to record" >&2
	exit 1
}

WORKLOADS="states:spin states:sleep states:mutex states:io states:preempt states:quantum states:yield
kernel:pingpong kernel:contend kernel:pipeline kernel:dio shell"
: >"$OUT/rows.txt"
for w in $WORKLOADS; do
	for be in bpf perf; do
		name=${w/:/-}-$be
		case $w in
		states:*) set -- "$BUILD/tests/wl_states" "${w#states:}" --truth "$OUT/$name.truth.json" ;;
		kernel:*) set -- "$BUILD/tests/wl_kernel" "${w#kernel:}" --truth "$OUT/$name.truth.json" ;;
		shell) set -- sh -c 'seq 1 300000 | sort -rn | uniq | wc -l >/dev/null' ;;
		esac
		echo "accuracy: $w with $be" >&2
		if ! "$TL" record --backend "$be" -o "$OUT/$name.tl" -- "$@" >/dev/null 2>"$OUT/$name.err" ||
			! "$TL" report --all --json "$OUT/$name.tl" >"$OUT/$name.json" 2>>"$OUT/$name.err"; then
			echo "workload=$w backend=$be failed=1" >>"$OUT/rows.txt"
			continue
		fi
		echo "workload=$w backend=$be json=$OUT/$name.json" >>"$OUT/rows.txt"
	done
done

python3 - "$OUT/rows.txt" <<'PY'
import json, sys
print("| workload | back end | threads ok | on-CPU dev, max | run-queue dev, max | run+wait dev, max | switches dev, max |")
print("|---|---|---|---|---|---|---|")
for line in open(sys.argv[1]):
    kv = dict(f.split("=", 1) for f in line.split())
    w, be = kv["workload"].replace("states:", "").replace("kernel:", "kernel-"), kv["backend"]
    if "failed" in kv:
        print(f"| {w} | {be} | failed | | | | |")
        continue
    k = json.load(open(kv["json"]))["kernel_check"]
    ts = [t for t in k["threads"] if t["to_ns"] > t["from_ns"]]
    if not ts:
        print(f"| {w} | {be} | none checked | | | | |")
        continue
    def dev(t, key):
        return 100.0 * (t["trace"][key] - t["kernel"][key]) / (t["to_ns"] - t["from_ns"])
    def worst(vals):
        return max(vals, key=abs) if vals else 0.0
    run = worst([dev(t, "run_ns") for t in ts])
    wait = worst([dev(t, "wait_ns") for t in ts if t["kernel"].get("wait_ns") is not None])
    both = worst([100.0 * ((t["trace"]["run_ns"] + t["trace"]["wait_ns"]) - (t["kernel"]["run_ns"] + t["kernel"]["wait_ns"]))
                  / (t["to_ns"] - t["from_ns"]) for t in ts if t["kernel"].get("wait_ns") is not None])
    sw = worst([(t["trace"]["voluntary"] + t["trace"]["involuntary"]) - (t["kernel"]["voluntary"] + t["kernel"]["involuntary"])
                for t in ts if t["kernel"].get("voluntary") is not None])
    ok = sum(1 for t in ts if t["ok"])
    print(f"| {w} | {be} | {ok}/{len(ts)} | {run:+.2f}% | {wait:+.2f}% | {both:+.2f}% | {sw:+d} |")
PY
