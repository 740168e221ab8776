/*
 * test_diagnose.c - tl_diagnose_analyze() on a hand-written trace, exact:
 * a thread waiting on a lock (a futex wait flagged as a lock's) is found,
 * with its cost and the holder whose wakeup ended the wait; a thread
 * waiting as long on a condition (a futex wait without the flag) and a
 * thread joining an exited one are not; a thread whose waits end by block
 * I/O is io-bound.
 *
 * The trace is written with the real writer and read back with the real
 * reader, as the command does.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "event_build.h"
#include "harness.h"
#include "analysis/diagnose/diagnose.h"

#define US 1000ull
#define T0 (1000 * US)

static struct tl_trace_writer *W;
static char path[] = "/tmp/tl-test-diagnose-XXXXXX";

static void ev(uint64_t ts_us, int cpu, unsigned type, int32_t tid, int32_t arg, int64_t a, int64_t b, int64_t c,
               uint16_t flags, const char *name)
{
	struct tl_event e = event_us(ts_us, cpu, type, tid, arg, a, b, c, flags);
	e.name = name ? tl_trace_writer_intern(W, name) : 0;
	CHECK(tl_trace_writer_add(W, &e) == 0);
}

static void sw(uint64_t t, int cpu, int32_t prev, int64_t state, int32_t next, uint16_t flags)
{
	ev(t, cpu, TL_EV_SWITCH, prev, next, state, 120, 120, flags, NULL);
}

/*
 * app (100): lockw (101) waits 100 us on a lock that holder (102) releases;
 * condw (103) waits 100 us on a condition that holder signals; app joins
 * holder (woken by holder's exit).  All in 1000..1150 us (the test lowers
 * --min-cost to 50 us).  holder's life ends at its last switch-out, 1132:
 * on a CPU all its life, it is also a single-thread bottleneck, which this
 * test leaves out (busy_pct above 100).
 */
static void write_trace(void)
{
	const uint16_t lockf = TL_EVF_WAIT_FUTEX | TL_EVF_WAIT_LOCK;

	W = program_trace_open(path, 100, 1000);
	CHECK(W != NULL);
	ev(1000, -1, TL_EV_THREAD, 100, 100, 0, 0, 2, 0, "app");
	ev(1000, -1, TL_EV_THREAD, 101, 100, 0, 0, 2, 0, "lockw");
	ev(1000, -1, TL_EV_THREAD, 102, 100, 0, 0, 2, 0, "holder");
	ev(1000, -1, TL_EV_THREAD, 103, 100, 0, 0, 2, 0, "condw");
	sw(1000, 0, 0, 0, 101, 0);
	sw(1010, 0, 101, TL_PS_S, 103, lockf);             /* lockw waits on the lock from 1010 */
	sw(1020, 0, 103, TL_PS_S, 100, TL_EVF_WAIT_FUTEX); /* condw waits on a condition from 1020 */
	sw(1030, 0, 100, TL_PS_S, 0, TL_EVF_WAIT_FUTEX);   /* app joins from 1030 */
	sw(1000, 1, 0, 0, 102, 0);                         /* holder runs on cpu 1 */
	ev(1110, 1, TL_EV_WAKING, 101, 102, 0, 120, 0, 0, NULL);
	ev(1110, 1, TL_EV_WAKEUP, 101, 102, 0, 120, 0, 0, NULL);
	sw(1111, 0, 0, 0, 101, 0); /* lockw waited 100 us, then 1 us for the CPU */
	ev(1120, 1, TL_EV_WAKING, 103, 102, 0, 120, 0, 0, NULL);
	ev(1120, 1, TL_EV_WAKEUP, 103, 102, 0, 120, 0, 0, NULL);
	sw(1121, 0, 101, TL_PS_S, 103, 0); /* condw waited 100 ms */
	ev(1130, 1, TL_EV_EXIT, 102, 0, 0, 0, 0, 0, NULL);
	ev(1131, 1, TL_EV_WAKING, 100, 102, 0, 120, 0, 0, NULL);
	ev(1131, 1, TL_EV_WAKEUP, 100, 102, 0, 120, 0, 0, NULL);
	sw(1132, 1, 102, TL_PS_X, 100, 0); /* app's join ends: holder exited */
	sw(1140, 0, 103, TL_PS_S, 0, 0);
	sw(1145, 1, 100, TL_PS_S, 0, 0);
	CHECK(program_trace_close(W, 1150) == 0);
}

TEST(lock_not_condition_nor_join)
{
	struct tl_run run = { .to_ns = -1, .path = path };
	struct tl_diagnose_opts o;
	struct tl_findings f;
	const struct tl_finding *x;

	tl_diagnose_defaults(&o);
	o.min_cost_ns = 50 * US;
	o.busy_pct = 101;
	CHECK_EQ_INT(tl_diagnose_analyze(&run, &o, &f), 0);
	CHECK_EQ_INT(f.n, 1);
	if (f.n == 1) {
		x = &f.items[0];
		CHECK_EQ_STR(tl_finding_kind_name(x->kind), "lock-contention");
		CHECK_EQ_INT(x->cost_ns, 100 * US);
		CHECK_EQ_INT(x->nthreads, 2);
		CHECK_EQ_INT(x->threads[0].tid, 101);
		CHECK_EQ_STR(x->threads[0].role, "waiter");
		CHECK_EQ_INT(x->threads[1].tid, 102);
		CHECK_EQ_STR(x->threads[1].name, "holder");
		CHECK_EQ_STR(x->doubt, "");
		CHECK_EQ_INT((int)(x->evidence[0].value + 0.5), 67); /* 100 of its 150 us */
	}
	CHECK_EQ_INT(f.checked[TL_FIND_LOCK_CONTENTION], 4);
	CHECK_EQ_STR(f.skipped[TL_FIND_LOCK_CONTENTION], "");
	CHECK_EQ_STR(f.skipped[TL_FIND_BARRIER_IMBALANCE], "no parallel regions: mark them with tl_region_begin/end");
	for (unsigned k = 0; k < TL_FIND__COUNT; k++) /* every detector is written */
		CHECK(strcmp(f.skipped[k], TL_DIAGNOSE_NOT_YET) != 0);
	tl_findings_release(&f);
	tl_run_release(&run);

	/* the threshold moves the line: 67% is under 70% */
	run = (struct tl_run){ .to_ns = -1, .path = path };
	o.lock_wait_pct = 70;
	CHECK_EQ_INT(tl_diagnose_analyze(&run, &o, &f), 0);
	CHECK_EQ_INT(f.n, 0);
	tl_findings_release(&f);
	tl_run_release(&run);
}

TEST(kind_names)
{
	for (int k = 0; k < TL_FIND__COUNT; k++)
		CHECK_EQ_INT(tl_finding_kind_from_name(tl_finding_kind_name((unsigned)k)), k);
	CHECK_EQ_INT(tl_finding_kind_from_name("nonsense"), -1);
}

static void remove_trace(void)
{
	unlink(path);
}

int main(void)
{
	write_trace();
	atexit(remove_trace);
	RUN_TESTS(lock_not_condition_nor_join, kind_names);
}
