# lib.sh - helpers for the command-line tests (sourced by tests/cli/test_*.sh).
#
# A test script calls `cli_init BUILD_DIR`, then runs the binary with
# `tl ARGS...` (stdout in $OUT, stderr in $ERR, exit status in $RC, with a
# time limit so that a hang fails instead of stopping the suite) and reports
# each test with `pass NAME`, `fail NAME DETAIL...` or `skip NAME REASON`.
# The lines are "ok cli/NAME", "FAIL cli/NAME" plus indented details, and
# "skip cli/NAME: REASON"; scripts/check.sh counts them.  Under
# TL_REQUIRE_LIVE=1 a skip for lack of root or tracefs is a failure.
#
# Invariants: every temporary file lives in $TMP, removed on exit; `cli_done`
# ends the script with status 1 if any test failed.

cli_init() {
	BUILD=${1:-build}
	TL=$BUILD/threadlens
	WL=$BUILD/tests/wl_states
	CLI_FAILED=0
	TMP=$(mktemp -d "${TMPDIR:-/tmp}/tl-cli.XXXXXX") || exit 1
	trap 'rm -rf "$TMP"' EXIT
	OUT=$TMP/stdout
	ERR=$TMP/stderr
	if [ ! -x "$TL" ]; then
		echo "FAIL cli/$(basename "$0" .sh)/setup"
		echo "  '$TL' is not built"
		exit 1
	fi
}

# Run threadlens with a time limit (TL_CLI_TIMEOUT, default 60 s).
tl() {
	timeout -k 5 "${TL_CLI_TIMEOUT:-60}" "$TL" "$@" >"$OUT" 2>"$ERR"
	RC=$?
}

pass() {
	echo "ok cli/$1"
}

# fail NAME DETAIL...: each detail on its own indented line.
fail() {
	name=$1
	shift
	echo "FAIL cli/$name"
	for d in "$@"; do
		printf '%s\n' "$d" | sed 's/^/  /'
	done
	CLI_FAILED=1
}

skip() {
	if [ "${TL_REQUIRE_LIVE:-0}" = 1 ]; then
		fail "$1" "cannot run: $2 (TL_REQUIRE_LIVE=1)"
	else
		echo "skip cli/$1: $2"
	fi
}

# 0 if we may record (root and a tracefs), else prints nothing and returns 1.
can_record() {
	[ "$(id -u)" = 0 ] || return 1
	if [ ! -d /sys/kernel/tracing/events/sched ]; then
		mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
	fi
	[ -d /sys/kernel/tracing/events/sched ]
}

# What is wrong with the error line $1 by git's message rules, or nothing:
# "threadlens: " then a lowercase word (or a quoted subject), no full stop
# at the end.
msg_style() {
	case $1 in
	"threadlens: warning: "[a-z\']* | "threadlens: "[a-z\']*) ;;
	*) echo "not 'threadlens: <lowercase message>': $1" ;;
	esac
	case $1 in
	*.) echo "ends with a full stop: $1" ;;
	esac
}

# expect_err NAME STATUS REGEX [REGEX...]: the last command exited with
# STATUS and wrote exactly one line to stderr, in git's style, matching every
# extended REGEX.  Passes or fails NAME.
expect_err() {
	name=$1
	want=$2
	shift 2
	problems=
	[ "$RC" = "$want" ] || problems="exit status $RC, expected $want"
	lines=$(wc -l <"$ERR")
	if [ "$lines" -ne 1 ]; then
		problems="$problems${problems:+; }$lines lines on stderr, expected 1"
	fi
	line=$(head -n 1 "$ERR")
	style=$(msg_style "$line")
	[ -n "$style" ] && problems="$problems${problems:+; }$style"
	for re in "$@"; do
		if ! printf '%s\n' "$line" | grep -Eq -- "$re"; then
			problems="$problems${problems:+; }first stderr line does not match /$re/"
		fi
	done
	if [ -n "$problems" ]; then
		fail "$name" "$problems" "stderr: $(head -c 800 "$ERR")"
	else
		pass "$name"
	fi
}

# Record a short run into $1 (a few thousand events).  Returns record's status.
record_short() {
	timeout -k 5 60 "$TL" record -o "$1" -- "$WL" quantum --scale 0.3 >"$TMP/rec.out" 2>"$TMP/rec.err"
}

# child_pids PPID [COMM]: the pids of PPID's children (only those named
# COMM, when given), one per line, read from /proc/PID/stat: a minimal
# Debian has no pgrep (package procps), so the tests do not use it.
child_pids() {
	local d stat comm rest state ppid
	for d in /proc/[0-9]*; do
		stat=$(cat "$d/stat" 2>/dev/null) || continue
		# "PID (COMM) STATE PPID ...": COMM may hold spaces and ")".
		comm=${stat#*\(}
		comm=${comm%\)*}
		rest=${stat##*\) }
		read -r state ppid _ <<<"$rest"
		[ "$ppid" = "$1" ] || continue
		[ $# -lt 2 ] || [ "$comm" = "$2" ] || continue
		echo "${d#/proc/}"
	done
}

# retry_once NAME FN: FN prints what failed, nothing when it passed.  A live timing test: a failed
# attempt gets one more, reported as flaky (scripts/check.sh counts it), as tests/live does.
retry_once() {
	local bad again
	bad=$("$2")
	if [ -z "$bad" ]; then
		pass "$1"
		return
	fi
	again=$("$2")
	if [ -z "$again" ]; then
		pass "$1 (flaky: passed on attempt 2; attempt 1: $bad)"
	else
		fail "$1" "$bad" "attempt 2: $again"
	fi
}

cli_done() {
	exit $CLI_FAILED
}
