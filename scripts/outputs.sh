#!/bin/sh
# outputs.sh - write everything the analysis commands print for some traces,
# one file per command, format and trace, to compare two builds byte for byte.
#
#   scripts/outputs.sh THREADLENS OUTDIR TRACE...
#
# For each TRACE: report (text, --all, --json, every --csv table), frames
# (text, --json), hist and util for every span name the trace holds (regions,
# tasks, probed functions; hist also 'frame', @burst and @latency), and dump.
# Each file holds the command line, its stdout and stderr, and its exit
# status, so an error message that changes shows up too.  To check that a
# change leaves the output alone (a refactoring, a move):
#
#   scripts/outputs.sh old/threadlens /tmp/before demo.tl app.tl
#   scripts/outputs.sh build/threadlens /tmp/after demo.tl app.tl
#   diff -r /tmp/before /tmp/after && echo same
#
# The commands get fixed widths (--width 100) and no terminal, so nothing
# depends on where they run.
set -u

if [ $# -lt 3 ]; then
	echo "usage: $0 THREADLENS OUTDIR TRACE..." >&2
	exit 2
fi
TL=$1
OUT=$2
shift 2
mkdir -p "$OUT" || exit 1

# run NAME ARGS...: "$TL" ARGS into $dir/NAME, with the exit status.
run() {
	name=$1
	shift
	{
		echo "\$ threadlens $*"
		"$TL" "$@" 2>&1 </dev/null
		echo "exit $?"
	} >"$dir/$name"
}

for t in "$@"; do
	if [ ! -r "$t" ]; then
		echo "outputs: cannot read '$t'" >&2
		exit 1
	fi
	dir=$OUT/$(basename "$t" .tl)
	mkdir -p "$dir" || exit 1
	# Names are read from this trace (the same under both builds).
	names=$("$TL" dump --no-header "$t" 2>/dev/null |
		awk '$3 ~ /_begin$|^func/ { for (i = 4; i <= NF; i++) if ($i ~ /^name=/) print substr($i, 6) }' |
		sort -u)

	run report.txt report --width 100 "$t"
	run report-all.txt report --all --width 100 "$t"
	run report.json report --json "$t"
	for table in threads states transitions cpus processes wakers; do
		run "report-$table.csv" report --csv="$table" "$t"
	done
	run frames.txt frames "$t"
	run frames.json frames --json "$t"
	for n in frame @burst @latency $names; do
		f=$(echo "$n" | tr -c 'A-Za-z0-9_@.\n-' '_')
		run "hist-$f.txt" hist --span "$n" "$t"
		run "hist-$f.json" hist --span "$n" --json "$t"
		run "hist-$f.csv" hist --span "$n" --csv "$t"
		run "hist-$f-compare.txt" hist --span "$n" --compare "$t"
	done
	for n in $names; do
		f=$(echo "$n" | tr -c 'A-Za-z0-9_@.\n-' '_')
		run "util-$f.txt" util --span "$n" "$t"
		run "util-$f.json" util --span "$n" --json --instances "$t"
	done
	[ -n "$names" ] && run util-all.txt util $(for n in $names; do printf -- '--span %s ' "$n"; done) "$t"
	run dump.txt dump "$t"
done
exit 0
