/*
 * test_diagnose.c - tl_diagnose_analyze() on a hand-written trace, exact:
 * a thread waiting on a lock (a futex wait flagged as a lock's) is found,
 * with its cost and the holder whose wakeup ended the wait; a thread
 * waiting as long on a condition (a futex wait without the flag) and a
 * thread joining an exited one are not; a thread whose waits end by block
 * I/O is io-bound; a holder's time in a lock wait is split by what it did,
 * and the cause follows (write_holder()).  Three threads taking turns on two CPUs are serialized
 * threads, with the cost and evidence worked out in write_serial().  An
 * OpenMP worker spinning between two rounds is spin-waiting (write_spin()).
 * Threads held off idle CPUs are cpu-throttled (write_throttled()); a
 * producer that wakes three workers for one item a thundering herd
 * (write_herd()); two processes that want three CPUs of two, CPU
 * saturation (write_saturated()); two threads pinned to one CPU while the
 * other idles, affinity-bound (write_pinned(), also as a filtered
 * recording).  Threads created for work: test_diagnose_workers.c.
 *
 * The trace is written with the real writer and read back with the real
 * reader, as the command does.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "trace_build.h"
#include "diagnose_test_util.h"
#include "analysis/diagnose/diagnose.h"
#include "analysis/report/report.h"

#define US 1000ull
#define T0 (1000 * US)

static char path[] = "/tmp/tl-test-diagnose-XXXXXX";

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
		/* the holder ran on CPU 1 all through the wait */
		CHECK_EQ_INT((int64_t)x->evidence[4].value, 100);
		CHECK_EQ_INT((int64_t)x->evidence[5].value, 0);
		CHECK_EQ_INT((int64_t)x->evidence[6].value, 0);
		CHECK(!strncmp(x->cause, "it blocks on a lock's futex", 27));
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

/*
 * The same trace at the default --busy: holder, on a CPU all its life
 * (1000-1132), is a single-thread bottleneck, lockw and condw each waiting
 * 100 us of their 150 for it (app's join does not count).  The cost is
 * their 200 us, its share of their 300 us of life: 2/3 (of holder's own
 * 132 us it would be 152%), which the text and the JSON say; report's
 * brief wraps the title to the width.
 */
TEST(bottleneck_share_of_waiters)
{
	struct tl_run run = { .to_ns = -1, .path = path };
	struct tl_diagnose_opts o;
	struct tl_findings f;
	const struct tl_finding *x = NULL;
	char *buf;

	tl_diagnose_defaults(&o);
	o.min_cost_ns = 50 * US;
	o.lock_wait_pct = 101;
	CHECK_EQ_INT(tl_diagnose_analyze(&run, &o, &f), 0);
	CHECK_EQ_INT(count_kind(&f, TL_FIND_SINGLE_THREAD_BOTTLENECK, &x), 1);
	if (x) {
		CHECK_EQ_INT(x->cost_ns, 200 * US);
		CHECK_EQ_INT((int64_t)(x->severity * 1e6 + 0.5), 666667);
		CHECK_EQ_INT(x->nthreads, 3);
		CHECK_EQ_INT(x->threads[0].tid, 102);
		CHECK_EQ_STR(x->threads[0].role, "bottleneck");
		CHECK_EQ_INT(x->threads[1].tid, 101);
		CHECK_EQ_INT(x->threads[2].tid, 103);
		CHECK_EQ_STR(x->threads[2].role, "waiting");
	}
	/* the text and the JSON say what the share is of */
	buf = render_findings(&f, RENDER_TEXT, 0);
	CHECK(buf && strstr(buf, "cost 200us (67% of the waiting threads' lives)"));
	free(buf);
	buf = render_findings(&f, RENDER_JSON, 0);
	CHECK(buf && strstr(buf, "\"severity_of\": \"waiting threads' lives\""));
	free(buf);
	/* report's brief wraps the title under its column: 39 columns of lead, 21 left at 60 */
	buf = render_findings(&f, RENDER_BRIEF, 60);
	CHECK(buf && strstr(buf, "\n  1. single-thread-bottleneck   200us  holder (102) runs\n"
	                         "                                       100% of its life\n"
	                         "                                       while 2 other threads\n"
	                         "                                       wait for it\n"));
	free(buf);
	tl_findings_release(&f);
	tl_run_release(&run);
}

/*
 * What the holder did in a lock wait: hold (400) has w (401), which waits
 * on a lock 1010-1200 (CPU 0), and h (402), which holds it and wakes w at
 * 1200, and x (403), both on CPU 1: h runs 1000-1050, sleeps until `wake`
 * (x runs from 1050), waits for the CPU until x sleeps at `run_at`, runs
 * to the end.  In the wait: h on a CPU 40 + (1200 - run_at) us, asleep
 * wake - 1050 (blocked, in state D, with `blocked`), waiting for a CPU
 * run_at - wake.
 */
static void write_holder(char *p, uint64_t wake, uint64_t run_at, int blocked)
{
	const uint16_t lockf = TL_EVF_WAIT_FUTEX | TL_EVF_WAIT_LOCK;

	W = program_trace_open(p, 400, 1000);
	CHECK(W != NULL);
	ev(1000, -1, TL_EV_THREAD, 401, 400, 0, 0, 2, 0, "w");
	ev(1000, -1, TL_EV_THREAD, 402, 400, 0, 0, 2, 0, "h");
	ev(1000, -1, TL_EV_THREAD, 403, 400, 0, 0, 2, 0, "x");
	sw(1000, 0, 0, 0, 401, 0);
	sw(1000, 1, 0, 0, 402, 0);
	sw(1010, 0, 401, TL_PS_S, 0, lockf);
	sw(1050, 1, 402, blocked ? TL_PS_D : TL_PS_S, 403, 0);
	ev(wake, 1, TL_EV_WAKING, 402, 403, 0, 120, 0, 0, NULL);
	ev(wake, 1, TL_EV_WAKEUP, 402, 403, 0, 120, 0, 0, NULL);
	sw(run_at, 1, 403, TL_PS_S, 402, 0);
	ev(1200, 1, TL_EV_WAKING, 401, 402, 0, 120, 0, 0, NULL);
	ev(1200, 1, TL_EV_WAKEUP, 401, 402, 0, 120, 0, 0, NULL);
	sw(1201, 0, 0, 0, 401, 0);
	sw(1220, 0, 401, TL_PS_S, 0, 0);
	sw(1230, 1, 402, TL_PS_S, 0, 0);
	CHECK(program_trace_close(W, 1250) == 0);
}

TEST(lock_holder)
{
	static const struct {
		uint64_t wake, run_at;
		uint64_t run, asleep, queued; /* us; asleep: blocked with `blocked` */
		int blocked;
		const char *cause;
	} c[] = {
		{ 1100, 1130, 110, 50, 30, 0, "it blocks on a lock's futex" },
		{ 1150, 1160, 80, 100, 10, 0, "the holders sleep or block" },
		{ 1060, 1160, 80, 10, 100, 0, "the holders wait for a CPU" },
		{ 1150, 1160, 80, 100, 10, 1,
		  "the holders block on I/O while they hold the lock (53% of its waits "
		  "asleep or blocked, 53% blocked in the kernel" },
	};

	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		char p[] = "/tmp/tl-test-holder-XXXXXX";
		struct tl_run run = { .to_ns = -1, .path = p };
		struct tl_diagnose_opts o;
		struct tl_findings f;
		struct tl_model m;
		const struct tl_finding *x = NULL;
		const struct tl_thread_stats *w;

		write_holder(p, c[i].wake, c[i].run_at, c[i].blocked);
		CHECK_EQ_INT(tl_report_analyze(&run, &m), 0);
		CHECK_EQ_INT(m.nthreads, 3);
		w = &m.threads[0];
		CHECK_EQ_INT(w->tid, 401);
		CHECK_EQ_INT(w->lock_wait_ns, 190 * US);
		CHECK_EQ_INT(w->lock_holder_ns[TL_LH_RUNNING], c[i].run * US);
		CHECK_EQ_INT(w->lock_holder_ns[c[i].blocked ? TL_LH_BLOCKED : TL_LH_ASLEEP], c[i].asleep * US);
		CHECK_EQ_INT(w->lock_holder_ns[c[i].blocked ? TL_LH_ASLEEP : TL_LH_BLOCKED], 0);
		CHECK_EQ_INT(w->lock_holder_ns[TL_LH_QUEUED], c[i].queued * US);
		CHECK_EQ_INT(w->lock_holder_ns[TL_LH_UNKNOWN], 0);
		tl_diagnose_defaults(&o);
		o.min_cost_ns = 50 * US;
		o.busy_pct = 101;
		CHECK_EQ_INT(tl_diagnose_model(&m, &o, &f), 0);
		CHECK_EQ_INT(count_kind(&f, TL_FIND_LOCK_CONTENTION, &x), 1);
		if (x) {
			CHECK_EQ_INT((int64_t)(x->evidence[4].value * 100 + 0.5),
			             (int64_t)(c[i].run * 10000 / 190.0 + 0.5));
			CHECK_EQ_INT((int64_t)(x->evidence[5].value * 100 + 0.5),
			             (int64_t)(c[i].asleep * 10000 / 190.0 + 0.5));
			CHECK_EQ_INT((int64_t)(x->evidence[6].value * 100 + 0.5),
			             c[i].blocked ? (int64_t)(c[i].asleep * 10000 / 190.0 + 0.5) : 0);
			CHECK_EQ_INT((int64_t)(x->evidence[7].value * 100 + 0.5),
			             (int64_t)(c[i].queued * 10000 / 190.0 + 0.5));
			CHECK(!strncmp(x->cause, c[i].cause, strlen(c[i].cause)));
		}
		tl_findings_release(&f);
		tl_report_release(&m);
		tl_run_release(&run);
		unlink(p);
	}
}

/*
 * serial (200): a (201), b (202) and c (203) take turns on two CPUs, 100 us
 * each, the one whose turn ends waking the next (a condition's futex wait,
 * not a lock's): a 1002-1101, b 1100-1201, c 1200-1301, a 1300-1401, b
 * 1400-1501, c 1500-1601, a 1600-1700; before that b and c ran 1 us each
 * (1000-1001, 1001-1002) on their way to their first wait.  (The trace
 * starts at 990 and a after them: an interval that closes after later
 * ones is dated back in the load analysis, and the idle CPU time of the
 * stretch it rewrites is approximate, load.c.)
 * Their time on a CPU R = 300 + 203 + 203 = 706 us; two of them wanting a
 * CPU at once: 1 us at each of the six hand-overs, 6 us; one with the
 * other CPU idle, 1000-1700 less those six: 694 us.  The cost: R (1 - 1/2)
 * = 353 us (two CPUs for three threads), under the 694 us of idle CPU.
 */
static void write_serial(char *p)
{
	const uint16_t cond = TL_EVF_WAIT_FUTEX;
	static const int32_t turn[] = { 201, 202, 203, 201, 202, 203, 201 };

	W = program_trace_open(p, 200, 990);
	CHECK(W != NULL);
	ev(1000, -1, TL_EV_THREAD, 200, 200, 0, 0, 2, 0, "serial");
	ev(1000, -1, TL_EV_THREAD, 201, 200, 0, 0, 2, 0, "a");
	ev(1000, -1, TL_EV_THREAD, 202, 200, 0, 0, 2, 0, "b");
	ev(1000, -1, TL_EV_THREAD, 203, 200, 0, 0, 2, 0, "c");
	sw(1000, 1, 0, 0, 202, 0);
	sw(1001, 1, 202, TL_PS_S, 203, cond);
	sw(1002, 1, 203, TL_PS_S, 0, cond);
	sw(1002, 0, 0, 0, 201, 0);
	for (int k = 1; k < 7; k++) {
		uint64_t t = 1000 + 100 * (uint64_t)k;
		int cpu = k % 2; /* the next one runs on the CPU that is idle, the one ending its turn on the other */

		ev(t, 1 - cpu, TL_EV_WAKING, turn[k], turn[k - 1], 0, 120, 0, 0, NULL);
		ev(t, 1 - cpu, TL_EV_WAKEUP, turn[k], turn[k - 1], 0, 120, 0, 0, NULL);
		sw(t, cpu, 0, 0, turn[k], 0);
		sw(t + 1, 1 - cpu, turn[k - 1], TL_PS_S, 0, cond);
	}
	sw(1700, 0, 201, TL_PS_S, 0, cond);
	CHECK(program_trace_close(W, 1710) == 0);
}

TEST(serialized_threads)
{
	char p[] = "/tmp/tl-test-serial-XXXXXX"; /* program_trace_open() makes it */
	struct tl_run run = { .to_ns = -1, .path = p };
	struct tl_diagnose_opts o;
	struct tl_findings f;
	const struct tl_finding *x;

	write_serial(p);
	tl_diagnose_defaults(&o);
	o.min_cost_ns = 50 * US;
	CHECK_EQ_INT(tl_diagnose_analyze(&run, &o, &f), 0);
	CHECK_EQ_INT(f.n, 1);
	if (f.n == 1) {
		x = &f.items[0];
		CHECK_EQ_STR(tl_finding_kind_name(x->kind), "serialized-threads");
		CHECK_EQ_INT(x->pid, 200);
		CHECK_EQ_INT(x->cost_ns, 353 * US);
		CHECK_EQ_INT(x->nthreads, 3);
		CHECK_EQ_INT(x->threads[0].tid, 201);
		CHECK_EQ_INT(x->threads[2].tid, 203);
		CHECK_EQ_INT((int)x->evidence[0].value, 3);
		CHECK_EQ_INT((int64_t)x->evidence[1].value, 706 * US);
		CHECK_EQ_INT((int64_t)x->evidence[2].value, 6 * US);
		CHECK_EQ_INT((int64_t)x->evidence[3].value, 694 * US);
	}
	CHECK_EQ_INT(f.checked[TL_FIND_SERIALIZED], 1);
	tl_findings_release(&f);
	tl_run_release(&run);
	unlink(p);
}

/*
 * app (300) and its OpenMP worker (301), one CPU each, both on a CPU from
 * 1000 to 1500 us: two rounds of the region `name` (1000-1100 and
 * 1400-1500, both threads inside all of each); between them app runs
 * serial code and the worker spins in the runtime, 300 us of its 500 us
 * on a CPU (60%, over the 25%).  The worker then sleeps; app runs on to
 * 1600.  Named as GCC names an outlined function, it is spin-waiting
 * costing those 300 us; named as a marker region, not judged.
 */
static void write_spin(char *p, const char *name)
{
	W = program_trace_open(p, 300, 990);
	CHECK(W != NULL);
	ev(1000, -1, TL_EV_THREAD, 300, 300, 0, 0, 2, 0, "app");
	ev(1000, -1, TL_EV_THREAD, 301, 300, 0, 0, 2, 0, "app");
	sw(1000, 0, 0, 0, 300, 0);
	sw(1000, 1, 0, 0, 301, 0);
	for (uint64_t t = 1000; t <= 1400; t += 400)
		for (int32_t tid = 300; tid <= 301; tid++) {
			ev(t, tid - 300, TL_EV_REGION_BEGIN, tid, 0, -1, 0, 0, 0, name);
			ev(t + 100, tid - 300, TL_EV_REGION_END, tid, 0, 0, 0, 0, 0, name);
		}
	sw(1500, 1, 301, TL_PS_S, 0, TL_EVF_WAIT_FUTEX);
	sw(1600, 0, 300, TL_PS_S, 0, TL_EVF_WAIT_FUTEX);
	CHECK(program_trace_close(W, 1610) == 0);
}

static void spin_case(const char *name, int found)
{
	char p[] = "/tmp/tl-test-spin-XXXXXX";
	struct tl_run run = { .to_ns = -1, .path = p };
	struct tl_diagnose_opts o;
	struct tl_findings f;
	const struct tl_finding *x = NULL;
	int n = 0;

	write_spin(p, name);
	tl_diagnose_defaults(&o);
	o.min_cost_ns = 50 * US;
	CHECK_EQ_INT(tl_diagnose_analyze(&run, &o, &f), 0);
	n = count_kind(&f, TL_FIND_SPIN_WAITING, &x);
	CHECK_EQ_INT(n, found);
	if (x) {
		CHECK_EQ_INT(x->pid, 300);
		CHECK_EQ_INT(x->cost_ns, 300 * US);
		CHECK_EQ_INT(x->nthreads, 2);
		CHECK_EQ_INT(x->threads[0].tid, 300);
		CHECK_EQ_STR(x->threads[0].role, "main");
		CHECK_EQ_INT(x->threads[1].tid, 301);
		CHECK_EQ_STR(x->threads[1].role, "spinning");
		CHECK_EQ_INT((int64_t)x->evidence[0].value, 500 * US); /* the worker on a CPU */
		CHECK_EQ_INT((int64_t)x->evidence[1].value, 200 * US); /* inside its two instances */
		CHECK_EQ_INT((int64_t)x->evidence[2].value, 0);        /* both finish together: no barrier */
		CHECK_EQ_INT((int64_t)x->evidence[3].value, 300 * US); /* between the rounds */
		CHECK_EQ_INT((int64_t)x->evidence[3].threshold, 125 * US);
	}
	CHECK_EQ_INT(f.checked[TL_FIND_SPIN_WAITING], 1);
	tl_findings_release(&f);
	tl_run_release(&run);
	unlink(p);
}

TEST(spin_waiting)
{
	spin_case("main._omp_fn.0", 1);
	spin_case("blocks", 0); /* the markers' regions: unmarked work between them may be real */
}

/*
 * A CPU limit: spent (400) has a (401), b (402) and c (403) on two CPUs.  c
 * runs on CPU 0 from 1000 and leaves it runnable to a at 1010; at 1100 a
 * and b leave their CPUs runnable and both CPUs go idle (the quota ran
 * out), with c still waiting on CPU 0; at 1200 a runs again on CPU 0, b
 * at 1220 on CPU 1; at 1250 a leaves CPU 0 runnable to c, at 1300 c and b
 * sleep, at 1350 a.  Held back (waiting for a CPU while it is idle): a
 * 1100-1200, b 1100-1220, c 1100-1200 (its wait behind a is held back
 * while the CPU is idle, then behind a again), 320 us in 3 waits, the
 * longest 120.  Wanting a CPU: a 1010-1350 (340 us), b 1000-1300, c
 * 1000-1300, 940 us.
 */
static void write_throttled(char *p)
{
	W = program_trace_open(p, 400, 1000);
	CHECK(W != NULL);
	ev(1000, -1, TL_EV_THREAD, 401, 400, 0, 0, 2, 0, "a");
	ev(1000, -1, TL_EV_THREAD, 402, 400, 0, 0, 2, 0, "b");
	ev(1000, -1, TL_EV_THREAD, 403, 400, 0, 0, 2, 0, "c");
	sw(1000, 0, 0, 0, 403, 0);
	sw(1000, 1, 0, 0, 402, 0);
	sw(1010, 0, 403, TL_PS_RUNNING, 401, 0);
	sw(1100, 0, 401, TL_PS_RUNNING, 0, 0);
	sw(1100, 1, 402, TL_PS_RUNNING, 0, 0);
	sw(1200, 0, 0, 0, 401, 0);
	sw(1220, 1, 0, 0, 402, 0);
	sw(1250, 0, 401, TL_PS_RUNNING, 403, 0);
	sw(1300, 0, 403, TL_PS_S, 401, 0);
	sw(1300, 1, 402, TL_PS_S, 0, 0);
	sw(1350, 0, 401, TL_PS_S, 0, 0);
	CHECK(program_trace_close(W, 1400) == 0);
}

TEST(cpu_throttled)
{
	static const uint64_t held[3] = { 100 * US, 120 * US, 100 * US };
	char p[] = "/tmp/tl-test-throttle-XXXXXX";
	struct tl_run run = { .to_ns = -1, .path = p };
	struct tl_diagnose_opts o;
	struct tl_findings f;
	struct tl_model m;
	const struct tl_finding *x = NULL;
	int n = 0;

	write_throttled(p);
	CHECK_EQ_INT(tl_report_analyze(&run, &m), 0);
	CHECK_EQ_INT(m.nthreads, 3);
	for (size_t i = 0; i < m.nthreads && i < 3; i++) {
		CHECK_EQ_INT(m.threads[i].tid, 401 + (int)i);
		CHECK_EQ_INT(m.threads[i].throttles, 1);
		CHECK_EQ_INT(m.threads[i].throttled_ns, held[i]);
		CHECK_EQ_INT(m.threads[i].throttled_max_ns, held[i]);
		/* c's wait: 90 us behind a, 100 held back, 50 behind a again: three intervals */
		if (i == 2) {
			CHECK_EQ_INT(m.threads[i].state_ns[TL_ST_READY_QUANTUM], 240 * US);
			CHECK_EQ_INT(m.threads[i].entries[TL_ST_READY_QUANTUM], 3);
		}
	}
	tl_diagnose_defaults(&o);
	o.min_cost_ns = 50 * US;
	CHECK_EQ_INT(tl_diagnose_model(&m, &o, &f), 0);
	n = count_kind(&f, TL_FIND_CPU_THROTTLED, &x);
	CHECK_EQ_INT(n, 1);
	if (x) {
		CHECK_EQ_INT(x->pid, 400);
		CHECK_EQ_INT(x->cost_ns, 320 * US);
		CHECK_EQ_INT(x->nthreads, 3);
		CHECK_EQ_INT(x->threads[0].tid, 402); /* the longest held first */
		CHECK_EQ_STR(x->threads[0].role, "held back");
		CHECK_EQ_INT(x->threads[1].tid, 401);
		CHECK_EQ_INT(x->threads[2].tid, 403);
		CHECK_EQ_INT((int64_t)(x->evidence[0].value * 1000 + 0.5), 34043); /* 320 of 940 us, in % */
		CHECK_EQ_INT((int64_t)x->evidence[1].value, 320 * US);
		CHECK_EQ_INT((int64_t)x->evidence[2].value, 3);
		CHECK_EQ_INT((int64_t)x->evidence[3].value, 120 * US);
	}
	CHECK_EQ_INT(f.checked[TL_FIND_CPU_THROTTLED], 1);
	tl_findings_release(&f);
	/* a --throttle above its share leaves it out: 320 us is 34.0% */
	o.throttle_pct = 35;
	CHECK_EQ_INT(count_with(&m, &o, TL_FIND_CPU_THROTTLED), 0);
	tl_report_release(&m);
	tl_run_release(&run);
	unlink(p);
}

/*
 * Kept off an idle CPU by affinity: pinned (600) has a (601) and b (602),
 * whose masks allow CPU 0 only, and c (603), which may use both.  CPU 0: b
 * 1000-1010, a 1010-1400 (b waits), b 1400-1800 (a waits), a 1800-2200;
 * CPU 1: c 1000-1100 and 1600-1800, idle between and after.  b's wait
 * has CPU 1 idle for 300 us (1100-1400), a's for 200 (1400-1600); less
 * TL_CONFINE_TAKE_NS (50 us) a wait: b 250, a 150, 400 us in 2 waits.
 * Wanting a CPU: a 1190 us (from 1010), b 800, c 300: 2290.  filtered:
 * CPU 1's idle stretches are a filtered recording's (the idle task not
 * recorded), whose totals say 200 us busy and 800 idle: b 300 * 4/5 - 50
 * = 190, a 110, 300 us.
 */
static void write_pinned(char *p, int filtered)
{
	const uint16_t to_other = filtered ? TL_EVF_OTHER_ARG : 0, from_other = filtered ? TL_EVF_OTHER_TID : 0;

	W = program_trace_open(p, 600, 1000);
	CHECK(W != NULL);
	ev(1000, -1, TL_EV_THREAD, 601, 600, 0, 0, 2, 0, "a");
	ev(1000, -1, TL_EV_THREAD, 602, 600, 0, 0, 2, 0, "b");
	ev(1000, -1, TL_EV_THREAD, 603, 600, 0, 0, 2, 0, "c");
	ev(1000, -1, TL_EV_AFFINITY, 601, 0, 0, 1, 1, 0, NULL);
	ev(1000, -1, TL_EV_AFFINITY, 602, 0, 0, 1, 1, 0, NULL);
	ev(1000, -1, TL_EV_AFFINITY, 603, 0, 0, 3, 2, 0, NULL);
	sw(1000, 0, 0, 0, 602, 0);
	sw(1000, 1, 0, 0, 603, 0);
	sw(1010, 0, 602, TL_PS_RUNNING, 601, 0);
	sw(1100, 1, 603, TL_PS_S, 0, to_other);
	sw(1400, 0, 601, TL_PS_RUNNING, 602, 0);
	sw(1600, 1, 0, 0, 603, from_other);
	sw(1800, 1, 603, TL_PS_S, 0, to_other);
	sw(1800, 0, 602, TL_PS_S, 601, 0);
	sw(2200, 0, 601, TL_PS_S, 0, 0);
	if (filtered)
		ev(2300, 1, TL_EV_FILTERED, 0, TL_FILT_CPU_TIME, 200 * US, 800 * US, 2, 0, NULL);
	CHECK(program_trace_close(W, 2300) == 0);
}

TEST(affinity_bound)
{
	for (int filtered = 0; filtered < 2; filtered++) {
		const uint64_t each[2][2] = { { 150 * US, 250 * US }, { 110 * US, 190 * US } };
		const uint64_t cost = each[filtered][0] + each[filtered][1];
		char p[] = "/tmp/tl-test-pinned-XXXXXX";
		struct tl_run run = { .to_ns = -1, .path = p };
		struct tl_diagnose_opts o;
		struct tl_findings f;
		struct tl_model m;
		const struct tl_finding *x = NULL;

		write_pinned(p, filtered);
		CHECK_EQ_INT(tl_report_analyze(&run, &m), 0);
		CHECK_EQ_INT(m.nthreads, 3);
		for (size_t i = 0; i < m.nthreads && i < 3; i++) {
			const struct tl_thread_stats *t = &m.threads[i];

			CHECK_EQ_INT(t->tid, 601 + (int)i);
			CHECK_EQ_INT(t->confined, i < 2);
			CHECK_EQ_INT(t->confined_ns, i < 2 ? each[filtered][i] : 0);
			CHECK_EQ_INT(t->confined_cpus, i < 2);
			CHECK_EQ_INT(t->state_ns[TL_ST_READY_QUANTUM], i == 0 ? 400 * US : i == 1 ? 390 * US : 0);
		}
		tl_diagnose_defaults(&o);
		o.min_cost_ns = 50 * US;
		CHECK_EQ_INT(tl_diagnose_model(&m, &o, &f), 0);
		CHECK_EQ_INT(count_kind(&f, TL_FIND_AFFINITY_BOUND, &x), 1);
		if (x) {
			CHECK_EQ_INT(x->pid, 600);
			CHECK_EQ_INT(x->cost_ns, cost);
			CHECK_EQ_INT(x->nthreads, 2);
			CHECK_EQ_INT(x->threads[0].tid, 602); /* the longest first */
			CHECK_EQ_STR(x->threads[0].role, "kept off idle CPUs");
			CHECK_EQ_INT(x->threads[1].tid, 601);
			/* 400 (300) of 2290 us, in % */
			CHECK_EQ_INT((int64_t)(x->evidence[0].value * 1000 + 0.5), filtered ? 13100 : 17467);
			CHECK_EQ_INT((int64_t)x->evidence[1].value, cost);
			CHECK_EQ_INT((int64_t)x->evidence[2].value, 2);
			CHECK_EQ_INT((int64_t)x->evidence[3].value, 1);
			CHECK_EQ_INT((int64_t)x->evidence[4].value, 2);
		}
		CHECK_EQ_INT(f.checked[TL_FIND_AFFINITY_BOUND], 1);
		tl_findings_release(&f);
		/* an --affinity above its share leaves it out */
		o.affinity_pct = filtered ? 14 : 18;
		CHECK_EQ_INT(count_with(&m, &o, TL_FIND_AFFINITY_BOUND), 0);
		tl_report_release(&m);
		tl_run_release(&run);
		unlink(p);
	}
}

/*
 * A thundering herd: pool (500) has a producer P (501) and workers W1..W3
 * (502..504), which first wait on a condition (1000-1003, CPU 1).  Twice
 * (at B = 1010, then 1100 after a timer wakes P at 1090) P wakes W1, W2, W3
 * at B, B+1, B+2 and waits itself at B+3; W2 runs B+3..B+5 and W3 B+5..B+7
 * on CPU 0, W1 B+3..B+53 on CPU 1, each then waiting on the condition again.
 * So two bursts of three; runs of 50, 2 and 2 us: W2 and W3 found nothing
 * (under half of 50), 8 us in all, the work 100 us; queued for a CPU
 * 3 + 2 + 3 us a burst, 16 us.  Cost 8 + 16 = 24 us.  Variants, each in
 * the second burst:
 *  HERD_STEAL  W3's run lasts until B+30, 23 us of it the hypervisor's
 *              (CLOCK_TAKEN at its switch-in and out, format 1.15): 2 us
 *              of run, found nothing as before (counted as work, 25 us,
 *              when the steal is not left out);
 *  HERD_SLOW   W3's run lasts until B+25: 20 us, under half of 50, found
 *              nothing (wl_pool herd's futile runs take up to 30 us on
 *              this VM, its work 60 us: under a quarter, 4% of them read
 *              as work);
 *  HERD_TAKEN  W1's run ends at B+7 too: the item was taken before (by a
 *              thread still running from the burst before, in wl_pool):
 *              4, 2 and 2 us, all found nothing, judged against the work
 *              run of the bursts before (50 us), not their own longest.
 *  HERD_STRETCHED  W1's work in the second burst runs 500 us (stretched),
 *              and a third burst at 1700 is as the first: its 50 us run
 *              is work (judged from an average of the bursts' longest
 *              runs that took only its first 100 us in; it read futile
 *              when one stretched run could lift it past twice the work).
 */
enum { HERD_PLAIN, HERD_STEAL, HERD_SLOW, HERD_TAKEN, HERD_STRETCHED };

static void write_herd(char *p, int variant)
{
	const int steal = variant == HERD_STEAL;
	const uint16_t cond = TL_EVF_WAIT_FUTEX;

	W = program_trace_open(p, 500, 1000);
	CHECK(W != NULL);
	ev(1000, -1, TL_EV_THREAD, 501, 500, 0, 0, 2, 0, "P");
	for (int32_t w = 502; w <= 504; w++)
		ev(1000, -1, TL_EV_THREAD, w, 500, 0, 0, 2, 0, w == 502 ? "W1" : w == 503 ? "W2" : "W3");
	sw(1000, 0, 0, 0, 501, 0);
	sw(1000, 1, 0, 0, 502, 0);
	sw(1001, 1, 502, TL_PS_S, 503, cond);
	sw(1002, 1, 503, TL_PS_S, 504, cond);
	sw(1003, 1, 504, TL_PS_S, 0, cond);
	for (uint64_t b = 1010; b <= (variant == HERD_STRETCHED ? 1700 : 1100); b += b == 1100 ? 600 : 90) {
		if (b > 1010) {
			ev(b - 10, 0, TL_EV_WAKING, 501, 0, 0, 120, 0, 0, NULL);
			sw(b - 10, 0, 0, 0, 501, 0);
		}
		for (int32_t w = 502; w <= 504; w++)
			ev(b + (uint64_t)(w - 502), 0, TL_EV_WAKING, w, 501, 0, 120, 0, 0, NULL);
		const uint64_t w3_end = b == 1010 ? b + 7 : steal ? b + 30 : variant == HERD_SLOW ? b + 25 : b + 7;
		const uint64_t w1_end = variant == HERD_TAKEN && b > 1010        ? b + 7
		                        : variant == HERD_STRETCHED && b == 1100 ? b + 503
		                                                                 : b + 53;

		sw(b + 3, 0, 501, TL_PS_S, 503, cond);
		sw(b + 3, 1, 0, 0, 502, 0);
		if (steal)
			ev(b + 5, 0, TL_EV_CLOCK_TAKEN, 503, 0, 7000000, 0, 0, 0, NULL);
		sw(b + 5, 0, 503, TL_PS_S, 504, cond);
		if (w3_end > b + 7)
			ev(w3_end, 0, TL_EV_CLOCK_TAKEN, 504, 0, 7023000, 0, 0, 0, NULL);
		sw(w3_end, 0, 504, TL_PS_S, 0, cond);
		sw(w1_end, 1, 502, TL_PS_S, 0, cond);
	}
	CHECK(program_trace_close(W, variant == HERD_STRETCHED ? 1800 : 1200) == 0);
}

TEST(thundering_herd)
{
	char p[] = "/tmp/tl-test-herd-XXXXXX";
	struct tl_run run = { .to_ns = -1, .path = p };
	struct tl_diagnose_opts o;
	struct tl_findings f;
	struct tl_model m;
	const struct tl_finding *x = NULL;
	int n = 0;

	char ps[] = "/tmp/tl-test-herd-XXXXXX";
	struct tl_run runs = { .to_ns = -1, .path = ps };

	/* the variants (write_herd()): futile runs, their time on a CPU, the work's */
	static const uint64_t want[][3] = {
		[HERD_STEAL] = { 4, 8 * US, 100 * US },
		[HERD_SLOW] = { 4, 26 * US, 100 * US },
		[HERD_TAKEN] = { 5, 12 * US, 50 * US },
		[HERD_STRETCHED] = { 6, 12 * US, 600 * US },
	};
	for (int v = HERD_STEAL; v <= HERD_STRETCHED; v++) {
		memcpy(ps, "/tmp/tl-test-herd-XXXXXX", sizeof(ps));
		write_herd(ps, v);
		CHECK_EQ_INT(tl_report_analyze(&runs, &m), 0);
		CHECK_EQ_INT(m.herds.n, 1);
		if (m.herds.n == 1) {
			CHECK_EQ_INT(m.herds.items[0].futile, want[v][0]);
			CHECK_EQ_INT(m.herds.items[0].futile_ns, want[v][1]);
			CHECK_EQ_INT(m.herds.items[0].work_ns, want[v][2]);
		}
		tl_report_release(&m);
		tl_run_release(&runs);
		runs = (struct tl_run){ .to_ns = -1, .path = ps };
		unlink(ps);
	}
	write_herd(p, HERD_PLAIN);
	CHECK_EQ_INT(tl_report_analyze(&run, &m), 0);
	CHECK_EQ_INT(m.herds.n, 1);
	if (m.herds.n == 1) {
		const struct tl_herd *h = &m.herds.items[0];

		CHECK_EQ_INT(h->pid, 500);
		CHECK_EQ_INT(h->waker, 501);
		CHECK_EQ_INT(h->peer, 0);
		CHECK_EQ_INT(h->bursts, 2);
		CHECK_EQ_INT(h->woken, 6);
		CHECK_EQ_INT(h->futile, 4);
		CHECK_EQ_INT(h->futile_ns, 8 * US);
		CHECK_EQ_INT(h->work_ns, 100 * US);
		CHECK_EQ_INT(h->queued_ns, 16 * US);
		CHECK_EQ_INT(h->first, 1010 * US);
		CHECK_EQ_INT(h->last, 1100 * US);
	}
	tl_diagnose_defaults(&o);
	o.min_cost_ns = 20 * US;
	CHECK_EQ_INT(tl_diagnose_model(&m, &o, &f), 0);
	n = count_kind(&f, TL_FIND_THUNDERING_HERD, &x);
	CHECK_EQ_INT(n, 1);
	if (x) {
		CHECK_EQ_INT(x->cost_ns, 24 * US);
		CHECK_EQ_INT(x->nthreads, 3);
		CHECK_EQ_INT(x->threads[0].tid, 501);
		CHECK_EQ_STR(x->threads[0].role, "waker");
		CHECK_EQ_INT(x->threads[1].tid, 503);
		CHECK_EQ_INT(x->threads[2].tid, 504);
		CHECK_EQ_STR(x->threads[2].role, "woken for nothing");
		CHECK_EQ_STR(x->title, "P 501 woke 3.0 threads at once, 2 times; 67% of them found nothing to do");
	}
	CHECK_EQ_INT(f.checked[TL_FIND_THUNDERING_HERD], 1);
	tl_findings_release(&f);
	/* one burst: its count of threads, not a mean, and no "1 times" */
	if (m.herds.n == 1) {
		m.herds.items[0].bursts = 1;
		m.herds.items[0].woken = 3;
		m.herds.items[0].futile = 2;
		CHECK_EQ_INT(tl_diagnose_model(&m, &o, &f), 0);
		CHECK_EQ_INT(count_kind(&f, TL_FIND_THUNDERING_HERD, &x), 1);
		if (x)
			CHECK_EQ_STR(x->title, "P 501 woke 3 threads at once; 67% of them found nothing to do");
		tl_findings_release(&f);
		m.herds.items[0].bursts = 2;
		m.herds.items[0].woken = 6;
		m.herds.items[0].futile = 4;
	}
	o.min_cost_ns = 25 * US; /* the cost is 24 us */
	CHECK_EQ_INT(count_with(&m, &o, TL_FIND_THUNDERING_HERD), 0);
	tl_report_release(&m);
	tl_run_release(&run);
	unlink(p);
}

/*
 * Two processes short of CPUs: app (600: 600, 601, 602) and its child aux
 * (610: 610, 611, 612), all woken at 1000 and each running 100 us once
 * before it sleeps; CPU 0 runs 600, 610, 601 in turn from 1000, CPU 1 611,
 * 602, 612.
 * On a CPU R = 600 us; queued Q = 100 + 200 a CPU = 600 us (100%, at the
 * threshold); the threads live 1000-1400, W = 400 us.  Demand (R + Q) / W
 * = 3 CPUs; the cost W Q / (R + Q) = 200 us.
 */
static void write_saturated(char *p)
{
	static const int32_t order[2][3] = { { 600, 610, 601 }, { 611, 602, 612 } };

	W = program_trace_open(p, 600, 1000);
	CHECK(W != NULL);
	for (int32_t t = 600; t <= 612; t++)
		if (t % 10 <= 2) {
			ev(1000, -1, TL_EV_THREAD, t, t / 10 * 10, 0, 0, 2, 0, t < 610 ? "app" : "aux");
			if (t == 610) /* aux is app's child: the recorded program */
				ev(1000, 0, TL_EV_FORK, t, 600, 0, 0, 0, 0, "aux");
		}
	for (int cpu = 0; cpu < 2; cpu++)
		for (int k = 0; k < 3; k++)
			ev(1000, cpu, TL_EV_WAKING, order[cpu][k], 0, cpu, 120, 0, 0, NULL);
	for (int cpu = 0; cpu < 2; cpu++) {
		sw(1000, cpu, 0, 0, order[cpu][0], 0);
		sw(1100, cpu, order[cpu][0], TL_PS_S, order[cpu][1], 0);
		sw(1200, cpu, order[cpu][1], TL_PS_S, order[cpu][2], 0);
		sw(1300, cpu, order[cpu][2], TL_PS_S, 0, 0);
	}
	CHECK(program_trace_close(W, 1400) == 0);
}

TEST(cpu_saturation)
{
	char p[] = "/tmp/tl-test-saturated-XXXXXX";
	struct tl_run run = { .to_ns = -1, .path = p };
	struct tl_diagnose_opts o;
	struct tl_findings f;
	struct tl_model m;
	const struct tl_finding *x = NULL;

	write_saturated(p);
	CHECK_EQ_INT(tl_report_analyze(&run, &m), 0);
	tl_diagnose_defaults(&o);
	o.min_cost_ns = 100 * US;
	CHECK_EQ_INT(tl_diagnose_model(&m, &o, &f), 0);
	CHECK_EQ_INT(count_kind(&f, TL_FIND_CPU_SATURATION, &x), 1);
	if (x) {
		CHECK_EQ_INT(x->cost_ns, 200 * US);
		CHECK_EQ_INT((int64_t)x->evidence[0].value, 2);        /* processes */
		CHECK_EQ_INT((int64_t)x->evidence[1].value, 6);        /* threads */
		CHECK_EQ_INT((int64_t)x->evidence[2].value, 600 * US); /* on a CPU */
		CHECK_EQ_INT((int64_t)(x->evidence[3].value + 0.5), 100);
		CHECK_EQ_INT((int64_t)(x->evidence[4].value * 1000 + 0.5), 3000); /* CPUs asked for */
		CHECK_EQ_INT(x->nthreads, 2);                                     /* both processes, queued */
	}
	CHECK_EQ_INT(f.checked[TL_FIND_CPU_SATURATION], 1);
	tl_findings_release(&f);
	o.min_cost_ns = 201 * US;
	CHECK_EQ_INT(count_with(&m, &o, TL_FIND_CPU_SATURATION), 0);
	tl_report_release(&m);
	tl_run_release(&run);
	unlink(p);
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
	RUN_TESTS(lock_not_condition_nor_join, bottleneck_share_of_waiters, lock_holder, serialized_threads,
	          spin_waiting, cpu_throttled, thundering_herd, cpu_saturation, affinity_bound, kind_names);
}
