#!/bin/bash
# test_profile.sh - `threadlens profile` through the binary.
#
#   tests/cli/test_profile.sh BUILD_DIR
#
# Live (root): record --sample of tests/live/wl_hot, whose thread spends a
# share of its own CPU time it measures in each of two functions (75% and
# 25%), in its plain build and in a stripped copy (-rdynamic: the names
# are in .dynsym): profile --json must name both functions and give each a
# self share of the thread's samples within 5 points of the truth (the
# sampling error of ~600 samples is about 2 points; the rest is the time
# between the clock reads), and their kernel samples named (90% at least:
# the KSYM events).  --folded gives "thread;...;inner COUNT" lines
# that add up to the samples.  Without privilege: the one-line errors (no
# samples, a missing file, two outputs).
. "$(dirname "$0")/lib.sh"
cli_init "$1"

WLH=$BUILD/tests/wl_hot
ROOT=$(cd "$(dirname "$0")/../.." && pwd)

# hot_shares NAME TRACE TRUTH: the self shares of wl_hot's functions against its truth.
hot_shares() {
	tl profile --json "$2"
	if [ "$RC" != 0 ]; then
		fail "$1" "exit $RC" "$(head -c 300 "$ERR")"
		return
	fi
	res=$(python3 -c '
import json, sys
d, truth = json.load(open(sys.argv[1])), json.loads(open(sys.argv[2]).read().strip().splitlines()[-1])
th = [t for t in d["threads"] if t["name"] == "wlh-hot"]
if len(th) != 1:
    print("want the one thread wlh-hot, found %d" % len(th)); sys.exit()
n = th[0]["samples"]
f = {x["name"]: x["self"] for x in d["functions"]}
tot = truth["wlh_three_ns"] + truth["wlh_one_ns"]
for name in ("wlh_three", "wlh_one"):
    want = 100.0 * truth[name + "_ns"] / tot
    got = 100.0 * f.get(name, 0) / n if n else 0
    if name not in f or abs(got - want) > 5:
        print("%s: %.1f%% of wlh-hot'"'"'s %d samples, truth %.1f%% (functions: %s)" %
              (name, got, n, want, ", ".join(list(f)[:6])))
if th[0]["top_function"] != "wlh_three":
    print("hottest function of wlh-hot: %s" % th[0]["top_function"])
# kernel frames named from the KSYM events: nearly all (an address past the last symbol may not be)
named = sum(x["self"] for x in d["functions"] if x["module"] == "[kernel]" and x["name"] != "[kernel]")
if d["kernel"] and named < 0.9 * d["kernel"]:
    print("%d of %d kernel samples named" % (named, d["kernel"]))
' "$OUT" "$3" 2>&1)
	if [ -n "$res" ]; then
		fail "$1" "$res"
	else
		pass "$1"
	fi
}

if can_record && [ -x "$WLH" ] && command -v python3 >/dev/null; then
	timeout -k 5 60 "$TL" record --sample -o "$TMP/hot.tl" -- "$WLH" >"$TMP/hot.truth" 2>"$TMP/hot.err"
	hot_shares profile-hot-shares "$TMP/hot.tl" "$TMP/hot.truth"
	# folded: every sample once
	tl profile --folded "$TMP/hot.tl"
	if [ "$RC" = 0 ] && awk '{ n += $NF } END { exit !(n > 100) }' "$OUT" &&
		grep -q "^wlh-hot;.*wlh_three [0-9]*$" "$OUT"; then
		pass profile-folded
	else
		fail profile-folded "exit $RC" "$(head -n 3 "$OUT")"
	fi
	# the vDSO (clock_gettime's fast path; no file holds it) is named from this process's copy:
	# the trace was recorded on this kernel
	tl profile --json "$TMP/hot.tl"
	res=$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
v = [f for f in d["functions"] if f["module"] == "[vdso]"]
if not v or any(f["name"].startswith("[vdso]+") for f in v):
    print("vdso functions: %s" % [(f["name"], f["total"]) for f in v])
' "$OUT" 2>&1)
	[ "$RC" = 0 ] && [ -z "$res" ] && pass profile-vdso || fail profile-vdso "exit $RC; $res"
	# format 1.14: each mapped file's build ID, as readelf prints it; pseudo-files have none
	"$TL" dump "$TMP/hot.tl" >"$TMP/hot.dump" 2>&1
	res=$(sed -n 's/.* map .* file=\([^ ]*\)\( build_id=\([0-9a-f]*\)\)\{0,1\}$/\1 \3/p' "$TMP/hot.dump" | sort -u |
		while read -r file id; do
			want=$( (LC_ALL=C readelf -n "$file" 2>/dev/null || true) | sed -n 's/.*Build ID: //p')
			[ "$id" = "$want" ] || echo "$file: build_id '$id', readelf '$want'"
		done)
	nids=$(grep -c " map .* build_id=[0-9a-f]\{40\}$" "$TMP/hot.dump")
	if [ -z "$res" ] && [ "$nids" -ge 2 ] && grep -q "file=$(realpath "$WLH") build_id=" "$TMP/hot.dump"; then
		pass profile-build-ids
	else
		fail profile-build-ids "$nids maps with a build ID; $res" "$(grep ' map ' "$TMP/hot.dump" | head -n 3)"
	fi
	tl profile "$TMP/hot.tl"
	if [ "$RC" = 0 ] && grep -q "^  wlh_three " "$OUT" && [ "$(awk 'length > 100' "$OUT" | wc -l)" = 0 ]; then
		pass profile-text
	else
		fail profile-text "exit $RC, or a line over 100 columns" "$(head -n 12 "$OUT")"
	fi
	strip -o "$TMP/wl_hot_stripped" "$WLH" 2>/dev/null || cp "$WLH" "$TMP/wl_hot_stripped"
	timeout -k 5 60 "$TL" record --sample -o "$TMP/hots.tl" -- "$TMP/wl_hot_stripped" >"$TMP/hots.truth" 2>"$TMP/hots.err"
	hot_shares profile-hot-shares-stripped "$TMP/hots.tl" "$TMP/hots.truth"
	# --stack dwarf on a build without frame pointers: the callers come from the DWARF CFI.
	# wlh_three is only called by run(): nearly all its samples must show run as the caller
	# (a walk can stop early where the copied 8 kB of stack or the CFI end); with frame
	# pointers only, this build's samples have no caller at all.
	if timeout -k 5 60 "$TL" record --sample --stack dwarf -o "$TMP/dw.tl" -- "$BUILD/tests/wl_hot_nofp" \
		>/dev/null 2>"$TMP/dw.err"; then
		tl profile --folded "$TMP/dw.tl"
		res=$(awk '$1 ~ /;wlh_three$/ { all += $2; if ($1 ~ /;run;wlh_three$/) ok += $2 }
			END { if (all < 100 || ok < 0.9 * all) printf "%d of %d wlh_three samples have run as caller", ok, all }' "$OUT")
		[ "$RC" = 0 ] && [ -z "$res" ] && pass profile-stack-dwarf || fail profile-stack-dwarf "exit $RC; $res" "$(head -n 5 "$OUT")"
	else
		fail profile-stack-dwarf "record --stack dwarf failed" "$(tail -n 3 "$TMP/dw.err")"
	fi
	# JIT code (format 1.13): wl_jit runs jit_spin from an anonymous mapping that it names in
	# /tmp/perf-PID.map, beside jit_idle, which never runs.  The recorder keeps in the trace the
	# function the samples hit, and only it (one JSYM event); with the file removed, profile
	# still names it: at least 90% of the samples in it, module [jit] (measured 99%: the rest
	# are the start-up and the kernel), none in no mapping.
	if [ "$(uname -m)" != x86_64 ]; then
		skip profile-jit "wl_jit writes x86-64 code"
	elif timeout -k 5 60 "$TL" record --sample -o "$TMP/jit.tl" -- "$BUILD/tests/wl_jit" >"$TMP/jit.truth" \
		2>"$TMP/jit.err"; then
		rm -f "$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["map"])' "$TMP/jit.truth")"
		"$TL" dump "$TMP/jit.tl" >"$TMP/jit.dump" 2>&1
		tl profile --json "$TMP/jit.tl"
		res=$(python3 -c '
import json, re, sys
d, truth = json.load(open(sys.argv[1])), json.load(open(sys.argv[3]))
js = [l for l in open(sys.argv[2]) if " jsym " in l]
want = "pid=%d start=0x%x end=0x%x function=jit_spin" % (truth["pid"], truth["jit_spin"], truth["jit_spin"] + 10)
f = {x["name"]: x for x in d["functions"]}
bad = []
if len(js) != 1 or want not in js[0]:
    bad.append("jsym events %s, want one with %s" % (js, want))
if "samples (1 JIT function named from perf maps)" not in open(sys.argv[4]).read():
    bad.append("record did not say it named 1 JIT function")
if "jit_spin" not in f or f["jit_spin"]["module"] != "[jit]" or f["jit_spin"]["self"] < 0.9 * d["samples"]:
    bad.append("jit_spin: %s of %d samples" % (f.get("jit_spin"), d["samples"]))
if d["unresolved"]:
    bad.append("%d samples in no mapping" % d["unresolved"])
print("; ".join(bad))
' "$OUT" "$TMP/jit.dump" "$TMP/jit.truth" "$TMP/jit.err" 2>&1)
		[ "$RC" = 0 ] && [ -z "$res" ] && pass profile-jit || fail profile-jit "exit $RC; $res" "$(head -c 300 "$ERR")"
	else
		fail profile-jit "record failed" "$(tail -n 3 "$TMP/jit.err")"
	fi
	# format 1.14: a program rebuilt after its recording.  Build 1 spins in old_spin; it is
	# recorded, then rebuilt with other functions (build 2: new_spin, and a pad before it).
	# profile must not name build 1's samples with build 2's symbols: at least 90% of the
	# samples are in the rebuilt file, named by offset, the file listed, no new_ name.  With
	# build 1 kept by its build ID where perf keeps it ($HOME/.debug/.build-id/xx/yyyy/elf),
	# old_spin again (in at least 90% of the stacks), nothing rebuilt.  record keeps it there
	# itself (a fresh HOME: the program, build 1 byte for byte, and libc: its clock_gettime is
	# in every stack; the loader when a sample hits it); a second recording adds only what the
	# first did not hit, each build ID once; --no-buildid-cache keeps nothing.
	if command -v cc >/dev/null && command -v readelf >/dev/null; then
		mkdir -p "$TMP/rb"
		cat >"$TMP/rb/p.c" <<'CSRC'
#include <time.h>
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec / 1e9; }
#ifdef PAD
__attribute__((noinline)) double pad(double x) { for (int i = 0; i < 100; i++) x = x * 1.0001 + i; return x; }
#endif
__attribute__((noinline)) double NAME(double x) { double t = now(); while (now() - t < 0.3) x = x * 0.999 + 1; return x; }
int main(void) { return NAME(1.0) < 0; }
CSRC
		cc -O1 -fno-omit-frame-pointer -DNAME=old_spin -o "$TMP/rb/prog" "$TMP/rb/p.c" &&
			cp "$TMP/rb/prog" "$TMP/rb/prog.1"
		HOME="$TMP/rbhome" timeout -k 5 60 "$TL" record --sample -o "$TMP/rb.tl" -- "$TMP/rb/prog" >/dev/null \
			2>"$TMP/rb.err"
		HOME="$TMP/rbhome" timeout -k 5 60 "$TL" record --sample -o "$TMP/rb-again.tl" -- "$TMP/rb/prog" \
			>/dev/null 2>"$TMP/rb-again.err"
		HOME="$TMP/rbnone" timeout -k 5 60 "$TL" record --sample --no-buildid-cache -o "$TMP/rb-none.tl" \
			-- "$TMP/rb/prog" >/dev/null 2>"$TMP/rb-none.err"
		cc -O1 -fno-omit-frame-pointer -DNAME=new_spin -DPAD -o "$TMP/rb/prog" "$TMP/rb/p.c"
		HOME="$TMP/rbempty" "$TL" profile --json "$TMP/rb.tl" >"$TMP/rb.json" 2>&1
		HOME="$TMP/rbempty" tl profile "$TMP/rb.tl"
		id=$(LC_ALL=C readelf -n "$TMP/rb/prog.1" | sed -n 's/.*Build ID: //p')
		kept="$TMP/rbhome/.debug/.build-id/$(echo "$id" | cut -c1-2)/$(echo "$id" | cut -c3-)/elf"
		HOME="$TMP/rbhome" "$TL" profile --json "$TMP/rb.tl" >"$TMP/rb2.json" 2>&1
		n1=$(sed -n 's/.* samples (\([0-9]*\) files* kept by build ID in ~\/.debug)$/\1/p' "$TMP/rb.err")
		n2=$(sed -n 's/.* samples (\([0-9]*\) files* kept by build ID in ~\/.debug)$/\1/p' "$TMP/rb-again.err")
		if [ "${n1:-0}" -lt 2 ] || ! cmp -s "$kept" "$TMP/rb/prog.1" || [ -e "$TMP/rbnone/.debug" ] ||
			[ "$(find "$TMP/rbhome/.debug" -name elf | wc -l)" != $((n1 + ${n2:-0})) ]; then
			echo "record kept: $(tail -n 1 "$TMP/rb.err"); again: $(tail -n 1 "$TMP/rb-again.err");" \
				"$(find "$TMP/rbhome/.debug" -name elf | wc -l) files; --no-buildid-cache:" \
				"$(ls -A "$TMP/rbnone" 2>&1)" >"$TMP/rb.bad"
		fi
		res=$(python3 -c '
import json, sys
d, d2, prog = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), sys.argv[4]
text = open(sys.argv[3]).read()
bad = []
names = [f["name"] for f in d["functions"]]
if d["rebuilt"] < 0.9 * d["samples"] or d["rebuilt_files"] != [prog]:
    bad.append("rebuilt %d of %d samples, files %s" % (d["rebuilt"], d["samples"], d["rebuilt_files"]))
if any(n.startswith("new_") or n == "pad" for n in names):
    bad.append("named with the new build: %s" % names[:5])
if "have frames in files rebuilt since the recording" not in text:
    bad.append("the text does not say so")
f2 = {f["name"]: f for f in d2["functions"]}
if d2["rebuilt"] or "old_spin" not in f2 or f2["old_spin"]["total"] < 0.9 * d2["samples"]:
    bad.append("from the cache: rebuilt %d, old_spin %s of %d" % (d2["rebuilt"], f2.get("old_spin"), d2["samples"]))
print("; ".join(bad))
' "$TMP/rb.json" "$TMP/rb2.json" "$OUT" "$(realpath "$TMP/rb/prog")" 2>&1)$(cat "$TMP/rb.bad" 2>/dev/null)
		[ -z "$res" ] && pass profile-rebuilt || fail profile-rebuilt "$res" "$(head -c 300 "$TMP/rb.err")"
		# archive: the same trace after the rebuild.  From the cache record filled, build 1 is
		# taken; extracted into another HOME's ~/.debug, profile names old_spin from it.  With
		# no cache, build 2 at the path is left out with a warning naming it.
		HOME="$TMP/rbhome" "$TL" archive -o "$TMP/rb.tar" "$TMP/rb.tl" >/dev/null 2>"$TMP/ar.err"
		ar_rc=$?
		mkdir -p "$TMP/arhome/.debug" && tar -xf "$TMP/rb.tar" -C "$TMP/arhome/.debug" 2>>"$TMP/ar.err"
		HOME="$TMP/arhome" "$TL" profile --json "$TMP/rb.tl" >"$TMP/ar.json" 2>&1
		HOME="$TMP/rbempty" "$TL" archive -o "$TMP/rb2.tar" "$TMP/rb.tl" >/dev/null 2>"$TMP/ar2.err"
		res=$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
f = {x["name"]: x for x in d["functions"]}
bad = []
if d["rebuilt"] or "old_spin" not in f or f["old_spin"]["total"] < 0.9 * d["samples"]:
    bad.append("from the archive: rebuilt %d, old_spin %s of %d" % (d["rebuilt"], f.get("old_spin"), d["samples"]))
print("; ".join(bad))
' "$TMP/ar.json" 2>&1)
		if [ "$ar_rc" != 0 ] || ! cmp -s "$TMP/arhome/.debug/.build-id/$(echo "$id" | cut -c1-2)/$(echo "$id" | cut -c3-)/elf" \
			"$TMP/rb/prog.1" || ! grep -q "tar -xf $TMP/rb.tar -C ~/.debug" "$TMP/ar.err" ||
			! grep -q "^threadlens: warning: 1 file left out (rebuilt since the recording, and no copy in ~/.debug): $(realpath "$TMP/rb/prog")$" \
				"$TMP/ar2.err" || [ -n "$res" ]; then
			fail profile-archive "exit $ar_rc; $res" "$(head -c 300 "$TMP/ar.err")" "$(head -c 300 "$TMP/ar2.err")"
		else
			pass profile-archive
		fi
		# diff before (build 1) and after (build 2): with no copy of build 1, before's frames in
		# the program are named by offset and diff says so (they match no function after); with
		# the copy record kept, old_spin before and new_spin after, and no note
		HOME="$TMP/rbnone" timeout -k 5 60 "$TL" record --sample --no-buildid-cache -o "$TMP/rb-after.tl" \
			-- "$TMP/rb/prog" >/dev/null 2>&1
		HOME="$TMP/rbempty" "$TL" diff --json "$TMP/rb.tl" "$TMP/rb-after.tl" >"$TMP/df.json" 2>&1
		HOME="$TMP/rbempty" "$TL" diff "$TMP/rb.tl" "$TMP/rb-after.tl" >"$TMP/df.txt" 2>&1
		HOME="$TMP/rbhome" "$TL" diff --json "$TMP/rb.tl" "$TMP/rb-after.tl" >"$TMP/df2.json" 2>&1
		res=$(python3 -c '
import json, sys
p, p2 = json.load(open(sys.argv[1]))["profile"], json.load(open(sys.argv[2]))["profile"]
text = open(sys.argv[3]).read()
names = {f["name"] for f in p2["functions"]}
bad = []
if p["unnamed"]["before"] < 0.9 * p["samples"]["before"] or p["unnamed"]["after"]:
    bad.append("unnamed %s of %s" % (p["unnamed"], p["samples"]))
if "samples before have frames named by offset" not in text or sys.argv[4] not in text:
    bad.append("the text has no note naming the file")
if p2["unnamed"] != {"before": 0, "after": 0} or not {"old_spin", "new_spin"} <= names:
    bad.append("with the copy: unnamed %s, functions %s" % (p2["unnamed"], sorted(names)[:6]))
print("; ".join(bad))
' "$TMP/df.json" "$TMP/df2.json" "$TMP/df.txt" "$(realpath "$TMP/rb/prog")" 2>&1)
		[ -z "$res" ] && pass profile-diff-rebuilt || fail profile-diff-rebuilt "$res" "$(head -c 300 "$TMP/df.txt")"
	else
		skip profile-rebuilt "no cc or readelf"
	fi
	# --runs 3: three traces; profile of all three gives each function's share per run: the
	# split between wlh_three and wlh_one within 5 points of each run's own clock
	if timeout -k 5 60 "$TL" record --sample --runs 3 -o "$TMP/runs.tl" -- "$WLH" --ms 200 >"$TMP/runs.truth" \
		2>"$TMP/runs.err" && [ -f "$TMP/runs.3.tl" ] && [ ! -f "$TMP/runs.4.tl" ]; then
		tl profile --json "$TMP/runs.1.tl" "$TMP/runs.2.tl" "$TMP/runs.3.tl"
		res=$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
truth = [json.loads(l) for l in open(sys.argv[2])]
f = {x["name"]: x for x in d["functions"]}
bad = []
if d["schema"] != "threadlens-profile-runs" or len(d["runs"]) != 3 or len(truth) != 3:
    bad.append("%d runs, %d truths" % (len(d["runs"]), len(truth)))
else:
    for k, t in enumerate(truth):
        want = 100.0 * t["wlh_three_ns"] / (t["wlh_three_ns"] + t["wlh_one_ns"])
        # the split between the two (other threads and the start-up, heavy under the sanitizers, take the rest)
        three, one = (f[n]["self_pct"][k] if n in f else 0 for n in ("wlh_three", "wlh_one"))
        got = 100.0 * three / (three + one) if three + one else -1
        if abs(got - want) > 5:
            bad.append("run %d: wlh_three %.1f%% of the two, its clock %.1f%%" % (k + 1, got, want))
    s = f.get("wlh_three", {}).get("self_pct", [])
    if s and abs(f["wlh_three"]["mean"] - sum(s) / len(s)) > 0.01:
        bad.append("mean %s of %s" % (f["wlh_three"]["mean"], s))
print("; ".join(bad))
' "$OUT" "$TMP/runs.truth" 2>&1)
		[ "$RC" = 0 ] && [ -z "$res" ] && pass profile-runs || fail profile-runs "exit $RC" "$res" "$(head -c 300 "$ERR")"
		tl profile "$TMP/runs.1.tl" "$TMP/runs.2.tl" "$TMP/runs.3.tl"
		if [ "$RC" = 0 ] && grep -q "^threadlens profile: 3 runs, cpu-clock" "$OUT" && grep -q "^  wlh_three " "$OUT" &&
			[ "$(awk 'length > 100' "$OUT" | wc -l)" = 0 ]; then
			pass profile-runs-text
		else
			fail profile-runs-text "exit $RC, or a line over 100 columns" "$(head -n 12 "$OUT")"
		fi
	else
		fail profile-runs "record --runs 3 failed or wrote other files" "$(tail -n 3 "$TMP/runs.err")" "$(ls "$TMP")"
	fi
	# A short program whose time is in a shared library (libm, mapped by the loader after the
	# exec): over before the first flush (250 ms), its samples there once lay in no mapping (6-26%
	# of them). Every sample must find its file: most of them libm (its cos is a local symbol there).
	cat >"$TMP/short.c" <<'CEOF'
#include <stdio.h>
#include <time.h>
#include <math.h>
double (*volatile f)(double) = cos;
int main(void)
{
	struct timespec t0, t;
	double s = 0;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
	do {
		for (int i = 0; i < 100000; i++)
			s += f(i * 1e-3);
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000000000L + t.tv_nsec - t0.tv_nsec < 60000000L);
	printf("%g\n", s);
	return 0;
}
CEOF
	if cc -O1 -o "$TMP/short" "$TMP/short.c" -lm; then
		timeout -k 5 60 "$TL" record --sample -o "$TMP/short.tl" -- "$TMP/short" >/dev/null 2>"$TMP/short.err"
		tl profile --json "$TMP/short.tl"
		res=$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
m = sum(f["self"] for f in d["functions"] if f["module"].startswith("libm.so"))
if d["unresolved"] or m < 20:
    print("%d samples in no mapping, %d in libm of %d" % (d["unresolved"], m, d["samples"]))
' "$OUT" 2>&1)
		[ "$RC" = 0 ] && [ -z "$res" ] && pass profile-short-libraries || fail profile-short-libraries "exit $RC; $res"
	else
		fail profile-short-libraries "cannot build the test program with cc"
	fi
else
	skip profile-hot-shares "needs root, tracefs, python3 and $WLH"
fi

# A trace recorded before MAP events (the committed v1.5 one): user code is
# [unknown], every such sample counted (its address repeats: counted from
# the cache too), and the JSON says there are no mappings.
tl profile --json "$ROOT/tests/data/traces/v1.5-frames.tl"
res=$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
unk = sum(f["self"] for f in d["functions"] if f["name"] == "[unknown]")
if d["mappings"] or d["unresolved"] != unk or unk != 20 or d["samples"] != 42:
    print("mappings %s, unresolved %d, [unknown] self %d, samples %d; want false, 20, 20, 42" %
          (d["mappings"], d["unresolved"], unk, d["samples"]))
' "$OUT" 2>&1)
if [ "$RC" = 0 ] && [ -z "$res" ]; then
	pass profile-old-trace
else
	fail profile-old-trace "exit $RC" "$res" "$(head -c 300 "$ERR")"
fi

# ---- errors: one line each ----
tl record --runs 2 -o - -- /bin/true
if [ "$RC" = 2 ] && head -n 1 "$ERR" | grep -q "^threadlens: --runs writes a file per run: give -o FILE, not -$"; then
	pass profile-runs-stdout
else
	fail profile-runs-stdout "exit $RC" "$(cat "$ERR")"
fi
tl record --runs 2 -a
if [ "$RC" = 2 ] && head -n 1 "$ERR" | grep -q "^threadlens: --runs repeats a command: give one after '--'$"; then
	pass profile-runs-no-command
else
	fail profile-runs-no-command "exit $RC" "$(cat "$ERR")"
fi
tl profile "$TMP/none.tl"
expect_err profile-missing-file 1 "cannot open .*none\.tl"
tl profile --json --folded "$TMP/none.tl"
[ "$RC" = 2 ] && grep -q "^threadlens: --json and --folded are two outputs: choose one" "$ERR" &&
	pass profile-two-outputs || fail profile-two-outputs "exit $RC" "$(head -c 300 "$ERR")"
tl profile "$ROOT/tests/data/traces/v1.4-frames.tl"
expect_err profile-no-samples 1 "no samples in '.*v1\.4-frames\.tl': record it with --sample"
# archive: a missing trace, one without samples (no archive left behind), one without build IDs
tl archive -o "$TMP/x.tar" "$TMP/none.tl"
expect_err archive-missing-file 1 "cannot open .*none\.tl"
tl archive -o "$TMP/x.tar" "$ROOT/tests/data/traces/v1.4-frames.tl"
expect_err archive-no-samples 1 "no samples in '.*v1\.4-frames\.tl': record it with --sample"
[ ! -e "$TMP/x.tar" ] && pass archive-nothing-left || fail archive-nothing-left "$TMP/x.tar was left behind"
tl archive -o "$TMP/x.tar" "$ROOT/tests/data/traces/v1.13-jit.tl"
if [ "$RC" = 1 ] && [ ! -e "$TMP/x.tar" ] &&
	grep -q "^threadlens: warning: 2 files left out: the trace has no build ID for them (recorded before format 1.14)$" "$ERR" &&
	grep -q "^threadlens: nothing to archive for '.*v1\.13-jit\.tl': no file its samples lie in could be taken$" "$ERR"; then
	pass archive-no-build-ids
else
	fail archive-no-build-ids "exit $RC" "$(head -c 300 "$ERR")"
fi

cli_done
