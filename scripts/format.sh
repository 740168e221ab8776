#!/bin/sh
# format.sh - check (or apply) the project's C style, .clang-format.
#
#   scripts/format.sh [--fix] [ROOT]
#
# Runs clang-format on every .c and .h of the project (lib, src, instr,
# include, tests, demo, bench; not build directories or fuzz corpora).
# Without --fix it changes nothing: it names each file whose formatting
# differs, shows the first lines of the difference, and exits 1; with --fix
# it rewrites them (`make format`).  clang-format comes with the project's
# test dependencies (scripts/deps.sh check); without it this says so and
# exits 1.  make check runs the check through tests/cli/test_format.sh.
set -u
fix=0
if [ "${1:-}" = "--fix" ]; then
	fix=1
	shift
fi
ROOT=${1:-.}
cd "$ROOT" || exit 2
if ! command -v clang-format >/dev/null 2>&1; then
	echo "format: clang-format is not installed (run: scripts/deps.sh check)" >&2
	exit 1
fi
if [ ! -f .clang-format ]; then
	echo "format: no .clang-format in '$ROOT'" >&2
	exit 2
fi

files=$(find lib src instr include tests demo bench -name '*.[ch]' -not -path 'tests/fuzz/corpus/*' 2>/dev/null | sort)
if [ "$fix" = 1 ]; then
	# shellcheck disable=SC2086
	exec clang-format -i $files
fi
bad=0
for f in $files; do
	if ! clang-format "$f" | cmp -s "$f" -; then
		echo "format: $f differs from .clang-format (scripts/format.sh --fix, or make format):"
		clang-format "$f" | diff "$f" - | head -n 8 | sed 's/^/  /'
		bad=$((bad + 1))
	fi
done
[ "$bad" = 0 ] || exit 1
exit 0
