#!/bin/sh
# layers.sh - check that lib/'s folders include each other only downwards.
#
#   scripts/layers.sh [ROOT]        (ROOT: the source tree, default .)
#
# lib/ is in folders by pipeline stage, each with a rank (docs/LAYOUT.md):
#
#   0 base   1 trace   2 capture import symbols   3 timeline   4 output
#   5 analysis   6 export
#
# A file may include a header of its own rank or lower, never higher: the
# trace format knows nothing of the recorder, the recorder nothing of the
# analyses.  Every include of a project header names its folder
# ("trace/event.h", never "event.h"), so the rule can be read off the line.
# Prints one line per broken include (FILE:LINE: ...) and exits 1 if there
# is any; a folder missing from the table above is an error too, so a new
# folder gets its rank when it is made.  make check runs this through
# tests/cli/test_layers.sh.
set -u
ROOT=${1:-.}
if [ ! -d "$ROOT/lib" ]; then
	echo "layers: no lib/ folder in '$ROOT'" >&2
	exit 2
fi
cd "$ROOT" || exit 2
find lib -name '*.[ch]' | sort | xargs awk '
BEGIN {
	split("base:0 trace:1 capture:2 import:2 symbols:2 timeline:3 output:4 analysis:5 export:6", t, " ")
	for (i in t) { split(t[i], kv, ":"); rank[kv[1]] = kv[2] }
	bad = 0
}
FNR == 1 {
	split(FILENAME, p, "/")
	own = p[2]
	if (!(own in rank)) {
		printf "%s: folder lib/%s has no rank (scripts/layers.sh)\n", FILENAME, own
		bad++
	}
}
/^#[ \t]*include[ \t]*"/ {
	h = $0
	sub(/^#[ \t]*include[ \t]*"/, "", h)
	sub(/".*/, "", h)
	n = split(h, q, "/")
	if (n < 2) {
		printf "%s:%d: include \"%s\" without its folder\n", FILENAME, FNR, h
		bad++
	} else if (!(q[1] in rank)) {
		printf "%s:%d: include \"%s\": lib/%s is not a ranked folder\n", FILENAME, FNR, h, q[1]
		bad++
	} else if ((own in rank) && rank[q[1]] > rank[own]) {
		printf "%s:%d: include \"%s\": %s (rank %d) may not include %s (rank %d)\n", \
			FILENAME, FNR, h, own, rank[own], q[1], rank[q[1]]
		bad++
	}
}
END { exit bad > 0 }
' || exit 1     # xargs says 123 when awk said 1
