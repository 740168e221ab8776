#!/bin/sh
# sql.sh - loading a trace into SQL tables (section 12 of RESULTS.md): a
# recording of about EVENTS events of bench/wl_pingpong (futex ping-pong),
# loaded and counted by `threadlens sql` (its temporary database, without
# indexes), and saved with indexes by `threadlens export -f sqlite`: wall
# time, peak RSS, rows, rows per second.  The peer, in the same
# run: what one does without it, the intervals exported as CSV and loaded
# with the sqlite3 shell's .import into a database file.  The target (issue
# "Measurement campaigns"): at least 1 M intervals/s, in bounded memory, on
# 10 M events.
#
#   bench/sql.sh BUILD_DIR [EVENTS]      (EVENTS default 10000000)
#
# Needs root (recording) and the sqlite3 shell (scripts/deps.sh bench).
set -eu
BUILD=${1:-build}
EVENTS=${2:-10000000}
TL=$BUILD/threadlens
HERE=$(cd "$(dirname "$0")" && pwd)
WORK=$(mktemp -d /tmp/tl-bench-sql.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
. "$HERE/bigtrace.sh"
big_trace
"$WORK/runstat" "$WORK/sql.rs" "$TL" sql --csv "$WORK/big.tl" "SELECT count(*) FROM thread_state" >"$WORK/sql.out" 2>/dev/null
"$WORK/runstat" "$WORK/load.rs" "$TL" export -f sqlite -o "$WORK/big.db" "$WORK/big.tl" 2>/dev/null
rows=$(sqlite3 "$WORK/big.db" "SELECT (SELECT count(*) FROM thread_state) || ' ' || (SELECT count(*) FROM sched) || ' ' || (SELECT count(*) FROM spans)")
set -- $rows
wall=$(sed -n 's/.*wall_s=\([0-9.]*\).*/\1/p' "$WORK/load.rs")
sw=$(sed -n 's/.*wall_s=\([0-9.]*\).*/\1/p' "$WORK/sql.rs")
echo "threadlens sql (load, count): $(cat "$WORK/sql.rs") count=$(tail -n 1 "$WORK/sql.out")"
echo "threadlens sql: $(awk -v a="$1" -v b="$2" -v w="$sw" 'BEGIN { printf "%.2f M intervals/s (thread_state + sched)", (a + b) / w / 1e6 }')"
echo "threadlens export -f sqlite (with indexes): $(cat "$WORK/load.rs") db_bytes=$(stat -c %s "$WORK/big.db") thread_state=$1 sched=$2 spans=$3"
echo "threadlens export -f sqlite: $(awk -v a="$1" -v b="$2" -v w="$wall" 'BEGIN { printf "%.2f M intervals/s (thread_state + sched)", (a + b) / w / 1e6 }')"
# the peer: CSV out, sqlite3 .import in (the state intervals only)
"$WORK/runstat" "$WORK/csv.rs" "$TL" export -f csv -o "$WORK/big" "$WORK/big.tl" 2>/dev/null
"$WORK/runstat" "$WORK/import.rs" sqlite3 "$WORK/peer.db" ".mode csv" ".import $WORK/big-intervals.csv intervals"
n=$(sqlite3 "$WORK/peer.db" "SELECT count(*) FROM intervals")
cw=$(sed -n 's/.*wall_s=\([0-9.]*\).*/\1/p' "$WORK/csv.rs")
iw=$(sed -n 's/.*wall_s=\([0-9.]*\).*/\1/p' "$WORK/import.rs")
echo "peer csv export: $(cat "$WORK/csv.rs")"
echo "peer sqlite3 .import: $(cat "$WORK/import.rs") rows=$n"
echo "peer: $(awk -v a="$n" -v w1="$cw" -v w2="$iw" 'BEGIN { printf "%.2f M intervals/s (state intervals only, %.2f s)", a / (w1 + w2) / 1e6, w1 + w2 }')"
