#!/bin/bash
# test_docs.sh - the C examples of the documentation compile
# (scripts/doc_examples.sh, which `make` runs too).
#
#   tests/cli/test_docs.sh BUILD_DIR
#
# Runs the script on the real pages (every example must compile, and the
# two known ones must be among them), then on fake pages: a broken example
# must fail naming its page and line, a fragment must be left out.
. "$(dirname "$0")/lib.sh"
cli_init "$1"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
# its own folder for the compiled examples: not the build's, which make keeps
docs_build() {
	mkdir -p "$TMP/$1"
	cp "$BUILD/libthreadlens.a" "$TMP/$1/" 2>/dev/null
	echo "$TMP/$1"
}

# a sanitized library (build-san) links only with the sanitizers
nm "$BUILD/libthreadlens.a" 2>/dev/null | grep -q __asan_ &&
	export TL_DOC_CFLAGS="-std=c17 -D_GNU_SOURCE -Wall -Wextra -Werror -Wno-unused-parameter -fsanitize=address,undefined"
b=$(docs_build real)
sh "$ROOT/scripts/doc_examples.sh" "$b" >"$OUT" 2>&1
rc=$?
if [ "$rc" = 0 ] && grep -qx "ok docs/MARKERS.md:12" "$OUT" && grep -q "^ok docs/HACKING.md:" "$OUT" &&
	! grep -qv "^ok " "$OUT"; then
	pass docs/examples-compile
else
	fail docs/examples-compile "exit $rc (want 0, an ok line for MARKERS.md:12 and HACKING.md):" "$(cat "$OUT")"
fi

# A page with a fragment, a broken program and a good one.
d=$TMP/pages
mkdir -p "$d/docs"
cat >"$d/docs/X.md" <<'EOF'
# x

<!-- fragment -->
```c
int half(int x)    /* no body: a part of a file */
```

```c
#include <threadlens.h>

int main(void)
{
	tl_region_start("x");
	return 0;
}
```

```c
#include <threadlens.h>

int main(void)
{
	tl_region_begin("x");
	tl_region_end("x");
	return 0;
}
```
EOF
b=$(docs_build fake)
sh "$ROOT/scripts/doc_examples.sh" "$b" "$d" >"$OUT" 2>&1
rc=$?
if [ "$rc" = 1 ] && grep -q "^FAIL docs/X.md:8: .*tl_region_start" "$OUT" && grep -qx "ok docs/X.md:18" "$OUT" &&
	[ "$(wc -l <"$OUT")" = 2 ]; then
	pass docs/examples-broken
else
	fail docs/examples-broken "exit $rc (want 1: FAIL at X.md:8, ok at X.md:18, the fragment left out):" "$(cat "$OUT")"
fi
cli_done
