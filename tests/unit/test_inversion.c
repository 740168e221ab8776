/*
 * test_inversion.c - priority inversion (analysis/inversion and its
 * detector) on a hand-written trace, exact: only the holder's preemption
 * by a thread of middle priority, inside the waiter's lock wait, counts.
 *
 * Kernel priorities: high 69 (SCHED_FIFO 30), medium 79 (FIFO 20), low 89
 * (FIFO 10); lower is more urgent.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "event_build.h"
#include "harness.h"
#include "analysis/diagnose/diagnose.h"
#include "analysis/report/report.h"

#define US 1000ull
#define LOW 101
#define MED 102
#define HIGH 103

static struct tl_trace_writer *W;
static char path[] = "/tmp/tl-test-inversion-XXXXXX";

static int prio_of(int32_t tid)
{
	return tid == HIGH ? 69 : tid == MED ? 79 : tid == LOW ? 89 : 120;
}

static void ev(uint64_t t, unsigned type, int32_t tid, int32_t arg, int64_t a, int64_t b, int64_t c, uint16_t flags,
               const char *name)
{
	struct tl_event e = event_us(t, 0, type, tid, arg, a, b, c, flags);

	e.name = name ? tl_trace_writer_intern(W, name) : 0;
	CHECK(tl_trace_writer_add(W, &e) == 0);
}

static void sw(uint64_t t, int32_t prev, int64_t state, int32_t next, uint16_t flags)
{
	ev(t, TL_EV_SWITCH, prev, next, state, prio_of(prev), prio_of(next), flags, NULL);
}

/* tid woken at t on CPU 0, by waker (0: a timer, from interrupt context). */
static void wake(uint64_t t, int32_t tid, int32_t waker)
{
	ev(t, TL_EV_WAKING, tid, waker, 0, prio_of(tid), 0, waker ? 0 : TL_EVF_HARDIRQ, NULL);
	ev(t, TL_EV_WAKEUP, tid, waker, 0, prio_of(tid), 0, waker ? 0 : TL_EVF_HARDIRQ, NULL);
}

/*
 * All on CPU 0 (us): low runs from 1000 holding the lock; high wakes at
 * 1002, takes the CPU and blocks on the lock at 1003; medium wakes at 1004
 * and runs until 1024 (low preempted by it: 20 us inside high's wait);
 * low releases the lock at 1030, waking high, which takes the CPU at 1031.
 */
static void write_trace(void)
{
	W = program_trace_open(path, 100, 1000);
	CHECK(W != NULL);
	ev(1000, TL_EV_THREAD, 100, 100, 0, 0, 0, 0, "app");
	ev(1000, TL_EV_THREAD, LOW, 100, 0, 0, 0, 0, "low");
	ev(1000, TL_EV_THREAD, MED, 100, 0, 0, 0, 0, "medium");
	ev(1000, TL_EV_THREAD, HIGH, 100, 0, 0, 0, 0, "high");
	sw(1000, 0, 0, LOW, 0);
	wake(1002, HIGH, 0);
	sw(1002, LOW, TL_PS_PREEMPT, HIGH, 0);
	sw(1003, HIGH, TL_PS_S, LOW, TL_EVF_WAIT_FUTEX | TL_EVF_WAIT_LOCK);
	wake(1004, MED, 0);
	sw(1004, LOW, TL_PS_PREEMPT, MED, 0);
	sw(1024, MED, TL_PS_S, LOW, 0);
	wake(1030, HIGH, LOW);
	sw(1031, LOW, TL_PS_PREEMPT, HIGH, 0);
	sw(1040, HIGH, TL_PS_S, LOW, 0);
	CHECK(program_trace_close(W, 1050) == 0);
}

TEST(inversions)
{
	struct tl_run run = { .to_ns = -1, .path = path };
	struct tl_model m;

	CHECK_EQ_INT(tl_report_analyze(&run, &m), 0);
	CHECK_EQ_INT(m.inversions.n, 1);
	if (m.inversions.n == 1) {
		const struct tl_inversion *x = &m.inversions.items[0];

		CHECK_EQ_INT(x->waiter, HIGH);
		CHECK_EQ_INT(x->holder, LOW);
		CHECK_EQ_INT(x->preemptor, MED);
		CHECK_EQ_INT(x->ns, 20 * US); /* not high's own preemption of low at 1002 */
		CHECK_EQ_INT(x->waits, 1);
		CHECK_EQ_INT(x->waiter_prio, 69);
		CHECK_EQ_STR(x->preemptor_name, "medium");
	}
	tl_report_release(&m);
	tl_run_release(&run);
}

TEST(diagnosis)
{
	struct tl_run run = { .to_ns = -1, .path = path };
	struct tl_diagnose_opts o;
	struct tl_findings f;
	const struct tl_finding *x = NULL;

	tl_diagnose_defaults(&o);
	o.min_cost_ns = 10 * US;
	CHECK_EQ_INT(tl_diagnose_analyze(&run, &o, &f), 0);
	for (size_t i = 0; i < f.n; i++)
		if (f.items[i].kind == TL_FIND_PRIORITY_INVERSION)
			x = &f.items[i];
	CHECK(x != NULL);
	if (x) {
		CHECK_EQ_INT(x->cost_ns, 20 * US);
		CHECK_EQ_STR(x->title, "high (103, rt 30) waits on a lock low (rt 10) holds while medium (rt 20) runs");
		CHECK_EQ_INT(x->nthreads, 3);
		CHECK_EQ_STR(x->threads[1].role, "holder");
		CHECK_EQ_INT(x->threads[2].tid, MED);
	}
	tl_findings_release(&f);
	tl_run_release(&run);

	/* 20 us is under a 21 us floor */
	run = (struct tl_run){ .to_ns = -1, .path = path };
	o.min_cost_ns = 21 * US;
	CHECK_EQ_INT(tl_diagnose_analyze(&run, &o, &f), 0);
	for (size_t i = 0; i < f.n; i++)
		CHECK(f.items[i].kind != TL_FIND_PRIORITY_INVERSION);
	tl_findings_release(&f);
	tl_run_release(&run);
}

static void remove_trace(void)
{
	unlink(path);
}

int main(void)
{
	write_trace();
	atexit(remove_trace);
	RUN_TESTS(inversions, diagnosis);
}
