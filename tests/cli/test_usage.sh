#!/bin/bash
# test_usage.sh - usage errors, --help and --version of the threadlens binary.
#
#   tests/cli/test_usage.sh BUILD_DIR
#
# Exit statuses: 0 ok, 1 failure, 2 usage (src/cli.h).  Every command's
# --help exits 0, prints on stdout and shows an example; a bad option gives
# status 2 and names the option.  Needs no privilege.
. "$(dirname "$0")/lib.sh"
cli_init "$1"

tl
if [ "$RC" = 2 ] && grep -q '^usage: threadlens' "$ERR" && [ ! -s "$OUT" ]; then
	pass no-args
else
	fail no-args "exit $RC (want 2), usage on stderr expected" "stderr: $(head -c 300 "$ERR")"
fi

tl frobnicate
expect_err unknown-command 2 "^threadlens: 'frobnicate' is not a threadlens command" "threadlens --help"

tl --help
if [ "$RC" = 0 ] && grep -qi 'example' "$OUT" && [ ! -s "$ERR" ] && awk 'length > 80 { exit 1 }' "$OUT"; then
	pass help
else
	fail help "exit $RC, want 0 with an example on stdout (80 columns at most) and nothing on stderr"
fi

tl --version
if [ "$RC" = 0 ] && grep -Eq '^threadlens [0-9]+\.[0-9]+\.[0-9]+' "$OUT"; then
	pass version
else
	fail version "exit $RC, stdout: $(head -c 200 "$OUT")"
fi

# The commands, as `threadlens --help` lists them.
tl --help
cmds=$(awk '/^commands:/ { on = 1; next } on && /^$/ { exit } on { print $1 }' "$OUT")
[ -n "$cmds" ] || fail help-lists-commands "no commands under 'commands:' in --help"
for c in $cmds; do
	tl "$c" --help
	if [ "$RC" = 0 ] && grep -qi 'example' "$OUT" && grep -q "threadlens $c" "$OUT"; then
		pass "$c-help"
	else
		fail "$c-help" "exit $RC (want 0) and an example with 'threadlens $c' on stdout" \
			"stdout: $(head -c 300 "$OUT")" "stderr: $(head -c 300 "$ERR")"
	fi
	# it fits a terminal of 80 columns
	wide=$(awk 'length > 80 { print length ": " $0 }' "$OUT")
	[ -z "$wide" ] && pass "$c-help-width" || fail "$c-help-width" "lines over 80 columns" "$(head -n 3 <<<"$wide")"

	tl "$c" --no-such-option
	if [ "$RC" = 2 ] && grep -q -- 'no-such-option' "$ERR" && grep -q "threadlens $c --help" "$ERR" &&
		[ "$(wc -l <"$ERR")" -le 2 ]; then
		pass "$c-unknown-option"
	else
		fail "$c-unknown-option" "exit $RC (want 2); stderr should name the option and point to 'threadlens $c --help'" \
			"stderr: $(head -c 400 "$ERR")"
	fi
done

tl report
if [ "$RC" = 2 ] && [ -s "$ERR" ]; then
	pass report-no-file
else
	fail report-no-file "exit $RC (want 2: a trace file is required)" "stderr: $(head -c 300 "$ERR")"
fi

cli_done
