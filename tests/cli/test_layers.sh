#!/bin/bash
# test_layers.sh - lib/'s folders include each other only downwards
# (scripts/layers.sh, docs/LAYOUT.md).
#
#   tests/cli/test_layers.sh BUILD_DIR
#
# Runs the rank check on the real tree (it must pass), then on small fake
# trees that break each rule once (each must fail, naming the file and line).
. "$(dirname "$0")/lib.sh"
cli_init "$1"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)

if sh "$ROOT/scripts/layers.sh" "$ROOT" >"$OUT" 2>&1; then
	pass layers/tree
else
	fail layers/tree "$(head -n 20 "$OUT")"
fi

# fake NAME FILE LINE WANT: a tree whose lib/FILE holds LINE (next to a
# good lib/base/errors.h); the check must exit 1 and print WANT.
fake() {
	local d=$TMP/$1
	mkdir -p "$d/lib/base" "$d/lib/$(dirname "$2")"
	printf '#include <stdio.h>\n#include "base/errors.h"\n' >"$d/lib/base/errors.h"
	printf '/* x */\n%s\n' "$3" >"$d/lib/$2"
	sh "$ROOT/scripts/layers.sh" "$d" >"$OUT" 2>&1
	local rc=$?
	if [ "$rc" = 1 ] && grep -qF "$4" "$OUT"; then
		pass "layers/$1"
	else
		fail "layers/$1" "exit $rc (want 1), want '$4' in:" "$(cat "$OUT")"
	fi
}
fake upward trace/trace.h '#include "capture/record.h"' \
	'lib/trace/trace.h:2: include "capture/record.h": trace (rank 1) may not include capture (rank 2)'
fake no-folder timeline/walk.c '#include "walk.h"' \
	'lib/timeline/walk.c:2: include "walk.h" without its folder'
fake unknown-target output/json.c '# include "misc/x.h"' \
	'lib/output/json.c:2: include "misc/x.h": lib/misc is not a ranked folder'
fake unknown-folder misc/x.c '#include "base/errors.h"' \
	'lib/misc/x.c: folder lib/misc has no rank'
cli_done
