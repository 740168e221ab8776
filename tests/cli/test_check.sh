#!/bin/bash
# test_check.sh - scripts/check.sh itself: its counting, its exit status and
# the expected-failure list (tests/xfail.txt, docs/TESTING.md).
#
#   tests/cli/test_check.sh BUILD_DIR
#
# Runs check.sh on a fake build directory whose only "unit test" is a
# script printing chosen result lines, with a list of our own
# (TL_XFAIL_FILE) and only the unit tier (TL_CHECK_TIERS=unit).  Proves
# that a failing test not on the list fails the run, that a listed one is
# XFAIL and does not (even under TL_REQUIRE_LIVE=1), that a listed test
# that passes is reported as an xpass, that a pass on a retry is counted as
# a flake, and that a crash is never excused.
. "$(dirname "$0")/lib.sh"
cli_init "$1"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)

FAKE=$TMP/build
mkdir -p "$FAKE/tests"
printf '#!/bin/sh\nexit 0\n' >"$FAKE/threadlens"
chmod +x "$FAKE/threadlens"
cat >"$TMP/xfail.txt" <<'EOF'
# comment lines and trailing comments are ignored
test_demo/demo/flaky   # measured 5 ms, want 13 ms
test_demo/demo/stale
test_demo/demo/norun
EOF

# check_with BODY: make the fake test print BODY (a sh script), run check.sh
# on it; its output in $OUT, exit status in $RC, summary line in $SUM.
check_with() {
	printf '#!/bin/sh\n%s\n' "$1" >"$FAKE/tests/test_demo"
	chmod +x "$FAKE/tests/test_demo"
	TL_CHECK_TIERS=unit TL_XFAIL_FILE=$TMP/xfail.txt TL_REQUIRE_LIVE=1 \
		timeout 60 bash "$ROOT/scripts/check.sh" "$FAKE" >"$OUT" 2>"$ERR"
	RC=$?
	SUM=$(tail -n 1 "$OUT")
}

# One of each: a pass, a plain failure, a listed failure, a listed pass, a
# listed test that could not run (not excused).
check_with 'echo "ok demo/pass"
echo "FAIL demo/broken"; echo "  3 != 4"
echo "FAIL demo/flaky"; echo "  EXECUTING 5.1 ms, truth 13.2 ms"
echo "ok demo/stale"
echo "FAIL demo/norun: cannot run: no tracefs"
exit 1'
if [ "$RC" = 1 ] && grep -qx 'FAIL test_demo/demo/broken' "$OUT" &&
	grep -qx 'XFAIL test_demo/demo/flaky' "$OUT" &&
	grep -qx '  EXECUTING 5.1 ms, truth 13.2 ms' "$OUT" &&
	grep -q '^ok test_demo/demo/stale (xpass' "$OUT" &&
	grep -q '^FAIL test_demo/demo/norun: cannot run' "$OUT" &&
	grep -q 'but passed: test_demo/demo/stale$' "$OUT" &&
	[[ $SUM == "check: 2 passed, 2 failed, 0 skipped, 1 xfail, 1 xpass ("* ]]; then
	pass check/unlisted-fails
else
	fail check/unlisted-fails "exit $RC (want 1)" "$(tail -n 15 "$OUT")"
fi

# Only listed failures: the run passes, TL_REQUIRE_LIVE=1 and all.
check_with 'echo "ok demo/pass"
echo "FAIL demo/flaky"; echo "  EXECUTING 5.1 ms, truth 13.2 ms"
exit 1'
if [ "$RC" = 0 ] && grep -qx 'XFAIL test_demo/demo/flaky' "$OUT" &&
	[[ $SUM == "check: 1 passed, 0 failed, 0 skipped, 1 xfail ("* ]]; then
	pass check/xfail-passes-run
else
	fail check/xfail-passes-run "exit $RC (want 0)" "$(tail -n 15 "$OUT")"
fi

# A pass on a retry is a flake: it passes, and the summary names and counts it.
check_with 'echo "ok demo/pass"
echo "ok demo/retried (flaky: passed on attempt 2)"; echo "  attempt 1 failed:"; echo "  EXEC 5 ms, truth 13 ms"
exit 0'
if [ "$RC" = 0 ] && grep -qx 'check: failed, then passed on a retry (flaky): test_demo/demo/retried' "$OUT" &&
	[[ $SUM == "check: 2 passed, 0 failed, 0 skipped, 0 xfail, 1 flaky ("* ]]; then
	pass check/flaky-counted
else
	fail check/flaky-counted "exit $RC (want 0)" "$(tail -n 15 "$OUT")"
fi

# A crash after a listed failure is still a failure.
check_with 'echo "FAIL demo/flaky"
kill -SEGV $$'
if [ "$RC" = 1 ] && grep -q '^FAIL unit/test_demo (died of signal 11)' "$OUT" &&
	[[ $SUM == "check: 0 passed, 1 failed, 0 skipped, 1 xfail ("* ]]; then
	pass check/crash-not-excused
else
	fail check/crash-not-excused "exit $RC (want 1)" "$(tail -n 15 "$OUT")"
fi

# The project's own list names only tests that exist.
while read -r name _; do
	case $name in "" | "#"*) continue ;; esac
	base=${name#san/}
	base=${base%/kernel} # live/NAME/kernel: the kernel oracle of scenario NAME
	case $base in
	live/*)
		[ -f "$ROOT/tests/live/${base#live/}.sh" ] || grep -qw -- "${base#live/}" "$ROOT"/tests/live/*.sh ||
			fail check/xfail-list "$name: no such live scenario or script"
		;;
	*) fail check/xfail-list "$name: only live scenarios are expected to fail" ;;
	esac
done <"$ROOT/tests/xfail.txt"
[ "$CLI_FAILED" = 0 ] && pass check/xfail-list

cli_done
