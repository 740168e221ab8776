/*
 * test_lockhold.c - what a lock's holders did while a thread waited
 * (analysis/lockhold), exact, on a hand-written trace of a convoy: the
 * thread that ends a wait had waited for the lock itself, so that part is
 * what the holder before it did.  Written with the real writer and read
 * back with the real reader, as the command does.
 */
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "trace_build.h"
#include "analysis/diagnose/diagnose.h"
#include "analysis/report/report.h"

#define US 1000ull

static void sw(uint64_t t, int cpu, int32_t prev, int64_t state, int32_t next, uint16_t flags)
{
	ev(t, cpu, TL_EV_SWITCH, prev, next, state, 120, 120, flags, NULL);
}

static void wake(uint64_t t, int cpu, int32_t woken, int32_t waker)
{
	ev(t, cpu, TL_EV_WAKING, woken, waker, cpu, 120, 0, 0, NULL);
	ev(t, cpu, TL_EV_WAKEUP, woken, waker, cpu, 120, 0, 0, NULL);
}

/*
 * A convoy in process 500 (us): c (503) holds the lock on CPU 1 from 1000,
 * releases it at 1100 (waking b) and runs on to 1290.  b (502) runs on
 * CPU 0 until it waits for the lock at 1020, is woken at 1100, runs from
 * 1101 and releases it at 1150 (waking a), runs on to 1250.  a (501) runs
 * on CPU 0 1020-1040, waits for the lock until 1150, for CPU 0 until
 * 1250, runs to 1280.  a's wait 1040-1150: b waited for the lock 60 us of
 * it (c ran meanwhile), for a CPU 1, ran 49: on a CPU 109, queued 1,
 * convoy 60.  b's wait 1020-1100: c ran 80.
 */
static void write_convoy(char *p)
{
	const uint16_t lockf = TL_EVF_WAIT_FUTEX | TL_EVF_WAIT_LOCK;

	W = program_trace_open(p, 500, 1000);
	CHECK(W != NULL);
	ev(1000, -1, TL_EV_THREAD, 501, 500, 0, 0, 1, 0, "a");
	ev(1000, -1, TL_EV_THREAD, 502, 500, 0, 0, 1, 0, "b");
	ev(1000, -1, TL_EV_THREAD, 503, 500, 0, 0, 1, 0, "c");
	sw(1000, 0, 0, 0, 502, 0);
	sw(1000, 1, 0, 0, 503, 0);
	sw(1020, 0, 502, TL_PS_S, 501, lockf);
	sw(1040, 0, 501, TL_PS_S, 0, lockf);
	wake(1100, 0, 502, 503);
	sw(1101, 0, 0, 0, 502, 0);
	wake(1150, 0, 501, 502);
	sw(1250, 0, 502, TL_PS_S, 501, 0);
	sw(1280, 0, 501, TL_PS_S, 0, 0);
	sw(1290, 1, 503, TL_PS_S, 0, 0);
	CHECK(program_trace_close(W, 1300) == 0);
}

static const struct tl_thread_stats *thread_of(const struct tl_model *m, int32_t tid)
{
	for (size_t i = 0; i < m->nthreads; i++)
		if (m->threads[i].tid == tid)
			return &m->threads[i];
	return NULL;
}

TEST(convoy)
{
	char p[] = "/tmp/tl-test-convoy-XXXXXX";
	struct tl_run run = { .to_ns = -1, .path = p };
	const struct tl_thread_stats *a, *b;
	const struct tl_finding *x = NULL;
	struct tl_diagnose_opts o;
	struct tl_findings f;
	struct tl_model m;

	write_convoy(p);
	CHECK_EQ_INT(tl_report_analyze(&run, &m), 0);
	a = thread_of(&m, 501);
	b = thread_of(&m, 502);
	CHECK(a && b);
	if (!a || !b)
		return;
	CHECK_EQ_INT(a->lock_wait_ns, 110 * US);
	CHECK_EQ_INT(a->lock_holder_ns[TL_LH_RUNNING], 109 * US);
	CHECK_EQ_INT(a->lock_holder_ns[TL_LH_QUEUED], 1 * US);
	CHECK_EQ_INT(a->lock_holder_ns[TL_LH_ASLEEP] + a->lock_holder_ns[TL_LH_BLOCKED], 0);
	CHECK_EQ_INT(a->lock_holder_ns[TL_LH_UNKNOWN], 0);
	CHECK_EQ_INT(a->lock_convoy_ns, 60 * US);
	CHECK_EQ_INT(b->lock_wait_ns, 80 * US);
	CHECK_EQ_INT(b->lock_holder_ns[TL_LH_RUNNING], 80 * US);
	CHECK_EQ_INT(b->lock_convoy_ns, 0);

	/* the cause: long critical sections along a convoy, not a holder asleep in its critical section */
	tl_diagnose_defaults(&o);
	o.min_cost_ns = 50 * US;
	o.busy_pct = 101;
	CHECK_EQ_INT(tl_diagnose_model(&m, &o, &f), 0);
	for (size_t i = 0; i < f.n; i++)
		if (f.items[i].kind == TL_FIND_LOCK_CONTENTION && f.items[i].threads[0].tid == 501)
			x = &f.items[i];
	CHECK(x != NULL);
	if (x) {
		CHECK_EQ_INT((int64_t)(x->evidence[4].value * 100 + 0.5), 9909); /* on a CPU: 109 of 110 */
		CHECK_EQ_INT((int64_t)(x->evidence[5].value * 100 + 0.5), 0);    /* asleep */
		CHECK_EQ_INT((int64_t)(x->evidence[7].value * 100 + 0.5), 5455); /* convoy: 60 of 110 */
		CHECK(strstr(x->cause, "long critical sections; a convoy: in 55% of its waits") != NULL);
		CHECK(strstr(x->fix, "shorten the critical sections") != NULL);
	}
	tl_findings_release(&f);
	tl_report_release(&m);
	tl_run_release(&run);
	unlink(p);
}

int main(void)
{
	RUN_TESTS(convoy);
}
