/*
 * test_load.c - analysis/load on hand-made intervals, exact: the levels of
 * thousands of processes (each looked up in constant time, found again by
 * tl_load_find()), and a change dated back past many others, within the
 * log as it grows and beyond its last LOG_CAP (1024) entries, where the
 * time is counted as approximate; and the idle CPUs beside a process's
 * under-use.
 */
#include <string.h>

#include "harness.h"
#include "analysis/load/load.h"

static struct tl_walk_result win(uint64_t end)
{
	struct tl_walk_result r;

	memset(&r, 0, sizeof(r));
	r.win_end = end;
	return r;
}

static struct tl_thread thr(int32_t tid, int32_t pid)
{
	struct tl_thread t;

	memset(&t, 0, sizeof(t));
	t.tid = tid;
	t.tgid = pid;
	t.serial = (uint32_t)tid;
	return t;
}

static void iv(struct tl_load *l, const struct tl_thread *t, uint64_t a, uint64_t b, unsigned state, unsigned next)
{
	struct tl_interval i = { .start = a, .end = b, .state = (uint16_t)state, .cpu = 0, .next = (uint16_t)next };

	tl_load_interval(l, t, &i);
}

/* 3000 one-thread processes, each wanting a CPU for 100 ns: level 1 for 100 ns, level 0 the rest. */
TEST(many_processes)
{
	struct tl_walk_result r = win(1000000000ull);
	struct tl_load *l = tl_load_new(&r);
	struct tl_load_result out;
	int bad = 0;

	CHECK(l != NULL);
	if (!l)
		return;
	for (int32_t p = 1; p <= 3000; p++) {
		struct tl_thread t = thr(p, p);
		uint64_t s = (uint64_t)p * 1000;

		iv(l, &t, s, s + 100, TL_ST_EXECUTING, TL_ST_SLEEPING);
		iv(l, &t, s + 100, s + 300, TL_ST_SLEEPING, TL_ST__COUNT);
	}
	CHECK_EQ_INT(tl_load_finish(l, &out), 0);
	CHECK_EQ_INT(out.n, 3000);
	for (int32_t p = 1; p <= 3000; p++) {
		const struct tl_load_proc *x = tl_load_find(&out, p);
		if (!x || x->pid != p || x->at_level[1] != 100 || x->at_level[0] != 1000000000ull - 100 ||
		    x->max_level != 1 || x->approx_ns)
			bad++;
	}
	CHECK_EQ_INT(bad, 0);
	CHECK(tl_load_find(&out, 3001) == NULL);
	CHECK(tl_load_find(&out, 0) == NULL);
	tl_load_release(&out);
	tl_load_free(l);
}

/*
 * Thread 61 wants a CPU 50 of every 100 ns, `cycles` times from 1000 ns;
 * thread 60, running since 500 when the trace began, closes its first
 * interval (to `end60`) only after all of them.
 */
static void late_change(int cycles, uint64_t end60, uint64_t window, struct tl_load_result *out)
{
	struct tl_walk_result r = win(window);
	struct tl_load *l = tl_load_new(&r);
	struct tl_thread a = thr(60, 60), b = thr(61, 60);

	CHECK(l != NULL);
	if (!l)
		return;
	for (int k = 0; k < cycles; k++) {
		uint64_t s = 1000 + 100 * (uint64_t)k;

		iv(l, &b, s, s + 50, TL_ST_EXECUTING, TL_ST_SLEEPING);
		iv(l, &b, s + 50, s + 100, TL_ST_SLEEPING, k + 1 < cycles ? TL_ST_EXECUTING : TL_ST__COUNT);
	}
	iv(l, &a, 500, end60, TL_ST_EXECUTING, TL_ST_SLEEPING);
	CHECK_EQ_INT(tl_load_finish(l, out), 0);
	tl_load_free(l);
}

/* 80 changes (the log grew from 8 to 128 entries): the late change is applied to the past exactly. */
TEST(late_change_in_grown_log)
{
	struct tl_load_result out = { 0 };
	const struct tl_load_proc *x;

	late_change(40, 4500, 10000, &out);
	x = tl_load_find(&out, 60);
	CHECK(x != NULL);
	if (x) {
		/* 0-500 and 4500-10000 but 61's last 5 runs; 61's 35 runs inside 500-4500 at level 2 */
		CHECK_EQ_INT(x->at_level[0], 500 + 5500 - 250);
		CHECK_EQ_INT(x->at_level[1], 4000 - 1750 + 250);
		CHECK_EQ_INT(x->at_level[2], 35 * 50);
		CHECK_EQ_INT(x->max_level, 2);
		CHECK_EQ_INT(x->approx_ns, 0);
	}
	tl_load_release(&out);
}

/*
 * 1200 changes: the log keeps the last 1024 (from 61's run 88, at 9800 ns),
 * so 9800-60950 moves up a level exactly and 500-9800 is counted as
 * approximate (left at its old levels).
 */
TEST(late_change_beyond_log)
{
	struct tl_load_result out = { 0 };
	const struct tl_load_proc *x;

	late_change(600, 70000, 100000, &out);
	x = tl_load_find(&out, 60);
	CHECK(x != NULL);
	if (x) {
		CHECK_EQ_INT(x->approx_ns, 9800 - 500);
		CHECK_EQ_INT(x->at_level[2], 512 * 50);
		CHECK_EQ_INT(x->at_level[1], 30000 - 25600 + 25550 + 9050);
		CHECK_EQ_INT(x->at_level[0], 30950 - 25550 + 30000);
		CHECK_EQ_INT(x->max_level, 2);
	}
	tl_load_release(&out);
}

/*
 * Idle CPUs on a 3-CPU machine: process 10's thread 11 runs 100-900,
 * process 20's thread 21 runs 300-600.  10 at level 1 has 2 CPUs idle,
 * then 1 while 21 runs: idle_under 800, idle_spare 200*2 + 300*1 + 300*2;
 * 20 at level 1 has 1 idle: 300 and 300.  Both sleep the rest of the window.
 */
TEST(idle_cpus)
{
	struct tl_walk_result r = win(1000);
	struct tl_load *l;
	struct tl_thread a = thr(11, 10), b = thr(21, 20);
	struct tl_load_result out = { 0 };
	const struct tl_load_proc *x, *y;

	r.ncpus = 3;
	l = tl_load_new(&r);
	CHECK(l != NULL);
	if (!l)
		return;
	iv(l, &a, 0, 100, TL_ST_SLEEPING, TL_ST_EXECUTING);
	iv(l, &b, 0, 300, TL_ST_SLEEPING, TL_ST_EXECUTING);
	iv(l, &b, 300, 600, TL_ST_EXECUTING, TL_ST_SLEEPING);
	iv(l, &a, 100, 900, TL_ST_EXECUTING, TL_ST_SLEEPING);
	CHECK_EQ_INT(tl_load_finish(l, &out), 0);
	tl_load_free(l);
	x = tl_load_find(&out, 10);
	y = tl_load_find(&out, 20);
	CHECK(x != NULL && y != NULL);
	if (x && y) {
		CHECK_EQ_INT(x->at_level[1], 800);
		CHECK_EQ_INT(x->idle_under_ns, 800);
		CHECK_EQ_INT(x->idle_spare_ns, 400 + 300 + 600);
		CHECK_EQ_INT(y->at_level[1], 300);
		CHECK_EQ_INT(y->idle_under_ns, 300);
		CHECK_EQ_INT(y->idle_spare_ns, 300);
	}
	tl_load_release(&out);
}

/*
 * The first level change comes before any thread is on a CPU: thread 31
 * (3 CPUs) wakes at 50, waits to 60, runs to 70.  Level 1 from 50 to 70;
 * idle CPUs 3 then 2: idle_under 20, idle_spare 10 * 2 + 10 * 2.
 */
TEST(idle_before_any_cpu)
{
	struct tl_walk_result r = win(100);
	struct tl_load *l;
	struct tl_thread t = thr(31, 30);
	struct tl_load_result out = { 0 };
	const struct tl_load_proc *x;

	r.ncpus = 3;
	l = tl_load_new(&r);
	CHECK(l != NULL);
	if (!l)
		return;
	iv(l, &t, 0, 50, TL_ST_SLEEPING, TL_ST_RUNNABLE);
	iv(l, &t, 50, 60, TL_ST_RUNNABLE, TL_ST_EXECUTING);
	iv(l, &t, 60, 70, TL_ST_EXECUTING, TL_ST_SLEEPING);
	CHECK_EQ_INT(tl_load_finish(l, &out), 0);
	tl_load_free(l);
	x = tl_load_find(&out, 30);
	CHECK(x != NULL);
	if (x) {
		CHECK_EQ_INT(x->at_level[1], 20);
		CHECK_EQ_INT(x->idle_under_ns, 20);
		CHECK_EQ_INT(x->idle_spare_ns, 40);
	}
	tl_load_release(&out);
}

int main(void)
{
	RUN_TESTS(many_processes, late_change_in_grown_log, late_change_beyond_log, idle_cpus, idle_before_any_cpu);
}
