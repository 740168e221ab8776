#!/bin/bash
# check.sh - run every test tier against a build and print one summary line.
#
#   scripts/check.sh BUILD_DIR [SANITIZER_BUILD_DIR]
#
# With a second build directory (an ASan + UBSan build: `make check` makes
# one in build-san), the unit, command-line and live tiers run once more on
# that build, their test names prefixed with "san/"; a sanitizer report makes
# the test fail (the sanitizers are built to abort on the first error).
#
# Tiers, in order: unit tests (every BUILD_DIR/tests/test_* program), the
# command-line tests (tests/cli/test_*.sh), the live tests (tests/live/run.sh:
# record the wl_states workloads and compare with their ground truth; then
# every other tests/live/*.sh, e.g. frames.sh), and a
# short fuzz run (scripts/fuzz.sh BUILD_DIR 10, when the script and some
# BUILD_DIR/fuzz/ targets exist).  Every test prints "ok NAME", "FAIL NAME"
# or "skip NAME: REASON" ("skip: REASON" for a whole tier); this script
# passes those lines through, counts them, treats a test program that dies
# or exits non-zero without saying FAIL as a failure, lists the failures at
# the end, and ends with
#
#   check: 142 passed, 0 failed, 3 skipped, 2 xfail (12.3 s)
#
# Expected failures: a test named in tests/xfail.txt (TL_XFAIL_FILE names
# another list) that fails prints "XFAIL NAME" with its details, counts in
# the xfail column and fails neither the run nor TL_REQUIRE_LIVE=1.  One that
# passes prints "ok NAME (xpass: ...)", and the summary adds "N xpass" so
# that a stale entry shows.  A live test that failed and then passed on a
# retry (TL_LIVE_RETRIES) prints "ok NAME (flaky: passed on attempt N)" with
# the failed attempts' details; it passes, but the summary names it and
# adds "N flaky", so a retry never hides a flake.  Only a plain failure is excused: a timeout or a
# crash of the tier, or a "FAIL NAME: cannot run", still fails.
#
# Exit status 1 if anything failed, or if anything was skipped while
# TL_REQUIRE_LIVE=1 (CI sets it: there, a skipped live test hides a bug).
# TL_CHECK_TIERS="unit cli" runs only the tiers named (unit, cli, live,
# fuzz); default all.  With TL_LIVE_SCENARIOS="yield" the live tier runs
# just those wl_states scenarios (tests/live/run.sh): e.g. a listed test
# alone is TL_CHECK_TIERS=live TL_LIVE_SCENARIOS=yield scripts/check.sh
# build build-san.
# Before it, "check: slowest: NAME 61.2 s, ..." names the six slowest tiers.
# Invariant: the summary line is always the last line printed.
set -u

BUILD=${1:-build}
SAN=${2:-}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
# Tests find their data relative to the repository root: run from there.
[ -d "$BUILD" ] && BUILD=$(cd "$BUILD" && pwd)
[ -n "$SAN" ] && [ -d "$SAN" ] && SAN=$(cd "$SAN" && pwd)
cd "$ROOT" || exit 1
LOG=$(mktemp "${TMPDIR:-/tmp}/tl-check.XXXXXX") || exit 1
trap 'rm -f "$LOG" "$LOG.out"' EXIT
start=$(date +%s%N)
passed=0
failed=0
skipped=0
xfailed=0
xpassed=0
flaky=0
flakes=()
failures=()
times=() # "SECONDS NAME" of every tier, for the slowest-tiers line
xpasses=()
XFAIL_FILE=${TL_XFAIL_FILE:-$ROOT/tests/xfail.txt}
[ -f "$XFAIL_FILE" ] || XFAIL_FILE=/dev/null
TIERS=${TL_CHECK_TIERS:-unit cli live fuzz}

# want TIER: is TIER among those to run?
want() {
	case " $TIERS " in *" $1 "*) return 0 ;; esac
	return 1
}

# mark_expected: a filter turning "FAIL NAME" into "XFAIL NAME" and marking
# "ok NAME" as an xpass, for the names listed in $XFAIL_FILE (first word of
# each line; "#" starts a comment).  NAME must match exactly.
mark_expected() {
	awk -v list="$XFAIL_FILE" '
		BEGIN {
			while ((getline l < list) > 0) {
				sub(/#.*/, "", l)
				if (split(l, w) > 0) xf[w[1]] = 1
			}
		}
		($1 == "FAIL" || $1 == "ok") && ($2 in xf) {
			if ($1 == "FAIL") { sub(/^FAIL/, "XFAIL") }
			else { $0 = $0 " (xpass: listed in tests/xfail.txt)" }
		}
		{ print; fflush() }'
}

# count_lines FILE: add FILE's result lines to the totals.
count_lines() {
	local line
	while IFS= read -r line; do
		case $line in
		"ok "*) passed=$((passed + 1)) ;;
		"FAIL"*)
			failed=$((failed + 1))
			failures+=("${line#FAIL }")
			;;
		"XFAIL "*) xfailed=$((xfailed + 1)) ;;
		"skip"*) skipped=$((skipped + 1)) ;;
		esac
		case $line in "ok "*"(xpass: "*)
			xpassed=$((xpassed + 1))
			line=${line#ok }
			xpasses+=("${line%% *}")
			;;
		esac
		case $line in "ok "*"(flaky: "*)
			flaky=$((flaky + 1))
			line=${line#ok }
			flakes+=("${line%% *}")
			;;
		esac
	done <"$1"
}

# run_tier NAME PREFIX TIMEOUT CMD...: run CMD, show and count its lines
# (with PREFIX put before each test name).  A command that fails without
# printing a FAIL line (a crash, a hang, a missing file) counts as one
# failure named NAME.  Sets LAST_RC.
run_tier() {
	local name=$1 prefix=$2 limit=$3 rc fails xfails t0=$(date +%s%N)
	shift 3
	timeout -k 10 "$limit" "$@" 2>&1 | sed -u -E "s#^(ok|FAIL) #\1 $prefix#" | mark_expected | tee "$LOG.out"
	rc=${PIPESTATUS[0]}
	LAST_RC=$rc
	times+=("$((($(date +%s%N) - t0) / 1000000)) $name")
	count_lines "$LOG.out"
	fails=$(grep -c '^FAIL' "$LOG.out")
	xfails=$(grep -c '^XFAIL ' "$LOG.out")
	# A signal or a timeout is a failure of its own even after FAIL lines:
	# the tests after the crash never ran.  An exit 1 is explained by the
	# tier's FAIL or XFAIL lines.
	if [ "$rc" -ne 0 ] && { [ $((fails + xfails)) -eq 0 ] || [ "$rc" -ge 124 ]; }; then
		if [ "$rc" -ge 124 ]; then
			case $rc in
			124 | 137) why="timed out after $limit s" ;;
			*) why="died of signal $((rc - 128))" ;;
			esac
		else
			why="exited $rc without a FAIL line"
		fi
		echo "FAIL $name ($why)"
		failed=$((failed + 1))
		failures+=("$name ($why)")
	fi
}

# run_tiers BUILD PREFIX: the unit, command-line and live tiers on one build.
run_tiers() {
	local b=$1 p=$2 t found=0
	if [ ! -x "$b/threadlens" ]; then
		echo "check: '$b/threadlens' is not built; run 'make' first" >&2
	fi
	if want unit; then
	echo "== ${p}unit tests"
	for t in "$b"/tests/test_*; do
		[ -x "$t" ] && [ -f "$t" ] || continue
		found=1
		run_tier "${p}unit/$(basename "$t")" "$p$(basename "$t")/" 120 "$t"
	done
	[ $found = 1 ] || echo "(no unit test programs in $b/tests)"
	fi

	if want cli; then
	echo "== ${p}command-line tests"
	for t in "$ROOT"/tests/cli/test_*.sh; do
		[ -f "$t" ] || continue
		run_tier "${p}cli/$(basename "$t" .sh)" "$p" 300 bash "$t" "$b"
	done
	fi

	want live || return 0
	echo "== ${p}live tests"
	run_tier "${p}live" "$p" 600 sh "$ROOT/tests/live/run.sh" "$b"
	# every other live script (frames.sh, funcs.sh, ...) takes the build
	# too; naming scenarios (TL_LIVE_SCENARIOS) runs just those
	[ -z "${TL_LIVE_SCENARIOS:-}" ] || return 0
	for t in "$ROOT"/tests/live/*.sh; do
		[ -f "$t" ] && [ "$(basename "$t")" != run.sh ] || continue
		run_tier "${p}live/$(basename "$t" .sh)" "$p" 600 bash "$t" "$b"
	done
}

run_tiers "$BUILD" ""
[ -n "$SAN" ] && run_tiers "$SAN" "san/"

fuzz_skipped=0
if want fuzz; then
	echo "== fuzz (short)"
	if [ -x "$ROOT/scripts/fuzz.sh" ] && ls "$BUILD"/fuzz/fuzz_* >/dev/null 2>&1; then
		# 5 s a target: at 10 s, 19 targets took a third of the suite's 10 minutes (make fuzz: 60 s each)
		run_tier fuzz "" 600 "$ROOT/scripts/fuzz.sh" "$BUILD" "${TL_FUZZ_SECONDS:-5}"
		# A fuzz script that prints no ok/FAIL lines counts as one test.
		if [ "$LAST_RC" = 0 ] && ! grep -Eq '^(ok|FAIL)' "$LOG.out"; then
			echo "ok fuzz"
			passed=$((passed + 1))
		fi
	else
		# Not a live skip: TL_REQUIRE_LIVE does not turn this one into a failure.
		echo "skip fuzz: no scripts/fuzz.sh or no fuzz targets in $BUILD/fuzz (make $BUILD/fuzz/NAME builds one)"
		skipped=$((skipped + 1))
		fuzz_skipped=1
	fi
fi

elapsed_ms=$((($(date +%s%N) - start) / 1000000))
status=0
if [ $failed -gt 0 ]; then
	echo
	echo "failed:"
	printf '  %s\n' "${failures[@]}"
	status=1
fi
if [ "${TL_REQUIRE_LIVE:-0}" = 1 ] && [ $((skipped - fuzz_skipped)) -gt 0 ]; then
	echo "check: $((skipped - fuzz_skipped)) skipped while TL_REQUIRE_LIVE=1"
	status=1
fi
xpass=
if [ $xpassed -gt 0 ]; then
	echo "check: on the expected-failure list ($XFAIL_FILE) but passed: ${xpasses[*]}"
	xpass=", $xpassed xpass"
fi
flakyc=
if [ $flaky -gt 0 ]; then
	echo "check: failed, then passed on a retry (flaky): ${flakes[*]}"
	flakyc=", $flaky flaky"
fi
# The slowest tiers, so that a suite creeping past its 10 minutes shows where.
slow=$(printf '%s\n' "${times[@]}" | sort -rn | head -n 6 |
	awk '{ printf "%s%s %.1f s", (NR > 1 ? ", " : ""), $2, $1 / 1000 }')
[ -n "$slow" ] && echo "check: slowest: $slow"
printf 'check: %d passed, %d failed, %d skipped, %d xfail%s%s (%d.%d s)\n' $passed $failed $skipped \
	$xfailed "$xpass" "$flakyc" $((elapsed_ms / 1000)) $((elapsed_ms % 1000 / 100))
exit $status
