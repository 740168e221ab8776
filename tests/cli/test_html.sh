#!/bin/bash
# test_html.sh - `threadlens html`: the page of a recording of the demo
# pipeline and of `marks_prog hostile` (thread and region names that are
# HTML with scripts), checked in headless Chromium by
# tests/html/check_report.py: it loads offline with no console error and
# no request, draws one row per thread, zooms (Ctrl+wheel) down to the
# exact intervals, shows a tooltip on hover, selects a thread on the
# timeline and in the bars, draws wakeup arrows for a range, a finding's
# link zooms to its evidence, the frames views draw and a frame shows its
# critical path, and the hostile names stay text.  Then the before and
# after page of the demo with its bugs and without: both sides drawn, the
# comparison's rows, a thread selected on one side selected on the other.  A
# sampled recording of wl_hot: its heatmap, threads and flame graph hold every
# sample, a click zooms the flame graph, search finds wlh_one's share,
# processes of one thread are one row each,
# a drag selects bins and the timeline zooms to them.  The
# screenshots are kept in BUILD_DIR/artifacts/.  Without chromium (scripts/deps.sh
# check installs it) the browser checks are skipped, which TL_REQUIRE_LIVE=1
# turns into failures; the page's structure is checked either way.
#
#   tests/cli/test_html.sh BUILD_DIR
. "$(dirname "$0")/lib.sh"
cli_init "$1"

CHECK=$(dirname "$0")/../html/check_report.py
ART=$BUILD/artifacts
mkdir -p "$ART"

# The page's frame: one CSP, the JSON blocks (three, five with frames) parse, the interval
# blocks are base64, one script.
page_structure() {
	python3 - "$1" <<'PY'
import json, re, sys
s = open(sys.argv[1], encoding="utf-8").read()
bad = []
if s.count("Content-Security-Policy") != 1 or "default-src 'none'" not in s:
    bad.append("no Content-Security-Policy forbidding fetches")
docs = dict(re.findall(r'<script type="application/json" id="(tl-[a-z]+(?:-[ab])?)">\n(.*?)</script>', s, re.S))
sides = ["-a", "-b"] if "tl-diff" in docs else [""]
known = {"tl-diff"} if sides != [""] else set()
for side in sides:
    for id in ("tl-report", "tl-diagnose", "tl-timeline"):
        if id + side not in docs:
            bad.append("no %s block" % (id + side))
    if ("tl-frames" + side in docs) != ("tl-critical" + side in docs):
        bad.append("tl-frames%s without tl-critical%s, or the reverse" % (side, side))
    known |= {id + side for id in ("tl-report", "tl-diagnose", "tl-timeline", "tl-frames", "tl-critical", "tl-profile", "tl-predict")}
if set(docs) - known:
    bad.append("JSON blocks %s" % sorted(set(docs) - known))
for id, text in docs.items():
    try:
        json.loads(text)
    except ValueError as e:
        bad.append("%s: %s" % (id, e))
    if "<" in text:
        bad.append("a '<' inside %s" % id)
blocks = re.findall(r'<script type="application/octet-stream" id="(tl-iv(?:-[ab])?-[tc]\d+)">([^<]*)</script>', s)
if not blocks or any(not re.fullmatch(r"[A-Za-z0-9+/=]*", b) for _, b in blocks):
    bad.append("%d interval blocks, or one that is not base64" % len(blocks))
if len(re.findall(r"<script>", s)) != 1 or s.count("</script>") != 1 + len(docs) + len(blocks) or s.count("<script") != 1 + len(docs) + len(blocks):
    bad.append("%d scripts, %d script ends" % (len(re.findall(r"<script>", s)), s.count("</script>")))
print("; ".join(bad) if bad else "ok")
PY
}

# check_report.py's lines as this suite's: results FILE KIND
results() {
	n=0
	while read -r word name rest; do
		case $word in
		ok) pass "$name"; n=$((n + 1)) ;;
		FAIL) fail "${name%:}" "$rest"; n=$((n + 1)) ;;
		esac
	done <"$1"
	[ $n -gt 0 ] || fail "html/$2/browser" "no result from $CHECK" "$(tail -n 5 "$1")"
}

browser() {
	if [ -x /usr/lib/chromium/chromium ] || command -v chromium >/dev/null; then
		return 0
	fi
	return 1
}

if ! can_record; then
	skip html/demo "need root to record"
	skip html/hostile "need root to record"
else
	for kind in demo hostile; do
		if [ $kind = demo ]; then
			prog=("$BUILD/demo/tl-demo" --frames 60)
		else
			prog=("$BUILD/tests/marks_prog" hostile)
		fi
		timeout -k 5 120 "$TL" record -o "$TMP/$kind.tl" -- "${prog[@]}" >"$TMP/rec.out" 2>"$TMP/rec.err"
		if [ $? != 0 ]; then
			fail "html/$kind" "record failed" "$(tail -n 2 "$TMP/rec.err")"
			continue
		fi
		tl html -o "$TMP/$kind.html" "$TMP/$kind.tl"
		if [ "$RC" != 0 ] || ! grep -q "^threadlens: wrote $TMP/$kind.html" "$ERR"; then
			fail "html/$kind" "exit status $RC" "$(cat "$ERR")"
			continue
		fi
		got=$(page_structure "$TMP/$kind.html")
		[ "$got" = ok ] && pass "html/$kind/structure" || fail "html/$kind/structure" "$got"
		if ! browser; then
			skip "html/$kind/browser" "chromium is not installed (scripts/deps.sh check installs it)"
			continue
		fi
		timeout -k 5 180 python3 "$CHECK" "$TMP/$kind.html" $kind "$ART/html-$kind.png" >"$TMP/check.out" 2>&1
		results "$TMP/check.out" $kind
	done
fi

# a recording of processes of one thread (a shell running two commands): each is one row, labelled
# as the process, no header row (a build's thousand compilers would be two thousand rows)
if can_record; then
	if ! timeout -k 5 60 "$TL" record -o "$TMP/procs.tl" -- sh -c '/bin/true; /bin/true' >"$TMP/rec.out" 2>"$TMP/rec.err"; then
		fail html/processes "record failed" "$(tail -n 2 "$TMP/rec.err")"
	elif ! browser; then
		skip html/processes/browser "chromium is not installed (scripts/deps.sh check installs it)"
	else
		tl html -o "$TMP/procs.html" "$TMP/procs.tl"
		timeout -k 5 180 python3 "$CHECK" "$TMP/procs.html" processes "$ART/html-processes.png" >"$TMP/check.out" 2>&1
		results "$TMP/check.out" processes
	fi
fi

# a sampled recording (record --sample of wl_hot): the profile's views
if can_record; then
	if ! timeout -k 5 120 "$TL" record --sample -o "$TMP/hot.tl" -- "$BUILD/tests/wl_hot" >"$TMP/rec.out" 2>"$TMP/rec.err"; then
		fail html/profile "record failed" "$(tail -n 2 "$TMP/rec.err")"
	else
		tl html -o "$TMP/hot.html" "$TMP/hot.tl"
		got=$(page_structure "$TMP/hot.html")
		if [ "$RC" != 0 ] || [ "$got" != ok ] || ! grep -q 'id="tl-profile"' "$TMP/hot.html" ||
			! grep -q "findings, a profile" "$ERR"; then
			fail html/profile/structure "exit status $RC; $got; or no tl-profile block" "$(cat "$ERR")"
		else
			pass html/profile/structure
			if ! browser; then
				skip html/profile/browser "chromium is not installed (scripts/deps.sh check installs it)"
			else
				timeout -k 5 180 python3 "$CHECK" "$TMP/hot.html" profile "$ART/html-profile.png" >"$TMP/check.out" 2>&1
				results "$TMP/check.out" profile
				# before and after: a shorter run of wl_hot
				if timeout -k 5 60 "$TL" record --sample -o "$TMP/hot2.tl" -- "$BUILD/tests/wl_hot" --ms 300 \
					>"$TMP/rec.out" 2>"$TMP/rec.err"; then
					tl html -o "$TMP/hot-diff.html" "$TMP/hot.tl" "$TMP/hot2.tl"
					timeout -k 5 180 python3 "$CHECK" "$TMP/hot-diff.html" compare-profile "$ART/html-compare-profile.png" \
						>"$TMP/check.out" 2>&1
					results "$TMP/check.out" compare-profile
				else
					fail html/compare-profile "record failed" "$(tail -n 2 "$TMP/rec.err")"
				fi
			fi
		fi
	fi
fi

# a program rebuilt since its recording (another binary at its path, no copy kept): the
# profile's summary says how many samples have frames in it, named by offset, and which file
if can_record && browser; then
	cp "$BUILD/tests/wl_hot" "$TMP/wl_hot_rb"
	if timeout -k 5 60 "$TL" record --sample --no-buildid-cache -o "$TMP/rb.tl" -- "$TMP/wl_hot_rb" --ms 200 \
		>"$TMP/rec.out" 2>"$TMP/rec.err"; then
		cp "$BUILD/tests/wl_util" "$TMP/wl_hot_rb"
		HOME="$TMP/nohome" "$TL" html -o "$TMP/rb.html" "$TMP/rb.tl" >/dev/null 2>&1
		rb_n=$(HOME="$TMP/nohome" "$TL" profile --json "$TMP/rb.tl" | python3 -c 'import json, sys; print(json.load(sys.stdin)["rebuilt"])')
		TL_WANT="; $rb_n with frames in files rebuilt since the recording, named by offset: $(realpath "$TMP/wl_hot_rb")" \
			timeout -k 5 180 python3 "$CHECK" "$TMP/rb.html" profile-rebuilt "$ART/html-profile-rebuilt.png" \
			>"$TMP/check.out" 2>&1
		results "$TMP/check.out" profile-rebuilt
		# before and after: before's frames in the rebuilt file match nothing after; the page says so
		if timeout -k 5 60 "$TL" record --sample --no-buildid-cache -o "$TMP/rb-after.tl" -- "$TMP/wl_hot_rb" \
			>"$TMP/rec.out" 2>"$TMP/rec.err"; then
			HOME="$TMP/nohome" "$TL" html -o "$TMP/rb-diff.html" "$TMP/rb.tl" "$TMP/rb-after.tl" >/dev/null 2>&1
			TL_SEL=".tl-profdiff .tl-meta" TL_WANT="$rb_n samples before have frames named by offset" \
				timeout -k 5 180 python3 "$CHECK" "$TMP/rb-diff.html" profile-rebuilt "$ART/html-profile-rebuilt.png" \
				>"$TMP/check.out" 2>&1
			sed -i 's|html/profile-rebuilt/|html/profile-rebuilt-diff/|' "$TMP/check.out"
			results "$TMP/check.out" profile-rebuilt-diff
		else
			fail html/profile-rebuilt-diff "record failed" "$(tail -n 2 "$TMP/rec.err")"
		fi
	else
		fail html/profile-rebuilt "record failed" "$(tail -n 2 "$TMP/rec.err")"
	fi
fi

# two events: the ratio over time, its value in all as profile computes it
if can_record && browser; then
	if timeout -k 5 60 "$TL" record -e cpu-clock,page-faults -o "$TMP/ev2.tl" -- python3 -c '
b = bytearray(100 * 1024 * 1024)
for i in range(0, len(b), 4096):
    b[i] = 1
s = sum(range(2000000))
' >"$TMP/rec.out" 2>"$TMP/rec.err"; then
		tl html -o "$TMP/ev2.html" "$TMP/ev2.tl"
		timeout -k 5 180 python3 "$CHECK" "$TMP/ev2.html" profile-events "$ART/html-profile-events.png" >"$TMP/check.out" 2>&1
		results "$TMP/check.out" profile-events
	else
		fail html/profile-events "record failed" "$(tail -n 2 "$TMP/rec.err")"
	fi
fi

# a prediction (html --directives): the speedup chart and the cycle stacks of a sequential run
if can_record; then
	printf 'loop = parallel for schedule(dynamic)\n' >"$TMP/dyn.omp"
	if timeout -k 5 60 "$TL" record -o "$TMP/tasks.tl" -- "$BUILD/tests/wl_tasks" --skew >"$TMP/rec.out" 2>"$TMP/rec.err"; then
		tl html --directives "$TMP/dyn.omp" --cores 4 -o "$TMP/tasks.html" "$TMP/tasks.tl"
		got=$(page_structure "$TMP/tasks.html")
		if [ "$RC" != 0 ] || [ "$got" != ok ] || ! grep -q 'id="tl-predict"' "$TMP/tasks.html" || ! grep -q ", a prediction" "$ERR"; then
			fail html/predict/structure "exit status $RC; $got; or no tl-predict block" "$(cat "$ERR")"
		else
			pass html/predict/structure
			if browser; then
				timeout -k 5 180 python3 "$CHECK" "$TMP/tasks.html" predict "$ART/html-predict.png" >"$TMP/check.out" 2>&1
				results "$TMP/check.out" predict
			else
				skip html/predict/browser "chromium is not installed (scripts/deps.sh check installs it)"
			fi
		fi
	else
		fail html/predict "record failed" "$(tail -n 2 "$TMP/rec.err")"
	fi
fi
tl html --platform x.json "$(dirname "$0")/../data/traces/v1.2-frames.tl"
if [ "$RC" = 2 ] && head -n 1 "$ERR" | grep -q "^threadlens: --platform and --cores are for the prediction: give --directives FILE$"; then
	pass html/platform-without-directives
else
	fail html/platform-without-directives "exit $RC" "$(cat "$ERR")"
fi

# without root: the committed trace's page (wl_frames: frames and regions)
tl html -o "$TMP/frames.html" "$(dirname "$0")/../data/traces/v1.2-frames.tl"
got=$(page_structure "$TMP/frames.html")
[ "$RC" = 0 ] && [ "$got" = ok ] && pass html/committed-trace || fail html/committed-trace "exit status $RC; $got" "$(cat "$ERR")"

# before and after: the demo with its bugs (the page above) and without
if can_record; then
	if ! timeout -k 5 120 "$TL" record -o "$TMP/fixed.tl" -- "$BUILD/demo/tl-demo" --frames 60 --bugs none \
		>"$TMP/rec.out" 2>"$TMP/rec.err"; then
		fail html/compare "record failed" "$(tail -n 2 "$TMP/rec.err")"
	else
		tl html "$TMP/demo.tl" "$TMP/fixed.tl"
		got=$(page_structure "$TMP/demo-diff.html")
		if [ "$RC" != 0 ] || [ "$got" != ok ]; then
			fail html/compare "exit status $RC; $got" "$(cat "$ERR")"
		elif ! browser; then
			skip html/compare/browser "chromium is not installed (scripts/deps.sh check installs it)"
		else
			timeout -k 5 180 python3 "$CHECK" "$TMP/demo-diff.html" compare "$ART/html-compare.png" >"$TMP/check.out" 2>&1
			results "$TMP/check.out" compare
		fi
	fi
fi

tl html "$TMP/missing.tl"
expect_err html/missing-trace 1 "missing.tl"
tl html -o /nonexistent-dir/x.html "$(dirname "$0")/../data/traces/v1.2-frames.tl"
expect_err html/unwritable 1 "/nonexistent-dir/x.html"

cli_done
