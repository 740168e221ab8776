/*
 * test_sched.c - the thread-state machine on hand-written event sequences.
 *
 * Each test feeds a short sequence of events (times in microseconds from a
 * trace start of 1000 us) and checks the exact time each thread spent in
 * each state, the transitions and the CPU activity.  Every test also checks
 * the invariant that a thread's intervals are gapless and sum to its life.
 */
#include "sched_harness.h"

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

/*
 * Running before the trace, and interrupted before its first switch: the
 * first interrupt that names it on a CPU with no switch yet says it has run
 * there since the trace start (a spinner alone on a CPU under record -a).
 * The CPU's time since its last interrupt becomes the thread's too (its
 * earlier stretches are past: UNKNOWN).  A thread asleep at the start (its
 * snapshot) is not taken.
 */
TEST(running_before_trace_interrupted)
{
	start();
	ev(1000, -1, TL_EV_THREAD, 300, 300, TL_PS_S | TL_PS_SNAPSHOT, 0, 0, 0, "sleeper");
	ev(1010, 1, TL_EV_IRQ_ENTRY, 200, 0, 11, 0, 0, TL_EVF_HARDIRQ, NULL);
	ev(1012, 1, TL_EV_IRQ_EXIT, 200, 0, 11, 1, 0, TL_EVF_HARDIRQ, NULL);
	ev(1012, 1, TL_EV_SOFTIRQ_ENTRY, 200, 0, 3, 0, 0, TL_EVF_SOFTIRQ, NULL);
	ev(1013, 1, TL_EV_SOFTIRQ_EXIT, 200, 0, 3, 0, 0, TL_EVF_SOFTIRQ, NULL);
	ev(1020, 0, TL_EV_IRQ_ENTRY, 300, 0, 11, 0, 0, TL_EVF_HARDIRQ, NULL); /* the sleeper: not taken */
	ev(1021, 0, TL_EV_IRQ_EXIT, 300, 0, 11, 1, 0, TL_EVF_HARDIRQ, NULL);
	ev(1050, 1, TL_EV_IRQ_ENTRY, 200, 0, 11, 0, 0, TL_EVF_HARDIRQ, NULL);
	ev(1052, 1, TL_EV_IRQ_EXIT, 200, 0, 11, 1, 0, TL_EVF_HARDIRQ, NULL);
	sw(1080, 1, 200, TL_PS_S, 0);
	finish(1100);
	CHECK_EQ_INT(st(200, 0, TL_ST_EXECUTING), 10 + 37 + 28);
	CHECK_EQ_INT(st(200, 0, TL_ST_INTERRUPTED), 2 + 1 + 2);
	CHECK_EQ_INT(st(200, 0, TL_ST_SLEEPING), 20);
	CHECK_EQ_INT(st(200, 0, TL_ST_UNKNOWN), 0);
	CHECK_EQ_INT(st(300, 0, TL_ST_SLEEPING), 100);
	CHECK_EQ_INT(R.cpu_ns[1][TL_CPU_THREAD] / US, 10 + 37 + 28);
	CHECK_EQ_INT(R.cpu_ns[1][TL_CPU_UNKNOWN] / US, 0);
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

int main(void)
{
	RUN_TESTS(life_cycle, zero_length_interval, running_before_trace, running_before_trace_interrupted, sync_wait,
	          io_wait_and_blocked, ready_kinds, interrupted, interrupt_wakers, stopped_and_zombie,
	          migration_mid_run, zombie_ends_at_reap, waking_before_switch_out, pid_reuse, snapshot_state,
	          identity_before_fork, preempt_then_turn, sleep_in_exit_path);
}
