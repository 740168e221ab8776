#!/bin/sh
# doc_examples.sh - compile every C example of the documentation.
#
#   scripts/doc_examples.sh BUILD_DIR [DOCS_ROOT]
#
# Each ```c block of README.md and docs/*.md (under DOCS_ROOT, default the
# project's root) is written to
# BUILD_DIR/doc-examples/FILE-LINE.c and compiled with the project's warnings
# as errors: a block with a main() that includes <threadlens.h> is a
# program using the marker library, built and linked against
# BUILD_DIR/libthreadlens.a as docs/MARKERS.md says to; any other block is
# library code (an analysis, say), compiled against lib/ like the library's
# own files.  A block that is only part of a file (a list of signatures, a
# few lines of a function) follows a line `<!-- fragment -->` and is left
# out.  So an API change that breaks an example breaks the build (as
# libtracefs compiles the samples of its manual pages).
#
# The flags are TL_DOC_CFLAGS (the Makefile passes the library's own,
# warnings as errors), else -std=c17 -Wall -Wextra -Werror
# -Wno-unused-parameter (a callback need not use every argument).
# One line per example ("ok docs/MARKERS.md:12", or "FAIL docs/MARKERS.md:12:
# the compiler's first error"); exit status 1 if any failed.
# Invariant: an example is compiled as written, nothing added but its path.
set -u

if [ $# -lt 1 ] || [ $# -gt 2 ]; then
	echo "usage: scripts/doc_examples.sh BUILD_DIR [DOCS_ROOT]" >&2
	exit 2
fi
BUILD=$1
ROOT=$(cd "$(dirname "$0")/.." && pwd)
DOCS=${2:-$ROOT}
OUT=$BUILD/doc-examples
CC=${CC:-cc}
FLAGS=${TL_DOC_CFLAGS:-"-std=c17 -D_GNU_SOURCE -Wall -Wextra -Werror -Wno-unused-parameter"}
mkdir -p "$OUT" || exit 1
rm -f "$OUT"/*.c "$OUT"/*.o "$OUT"/*.log

# Extract: FILE-LINE.c for each ```c block not after <!-- fragment -->.
for doc in "$DOCS"/README.md "$DOCS"/docs/*.md; do
	[ -f "$doc" ] || continue
	name=$(basename "$doc" .md)
	awk -v out="$OUT" -v name="$name" '
		/^```c[[:space:]]*$/ && !inb { inb = 1; f = out "/" name "-" NR ".c"; skip = frag; printf "" >f; next }
		/^```/ && inb { inb = 0; close(f); if (skip) { system("rm -f \"" f "\"") } frag = prev_frag = 0; next }
		inb { print >f; next }
		{ frag = ($0 ~ /^<!-- fragment -->[[:space:]]*$/) ; if ($0 ~ /^[[:space:]]*$/) frag = prev_frag; prev_frag = frag }
	' "$doc"
done

status=0
# in page order, line by line (X-9 before X-18)
for name in $(ls "$OUT" | grep '\.c$' | sort -V); do
	src=$OUT/$name
	base=$(basename "$src" .c)
	doc=${base%-*}
	line=${base##*-}
	where="docs/$doc.md:$line"
	[ "$doc" = README ] && where="README.md:$line"
	if grep -q '^#include <threadlens.h>' "$src" && grep -q 'main(' "$src"; then
		"$CC" $FLAGS -I"$ROOT/include" "$src" "$BUILD/libthreadlens.a" -lpthread -o "$OUT/$base" >"$OUT/$base.log" 2>&1
	else
		"$CC" $FLAGS -iquote "$ROOT/lib" -iquote "$BUILD/bpf" -c "$src" -o "$OUT/$base.o" >"$OUT/$base.log" 2>&1
	fi
	if [ $? -eq 0 ]; then
		echo "ok $where"
	else
		status=1
		echo "FAIL $where: $(grep -m1 -E 'error|undefined' "$OUT/$base.log") (all: $OUT/$base.log)"
	fi
done
exit $status
