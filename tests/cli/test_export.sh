#!/bin/bash
# test_export.sh - `threadlens export` on the committed trace
# tests/data/traces/v1.2-frames.tl (wl_frames, 10 frames; its events are
# listed in v1.2-frames.dump):
#
#   perfetto  protoc --decode_raw reads it; the ftrace events are the
#             trace's 111 switches, 63 wakings, 63 wakeups, 3 wakeup_news
#             and 13+13 softirq entries/exits, in time order per bundle;
#             every track event's track was described before it; each
#             track's slices nest (state tracks: one at a time); the states
#             are the 229 intervals (threads that are not their process's leader end
#             at their last switch-out: no ZOMBIE slice), the frames 10, the regions 50.
#   chrome    valid JSON, every event with the fields its phase needs, the
#             same 229 state intervals, 10 async frames.
#   csv       the three tables' headers, the same 229 intervals, 60 spans,
#             and per thread exactly the time per state of `report --json`.
#
# Then a window (--from/--to: nothing outside it), and the errors: a bad
# format, a missing trace, an output that cannot be created.
#
#   tests/cli/test_export.sh BUILD_DIR
. "$(dirname "$0")/lib.sh"
cli_init "$1"

TRACE=$(dirname "$0")/../data/traces/v1.2-frames.tl

if ! command -v protoc >/dev/null; then
	fail export/perfetto "protoc is missing (Debian package protobuf-compiler; scripts/deps.sh check installs it)"
elif ! command -v python3 >/dev/null; then
	fail export/perfetto "python3 is missing"
else
	tl export -o "$TMP/f.pftrace" "$TRACE"
	if [ "$RC" != 0 ]; then
		fail export/perfetto "exit status $RC" "$(cat "$ERR")"
	elif ! protoc --decode_raw <"$TMP/f.pftrace" >"$TMP/f.txt" 2>"$TMP/protoc.err"; then
		fail export/perfetto "protoc --decode_raw cannot read it" "$(head -n 3 "$TMP/protoc.err")"
	else
		got=$(python3 - "$TMP/f.txt" <<'PY'
import re, sys
from collections import Counter, defaultdict

# protoc --decode_raw's text: "N {" opens a message, "}" closes it, "N: v" a value
root, stack = [], []
stack.append(root)
for ln in open(sys.argv[1]):
    s = ln.strip()
    if not s:
        continue
    if s == "}":
        stack.pop()
        continue
    m = re.match(r"^(\d+) \{$", s)
    if m:
        node = (int(m.group(1)), [])
        stack[-1].append(node)
        stack.append(node[1])
        continue
    m = re.match(r"^(\d+): (.*)$", s)
    stack[-1].append((int(m.group(1)), m.group(2)))

def get(msg, f):
    return [v for k, v in msg if k == f]

def one(msg, f, default=None):
    v = get(msg, f)
    return v[0] if v else default

bad = []
kinds = {4: "switch", 17: "wakeup", 20: "waking", 24: "softirq_entry", 25: "softirq_exit",
         36: "irq_entry", 37: "irq_exit", 114: "wakeup_new"}
ft = Counter()
described = {}
tracks = defaultdict(list)  # uuid -> [(ts, type, name)] in file order
first_seq = None
for f, pkt in root:
    if f != 1:
        bad.append("top-level field %d" % f)
        continue
    for bundle in get(pkt, 1):
        last = 0
        cpu = int(one(bundle, 1, -1))
        if cpu not in (0, 1):
            bad.append("bundle of CPU %d" % cpu)
        for e in get(bundle, 2):
            ts = int(one(e, 1, 0))
            if ts < last:
                bad.append("ftrace events out of order")
            last = ts
            k = [kinds[x] for x, _ in e if x in kinds]
            if len(k) != 1:
                bad.append("an ftrace event with %d known payloads" % len(k))
            ft.update(k)
    for td in get(pkt, 60):
        described[int(one(td, 1))] = td
    if first_seq is None and get(pkt, 10):
        first_seq = one(pkt, 13)
    for te in get(pkt, 11):
        if one(pkt, 10) != "1":
            bad.append("a track event off sequence 1")
        u = int(one(te, 11))
        if u not in described:
            bad.append("track %d used before it was described" % u)
            described[u] = []
        tracks[u].append((int(one(pkt, 8)), int(one(te, 9)), (one(te, 23) or "").strip('"')))
want = {"switch": 111, "waking": 63, "wakeup": 63, "wakeup_new": 3, "softirq_entry": 13, "softirq_exit": 13}
if dict(ft) != want:
    bad.append("ftrace events %s, want %s" % (dict(ft), want))
if first_seq != "1":
    bad.append("the first track packet does not clear the incremental state")
states = frames = regions = 0
for u, evs in tracks.items():
    name = (one(described[u], 2) or "").strip('"')
    depth = 0
    for ts, typ, nm in sorted(evs, key=lambda e: e[0]):  # stable: file order at equal times
        if typ == 1:
            depth += 1
            states += name == "states"
            frames += nm.startswith("frame ")
            regions += name == "markers"
        elif typ == 2:
            depth -= 1
        if depth < 0 or (name == "states" and depth > 1):
            bad.append("track %s (%d): slices do not nest at %d" % (name, u, ts))
            break
    if depth != 0:
        bad.append("track %s (%d): %d slices left open" % (name, u, depth))
if (states, frames, regions) != (229, 10, 50):
    bad.append("%d states, %d frames, %d regions; want 229, 10, 50" % (states, frames, regions))
print("; ".join(bad[:5]) if bad else "ok")
PY
)
		[ "$got" = ok ] && pass export/perfetto || fail export/perfetto "$got"
	fi
fi

# CPU samples (live: record --sample of tests/live/wl_hot, whose thread spends known shares of
# its CPU time in wlh_three and wlh_one): one PerfSample packet per SAMPLE event of the trace,
# with its time, CPU, process and thread (the dump's, exactly); every callstack, frame, name and
# mapping interned before use on the samples' own sequence; each sample's stack, outermost
# frame first, the one `profile --folded` counts (the same multiset); the innermost frames
# split between the two functions as the workload's clock says, within 5 points.
if ! can_record; then
	skip export/perfetto-samples "need root to record"
elif command -v python3 >/dev/null; then
	if timeout -k 5 60 "$TL" record --sample -o "$TMP/hot.tl" -- "$BUILD/tests/wl_hot" >"$TMP/hot.truth" \
		2>"$TMP/hot.err" && "$TL" dump "$TMP/hot.tl" >"$TMP/hot.dump" 2>&1 &&
		"$TL" profile --folded "$TMP/hot.tl" >"$TMP/hot.folded" 2>&1; then
		tl export -o "$TMP/hot.pftrace" "$TMP/hot.tl"
		if [ "$RC" != 0 ]; then
			fail export/perfetto-samples "exit $RC" "$(head -n 3 "$ERR")"
		else
			got=$(python3 - "$TMP/hot.pftrace" "$TMP/hot.dump" "$TMP/hot.folded" "$TMP/hot.truth" "$ERR" 2>&1 <<'PY'
import json, re, sys
from collections import Counter

# the protobuf wire format read here (protoc --decode_raw guesses which bytes are strings and
# reads a name such as "(x)" as a message): a message is a list of (field, int or bytes)
def fields(b):
    out, i = [], 0
    def varint():
        nonlocal i
        v = s = 0
        while True:
            c = b[i]
            i += 1
            v |= (c & 0x7f) << s
            s += 7
            if c < 0x80:
                return v
    while i < len(b):
        key = varint()
        if key & 7 == 0:
            out.append((key >> 3, varint()))
        elif key & 7 == 2:
            n = varint()
            out.append((key >> 3, b[i:i + n]))
            i += n
        else:
            raise ValueError("wire type %d" % (key & 7))
    return out
packets = [fields(p) for f, p in fields(open(sys.argv[1], "rb").read()) if f == 1]
val = lambda msg, f: [v for k, v in msg if k == f]
names, frames, stacks, maps, bad, samples = {}, {}, {}, set(), [], []
for p in packets:
    seq = val(p, 10)
    for idata in val(p, 12):
        if seq != [2]:
            bad.append("interned data on sequence %s" % seq)
        for k, m in fields(idata):
            m = fields(m)
            if k == 5:
                names[val(m, 1)[0]] = val(m, 2)[0].decode()
            elif k == 6:
                frames[val(m, 1)[0]] = (val(m, 2)[0], val(m, 3)[0])
            elif k == 7:
                stacks[val(m, 1)[0]] = val(m, 2)
            elif k == 19:
                maps.add(val(m, 1)[0])
    for ps in map(fields, val(p, 66)):
        if seq != [2] or val(p, 13) != [2]:
            bad.append("a sample on sequence %s, flags %s" % (seq, val(p, 13)))
        cs = stacks.get(val(ps, 4)[0])
        if cs is None or any(f not in frames or frames[f][0] not in names or frames[f][1] not in maps for f in cs):
            bad.append("sample with callstack %s not interned before it" % val(ps, 4))
            continue
        samples.append(((val(p, 8)[0], val(ps, 1)[0], val(ps, 2)[0], val(ps, 3)[0]),
                        ";".join(names[frames[f][0]] for f in cs)))
# the dump's samples: " 0.123 [001] sample  tid=5(x) pid=5 ..." with the start time from its header
t0 = None
want = []
for ln in open(sys.argv[2]):
    m = re.match(r"# start: (\d+)\.(\d{9}) s", ln)
    if m:
        t0 = int(m.group(1)) * 10**9 + int(m.group(2))
    m = re.match(r"\s*(\d+)\.(\d{9}) \[(\d+)\] sample\s+tid=(\d+)\S* pid=(\d+)", ln)
    if m:
        want.append((t0 + int(m.group(1)) * 10**9 + int(m.group(2)), int(m.group(3)), int(m.group(5)), int(m.group(4))))
got = [s for s, _ in samples]
if sorted(got) != sorted(want):
    bad.append("%d samples, the dump %d; first differing %s" %
               (len(got), len(want), [x for x in zip(sorted(got), sorted(want)) if x[0] != x[1]][:1]))
folded = Counter()
for ln in open(sys.argv[3]):
    st, n = ln.rsplit(" ", 1)
    folded[st.split(";", 1)[1] if ";" in st else ""] += int(n)
if Counter(st for _, st in samples) != folded:
    bad.append("stacks differ from profile --folded: %s" % list((Counter(st for _, st in samples) - folded).items())[:2])
truth = json.loads(open(sys.argv[4]).read().strip().splitlines()[-1])
leaf = Counter(st.rsplit(";", 1)[-1] for _, st in samples)
three, one = leaf["wlh_three"], leaf["wlh_one"]
want3 = 100.0 * truth["wlh_three_ns"] / (truth["wlh_three_ns"] + truth["wlh_one_ns"])
if not three + one or abs(100.0 * three / (three + one) - want3) > 5:
    bad.append("wlh_three innermost in %d, wlh_one in %d; its clock says %.1f%%" % (three, one, want3))
if ("%d CPU samples" % len(samples)) not in open(sys.argv[5]).read():
    bad.append("the summary line does not count %d CPU samples" % len(samples))
print("; ".join(bad[:4]) if bad else "ok")
PY
)
			[ "$got" = ok ] && pass export/perfetto-samples || fail export/perfetto-samples "$got"
		fi
	else
		fail export/perfetto-samples "record, dump or profile failed" "$(tail -n 3 "$TMP/hot.err")"
	fi
fi

tl export -f chrome -o "$TMP/f.json" "$TRACE"
if [ "$RC" != 0 ]; then
	fail export/chrome "exit status $RC" "$(cat "$ERR")"
else
	got=$(python3 - "$TMP/f.json" <<'PY'
import json, sys
from collections import Counter
d = json.load(open(sys.argv[1]))
bad = []
ev = d["traceEvents"]
ph = Counter()
named = set()
for e in ev:
    p = e.get("ph")
    ph[(p, e.get("cat"))] += 1
    if not isinstance(e.get("pid"), int) or not isinstance(e.get("tid"), int) or not isinstance(e.get("name"), str):
        bad.append("event without pid, tid or name: %r" % e)
    if p == "M":
        if e["name"] == "thread_name":
            named.add(e["tid"])
        continue
    if not isinstance(e.get("ts"), (int, float)) or e["ts"] < 0 or not isinstance(e.get("cat"), str):
        bad.append("event without ts or cat: %r" % e)
    if p == "X" and not (isinstance(e.get("dur"), (int, float)) and e["dur"] >= 0):
        bad.append("X without dur: %r" % e)
    if p in ("b", "e") and "id" not in e:
        bad.append("async event without id: %r" % e)
    if p not in ("X", "b", "e"):
        bad.append("phase %r" % p)
want = {("X", "state"): 229, ("b", "frame"): 10, ("e", "frame"): 10, ("X", "region"): 50}
for k, v in want.items():
    if ph[k] != v:
        bad.append("%d %s/%s events, want %d" % (ph[k], k[0], k[1], v))
if ph[("X", "cpu")] < 100:
    bad.append("only %d CPU slices" % ph[("X", "cpu")])
unnamed = {e["tid"] for e in ev if e.get("cat") == "state"} - named
if unnamed:
    bad.append("threads without a name: %s" % sorted(unnamed))
print("; ".join(bad[:5]) if bad else "ok")
PY
)
	[ "$got" = ok ] && pass export/chrome || fail export/chrome "$got"
fi

tl export -f csv -o "$TMP/t" "$TRACE"
rc_csv=$RC
tl report --json "$TRACE"
if [ "$rc_csv" != 0 ] || [ "$RC" != 0 ]; then
	fail export/csv "exit status $rc_csv (export), $RC (report)" "$(cat "$ERR")"
else
	got=$(python3 - "$TMP/t" "$OUT" <<'PY'
import csv, json, sys
p = sys.argv[1]
bad = []
heads = {
    "intervals": "tid,pid,thread,state,start_ns,end_ns,duration_ns,cpu,by,inferred_end",
    "spans": "kind,name,tid,pid,thread,frame,begin_ns,end_ns,duration_ns,depth,complete",
}
for t, h in heads.items():
    if open("%s-%s.csv" % (p, t)).readline().strip() != h:
        bad.append("%s header" % t)
iv = list(csv.DictReader(open(p + "-intervals.csv")))
sp = list(csv.DictReader(open(p + "-spans.csv")))
if len(iv) != 229 or len(sp) != 60:
    bad.append("%d intervals, %d spans; want 229, 60" % (len(iv), len(sp)))
for r in iv:
    if int(r["end_ns"]) - int(r["start_ns"]) != int(r["duration_ns"]) or int(r["duration_ns"]) <= 0:
        bad.append("interval %r" % r)
        break
rows = {int(r["tid"]): r for r in csv.DictReader(open(p + "-threads.csv"))}
rep = json.load(open(sys.argv[2]))
for t in rep["threads"]:
    r = rows.get(t["tid"])
    if r is None:
        bad.append("thread %d missing" % t["tid"])
        continue
    for st, ns in t["state_ns"].items():
        if st != "UNKNOWN" and int(r[st + "_ns"]) != ns:
            bad.append("thread %d %s: %s, report %d" % (t["tid"], st, r[st + "_ns"], ns))
print("; ".join(bad[:5]) if bad else "ok")
PY
)
	[ "$got" = ok ] && pass export/csv || fail export/csv "$got"
fi

# a window: every interval inside it, clipped
tl export -f csv --from 100ms --to 200ms -o "$TMP/w" "$TRACE"
got=$(awk -F, 'NR > 1 && ($5 < 100000000 || $6 > 200000000) { n++ } END { print n + 0, NR - 1 }' "$TMP/w-intervals.csv" 2>/dev/null)
case "$RC:$got" in
0:"0 "[1-9]*) pass export/window ;;
*) fail export/window "exit status $RC; intervals outside / all: $got" ;;
esac

# report --csv=intervals streams the same table to stdout (whole trace, and a window)
for win in "" "--from 100ms --to 200ms"; do
	# shellcheck disable=SC2086
	tl report --csv=intervals $win "$TRACE"
	want=$TMP/t-intervals.csv
	[ -n "$win" ] && want=$TMP/w-intervals.csv
	if [ "$RC" = 0 ] && cmp -s "$OUT" "$want" && [ "$(wc -l <"$OUT")" -gt 100 -o -n "$win" ]; then
		pass "export/report-csv-intervals${win:+-window}"
	else
		fail "export/report-csv-intervals${win:+-window}" "exit $RC; differs from export's table" \
			"$(diff "$want" "$OUT" | head -n 5)"
	fi
done

tl export -f svg "$TRACE"
if [ "$RC" = 2 ] && head -n 1 "$ERR" | grep -q -- "invalid --format 'svg' (perfetto, chrome, csv or sqlite)"; then
	pass export/bad-format
else
	fail export/bad-format "exit status $RC, want 2 and the formats" "stderr: $(head -c 300 "$ERR")"
fi
tl export "$TMP/missing.tl"
expect_err export/missing-trace 1 "missing.tl"
tl export -o /nonexistent-dir/x.pftrace "$TRACE"
expect_err export/unwritable 1 "/nonexistent-dir/x.pftrace"
tl export -f csv -o /nonexistent-dir/x "$TRACE"
expect_err export/csv-unwritable 1 "/nonexistent-dir/x-intervals.csv"

cli_done
