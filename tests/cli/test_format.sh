#!/bin/bash
# test_format.sh - every C file follows .clang-format (scripts/format.sh),
# and the check catches a file that does not.
#
#   tests/cli/test_format.sh BUILD_DIR
. "$(dirname "$0")/lib.sh"
cli_init "$1"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)

if sh "$ROOT/scripts/format.sh" "$ROOT" >"$OUT" 2>&1; then
	pass format/tree
else
	fail format/tree "$(head -n 30 "$OUT")"
fi

# A fake tree with one badly formatted file: the check names it and fails.
mkdir -p "$TMP/tree/lib/base"
cp "$ROOT/.clang-format" "$TMP/tree/"
printf 'int f(void) { return 1; }\n' >"$TMP/tree/lib/base/bad.c"
printf 'int g(void)\n{\n\treturn 1;\n}\n' >"$TMP/tree/lib/base/good.c"
sh "$ROOT/scripts/format.sh" "$TMP/tree" >"$OUT" 2>&1
rc=$?
if [ "$rc" = 1 ] && grep -q '^format: lib/base/bad.c differs' "$OUT" && ! grep -q 'good.c' "$OUT"; then
	pass format/catches
else
	fail format/catches "exit $rc (want 1)" "$(cat "$OUT")"
fi
cli_done
