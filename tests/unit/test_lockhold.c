/*
 * test_lockhold.c - what a lock's holders did while a thread waited
 * (analysis/lockhold), and the waits per lock (analysis/locks), exact, on
 * a hand-written trace of a convoy: the thread that ends a wait had
 * waited for the lock itself, so that part is what the holder before it
 * did.  The futex words say which lock each wait is on (FUTEX_WAIT, as
 * the eBPF back end writes them, or FUTEX_ENTER, as the perf back end
 * does), or nothing.  Written with the real writer and read back with the
 * real reader, as the command does.
 */
#include <stdio.h>
#include <stdlib.h>
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
 * convoy 60.  b's wait 1020-1100: c ran 80.  b waits on futex word wb, a
 * on wa (0: no word): as FUTEX_WAIT before the switch, or with `perf` as
 * a FUTEX_ENTER (op FUTEX_WAIT) just before it.
 */
static void word(uint64_t t, int cpu, int32_t tid, uint64_t w, int perf)
{
	if (w && perf)
		ev(t - 1, cpu, TL_EV_FUTEX_ENTER, tid, 0, TL_FUTEX_WAIT | 128, (int64_t)w, 0, 0, NULL);
	else if (w)
		ev(t, cpu, TL_EV_FUTEX_WAIT, tid, 0, (int64_t)w, 0, 0, 0, NULL);
}

static void write_convoy(char *p, uint64_t wa, uint64_t wb, int perf)
{
	const uint16_t lockf = TL_EVF_WAIT_FUTEX | TL_EVF_WAIT_LOCK;

	W = program_trace_open(p, 500, 1000);
	CHECK(W != NULL);
	ev(1000, -1, TL_EV_THREAD, 501, 500, 0, 0, 1, 0, "a");
	ev(1000, -1, TL_EV_THREAD, 502, 500, 0, 0, 1, 0, "b");
	ev(1000, -1, TL_EV_THREAD, 503, 500, 0, 0, 1, 0, "c");
	sw(1000, 0, 0, 0, 502, 0);
	sw(1000, 1, 0, 0, 503, 0);
	word(1020, 0, 502, wb, perf);
	sw(1020, 0, 502, TL_PS_S, 501, perf ? 0 : lockf);
	word(1040, 0, 501, wa, perf);
	if (wa == 0x1000) { /* the recorder's names: the lock's, and a condition's that no lock wait uses */
		ev(1040, 0, TL_EV_FUTEX_NAME, 500, 0, 0x1000, 0, 0, 0, "queue_lock (app)");
		ev(1040, 0, TL_EV_FUTEX_NAME, 500, 0, 0x3000, 0, 0, 0, "queue_cond (app)");
	}
	sw(1040, 0, 501, TL_PS_S, 0, perf ? 0 : lockf);
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

	write_convoy(p, 0, 0, 0);
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
		CHECK_EQ_INT((int64_t)(x->evidence[6].value * 100 + 0.5), 0);    /* of that, blocked */
		CHECK_EQ_INT((int64_t)(x->evidence[8].value * 100 + 0.5), 5455); /* convoy: 60 of 110 */
		CHECK(strstr(x->cause, "long critical sections; a convoy: in 55% of its waits") != NULL);
		CHECK(strstr(x->fix, "shorten the critical sections") != NULL);
	}
	tl_findings_release(&f);
	tl_report_release(&m);
	tl_run_release(&run);
	unlink(p);
}

/*
 * A holder along a convoy that has exited when the wait it is part of
 * ends: a (501) waits for the lock 1040-1300 and b (502) ends the wait; b
 * itself waited for the lock 1050-1150 while c (503) ran, and c woke b at
 * 1150 and exited at 1151.  a's wait: b on a CPU 1040-1050 and 1152-1300,
 * waiting for a CPU 1150-1152, and for the lock 1050-1150 while c ran: 258
 * us on a CPU, 2 queued, 100 of convoy, none unknown (c's thread was gone when a's wait was judged,
 * and its part read unknown: cli diagnose/lock-convoy's last waits).
 */
TEST(holder_exited)
{
	char p[] = "/tmp/tl-test-lhexit-XXXXXX";
	struct tl_run run = { .to_ns = -1, .path = p };
	const uint16_t lockf = TL_EVF_WAIT_FUTEX | TL_EVF_WAIT_LOCK;
	const struct tl_thread_stats *a;
	struct tl_model m;

	W = program_trace_open(p, 500, 1000);
	CHECK(W != NULL);
	ev(1000, -1, TL_EV_THREAD, 501, 500, 0, 0, 1, 0, "a");
	ev(1000, -1, TL_EV_THREAD, 502, 500, 0, 0, 1, 0, "b");
	ev(1000, -1, TL_EV_THREAD, 503, 500, 0, 0, 1, 0, "c");
	sw(1000, 0, 0, 0, 501, 0);
	sw(1000, 1, 0, 0, 503, 0);
	sw(1040, 0, 501, TL_PS_S, 502, lockf); /* a waits; b runs on CPU 0 */
	sw(1050, 0, 502, TL_PS_S, 0, lockf);   /* b waits too; c holds the lock on CPU 1 */
	wake(1150, 1, 502, 503);
	ev(1151, 1, TL_EV_EXIT, 503, 0, 0, 0, 0, 0, NULL);
	sw(1151, 1, 503, TL_PS_X, 0, 0);
	sw(1152, 0, 0, 0, 502, 0);
	wake(1300, 0, 501, 502);
	sw(1310, 0, 502, TL_PS_S, 501, 0);
	CHECK(program_trace_close(W, 1400) == 0);
	CHECK_EQ_INT(tl_report_analyze(&run, &m), 0);
	a = thread_of(&m, 501);
	CHECK(a != NULL);
	if (a) {
		CHECK_EQ_INT(a->lock_wait_ns, 260 * US);
		CHECK_EQ_INT(a->lock_holder_ns[TL_LH_RUNNING], 258 * US);
		CHECK_EQ_INT(a->lock_holder_ns[TL_LH_QUEUED], 2 * US);
		CHECK_EQ_INT(a->lock_holder_ns[TL_LH_ASLEEP], 0);
		CHECK_EQ_INT(a->lock_holder_ns[TL_LH_UNKNOWN], 0);
		CHECK_EQ_INT(a->lock_convoy_ns, 100 * US);
	}
	if (thread_of(&m, 502))
		CHECK_EQ_INT(thread_of(&m, 502)->lock_wait_ns, 100 * US);
	tl_report_release(&m);
	tl_run_release(&run);
	unlink(p);
}

/*
 * The same waits per lock: one lock (both on 0x1000), two (0x2000 and
 * 0x1000), or no words (the process's entry of address 0); the perf back
 * end's words (FUTEX_ENTER) give the same.
 */
/* What the text calls a lock: a symbol as it is; a region's label, which many locks share, with the address. */
TEST(lock_labels)
{
	char b[64];

	CHECK_EQ_STR(tl_lock_label(0x1000, "queue_lock (app)", b, sizeof(b)), "queue_lock (app)");
	CHECK_EQ_STR(tl_lock_label(0x558b57be7038ull, "[heap]", b, sizeof(b)), "[heap] 0x558b57be7038");
	CHECK_EQ_STR(tl_lock_label(0x7ffd1000, "[anon]", b, sizeof(b)), "[anon] 0x7ffd1000");
	CHECK_EQ_STR(tl_lock_label(0x2000, "", b, sizeof(b)), "0x2000");
}

TEST(per_lock)
{
	static const struct {
		uint64_t wa, wb;
		int perf;
	} c[] = {
		{ 0x1000, 0x1000, 0 }, { 0x2000, 0x1000, 0 }, { 0, 0, 0 }, { 0x1000, 0x1000, 1 }, { 0x2000, 0x1000, 1 }
	};

	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		char p[] = "/tmp/tl-test-locks-XXXXXX";
		struct tl_run run = { .to_ns = -1, .path = p };
		const struct tl_lock *la, *lb;
		struct tl_diagnose_opts o;
		struct tl_findings f;
		struct tl_model m;

		write_convoy(p, c[i].wa, c[i].wb, c[i].perf);
		CHECK_EQ_INT(tl_report_analyze(&run, &m), 0);
		la = tl_locks_find(&m.locks, 500, c[i].wa);
		lb = tl_locks_find(&m.locks, 500, c[i].wb);
		CHECK(la && lb);
		CHECK_EQ_INT(m.locks.n, c[i].wa == c[i].wb ? 1 : 2);
		if (la && lb && la == lb && c[i].wa) { /* named; the condition's word has no lock waits: no lock */
			CHECK_EQ_STR(la->name, "queue_lock (app)");
			CHECK(tl_locks_find(&m.locks, 500, 0x3000) == NULL);
		}
		if (la && lb &&
		    la == lb) { /* a 110 us (b held it: 109 on a CPU, 1 queued, 60 of it b's own wait), b 80 */
			CHECK_EQ_INT(la->waits, 2);
			CHECK_EQ_INT(la->wait_ns, 190 * US);
			CHECK_EQ_INT(la->max_ns, 110 * US);
			CHECK_EQ_INT(la->holder_ns[TL_LH_RUNNING], 189 * US);
			CHECK_EQ_INT(la->holder_ns[TL_LH_QUEUED], 1 * US);
			CHECK_EQ_INT(la->convoy_ns, 60 * US);
			CHECK_EQ_INT(la->nwaiters, 2);
			CHECK_EQ_INT(la->nholders, 2);
			if (la->nwaiters == 2 && la->nholders == 2) {
				CHECK_EQ_INT(la->waiters[0].tid, 501);
				CHECK_EQ_STR(la->waiters[0].name, "a");
				CHECK_EQ_INT(la->waiters[0].ns, 110 * US);
				CHECK_EQ_INT(la->waiters[1].tid, 502);
				CHECK_EQ_INT(la->holders[0].tid, 502); /* b ended a's 110 us */
				CHECK_EQ_INT(la->holders[0].waits, 1);
				CHECK_EQ_INT(la->holders[1].tid, 503);
				CHECK_EQ_INT(la->holders[1].ns, 80 * US);
			}
			if (!c[i].perf && c[i].wa) { /* the report's table: on a CPU 189 of 190 us, a convoy 60 */
				char *text = NULL;
				size_t len = 0;
				FILE *mem = open_memstream(&text, &len);

				CHECK_EQ_INT(tl_locks_write_text(mem, &m.locks, 5, 100), 1);
				fclose(mem);
				CHECK_EQ_STR(
				        text,
				        "    pid  lock                      waits     time      max  on CPU  convoy  "
				        "waiters (share of time)\n"
				        "    500  queue_lock (app)              2    190us    110us   99.5%   31.6%  "
				        "a 58%, b 42%\n");
				free(text);
			} else if (!c[i].wa) { /* no words: no table */
				char *text = NULL;
				size_t len = 0;
				FILE *mem = open_memstream(&text, &len);

				CHECK_EQ_INT(tl_locks_write_text(mem, &m.locks, 5, 100), 0);
				fclose(mem);
				CHECK_EQ_INT(len, 0);
				free(text);
			}
		} else if (la && lb) {
			CHECK_EQ_INT(la->wait_ns, 110 * US);
			CHECK_EQ_INT(la->convoy_ns, 60 * US);
			CHECK_EQ_INT(lb->wait_ns, 80 * US);
			CHECK_EQ_INT(lb->holder_ns[TL_LH_RUNNING], 80 * US);
			CHECK_EQ_INT(m.locks.items[0].addr, c[i].wa); /* the most waited on first */
		}
		/*
		 * diagnose: a (110 of its 300 us) and b (80 of 300) both wait on locks at least 20% of their
		 * lives: one finding of the lock, or one per lock, or (no words) one per thread
		 */
		tl_diagnose_defaults(&o);
		o.min_cost_ns = 50 * US;
		o.busy_pct = 101;
		o.oversub_pct = 101;
		CHECK_EQ_INT(tl_diagnose_model(&m, &o, &f), 0);
		CHECK_EQ_INT(f.n, (c[i].wa == c[i].wb && c[i].wa) ? 1 : 2);
		if (f.n == 1) {
			const struct tl_finding *x = &f.items[0];

			CHECK_EQ_INT(x->kind, TL_FIND_LOCK_CONTENTION);
			CHECK_EQ_INT(x->cost_ns, 190 * US);
			CHECK_EQ_STR(x->title, "2 threads wait on lock queue_lock (app), 27-37% of their lives");
			CHECK_EQ_INT(x->nthreads, 3);
			if (x->nthreads ==
			    3) { /* the waiters, the most time on it first, then the holder that is none */
				CHECK_EQ_INT(x->threads[0].tid, 501);
				CHECK_EQ_STR(x->threads[0].role, "waiter");
				CHECK_EQ_INT(x->threads[1].tid, 502);
				CHECK_EQ_STR(x->threads[1].role, "waiter");
				CHECK_EQ_INT(x->threads[2].tid, 503);
				CHECK_EQ_STR(x->threads[2].role, "holder");
			}
			CHECK_EQ_INT((int64_t)x->evidence[2].value, 2);                  /* threads that waited on it */
			CHECK_EQ_INT((int64_t)x->evidence[3].value, 2);                  /* waits */
			CHECK_EQ_INT((int64_t)(x->evidence[4].value * 100 + 0.5), 9947); /* on a CPU: 189 of 190 */
			CHECK(!strncmp(x->cause, "they block on a lock's futex", 28));
		} else if (f.n == 2 && c[i].wa) {
			const struct tl_finding *x = &f.items[0], *y = &f.items[1];

			CHECK_EQ_STR(x->title, "a (501) waits on lock 0x2000 37% of its life");
			CHECK_EQ_INT(x->cost_ns, 110 * US);
			CHECK_EQ_STR(y->title, "b (502) waits on lock 0x1000 27% of its life");
			CHECK_EQ_INT(y->nthreads, 2);
			if (y->nthreads == 2)
				CHECK_EQ_STR(y->threads[1].name, "c");
		} else if (f.n == 2) {
			CHECK_EQ_STR(f.items[0].title, "a (501) waits on a lock 37% of its life");
		}
		tl_findings_release(&f);
		tl_report_release(&m);
		tl_run_release(&run);
		unlink(p);
	}
}

int main(void)
{
	RUN_TESTS(convoy, holder_exited, lock_labels, per_lock);
}
