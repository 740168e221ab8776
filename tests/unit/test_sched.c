/*
 * test_sched.c - the thread-state machine on hand-written event sequences.
 *
 * Each test feeds a short sequence of events (times in microseconds from a
 * trace start of 1000 us) and checks the exact time each thread spent in
 * each state, the transitions and the CPU activity.  Every test also checks
 * the invariant that a thread's intervals are gapless and sum to its life.
 */
#include <stdlib.h>

#include "event_build.h"
#include "harness.h"
#include "timeline/state_machine.h"

#define US 1000ull
#define T0 (1000 * US)
#define MAXT 8

struct rec {
	int32_t tid[MAXT];
	uint32_t serial[MAXT];
	uint64_t ns[MAXT][TL_ST__COUNT];
	uint64_t entries[MAXT][TL_ST__COUNT];
	uint64_t trans[MAXT][TL_ST__COUNT][TL_ST__COUNT + 1]; /* state -> next (TL_ST__COUNT: the end) */
	uint64_t inferred[MAXT][TL_ST__COUNT];                /* intervals whose end was inferred */
	uint64_t last_end[MAXT];
	uint64_t born[MAXT], died[MAXT];
	int32_t last_by[MAXT][TL_ST__COUNT];
	int gaps;
	int n;
	uint64_t cpu_ns[2][8];
	uint64_t vector_ns; /* TL_CPU_IRQ time whose source is TL_IRQ_VECTOR | TL_VEC_LOCAL_TIMER */
};

static struct rec R;
static struct tl_sched *S;

static int slot(const struct tl_thread *th)
{
	for (int i = 0; i < R.n; i++)
		if (R.serial[i] == th->serial)
			return i;
	R.tid[R.n] = th->tid;
	R.serial[R.n] = th->serial;
	R.last_end[R.n] = th->born;
	return R.n++;
}

static void on_iv(void *ctx, struct tl_thread *th, const struct tl_interval *iv)
{
	int i = slot(th);
	if (iv->start != R.last_end[i])
		R.gaps++;
	R.last_end[i] = iv->end;
	R.ns[i][iv->state] += iv->end - iv->start;
	R.entries[i][iv->state]++;
	R.trans[i][iv->state][iv->next]++;
	R.inferred[i][iv->state] += iv->inferred_end;
	R.last_by[i][iv->state] = iv->by;
}

static void on_cpu(void *ctx, const struct tl_cpu_interval *iv)
{
	if (iv->cpu < 2)
		R.cpu_ns[iv->cpu][iv->what] += iv->end - iv->start;
	if (iv->what == TL_CPU_IRQ && iv->irq == (TL_IRQ_VECTOR | TL_VEC_LOCAL_TIMER))
		R.vector_ns += iv->end - iv->start;
}

static void on_end(void *ctx, struct tl_thread *th)
{
	int i = slot(th);
	R.born[i] = th->born;
	R.died[i] = th->died;
	if (R.last_end[i] != th->died)
		R.gaps++;
}

static void start(void)
{
	struct tl_sched_opts o = { 0 };
	memset(&R, 0, sizeof(R));
	o.start_ns = T0;
	o.ncpus = 2;
	o.on_interval = on_iv;
	o.on_cpu_interval = on_cpu;
	o.on_thread_end = on_end;
	S = tl_sched_new(&o);
}

static void finish(uint64_t end_us)
{
	tl_sched_finish(S, end_us * US);
}

/* The slot of the first thread instance with this tid, -1 if none. */
static int find(int32_t tid)
{
	for (int i = 0; i < R.n; i++)
		if (R.tid[i] == tid)
			return i;
	return -1;
}

/* state time (us) of the n-th thread instance with this tid (n = 0 first) */
static uint64_t st(int32_t tid, int n, unsigned state)
{
	for (int i = 0; i < R.n; i++)
		if (R.tid[i] == tid && n-- == 0)
			return R.ns[i][state] / US;
	return 999999;
}

static uint64_t life(int32_t tid)
{
	for (int i = 0; i < R.n; i++)
		if (R.tid[i] == tid) {
			uint64_t sum = 0;
			for (int s = 0; s < TL_ST__COUNT; s++)
				sum += R.ns[i][s];
			CHECK_EQ_INT(sum, R.died[i] - R.born[i]);
			return sum / US;
		}
	return 999999;
}

static int32_t by(int32_t tid, unsigned state)
{
	for (int i = 0; i < R.n; i++)
		if (R.tid[i] == tid)
			return R.last_by[i][state];
	return -99;
}

static void ev(uint64_t ts_us, int cpu, unsigned type, int32_t tid, int32_t arg, int64_t a, int64_t b, int64_t c,
               uint16_t flags, const char *name)
{
	struct tl_event e = event_us(ts_us, cpu, type, tid, arg, a, b, c, flags);
	tl_sched_feed(S, &e, name);
}

static void sw(uint64_t t, int cpu, int32_t prev, int64_t state, int32_t next)
{
	ev(t, cpu, TL_EV_SWITCH, prev, next, state, 120, 120, 0, NULL);
}
static void sw_prio(uint64_t t, int cpu, int32_t prev, int64_t state, int prev_prio, int32_t next, int next_prio)
{
	ev(t, cpu, TL_EV_SWITCH, prev, next, state, prev_prio, next_prio, 0, NULL);
}
static void waking(uint64_t t, int cpu, int32_t tid, int32_t waker)
{
	ev(t, cpu, TL_EV_WAKING, tid, waker, cpu, 120, 0, 0, NULL);
}
static void wakeup(uint64_t t, int cpu, int32_t tid, int32_t waker)
{
	ev(t, cpu, TL_EV_WAKEUP, tid, waker, cpu, 120, 0, 0, NULL);
}
static void fork_(uint64_t t, int cpu, int32_t parent, int32_t child, const char *name)
{
	ev(t, cpu, TL_EV_FORK, child, parent, 0, 0, 0, 0, name);
}
static void wakeup_new(uint64_t t, int cpu, int32_t tid, int32_t waker)
{
	ev(t, cpu, TL_EV_WAKEUP_NEW, tid, waker, cpu, 120, 0, 0, NULL);
}

/* fork, first run, sleep, wakeup by another thread, exit, reap */
TEST(life_cycle)
{
	start();
	sw(1010, 0, 0, 0, 100); /* A (100) runs on cpu0 from 1010 */
	fork_(1020, 0, 100, 101, "child");
	wakeup_new(1021, 0, 101, 100);
	sw(1030, 0, 100, TL_PS_S, 101); /* A sleeps, B runs */
	waking(1050, 1, 100, 0);        /* woken by an unknown waker context on cpu1? no: waker 0 */
	sw(1060, 0, 101, TL_PS_S, 100); /* B sleeps, A runs */
	{
		/* totals are exact at any instant the machine has reached, open interval included */
		uint64_t tot[TL_ST__COUNT];
		tl_thread_totals(tl_sched_thread(S, 101), 1065 * US, tot);
		CHECK_EQ_INT(tot[TL_ST_NEW], 1 * US);
		CHECK_EQ_INT(tot[TL_ST_RUNNABLE], 9 * US);
		CHECK_EQ_INT(tot[TL_ST_EXECUTING], 30 * US);
		CHECK_EQ_INT(tot[TL_ST_SLEEPING], 5 * US);
	}
	waking(1070, 0, 101, 100); /* A wakes B */
	sw(1080, 0, 100, TL_PS_S, 101);
	ev(1090, 0, TL_EV_EXIT, 101, 0, 0, 0, 0, 0, NULL);
	sw(1095, 0, 101, TL_PS_X, 0);
	ev(1100, 1, TL_EV_FREE, 101, 0, 0, 0, 0, 0, NULL);
	finish(1200);
	CHECK_EQ_INT(st(101, 0, TL_ST_NEW), 1);
	CHECK_EQ_INT(st(101, 0, TL_ST_RUNNABLE), 9 + 10);
	CHECK_EQ_INT(st(101, 0, TL_ST_EXECUTING), 30 + 15);
	CHECK_EQ_INT(st(101, 0, TL_ST_SLEEPING), 10);
	CHECK_EQ_INT(st(101, 0, TL_ST_ZOMBIE), 5);
	CHECK_EQ_INT(life(101), 80);
	CHECK_EQ_INT(by(101, TL_ST_RUNNABLE), 100);
	/* every interval, as entries and as transitions (state -> next) */
	{
		int b = find(101);
		CHECK(b >= 0);
		if (b < 0)
			return;
		CHECK_EQ_INT(R.entries[b][TL_ST_NEW], 1);
		CHECK_EQ_INT(R.entries[b][TL_ST_RUNNABLE], 2);
		CHECK_EQ_INT(R.entries[b][TL_ST_EXECUTING], 2);
		CHECK_EQ_INT(R.entries[b][TL_ST_SLEEPING], 1);
		CHECK_EQ_INT(R.entries[b][TL_ST_ZOMBIE], 1);
		CHECK_EQ_INT(R.trans[b][TL_ST_NEW][TL_ST_RUNNABLE], 1);
		CHECK_EQ_INT(R.trans[b][TL_ST_RUNNABLE][TL_ST_EXECUTING], 2);
		CHECK_EQ_INT(R.trans[b][TL_ST_EXECUTING][TL_ST_SLEEPING], 1);
		CHECK_EQ_INT(R.trans[b][TL_ST_SLEEPING][TL_ST_RUNNABLE], 1);
		CHECK_EQ_INT(R.trans[b][TL_ST_EXECUTING][TL_ST_ZOMBIE], 1);
		CHECK_EQ_INT(R.trans[b][TL_ST_ZOMBIE][TL_ST__COUNT], 1);
	}
	/* A: unknown before its first run at 1010 (the CPU's occupant was unknown: UNKNOWN until then) */
	CHECK_EQ_INT(st(100, 0, TL_ST_UNKNOWN), 10);
	CHECK_EQ_INT(st(100, 0, TL_ST_EXECUTING), 20 + 20);
	CHECK_EQ_INT(st(100, 0, TL_ST_SLEEPING), 20 + 120);
	CHECK_EQ_INT(st(100, 0, TL_ST_RUNNABLE), 10);
	CHECK_EQ_INT(life(100), 200);
	CHECK_EQ_INT(R.gaps, 0);
	/* cpu0: idle 0..10 (its first switch says so), threads 10..95, idle 95..200 */
	CHECK_EQ_INT(R.cpu_ns[0][TL_CPU_UNKNOWN] / US, 0);
	CHECK_EQ_INT(R.cpu_ns[0][TL_CPU_THREAD] / US, 85);
	CHECK_EQ_INT(R.cpu_ns[0][TL_CPU_IDLE] / US, 115);
	tl_sched_free(S);
}

/* a thread running when the trace starts: its first event is a switch-out */
/*
 * Zero-length intervals count: a thread woken and switched in at the same
 * instant was RUNNABLE for 0 ns, one entry and two transitions (dropping
 * such intervals passed every other test).
 */
TEST(zero_length_interval)
{
	int a;

	start();
	sw(1000, 0, 0, 0, 100);
	sw(1010, 0, 100, TL_PS_S, 0);
	waking(1020, 0, 100, 0);
	sw(1020, 0, 0, 0, 100); /* at once: RUNNABLE for 0 ns */
	sw(1030, 0, 100, TL_PS_S, 0);
	finish(1040);
	a = find(100);
	CHECK(a >= 0);
	if (a < 0)
		return;
	CHECK_EQ_INT(st(100, 0, TL_ST_RUNNABLE), 0);
	CHECK_EQ_INT(R.entries[a][TL_ST_RUNNABLE], 1);
	CHECK_EQ_INT(R.entries[a][TL_ST_EXECUTING], 2);
	CHECK_EQ_INT(R.entries[a][TL_ST_SLEEPING], 2);
	CHECK_EQ_INT(R.trans[a][TL_ST_SLEEPING][TL_ST_RUNNABLE], 1);
	CHECK_EQ_INT(R.trans[a][TL_ST_RUNNABLE][TL_ST_EXECUTING], 1);
	CHECK_EQ_INT(R.trans[a][TL_ST_SLEEPING][TL_ST_EXECUTING], 0);
	CHECK_EQ_INT(R.gaps, 0);
	tl_sched_free(S);
}

TEST(running_before_trace)
{
	start();
	sw(1040, 1, 200, TL_PS_S, 0);
	finish(1100);
	CHECK_EQ_INT(st(200, 0, TL_ST_EXECUTING), 40);
	CHECK_EQ_INT(st(200, 0, TL_ST_SLEEPING), 60);
	CHECK_EQ_INT(st(200, 0, TL_ST_UNKNOWN), 0);
	CHECK_EQ_INT(life(200), 100);
	CHECK_EQ_INT(R.cpu_ns[1][TL_CPU_THREAD] / US, 40);
	CHECK_EQ_INT(tl_sched_counters(S)->anomalies, 0);
	tl_sched_free(S);
}

/* futex wait -> SYNC_WAIT; the waker is named */
TEST(sync_wait)
{
	start();
	sw(1000, 0, 0, 0, 300);
	sw(1000, 1, 0, 0, 301);
	ev(1010, 0, TL_EV_FUTEX_ENTER, 300, 0, TL_FUTEX_WAIT | 128, 0, 0, 0, NULL);
	sw(1011, 0, 300, TL_PS_S, 0);
	waking(1061, 1, 300, 301);
	sw(1063, 0, 0, 0, 300);
	ev(1064, 0, TL_EV_FUTEX_EXIT, 300, 0, 0, 0, 0, 0, NULL);
	sw(1070, 0, 300, TL_PS_S, 0); /* a plain sleep after the futex returned */
	waking(1080, 1, 300, 301);
	sw(1081, 0, 0, 0, 300);
	finish(1100);
	CHECK_EQ_INT(st(300, 0, TL_ST_SYNC_WAIT), 50);
	CHECK_EQ_INT(st(300, 0, TL_ST_SLEEPING), 10);
	CHECK_EQ_INT(st(300, 0, TL_ST_RUNNABLE), 2 + 1);
	CHECK_EQ_INT(by(300, TL_ST_SYNC_WAIT), 301);
	CHECK_EQ_INT(life(300), 100);
	tl_sched_free(S);
}

/* D sleeps: after block I/O or woken from an interrupt -> IO_WAIT; else BLOCKED */
TEST(io_wait_and_blocked)
{
	start();
	sw(1000, 0, 0, 0, 400);
	ev(1005, 0, TL_EV_BLOCK_ISSUE, 400, 0, 8, 2048, 4096, 0, NULL);
	sw(1010, 0, 400, TL_PS_D, 0);
	ev(1030, 0, TL_EV_WAKING, 400, 0, 0, 120, 0, TL_EVF_HARDIRQ, NULL);
	sw(1031, 0, 0, 0, 400);
	sw(1040, 0, 400, TL_PS_D, 0); /* no I/O this run, woken by a thread */
	waking(1060, 1, 400, 401);
	sw(1061, 0, 0, 0, 400);
	sw(1070, 0, 400, TL_PS_D, 0); /* no I/O, but woken from softirq: I/O completion */
	ev(1090, 1, TL_EV_WAKING, 400, 0, 0, 120, 0, TL_EVF_SOFTIRQ, NULL);
	sw(1091, 0, 0, 0, 400);
	finish(1100);
	CHECK_EQ_INT(st(400, 0, TL_ST_IO_WAIT), 20 + 20);
	CHECK_EQ_INT(st(400, 0, TL_ST_BLOCKED), 20);
	CHECK_EQ_INT(by(400, TL_ST_IO_WAIT), -1);
	CHECK_EQ_INT(life(400), 100);
	tl_sched_free(S);
}

/* R+ with a just-woken next: READY_PREEMPT; R+ otherwise: READY_QUANTUM; R: READY_YIELD */
TEST(ready_kinds)
{
	start();
	sw(1000, 0, 0, 0, 500);               /* A runs */
	waking(1010, 1, 501, 600);            /* B woken onto cpu0 */
	sw(1010, 0, 500, TL_PS_PREEMPT, 501); /* B preempts A at once */
	sw(1020, 0, 501, TL_PS_PREEMPT, 500); /* B's slice ends: B quantum, A (not freshly woken) runs */
	ev(1029, 0, TL_EV_YIELD_ENTER, 500, 0, 0, 0, 0, 0, NULL);
	sw(1030, 0, 500, TL_PS_RUNNING, 501); /* A yields */
	sw(1040, 0, 501, TL_PS_S, 500);
	ev(1040, 0, TL_EV_YIELD_EXIT, 500, 0, 0, 0, 0, 0, NULL);
	/* switched out on the way back from sched_yield: still the yield */
	ev(1041, 0, TL_EV_YIELD_ENTER, 500, 0, 0, 0, 0, 0, NULL);
	ev(1042, 0, TL_EV_YIELD_EXIT, 500, 0, 0, 0, 0, 0, NULL);
	sw(1042, 0, 500, TL_PS_RUNNING, 501);
	sw(1045, 0, 501, TL_PS_S, 500);
	/* a higher-priority next (lower number) preempts even if not freshly woken */
	waking(1050, 1, 501, 600);
	sw_prio(1055, 0, 500, TL_PS_PREEMPT, 120, 501, 89);
	sw(1060, 0, 501, TL_PS_S, 500);
	/* woken long ago (beyond the 1 ms window), then R (user-space preemption has no "+"): quantum */
	waking(1062, 1, 501, 600);
	sw(2100, 0, 500, TL_PS_RUNNING, 501);
	finish(2110);
	CHECK_EQ_INT(st(500, 0, TL_ST_READY_PREEMPT), 10 + 5);
	CHECK_EQ_INT(st(500, 0, TL_ST_READY_QUANTUM), 10);
	CHECK_EQ_INT(st(500, 0, TL_ST_READY_YIELD), 10 + 3);
	CHECK_EQ_INT(by(500, TL_ST_READY_PREEMPT), 501);
	CHECK_EQ_INT(st(501, 0, TL_ST_READY_QUANTUM), 10);
	CHECK_EQ_INT(st(501, 0, TL_ST_RUNNABLE), 0 + 5 + 1038);
	CHECK_EQ_INT(life(500), 1110);
	CHECK_EQ_INT(life(501), 1110);
	tl_sched_free(S);
}

/* IRQ and softirq inside a run: INTERRUPTED for the thread, irq time for the CPU, nesting */
TEST(interrupted)
{
	start();
	sw(1000, 0, 0, 0, 700);
	ev(1010, 0, TL_EV_IRQ_ENTRY, 700, 0, 11, 0, 0, TL_EVF_HARDIRQ, NULL);
	ev(1012, 0, TL_EV_IRQ_EXIT, 700, 0, 11, 1, 0, TL_EVF_HARDIRQ, NULL);
	ev(1012, 0, TL_EV_SOFTIRQ_ENTRY, 700, 0, 3, 0, 0, TL_EVF_SOFTIRQ, NULL);
	ev(1013, 0, TL_EV_IRQ_ENTRY, 700, 0, 11, 0, 0, TL_EVF_HARDIRQ, NULL); /* nested in the softirq */
	ev(1014, 0, TL_EV_IRQ_EXIT, 700, 0, 11, 1, 0, TL_EVF_HARDIRQ, NULL);
	ev(1016, 0, TL_EV_SOFTIRQ_EXIT, 700, 0, 3, 0, 0, TL_EVF_SOFTIRQ, NULL);
	ev(1020, 0, TL_EV_IRQ_EXIT, 700, 0, 12, 1, 0, TL_EVF_HARDIRQ, NULL); /* unmatched: ignored */
	/* the local timer (format 1.4): an interrupt like any other, its source the kind */
	ev(1024, 0, TL_EV_IRQ_ENTRY, 700, 0, 236, 0, TL_VEC_LOCAL_TIMER, TL_EVF_HARDIRQ | TL_EVF_VECTOR, NULL);
	ev(1027, 0, TL_EV_IRQ_EXIT, 700, 0, 236, 0, TL_VEC_LOCAL_TIMER, TL_EVF_HARDIRQ | TL_EVF_VECTOR, NULL);
	sw(1030, 0, 700, TL_PS_S, 0);
	ev(1040, 0, TL_EV_IRQ_ENTRY, 0, 0, 11, 0, 0, TL_EVF_HARDIRQ, NULL); /* on the idle CPU */
	ev(1041, 0, TL_EV_IRQ_EXIT, 0, 0, 11, 1, 0, TL_EVF_HARDIRQ, NULL);
	finish(1050);
	CHECK_EQ_INT(st(700, 0, TL_ST_INTERRUPTED), 6 + 3);
	CHECK_EQ_INT(st(700, 0, TL_ST_EXECUTING), 24 - 3);
	CHECK_EQ_INT(R.cpu_ns[0][TL_CPU_IRQ] / US, 2 + 1 + 3 + 1);
	CHECK_EQ_INT(R.vector_ns / US, 3);
	CHECK_EQ_INT(R.cpu_ns[0][TL_CPU_SOFTIRQ] / US, 3);
	CHECK_EQ_INT(R.cpu_ns[0][TL_CPU_THREAD] / US, 24 - 3);
	CHECK_EQ_INT(R.cpu_ns[0][TL_CPU_IDLE] / US, 19);
	CHECK_EQ_INT(life(700), 50);
	tl_sched_free(S);
}

/*
 * Who woke from interrupt context: a traced device IRQ or a softirq other
 * than the timers' is TL_WAKER_DEVICE (data arrived); a timer softirq, the
 * local timer's vector (format 1.4) or a hard interrupt the trace does not
 * show is TL_WAKER_IRQ.
 */
TEST(interrupt_wakers)
{
	const uint16_t soft = TL_EVF_SOFTIRQ, hard = TL_EVF_HARDIRQ;

	start();
	sw(1000, 1, 0, 0, 1300);
	sw(1001, 1, 1300, TL_PS_S, 1301);
	sw(1002, 1, 1301, TL_PS_S, 1302);
	sw(1003, 1, 1302, TL_PS_S, 1303);
	sw(1004, 1, 1303, TL_PS_S, 1304);
	sw(1005, 1, 1304, TL_PS_S, 0);
	sw(1000, 0, 0, 0, 700);
	ev(1010, 0, TL_EV_SOFTIRQ_ENTRY, 700, 0, 3, 0, 0, soft, NULL); /* NET_RX */
	ev(1011, 0, TL_EV_WAKING, 1300, 700, 1, 120, 0, soft, NULL);
	ev(1012, 0, TL_EV_SOFTIRQ_EXIT, 700, 0, 3, 0, 0, soft, NULL);
	ev(1020, 0, TL_EV_SOFTIRQ_ENTRY, 700, 0, TL_SOFTIRQ_TIMER, 0, 0, soft, NULL);
	ev(1021, 0, TL_EV_WAKING, 1301, 700, 1, 120, 0, soft, NULL);
	ev(1022, 0, TL_EV_SOFTIRQ_EXIT, 700, 0, TL_SOFTIRQ_TIMER, 0, 0, soft, NULL);
	ev(1030, 0, TL_EV_IRQ_ENTRY, 700, 0, 11, 0, 0, hard, NULL);
	ev(1031, 0, TL_EV_WAKING, 1302, 700, 1, 120, 0, hard, NULL);
	ev(1032, 0, TL_EV_IRQ_EXIT, 700, 0, 11, 1, 0, hard, NULL);
	ev(1041, 0, TL_EV_WAKING, 1303, 700, 1, 120, 0, hard, NULL); /* the local timer: no IRQ event */
	ev(1050, 0, TL_EV_WAKING, 1300, 1303, 1, 120, 0, 0, NULL);   /* no ctx flag: the thread woke it */
	ev(1052, 0, TL_EV_IRQ_ENTRY, 700, 0, 236, 0, TL_VEC_LOCAL_TIMER, hard | TL_EVF_VECTOR, NULL);
	ev(1053, 0, TL_EV_WAKING, 1304, 700, 1, 120, 0, hard, NULL); /* an hrtimer: a sleep ended */
	ev(1054, 0, TL_EV_IRQ_EXIT, 700, 0, 236, 0, TL_VEC_LOCAL_TIMER, hard | TL_EVF_VECTOR, NULL);
	finish(1060);
	CHECK_EQ_INT(by(1300, TL_ST_SLEEPING), TL_WAKER_DEVICE);
	CHECK_EQ_INT(by(1301, TL_ST_SLEEPING), TL_WAKER_IRQ);
	CHECK_EQ_INT(by(1302, TL_ST_SLEEPING), TL_WAKER_DEVICE);
	CHECK_EQ_INT(by(1303, TL_ST_SLEEPING), TL_WAKER_IRQ);
	CHECK_EQ_INT(by(1304, TL_ST_SLEEPING), TL_WAKER_IRQ);
	tl_sched_free(S);
}

/* stopped by a signal; exit without reap stays ZOMBIE to the end */
TEST(stopped_and_zombie)
{
	start();
	sw(1000, 0, 0, 0, 800);
	sw(1010, 0, 800, TL_PS_T, 0);
	wakeup(1030, 1, 800, 801);
	sw(1031, 0, 0, 0, 800);
	ev(1040, 0, TL_EV_EXIT, 800, 0, 0, 0, 0, 0, NULL);
	sw(1041, 0, 800, TL_PS_Z, 0);
	finish(1100);
	CHECK_EQ_INT(st(800, 0, TL_ST_STOPPED), 20);
	CHECK_EQ_INT(st(800, 0, TL_ST_ZOMBIE), 59);
	CHECK_EQ_INT(st(800, 0, TL_ST_EXECUTING), 10 + 10);
	CHECK_EQ_INT(life(800), 100);
	tl_sched_free(S);
}

/* preempted on cpu0, migrated, runs on cpu1 */
TEST(migration_mid_run)
{
	start();
	sw(1000, 0, 0, 0, 900);
	waking(1010, 1, 901, 5);
	sw(1010, 0, 900, TL_PS_PREEMPT, 901);
	ev(1012, 1, TL_EV_MIGRATE, 900, 0, 0, 1, 0, 0, NULL);
	sw(1015, 1, 0, 0, 900);
	sw(1030, 1, 900, TL_PS_S, 0);
	finish(1040);
	CHECK_EQ_INT(st(900, 0, TL_ST_EXECUTING), 10 + 15);
	CHECK_EQ_INT(st(900, 0, TL_ST_READY_PREEMPT), 5);
	CHECK_EQ_INT(R.cpu_ns[1][TL_CPU_THREAD] / US, 15);
	CHECK_EQ_INT(life(900), 40);
	tl_sched_free(S);
}

/* lost events: the running thread becomes UNKNOWN from the CPU's last event until evidence returns */
TEST(lost_events)
{
	start();
	sw(1000, 0, 0, 0, 1100);
	ev(1010, 0, TL_EV_FUTEX_ENTER, 1100, 0, TL_FUTEX_WAKE, 0, 0, 0, NULL); /* last event before the gap */
	ev(1050, 0, TL_EV_LOST, 0, 0, 42, 0, 0, 0, NULL);
	sw(1060, 0, 1100, TL_PS_S, 0); /* it was still running */
	waking(1070, 1, 1100, 1101);
	sw(1071, 0, 0, 0, 1100);
	finish(1080);
	CHECK_EQ_INT(st(1100, 0, TL_ST_EXECUTING), 10 + 9);
	CHECK_EQ_INT(st(1100, 0, TL_ST_UNKNOWN), 50);
	CHECK_EQ_INT(st(1100, 0, TL_ST_SLEEPING), 10);
	CHECK_EQ_INT(tl_sched_counters(S)->lost, 42);
	CHECK_EQ_INT(R.cpu_ns[0][TL_CPU_UNKNOWN] / US, 50);
	CHECK_EQ_INT(life(1100), 80);
	tl_sched_free(S);
}

/*
 * Lost events on cpu1 while a thread waits for a CPU: it may have run
 * there unseen, so from cpu1's last event it is UNKNOWN, not RUNNABLE for
 * the whole gap (no invented scheduling latency); a thread asleep stays so.
 */
TEST(lost_events_waiting_thread)
{
	start();
	sw(1000, 0, 0, 0, 1110); /* A runs on cpu0 all along */
	ev(1005, 1, TL_EV_SOFTIRQ_ENTRY, 0, 0, 1, 0, 0, 0, NULL);
	ev(1006, 1, TL_EV_SOFTIRQ_EXIT, 0, 0, 1, 0, 0, 0, NULL); /* cpu1's last good event */
	sw(1008, 0, 1110, TL_PS_PREEMPT, 1112);                  /* A preempted by C... */
	sw(1009, 0, 1112, TL_PS_S, 1110);                        /* ...which sleeps at once: A is back, C asleep */
	waking(1010, 0, 1111, 1110);                             /* B woken by A, to wait for a CPU */
	ev(1500, 1, TL_EV_LOST, 0, 0, 7, 0, 0, 0, NULL);
	sw(1600, 1, 1111, TL_PS_S, 0); /* B seen again: leaving cpu1, so it ran there in the gap */
	finish(1700);
	CHECK_EQ_INT(st(1111, 0, TL_ST_RUNNABLE), 0);       /* woken at 1010, after cpu1's last event (1006) */
	CHECK_EQ_INT(st(1111, 0, TL_ST_UNKNOWN), 10 + 590); /* before its first event, and 1010 .. 1600 */
	CHECK_EQ_INT(st(1111, 0, TL_ST_SLEEPING), 100);
	CHECK_EQ_INT(st(1112, 0, TL_ST_SLEEPING), 100);    /* asleep before the gap, and after it (1600) */
	CHECK_EQ_INT(st(1112, 0, TL_ST_UNKNOWN), 8 + 591); /* before its first event; 1009 .. 1600: woken in it? */
	CHECK_EQ_INT(st(1110, 0, TL_ST_UNKNOWN), 0);       /* running on cpu0 throughout (its CPU lost nothing) */
	CHECK_EQ_INT(tl_sched_counters(S)->lost, 7);
	tl_sched_free(S);
}

/*
 * A sleeper is UNKNOWN while any CPU's lost events may hide its wakeup: from
 * the first gap's start until the last of the gaps it overlaps ends (the
 * CPU's next event), then asleep again.
 */
TEST(lost_events_sleepers)
{
	start();
	sw(1000, 0, 0, 0, 1110);                                  /* A runs on cpu0 */
	sw(1001, 1, 0, 0, 1113);                                  /* D on cpu1 ... */
	sw(1005, 1, 1113, TL_PS_S, 0);                            /* ... sleeps at 1005 */
	ev(1100, 1, TL_EV_LOST, 0, 0, 3, 0, 0, 0, NULL);          /* cpu1's gap from 1005 */
	ev(1150, 0, TL_EV_LOST, 0, 0, 4, 0, 0, 0, NULL);          /* cpu0's from 1000 */
	ev(1200, 1, TL_EV_SOFTIRQ_ENTRY, 0, 0, 1, 0, 0, 0, NULL); /* cpu1's gap ends: cpu0's goes on */
	ev(1201, 1, TL_EV_SOFTIRQ_EXIT, 0, 0, 1, 0, 0, 0, NULL);
	sw(1300, 0, 1110, TL_PS_S, 0); /* cpu0's ends */
	finish(1500);
	CHECK_EQ_INT(st(1113, 0, TL_ST_EXECUTING), 4);
	CHECK_EQ_INT(st(1113, 0, TL_ST_UNKNOWN), 1 + 295); /* before its first event; 1005 .. 1300 */
	CHECK_EQ_INT(st(1113, 0, TL_ST_SLEEPING), 200);    /* 1300 .. 1500 */
	CHECK_EQ_INT(st(1110, 0, TL_ST_UNKNOWN), 300);     /* cpu0's current from its last event, 1000 .. 1300 */
	CHECK_EQ_INT(tl_sched_counters(S)->lost, 7);
	tl_sched_free(S);
}

/*
 * The end of a life (docs/STATES.md, "Exit"): a thread that is not its
 * process's leader ends at its last switch-out (it reaps itself); a leader
 * is a zombie until its parent, woken by its exit, runs again and reaps it;
 * otherwise until sched_process_free.
 */
static void thread_info(uint64_t t, int32_t tid, int32_t tgid)
{
	ev(t, -1, TL_EV_THREAD, tid, tgid, 0, 0, 0, 0, NULL);
}

TEST(zombie_ends_at_reap)
{
	start();
	sw(1000, 0, 0, 0, 200); /* P, the parent process */
	thread_info(1000, 200, 200);
	fork_(1010, 0, 200, 201, "child"); /* C, a process */
	thread_info(1010, 201, 201);
	wakeup_new(1011, 0, 201, 200);
	sw(1012, 1, 0, 0, 201);
	sw(1020, 0, 200, TL_PS_S, 0);       /* P waits for it */
	fork_(1030, 1, 201, 202, "worker"); /* T, a thread of C */
	thread_info(1030, 202, 201);
	wakeup_new(1031, 1, 202, 201);
	sw(1032, 0, 0, 0, 202);
	ev(1040, 0, TL_EV_EXIT, 202, 0, 0, 0, 0, 0, NULL);
	sw(1042, 0, 202, TL_PS_X, 0); /* T is gone */
	ev(1050, 1, TL_EV_EXIT, 201, 0, 0, 0, 0, 0, NULL);
	waking(1052, 1, 200, 201);     /* C's exit wakes P */
	sw(1055, 1, 201, TL_PS_Z, 0);  /* C's last switch-out: a zombie */
	sw(1060, 0, 0, 0, 200);        /* P runs and reaps C */
	fork_(1070, 0, 200, 203, "d"); /* D: P runs again before D's last switch-out */
	thread_info(1070, 203, 203);
	wakeup_new(1071, 0, 203, 200);
	sw(1072, 1, 0, 0, 203);
	sw(1080, 0, 200, TL_PS_S, 0);
	ev(1090, 1, TL_EV_EXIT, 203, 0, 0, 0, 0, 0, NULL);
	waking(1091, 1, 200, 203);
	sw(1093, 0, 0, 0, 200);
	sw(1095, 1, 203, TL_PS_Z, 0);  /* reaped already: gone now */
	fork_(1100, 0, 200, 204, "e"); /* E exits while P runs: no reap seen until its free */
	thread_info(1100, 204, 204);
	wakeup_new(1101, 0, 204, 200);
	sw(1102, 1, 0, 0, 204);
	ev(1105, 1, TL_EV_EXIT, 204, 0, 0, 0, 0, 0, NULL);
	waking(1108, 1, 200, 204);
	sw(1110, 1, 204, TL_PS_Z, 0);
	ev(1300, 1, TL_EV_FREE, 201, 0, 0, 0, 0, 0, NULL); /* too late: ignored */
	ev(1310, 1, TL_EV_FREE, 202, 0, 0, 0, 0, 0, NULL);
	ev(1400, 1, TL_EV_FREE, 204, 0, 0, 0, 0, 0, NULL);
	finish(1500);
	CHECK_EQ_INT(life(202), 12);
	CHECK_EQ_INT(st(202, 0, TL_ST_ZOMBIE), 0);
	CHECK_EQ_INT(life(201), 50);
	CHECK_EQ_INT(st(201, 0, TL_ST_ZOMBIE), 5);
	CHECK_EQ_INT(life(203), 25);
	CHECK_EQ_INT(st(203, 0, TL_ST_ZOMBIE), 0);
	CHECK_EQ_INT(st(204, 0, TL_ST_ZOMBIE), 290);
	CHECK_EQ_INT(life(204), 300);
	CHECK_EQ_INT(life(200), 500);
	tl_sched_free(S);
}

/*
 * A damaged block of the file (the reader's LOST with TL_EVF_DAMAGE, b =
 * the gap's start): it held every CPU's events, so a thread asleep before
 * the gap is UNKNOWN from its start too; the count stays 0 (not known).
 */
TEST(damaged_block_gap)
{
	start();
	sw(1000, 0, 0, 0, 1110);
	ev(1005, 1, TL_EV_SOFTIRQ_ENTRY, 0, 0, 1, 0, 0, 0, NULL);
	ev(1006, 1, TL_EV_SOFTIRQ_EXIT, 0, 0, 1, 0, 0, 0, NULL);
	sw(1008, 0, 1110, TL_PS_PREEMPT, 1112);
	sw(1009, 0, 1112, TL_PS_S, 1110); /* C asleep from 1009 */
	ev(1500, 1, TL_EV_LOST, 0, 0, 0, 1200 * US, 0, TL_EVF_DAMAGE, NULL);
	ev(1510, 0, TL_EV_LOST, 0, 0, 0, 1200 * US, 0, TL_EVF_DAMAGE, NULL); /* the same gap: applied once */
	sw(1600, 0, 1110, TL_PS_S, 0);
	finish(1700);
	CHECK_EQ_INT(st(1112, 0, TL_ST_SLEEPING), 191); /* 1009 .. 1200, the gap's start */
	CHECK_EQ_INT(st(1112, 0, TL_ST_UNKNOWN),
	             8 + 500); /* before its first event; 1200 .. 1700: its wakeup may be in the gap */
	CHECK_EQ_INT(st(1110, 0, TL_ST_EXECUTING), 8); /* 1000 .. 1008 */
	CHECK_EQ_INT(st(1110, 0, TL_ST_UNKNOWN), 591); /* 1009 (cpu0's last event) .. 1600 */
	CHECK_EQ_INT(tl_sched_counters(S)->lost, 0);
	tl_sched_free(S);
}

/*
 * A real occupant's switch-out goes unreported (a hypervisor agent's threads
 * on this project's VM): the waiting thread it preempted is revealed later
 * by an event of its own.  When the occupant left is unknown, so the waiting
 * thread is UNKNOWN until that event, not EXECUTING from the occupant's start.
 */
TEST(hidden_real_occupant)
{
	start();
	sw(1000, 0, 0, 0, 1950);                /* T runs */
	sw(1100, 0, 1950, TL_PS_PREEMPT, 1951); /* O preempts it */
	/* O's switch back to T is not reported; T's own event shows it running */
	ev(1400, 0, TL_EV_FUTEX_ENTER, 1950, 0, TL_FUTEX_WAKE, 0, 0, 0, NULL);
	sw(1500, 0, 1950, TL_PS_S, 0);
	finish(1600);
	CHECK_EQ_INT(st(1950, 0, TL_ST_EXECUTING), 100 + 100); /* 1000..1100 and 1400..1500 */
	CHECK_EQ_INT(st(1950, 0, TL_ST_UNKNOWN), 300);         /* 1100..1400: nobody knows */
	CHECK_EQ_INT(st(1951, 0, TL_ST_UNKNOWN) >= 300, 1);    /* O: from its switch-in on */
	CHECK_EQ_INT(tl_sched_counters(S)->inferred_switches, 1);
	tl_sched_free(S);
}

/*
 * A filtered recording (TL_EVF_OTHER_*): other processes' tasks have no
 * states, the CPU's time while they (or idle) hold it is FILTERED, a woken
 * outsider still tells a preemption, and no event of theirs reveals them.
 */
static void sw_f(uint64_t t, int cpu, int32_t prev, int64_t state, int32_t next, uint16_t flags)
{
	ev(t, cpu, TL_EV_SWITCH, prev, next, state, 120, 120, flags, NULL);
}

TEST(filtered_stretches)
{
	start();
	sw_f(1000, 0, 0, 0, 100, TL_EVF_OTHER_TID); /* the CPU's first switch: idle is not recorded */
	sw_f(1000, 1, 0, 0, 101, TL_EVF_OTHER_TID);
	sw_f(1050, 1, 101, TL_PS_S, 0, TL_EVF_OTHER_ARG);
	ev(1100, 0, TL_EV_WAKEUP, 900, 100, 0, 120, 0, TL_EVF_OTHER_TID, NULL); /* an outsider woken here */
	sw_f(1101, 0, 100, TL_PS_RUNNING, 900, TL_EVF_OTHER_ARG);               /* ... preempts 100 */
	wakeup(1200, 0, 101, 903); /* 903, an outsider in the stretch, wakes 101: 903 stays unknown */
	sw_f(1250, 1, 904, TL_PS_RUNNING, 101, TL_EVF_OTHER_TID); /* another outsider than the one switched to */
	sw_f(1300, 0, 902, TL_PS_S, 100, TL_EVF_OTHER_TID);
	sw_f(1350, 1, 101, TL_PS_S, 0, TL_EVF_OTHER_ARG);
	sw_f(1400, 0, 100, TL_PS_S, 0, TL_EVF_OTHER_ARG);
	CHECK_EQ_INT(tl_sched_thread(S, 900)->outsider && tl_sched_thread(S, 902)->outsider, 1);
	CHECK_EQ_INT(tl_sched_thread(S, 100)->outsider, 0);
	CHECK_EQ_INT(tl_sched_thread(S, 903) == NULL, 1); /* a waker in a stretch is not followed */
	finish(1500);
	CHECK_EQ_INT(st(100, 0, TL_ST_EXECUTING), 101 + 100);
	CHECK_EQ_INT(st(100, 0, TL_ST_READY_PREEMPT), 199);
	CHECK_EQ_INT(st(100, 0, TL_ST_SLEEPING), 100);
	CHECK_EQ_INT(st(101, 0, TL_ST_RUNNABLE), 50);
	CHECK_EQ_INT(st(101, 0, TL_ST_EXECUTING), 50 + 100);
	CHECK_EQ_INT(R.cpu_ns[0][TL_CPU_THREAD] / US, 201);
	CHECK_EQ_INT(R.cpu_ns[0][TL_CPU_FILTERED] / US, 199 + 100);
	CHECK_EQ_INT(R.cpu_ns[1][TL_CPU_FILTERED] / US, 200 + 150);
	CHECK_EQ_INT(R.cpu_ns[0][TL_CPU_UNKNOWN] + R.cpu_ns[1][TL_CPU_UNKNOWN], 0);
	CHECK_EQ_INT(st(900, 0, TL_ST_EXECUTING) + st(900, 0, TL_ST_RUNNABLE), 0);
	CHECK_EQ_INT(tl_sched_counters(S)->anomalies, 0);
	CHECK_EQ_INT(tl_sched_counters(S)->inferred_switches + tl_sched_counters(S)->inferred_wakeups, 0);
	tl_sched_free(S);
}

/* cross-CPU race: woken while switching out -> no sleep at all */
TEST(waking_before_switch_out)
{
	start();
	sw(1000, 0, 0, 0, 1200);
	waking(1020, 1, 1200, 1201);   /* fires while 1200 is still on cpu0 */
	sw(1021, 0, 1200, TL_PS_S, 0); /* shows S, but it is already woken */
	wakeup(1022, 1, 1200, 1201);
	sw(1030, 0, 0, 0, 1200);
	/* a wakeup that completes while running cancels the pending waking */
	waking(1040, 1, 1200, 1201);
	wakeup(1040, 1, 1200, 1201);
	sw(1050, 0, 1200, TL_PS_S, 0); /* a real sleep now */
	waking(1070, 1, 1200, 1201);
	sw(1071, 0, 0, 0, 1200);
	finish(1080);
	CHECK_EQ_INT(st(1200, 0, TL_ST_SLEEPING), 20);
	CHECK_EQ_INT(st(1200, 0, TL_ST_RUNNABLE), 9 + 1);
	CHECK_EQ_INT(st(1200, 0, TL_ST_EXECUTING), 21 + 20 + 9);
	CHECK_EQ_INT(life(1200), 80);
	CHECK_EQ_INT(tl_sched_counters(S)->late_wakeups, 1);
	tl_sched_free(S);
}

/* a tid reused after reaping is a new thread */
TEST(pid_reuse)
{
	start();
	sw(1000, 0, 0, 0, 50);
	fork_(1001, 0, 50, 1300, "first");
	wakeup_new(1001, 0, 1300, 50);
	sw(1005, 0, 50, TL_PS_S, 1300);
	ev(1010, 0, TL_EV_EXIT, 1300, 0, 0, 0, 0, 0, NULL);
	sw(1011, 0, 1300, TL_PS_X, 0);
	ev(1020, 1, TL_EV_FREE, 1300, 0, 0, 0, 0, 0, NULL);
	fork_(1030, 1, 51, 1300, "second");
	wakeup_new(1031, 1, 1300, 51);
	sw(1032, 1, 0, 0, 1300);
	finish(1040);
	CHECK_EQ_INT(st(1300, 0, TL_ST_EXECUTING), 6);
	CHECK_EQ_INT(st(1300, 0, TL_ST_ZOMBIE), 9);
	CHECK_EQ_INT(st(1300, 1, TL_ST_NEW), 1);
	CHECK_EQ_INT(st(1300, 1, TL_ST_RUNNABLE), 1);
	CHECK_EQ_INT(st(1300, 1, TL_ST_EXECUTING), 8);
	CHECK_EQ_INT(tl_sched_counters(S)->anomalies, 0);
	CHECK_EQ_INT(R.gaps, 0);
	tl_sched_free(S);
}

/* /proc snapshot at the start: S in a futex -> SYNC_WAIT from the trace start */
TEST(snapshot_state)
{
	start();
	ev(1000, -1, TL_EV_THREAD, 1400, 1400, TL_PS_SNAPSHOT | TL_PS_S, 1, 2, 0, "snap");
	ev(1000, -1, TL_EV_THREAD, 1401, 1400, TL_PS_SNAPSHOT | TL_PS_D, 2, 2, 0, "snapio");
	waking(1030, 1, 1400, 1402);
	ev(1040, 0, TL_EV_WAKING, 1401, 0, 0, 120, 0, 0, NULL);
	finish(1050);
	CHECK_EQ_INT(st(1400, 0, TL_ST_SYNC_WAIT), 30);
	CHECK_EQ_INT(st(1400, 0, TL_ST_UNKNOWN), 0);
	CHECK_EQ_INT(st(1401, 0, TL_ST_IO_WAIT), 40);
	CHECK_EQ_INT(life(1400), 50);
	tl_sched_free(S);
}

/* the recorder names a child (THREAD) just before its FORK: one thread, born at the fork */
TEST(identity_before_fork)
{
	start();
	ev(1010, 0, TL_EV_THREAD, 1500, 1499, 0, 0, 0, 0, "kid");
	fork_(1010, 0, 1499, 1500, "kid");
	wakeup_new(1012, 0, 1500, 1499);
	finish(1020);
	CHECK_EQ_INT(R.n, 2);                         /* the parent and the child */
	CHECK_EQ_INT(st(1500, 1, TL_ST_NEW), 999999); /* no second instance */
	CHECK_EQ_INT(st(1500, 0, TL_ST_NEW), 2);
	CHECK_EQ_INT(st(1500, 0, TL_ST_RUNNABLE), 8);
	CHECK_EQ_INT(life(1500), 10);
	tl_sched_free(S);
}

/* preempted by a woken task, then waiting for its turn behind a third: PREEMPT, then QUANTUM */
TEST(preempt_then_turn)
{
	start();
	sw(1000, 0, 0, 0, 1700);                /* B runs */
	sw(1004, 0, 1700, TL_PS_RUNNING, 1701); /* slice over: A runs, B waits (quantum) */
	waking(1010, 1, 1702, 5);
	sw(1010, 0, 1701, TL_PS_RUNNING, 1702); /* W preempts A */
	sw(1012, 0, 1702, TL_PS_S, 1700);       /* W sleeps; B's turn: A waits for it */
	sw(1020, 0, 1700, TL_PS_RUNNING, 1701);
	finish(1030);
	CHECK_EQ_INT(st(1701, 0, TL_ST_READY_PREEMPT), 2);
	CHECK_EQ_INT(st(1701, 0, TL_ST_READY_QUANTUM), 8);
	CHECK_EQ_INT(by(1701, TL_ST_READY_PREEMPT), 1702);
	CHECK_EQ_INT(by(1701, TL_ST_READY_QUANTUM), 1700);
	CHECK_EQ_INT(st(1700, 0, TL_ST_READY_QUANTUM), 8 + 10);
	CHECK_EQ_INT(life(1701), 30);
	tl_sched_free(S);
}

/* the kernel did not report the switch out of idle: inferred from later events */
TEST(missing_switch_from_idle)
{
	start();
	sw(1000, 1, 1600, TL_PS_S, 0);                               /* X sleeps, cpu1 idle */
	ev(1050, 1, TL_EV_RUNTIME, 1600, 0, 20 * US, 0, 0, 0, NULL); /* X has run 20 us: in since 1030 */
	sw(1060, 1, 1600, TL_PS_S, 0);
	waking(1100, 0, 1600, 1601);   /* woken onto idle cpu1 (target 0 here is fine) */
	sw(1150, 1, 1600, TL_PS_S, 0); /* no runtime event: in since its wakeup */
	ev(1200, 1, TL_EV_FUTEX_ENTER, 1600, 0, TL_FUTEX_WAKE, 0, 0, 0, NULL); /* woken unseen: in since now */
	sw(1210, 1, 1600, TL_PS_S, 0);
	finish(1300);
	CHECK_EQ_INT(st(1600, 0, TL_ST_EXECUTING), 30 + 50 + 10);
	CHECK_EQ_INT(st(1600, 0, TL_ST_SLEEPING), 30 + 40 + 50 + 90);
	CHECK_EQ_INT(st(1600, 0, TL_ST_RUNNABLE), 0);
	/* three waits of 0 ns that nobody measured: flagged, so that no 0-ns latency is invented */
	CHECK_EQ_INT(R.entries[0][TL_ST_RUNNABLE], 3);
	CHECK_EQ_INT(R.inferred[0][TL_ST_RUNNABLE], 3);
	CHECK_EQ_INT(R.inferred[0][TL_ST_SLEEPING], 2); /* the unseen wakeups (1030, 1200) end sleeps at a guess */
	CHECK_EQ_INT(R.cpu_ns[1][TL_CPU_THREAD] / US, 90);
	CHECK_EQ_INT(tl_sched_counters(S)->inferred_switches, 3);
	CHECK_EQ_INT(tl_sched_counters(S)->anomalies, 0);
	CHECK_EQ_INT(life(1600), 300);
	tl_sched_free(S);
}

/* a hidden task's events are missing: its switch to idle, its switch in, the wakeups it made */
TEST(hidden_occupant)
{
	start();
	sw(1000, 0, 0, 0, 1800); /* H runs on cpu0; later its events vanish */
	/* H switched to idle unseen; the idle task then switches to X (seen) */
	waking(1020, 1, 1801, 1802);
	sw(1030, 0, 0, 0, 1801);
	/* X's switch to H unseen; H woke Y unseen; Y shows up switched in from H (seen as prev H? no:
	 * H is hidden, so the next thing seen is Y's own event on cpu0) */
	ev(1050, 0, TL_EV_FUTEX_ENTER, 1803, 0, TL_FUTEX_WAKE, 0, 0, 0, NULL);
	sw(1060, 0, 1803, TL_PS_S, 0);
	finish(1100);
	CHECK_EQ_INT(st(1800, 0, TL_ST_EXECUTING), 0); /* its last event was the switch-in at 1000 */
	CHECK_EQ_INT(st(1800, 0, TL_ST_UNKNOWN), 100);
	CHECK_EQ_INT(st(1801, 0, TL_ST_RUNNABLE), 10);
	CHECK_EQ_INT(st(1801, 0, TL_ST_EXECUTING), 20); /* until Y was seen running */
	CHECK_EQ_INT(st(1801, 0, TL_ST_UNKNOWN), 20 + 50);
	CHECK_EQ_INT(st(1803, 0, TL_ST_EXECUTING), 10); /* its wakeup unseen: from its first event */
	CHECK_EQ_INT(tl_sched_counters(S)->anomalies, 0);
	CHECK_EQ_INT(tl_sched_counters(S)->inferred_switches, 2);
	CHECK_EQ_INT(tl_sched_counters(S)->inferred_wakeups, 1);
	CHECK_EQ_INT(R.gaps, 0);
	tl_sched_free(S);
}

/* after sched_process_exit a thread may still sleep in its exit path */
TEST(sleep_in_exit_path)
{
	start();
	sw(1000, 0, 0, 0, 1900);
	ev(1010, 0, TL_EV_EXIT, 1900, 0, 0, 0, 0, 0, NULL);
	sw(1020, 0, 1900, TL_PS_D, 0);
	waking(1030, 1, 1900, 1901);
	sw(1031, 0, 0, 0, 1900);
	sw(1040, 0, 1900, TL_PS_X, 0);
	ev(1050, 1, TL_EV_FREE, 1900, 0, 0, 0, 0, 0, NULL);
	finish(1100);
	CHECK_EQ_INT(st(1900, 0, TL_ST_BLOCKED), 10);
	CHECK_EQ_INT(st(1900, 0, TL_ST_EXECUTING), 20 + 9);
	CHECK_EQ_INT(st(1900, 0, TL_ST_ZOMBIE), 10);
	CHECK_EQ_INT(tl_sched_counters(S)->anomalies, 0);
	CHECK_EQ_INT(life(1900), 50);
	tl_sched_free(S);
}

/*
 * A thread waiting for a CPU that another process's tasks held (their
 * switches stayed in the kernel) is seen leaving it: when it got the CPU
 * is not known, so that time is UNKNOWN, not on-CPU time.
 */
TEST(switch_in_hidden_in_filtered_stretch)
{
	start();
	sw(1000, 0, 0, 0, 1110);                                   /* A on cpu0 */
	waking(1010, 0, 1111, 1110);                               /* B woken, waits */
	sw_f(1020, 0, 1110, TL_PS_S, 900, TL_EVF_OTHER_ARG);       /* another process's task: filtered from here */
	sw_f(1300, 0, 1111, TL_PS_PREEMPT, 901, TL_EVF_OTHER_ARG); /* B leaves cpu0: it ran there, since when? */
	finish(1400);
	CHECK_EQ_INT(st(1111, 0, TL_ST_RUNNABLE), 10);      /* 1010 .. 1020 */
	CHECK_EQ_INT(st(1111, 0, TL_ST_UNKNOWN), 10 + 280); /* before its first event; 1020 .. 1300 */
	CHECK_EQ_INT(st(1111, 0, TL_ST_EXECUTING), 0);
	tl_sched_free(S);
}

int main(void)
{
	RUN_TESTS(life_cycle, zero_length_interval, running_before_trace, sync_wait, io_wait_and_blocked, ready_kinds,
	          interrupted, stopped_and_zombie, migration_mid_run, lost_events, waking_before_switch_out, pid_reuse,
	          snapshot_state, identity_before_fork, missing_switch_from_idle, preempt_then_turn, hidden_occupant,
	          sleep_in_exit_path, lost_events_waiting_thread, lost_events_sleepers, damaged_block_gap,
	          zombie_ends_at_reap, hidden_real_occupant, filtered_stretches, switch_in_hidden_in_filtered_stretch,
	          interrupt_wakers);
}
