#!/bin/bash
# test_marks.sh - the marker library (include/threadlens.h) end to end.
#
#   tests/cli/test_marks.sh BUILD_DIR
#
# Uses BUILD_DIR/tests/marks_prog (tests/cli/marks_prog.c, linked with
# BUILD_DIR/libthreadlens.a).  Without a recorder the program runs normally
# and tl_recording() is 0, whatever THREADLENS_MARKS says; a C++ program
# compiles against the header and links with the library.  Under `record`
# (root): `dump` shows the markers with the right names, tids, frames and
# order, a child process's markers included; markers made before the
# program is killed with SIGKILL are in the trace; 600 threads one after
# another (more than the 512 slots) all get their markers through.
. "$(dirname "$0")/lib.sh"
cli_init "$1"
PROG=$BUILD/tests/marks_prog

if [ ! -x "$PROG" ]; then
	fail marks/setup "'$PROG' is not built (make tests)"
	cli_done
fi

# The markers of a dump, without times and thread names: "type tid=N field=...".
markers() {
	grep -E ' (frame_begin|frame_end|region_begin|region_end|task_begin|task_end|instant|marks_lost) ' "$1" |
		sed -E 's/^ *-?[0-9.]+ +(-|\[[0-9]+\]) +//; s/\([^)]*\)//g; s/  +/ /g'
}

# ---- without a recorder ---------------------------------------------------

problems=
for env in "" "THREADLENS_MARKS=" "THREADLENS_MARKS=fd:" "THREADLENS_MARKS=fd:9999" "THREADLENS_MARKS=fd:0" \
	"THREADLENS_MARKS=fd:1" "THREADLENS_MARKS=nonsense"; do
	out=$(env $env "$PROG" basic 2>&1 </dev/null)
	rc=$?
	if [ $rc != 0 ] || ! printf '%s\n' "$out" | grep -q '^recording=0$'; then
		problems="$problems${problems:+; }'${env:-no variable}': exit $rc, output: $(printf '%s' "$out" | head -c 200)"
	fi
done
# A regular file as the fd: checked and refused, not mapped and trusted.
head -c 8192 /dev/zero >"$TMP/zeros"
out=$(THREADLENS_MARKS=fd:7 "$PROG" basic 7<>"$TMP/zeros" 2>&1)
rc=$?
if [ $rc != 0 ] || ! printf '%s\n' "$out" | grep -q '^recording=0$'; then
	problems="$problems${problems:+; }a file of zeros as fd 7: exit $rc, output: $(printf '%s' "$out" | head -c 200)"
fi
cmp -s "$TMP/zeros" <(head -c 8192 /dev/zero) || problems="$problems${problems:+; }the file of zeros was written to"
if [ -z "$problems" ]; then pass marks/not_recorded; else fail marks/not_recorded "$problems"; fi

# ---- C++ ------------------------------------------------------------------

if ! command -v g++ >/dev/null 2>&1; then
	skip marks/cxx "no g++ (apt-get install g++)"
else
	cat >"$TMP/cxx.cpp" <<'EOF'
// Every call of the C API from C++: the header must be extern "C" and clean.
#include <threadlens.h>
#include <cstdio>
#include <string>
int main()
{
	std::string name = "cxx";
	tl_frame_begin(1);
	tl_frame_join(1);
	tl_region_begin(name.c_str());
	tl_task_begin("task");
	tl_instant("value", 42);
	tl_task_end("task");
	tl_region_end(name.c_str());
	tl_frame_end(1);
	std::printf("recording=%d\n", tl_recording());
	return 0;
}
EOF
	# A sanitized library needs a sanitized program.
	san=
	nm "$BUILD/libthreadlens.a" 2>/dev/null | grep -q __asan && san="-fsanitize=address,undefined"
	if ! g++ -std=c++11 -Wall -Wextra -Werror -pedantic $san -I include "$TMP/cxx.cpp" \
		"$BUILD/libthreadlens.a" -lpthread -o "$TMP/cxx" 2>"$TMP/cxx.err"; then
		fail marks/cxx "g++ failed: $(head -c 600 "$TMP/cxx.err")"
	elif [ "$("$TMP/cxx")" != "recording=0" ]; then
		fail marks/cxx "the C++ program printed: $("$TMP/cxx" 2>&1 | head -c 200)"
	elif [ -z "$san" ] && [ -e "$BUILD/libthreadlens.so" ] &&
		! { g++ -std=c++17 -Wall -Wextra -Werror -I include "$TMP/cxx.cpp" -L "$BUILD" -lthreadlens \
			-Wl,-rpath,"$(cd "$BUILD" && pwd)" -o "$TMP/cxx_so" 2>"$TMP/cxx.err" &&
			[ "$("$TMP/cxx_so")" = "recording=0" ]; }; then
		fail marks/cxx "against the shared library: $(head -c 600 "$TMP/cxx.err")"
	else
		pass marks/cxx
	fi
fi

# ---- recorded -------------------------------------------------------------

if ! can_record; then
	for t in recorded_basic names killed threads; do
		skip marks/$t "needs root and tracefs"
	done
	cli_done
fi

# Markers, their tids and order; the child process's marker too.
tl record -o "$TMP/basic.tl" -- "$PROG" basic
cp "$OUT" "$TMP/basic.out"
cp "$ERR" "$TMP/basic.err"
main=$(sed -n 's/^tid main=//p' "$TMP/basic.out")
worker=$(sed -n 's/^tid worker=//p' "$TMP/basic.out")
child=$(sed -n 's/^tid child=//p' "$TMP/basic.out")
if [ "$RC" != 0 ] || [ -z "$main" ] || [ -z "$worker" ] || [ -z "$child" ]; then
	fail marks/recorded_basic "record exited $RC" "stdout: $(head -c 300 "$TMP/basic.out")" \
		"stderr: $(head -c 400 "$TMP/basic.err")"
else
	tl dump "$TMP/basic.tl"
	markers "$OUT" >"$TMP/got"
	cat >"$TMP/want" <<EOF
frame_begin tid=$main frame=1
region_begin tid=$main name=load frame=1
region_end tid=$main name=load
task_begin tid=$worker name=compute frame=1
task_begin tid=$worker name=inner frame=1
instant tid=$worker name=queue value=7
task_end tid=$worker name=inner
task_end tid=$worker name=compute
frame_end tid=$main frame=1
region_begin tid=$main name=idle frame=-1
region_end tid=$main name=idle
instant tid=$child name=child value=$child
EOF
	if ! grep -q '^recording=1$' "$TMP/basic.out"; then
		fail marks/recorded_basic "tl_recording() was not 1 under record" "stdout: $(head -c 300 "$TMP/basic.out")"
	elif [ -s "$ERR" ]; then
		fail marks/recorded_basic "dump warned (late or lost events?): $(head -c 400 "$ERR")"
	elif ! diff -u "$TMP/want" "$TMP/got" >"$TMP/diff"; then
		fail marks/recorded_basic "markers differ from what the program did:" "$(head -c 1500 "$TMP/diff")"
	elif ! grep -q ', 12 markers (0 lost)$' "$TMP/basic.err"; then
		fail marks/recorded_basic "summary line does not count 12 markers" "stderr: $(head -c 400 "$TMP/basic.err")"
	else
		pass marks/recorded_basic
	fi
fi

# Names from a buffer that is rewritten between calls.
tl record -o "$TMP/names.tl" -- "$PROG" names
tl dump "$TMP/names.tl"
got=$(markers "$OUT" | sed 's/tid=[0-9]* //' | tr '\n' ' ')
if [ "$got" = "instant name=step0 value=0 instant name=step1 value=1 instant name=step2 value=2 " ]; then
	pass marks/names
else
	fail marks/names "got: $got"
fi

# SIGKILL after 500 markers: they are all in the trace, in order.
timeout -k 5 60 "$TL" record -o "$TMP/kill.tl" -- "$PROG" kill 500 >"$TMP/kill.out" 2>"$TMP/kill.err" &
rec=$!
for _ in $(seq 100); do
	grep -q '^ready$' "$TMP/kill.out" 2>/dev/null && break
	sleep 0.1
done
victim=$(child_pids "$rec" marks_prog | head -n 1)
# With `timeout` in between, the recorder is the grandchild of this shell.
[ -z "$victim" ] && victim=$(child_pids "$(child_pids "$rec" | head -n 1)" marks_prog | head -n 1)
if [ -z "$victim" ] || ! grep -q '^ready$' "$TMP/kill.out"; then
	kill "$rec" 2>/dev/null
	wait "$rec"
	fail marks/killed "the program did not get ready" "stdout: $(head -c 200 "$TMP/kill.out")" \
		"stderr: $(head -c 400 "$TMP/kill.err")"
else
	kill -9 "$victim"
	wait "$rec"
	rrc=$?
	tl dump "$TMP/kill.tl"
	n=$(markers "$OUT" | grep -c ' name=before ')
	order=$(markers "$OUT" | sed -n 's/.* name=before value=//p' | awk '$1 != NR { bad++ } END { print bad + 0 }')
	if [ "$rrc" = 0 ] && [ "$n" = 500 ] && [ "$order" = 0 ] && grep -q 'killed by signal 9' "$TMP/kill.err"; then
		pass marks/killed
	else
		fail marks/killed "record exited $rrc; $n of 500 markers, $order out of order" \
			"stderr: $(head -c 400 "$TMP/kill.err")"
	fi
fi

# Names that are terminal escapes (a thread's, a region's): every text command shows them inert, no
# control character but the line ends (and the tabs of none) reaches the terminal.
tl record -o "$TMP/term.tl" -- "$PROG" terminal
if [ "$RC" != 0 ]; then
	fail marks/terminal-inert "record exited $RC" "$(head -c 300 "$ERR")"
else
	loud=""
	region=$(printf '\033]0;pwned\007\033[1;31mred\033[0m')
	for cmd in report diagnose frames critical dump "hist --span frame" "util --span $region" \
		"hist --span $region" "diff $TMP/term.tl" "report --csv=states"; do
		# shellcheck disable=SC2086 # the command's words (the region's name has no space)
		tl $cmd "$TMP/term.tl"
		if [ "$RC" != 0 ]; then
			loud="$loud ${cmd%% *}: exit $RC;"
		elif LC_ALL=C grep -q "$(printf '[\001-\010\013-\037\177]')" "$OUT" ||
			LC_ALL=C grep -q "$(printf '\302[\200-\237]')" "$OUT"; then
			loud="$loud ${cmd%% *}: $(LC_ALL=C grep -c "$(printf '[\001-\010\013-\037\177]')" "$OUT") lines;"
		fi
	done
	[ -z "$loud" ] && pass marks/terminal-inert || fail marks/terminal-inert "control characters reached the output:$loud"
fi

# 600 threads, one after another: slots of ended threads are reused.
tl record -o "$TMP/threads.tl" -- "$PROG" threads 600
tl dump "$TMP/threads.tl"
n=$(markers "$OUT" | grep -c ' name=t ')
tids=$(markers "$OUT" | grep ' name=t ' | sed 's/.*tid=\([0-9]*\).*/\1/' | sort -u | wc -l)
if [ "$n" = 600 ] && [ "$tids" = 600 ] && ! markers "$OUT" | grep -q marks_lost; then
	pass marks/threads
else
	fail marks/threads "$n of 600 markers from $tids threads" "$(markers "$OUT" | grep marks_lost | head -n 3)"
fi

cli_done
