#!/bin/bash
# test_formats.sh - today's reader reads a trace of every earlier format
# version (tests/data/traces/README.md): the same events, byte for byte, as
# the dump made when the trace was written, and a report from it.
#
#   tests/cli/test_formats.sh BUILD_DIR
. "$(dirname "$0")/lib.sh"
cli_init "$1"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
TL_ABS=$(cd "$1" && pwd)/threadlens
DATA=$ROOT/tests/data/traces

n=0
for t in "$DATA"/v*.tl; do
	[ -e "$t" ] || continue
	name=$(basename "$t" .tl)
	n=$((n + 1))
	(cd "$DATA" && timeout 60 "$TL_ABS" dump "$name.tl") >"$OUT" 2>"$ERR"
	rc=$?
	if [ "$rc" = 0 ] && [ ! -s "$ERR" ] && cmp -s "$OUT" "$DATA/$name.dump"; then
		pass "formats/$name/dump"
	else
		fail "formats/$name/dump" "exit $rc, stderr: $(head -n 2 "$ERR")" \
			"$(diff "$DATA/$name.dump" "$OUT" | head -n 10)"
	fi
	tl report --json "$t"
	if [ "$RC" = 0 ] && grep -q '"complete": true' "$OUT" && grep -q '"threads": \[' "$OUT"; then
		pass "formats/$name/report"
	else
		fail "formats/$name/report" "exit $RC" "$(head -n 3 "$ERR")"
	fi
done
[ "$n" -gt 0 ] || fail formats/none "no trace in $DATA"
cli_done
