/*
 * test_kcheck.c - the self-check (analysis/kcheck) fed by hand: readings,
 * intervals and switches with exact expected comparisons, clipping at the
 * readings and at the EXIT event, born threads, missing readings, and the
 * tolerances.
 */
#include <string.h>

#include "analysis/kcheck/kcheck.h"
#include "harness.h"
#include "timeline/states.h"

#define MS 1000000ull

static struct tl_event kstat(uint64_t ts, int32_t tid, int point, int64_t run, int64_t wait, int64_t blkio)
{
	struct tl_event e = { .ts = ts, .type = TL_EV_KSTAT, .cpu = -1, .tid = tid, .arg = point };

	e.a = run;
	e.b = wait;
	e.c = blkio;
	return e;
}

static struct tl_event csw(uint64_t ts, int32_t tid, int point, int64_t vol, int64_t invol)
{
	struct tl_event e = { .ts = ts, .type = TL_EV_KSTAT_CSW, .cpu = -1, .tid = tid, .arg = point };

	e.a = vol;
	e.b = invol;
	return e;
}

static struct tl_event sw(uint64_t ts, int32_t prev, int64_t state)
{
	struct tl_event e = { .ts = ts, .type = TL_EV_SWITCH, .cpu = 0, .tid = prev, .arg = 0 };

	e.a = state;
	return e;
}

static void iv(struct tl_kcheck *kc, int32_t tid, uint64_t s, uint64_t e, unsigned state)
{
	struct tl_interval v = { .start = s, .end = e, .state = (uint16_t)state, .cpu = 0, .next = TL_ST__COUNT };

	tl_kcheck_interval(kc, tid, &v);
}

static void feed(struct tl_kcheck *kc, struct tl_event e)
{
	tl_kcheck_event(kc, &e);
}

TEST(test_clipped_to_the_readings)
{
	struct tl_kcheck *kc = tl_kcheck_new();
	struct tl_kcheck_result r;
	const struct tl_kcheck_thread *t;

	/* before the start reading: dropped */
	iv(kc, 7, 0, 5 * MS, TL_ST_EXECUTING);
	feed(kc, sw(5 * MS, 7, TL_PS_S));
	feed(kc, kstat(10 * MS, 7, TL_KSTAT_AT_START, 1000 * MS, 50 * MS, 0));
	feed(kc, csw(10 * MS, 7, TL_KSTAT_AT_START, 100, 10));
	/* spans the start: 10..30 counts */
	iv(kc, 7, 5 * MS, 30 * MS, TL_ST_EXECUTING);
	feed(kc, sw(30 * MS, 7, TL_PS_S)); /* voluntary */
	iv(kc, 7, 30 * MS, 40 * MS, TL_ST_SLEEPING);
	iv(kc, 7, 40 * MS, 45 * MS, TL_ST_RUNNABLE);
	iv(kc, 7, 45 * MS, 60 * MS, TL_ST_INTERRUPTED);
	feed(kc, sw(60 * MS, 7, TL_PS_PREEMPT)); /* involuntary */
	iv(kc, 7, 60 * MS, 70 * MS, TL_ST_READY_PREEMPT);
	feed(kc, kstat(100 * MS, 7, TL_KSTAT_AT_END, 1035 * MS, 65 * MS, 3 * MS));
	feed(kc, csw(100 * MS, 7, TL_KSTAT_AT_END, 101, 11));
	/* spans the end: 70..100 counts */
	iv(kc, 7, 70 * MS, 120 * MS, TL_ST_EXECUTING);
	feed(kc, sw(120 * MS, 7, TL_PS_S)); /* after the end: not counted */
	CHECK_EQ_INT(tl_kcheck_finish(kc, &r), 0);
	CHECK_EQ_INT(r.nthreads, 1);
	t = &r.threads[0];
	CHECK_EQ_INT(t->tid, 7);
	CHECK_EQ_INT(t->from, 10 * MS);
	CHECK_EQ_INT(t->to, 100 * MS);
	CHECK_EQ_INT(t->trace.run_ns, 65 * MS); /* 20 + 15 + 30 */
	CHECK_EQ_INT(t->kernel.run_ns, 35 * MS);
	CHECK_EQ_INT(t->run_diff, 30 * MS);
	CHECK_EQ_INT(t->trace.wait_ns, 15 * MS);
	CHECK_EQ_INT(t->kernel.wait_ns, 15 * MS);
	CHECK_EQ_INT(t->trace.vol, 1);
	CHECK_EQ_INT(t->trace.invol, 1);
	CHECK_EQ_INT(t->kernel.vol, 1);
	CHECK_EQ_INT(t->kernel.invol, 1);
	CHECK_EQ_INT(t->have, TL_KCHECK_WAIT | TL_KCHECK_BLKIO | TL_KCHECK_SWITCHES);
	CHECK_EQ_INT(t->ok, 0); /* 30 ms of a 90 ms window */
	CHECK_EQ_INT(r.bad, 1);
	CHECK(r.max_run_pct > 33.3 && r.max_run_pct < 33.4);
	tl_kcheck_release(&r);
	tl_kcheck_free(kc);
}

TEST(test_born_and_exited)
{
	struct tl_kcheck *kc = tl_kcheck_new();
	struct tl_kcheck_result r;
	struct tl_event fork = { .ts = 20 * MS, .type = TL_EV_FORK, .cpu = 0, .tid = 9, .arg = 7 };
	struct tl_event ex = { .ts = 50 * MS, .type = TL_EV_EXIT, .cpu = 0, .tid = 9 };

	feed(kc, fork);
	iv(kc, 9, 20 * MS, 21 * MS, TL_ST_RUNNABLE);
	iv(kc, 9, 21 * MS, 49 * MS, TL_ST_EXECUTING);
	feed(kc, sw(49 * MS, 9, TL_PS_PREEMPT));
	iv(kc, 9, 49 * MS, 49 * MS + 500000, TL_ST_READY_PREEMPT);
	feed(kc, ex);
	/* after its EXIT event: in neither side */
	iv(kc, 9, 49 * MS + 500000, 52 * MS, TL_ST_EXECUTING);
	feed(kc, sw(52 * MS, 9, TL_PS_X));
	feed(kc, kstat(60 * MS, 9, TL_KSTAT_AT_EXIT, 27 * MS, 1500000, -1));
	feed(kc, csw(60 * MS, 9, TL_KSTAT_AT_EXIT, 0, 1));
	/* a thread with only an end reading cannot be compared */
	feed(kc, kstat(60 * MS, 11, TL_KSTAT_AT_END, 5 * MS, -1, -1));
	CHECK_EQ_INT(tl_kcheck_finish(kc, &r), 0);
	CHECK_EQ_INT(r.nthreads, 1);
	CHECK_EQ_INT(r.unchecked, 1);
	CHECK_EQ_INT(r.threads[0].born, 1);
	CHECK_EQ_INT(r.threads[0].exited, 1);
	CHECK_EQ_INT(r.threads[0].from, 20 * MS);
	CHECK_EQ_INT(r.threads[0].to, 50 * MS);
	CHECK_EQ_INT(r.threads[0].trace.run_ns, 28500000); /* 28 ms + the part of 49.5..52 before the EXIT at 50 */
	CHECK_EQ_INT(r.threads[0].run_diff, 1500000);
	CHECK_EQ_INT(r.threads[0].trace.wait_ns, 1500000);
	CHECK_EQ_INT(r.threads[0].wait_diff, 0);
	CHECK_EQ_INT(r.threads[0].trace.invol, 1);
	CHECK_EQ_INT(r.threads[0].invol_diff, 0);
	CHECK_EQ_INT(r.threads[0].have, TL_KCHECK_WAIT | TL_KCHECK_SWITCHES); /* no block-I/O delay (-1) */
	/* 1.5 ms off in a 30 ms window: beyond 1 ms and beyond 1% */
	CHECK_EQ_INT(r.threads[0].ok, 0);
	tl_kcheck_release(&r);
	tl_kcheck_free(kc);
}

TEST(test_tolerances)
{
	CHECK_EQ_INT(tl_kcheck_time_tol(10 * MS), 1 * MS);    /* 1% is 0.1 ms: the 1 ms floor */
	CHECK_EQ_INT(tl_kcheck_time_tol(1000 * MS), 10 * MS); /* 1% */
	CHECK_EQ_INT(tl_kcheck_count_tol(50), 1);
	CHECK_EQ_INT(tl_kcheck_count_tol(36800), 368);
}

TEST(test_within_tolerance_and_verdict)
{
	struct tl_kcheck *kc = tl_kcheck_new();
	struct tl_kcheck_result r;
	char v[512];

	feed(kc, kstat(0, 5, TL_KSTAT_AT_START, 0, 0, 0));
	feed(kc, csw(0, 5, TL_KSTAT_AT_START, 0, 0));
	iv(kc, 5, 0, 500 * MS, TL_ST_EXECUTING);
	feed(kc, kstat(1000 * MS, 5, TL_KSTAT_AT_END, 505 * MS, 0, 0)); /* 5 ms of 1 s: 0.5% */
	feed(kc, csw(1000 * MS, 5, TL_KSTAT_AT_END, 0, 0));
	CHECK_EQ_INT(tl_kcheck_finish(kc, &r), 0);
	CHECK_EQ_INT(r.nthreads, 1);
	CHECK_EQ_INT(r.threads[0].ok, 1);
	CHECK_EQ_INT(r.bad, 0);
	tl_kcheck_verdict(&r, v, sizeof(v));
	CHECK(strstr(v, "1 thread checked against the kernel's accounting: on-CPU time within 0.50% of the window") ==
	      v);
	tl_kcheck_release(&r);
	tl_kcheck_verdict(&r, v, sizeof(v));
	CHECK_EQ_INT(v[0], 0);
	tl_kcheck_free(kc);
}

int main(void)
{
	RUN_TESTS(test_clipped_to_the_readings, test_born_and_exited, test_tolerances,
	          test_within_tolerance_and_verdict);
}
