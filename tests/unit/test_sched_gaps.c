/*
 * test_sched_gaps.c - the thread-state machine where the trace has holes:
 * lost events, damaged blocks, switches the kernel did not report, and
 * filtered stretches (other processes' tasks left in the kernel).  What
 * a gap may hide is UNKNOWN, never invented (docs/STATES.md); the tests
 * check the exact time of each state, as test_sched.c does.
 */
#include "sched_harness.h"

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
 * A thread forked just before its CPU loses events: its WAKEUP_NEW (which
 * follows the fork at once) may be in the gap, so it is UNKNOWN from the
 * gap's start until it is seen running, not NEW (the kernel counts that
 * time as run-queue wait), and the gap's end does not make it NEW again.
 */
TEST(lost_events_new_thread)
{
	start();
	sw(1000, 0, 0, 0, 1110);                                  /* A runs on cpu0 */
	ev(1010, 0, TL_EV_FORK, 1120, 1110, 0, 0, 0, 0, "child"); /* A forks E */
	ev(1020, 0, TL_EV_LOST, 0, 0, 5, 0, 0, 0, NULL);          /* cpu0's gap from 1010 */
	ev(1025, 0, TL_EV_SOFTIRQ_ENTRY, 0, 0, 1, 0, 0, 0, NULL); /* cpu0's gap ends */
	ev(1026, 0, TL_EV_SOFTIRQ_EXIT, 0, 0, 1, 0, 0, 0, NULL);
	sw(1030, 1, 0, 0, 1120); /* E runs on cpu1 */
	sw(1040, 1, 1120, TL_PS_S, 0);
	finish(1100);
	CHECK_EQ_INT(st(1120, 0, TL_ST_NEW), 0);
	CHECK_EQ_INT(st(1120, 0, TL_ST_UNKNOWN), 20); /* 1010 .. 1030 */
	CHECK_EQ_INT(st(1120, 0, TL_ST_EXECUTING), 10);
	CHECK_EQ_INT(st(1120, 0, TL_ST_SLEEPING), 60);
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

/*
 * A CPU limit in a filtered recording.  The recorder keeps every switch of
 * a CPU that a recorded thread waits on runnable (filter.h, "Held"), so
 * the switch of an outsider to idle is seen: A (preempted by B) and B
 * (preempted by a kernel thread, 900) are held back from 1021, when the
 * CPU goes idle with both waiting, until a recorded thread runs again
 * (1070); a kworker's moment on the CPU inside (1040-1041) does not end
 * the hold.  Then B waits its turn behind A.
 */
TEST(held_back_in_filtered_stretch)
{
	const uint16_t both = TL_EVF_OTHER_TID | TL_EVF_OTHER_ARG;

	start();
	sw_f(1000, 0, 0, 0, 100, TL_EVF_OTHER_TID);
	wakeup(1002, 0, 101, 100);
	sw(1010, 0, 100, TL_PS_RUNNING, 101); /* A's turn is over */
	ev(1020, 0, TL_EV_WAKEUP, 900, 101, 0, 120, 0, TL_EVF_OTHER_TID, NULL);
	sw_f(1020, 0, 101, TL_PS_RUNNING, 900, TL_EVF_OTHER_ARG); /* the woken kernel thread preempts B */
	sw_f(1021, 0, 900, TL_PS_I, 0, both);                     /* ... and idles: the quota ran out */
	ev(1040, 0, TL_EV_WAKEUP, 901, 0, 0, 120, 0, both, NULL);
	sw_f(1040, 0, 0, TL_PS_RUNNING, 901, both);
	sw_f(1041, 0, 901, TL_PS_I, 0, both);
	sw_f(1070, 0, 0, TL_PS_RUNNING, 100, TL_EVF_OTHER_TID); /* the next period */
	sw(1075, 0, 100, TL_PS_RUNNING, 101);
	finish(1080);
	CHECK_EQ_INT(R.held[find(100)], 1);
	CHECK_EQ_INT(R.held_ns[find(100)] / US, 49);
	CHECK_EQ_INT(st(100, 0, TL_ST_READY_PREEMPT), 11); /* B, just woken, took its CPU; then 900 */
	CHECK_EQ_INT(st(100, 0, TL_ST_READY_QUANTUM), 49 + 5);
	CHECK_EQ_INT(R.held[find(101)], 1);
	CHECK_EQ_INT(R.held_ns[find(101)] / US, 49);
	CHECK_EQ_INT(st(101, 0, TL_ST_READY_PREEMPT), 1);
	CHECK_EQ_INT(st(101, 0, TL_ST_READY_QUANTUM), 49 + 5);
	CHECK_EQ_INT(by(101, TL_ST_READY_QUANTUM), 100);
	CHECK_EQ_INT(R.cpu_ns[0][TL_CPU_FILTERED] / US, 50);
	CHECK_EQ_INT(tl_sched_counters(S)->anomalies, 0);
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

/*
 * An interrupt of the idle task shows that the CPU's believed occupant left
 * it unseen (no switch out of this VM's agent threads is ever reported):
 * its stay ends at its last event, not at the next switch.
 */
TEST(idle_interrupted_after_hidden_switch)
{
	start();
	sw(1000, 0, 0, 0, 1900);     /* A on cpu0 */
	waking(1100, 0, 1901, 1900); /* A wakes B: A runs then */
	/* A's switch to idle is not reported; then an interrupt of the idle task */
	ev(2000, 0, TL_EV_IRQ_ENTRY, 0, 0, 11, 0, 0, TL_EVF_HARDIRQ, NULL);
	ev(2010, 0, TL_EV_IRQ_EXIT, 0, 0, 11, 1, 0, TL_EVF_HARDIRQ, NULL);
	sw(3000, 0, 0, 0, 1901); /* idle to B */
	finish(3100);
	CHECK_EQ_INT(st(1900, 0, TL_ST_EXECUTING), 100); /* 1000 .. 1100, its last event */
	CHECK_EQ_INT(st(1900, 0, TL_ST_INTERRUPTED), 0);
	CHECK_EQ_INT(st(1900, 0, TL_ST_UNKNOWN), 2000); /* 1100 .. 3100 */
	CHECK_EQ_INT(R.cpu_ns[0][TL_CPU_IDLE] / US, 900 + 990);
	CHECK_EQ_INT(R.cpu_ns[0][TL_CPU_IRQ] / US, 10);
	CHECK_EQ_INT(tl_sched_counters(S)->inferred_switches, 1);
	CHECK_EQ_INT(tl_sched_counters(S)->anomalies, 0);
	tl_sched_free(S);
}

/*
 * A recorded thread preempted by another process's task (its switch back
 * not reported, a filtered stretch) is seen again by its exit, an event
 * in its own context: it ran from some time we do not know, not waited
 * preempted until it exited (a compiler's cc1 showed 3.9 ms of
 * READY_PREEMPT where the kernel said it ran).
 */
TEST(exit_in_filtered_stretch)
{
	start();
	sw(1000, 0, 0, 0, 1120);                                   /* A on cpu0 */
	sw_f(1100, 0, 1120, TL_PS_PREEMPT, 900, TL_EVF_OTHER_ARG); /* another process's task: filtered */
	ev(1500, 0, TL_EV_EXIT, 1120, 0, 0, 0, 0, 0, NULL);        /* the switch back was not reported */
	sw(1600, 0, 1120, TL_PS_Z, 0);
	finish(1700);
	CHECK_EQ_INT(st(1120, 0, TL_ST_READY_PREEMPT), 0);
	CHECK_EQ_INT(st(1120, 0, TL_ST_UNKNOWN), 400);         /* 1100 .. 1500 */
	CHECK_EQ_INT(st(1120, 0, TL_ST_EXECUTING), 100 + 100); /* 1000 .. 1100, 1500 .. 1600 */
	tl_sched_free(S);
}

int main(void)
{
	RUN_TESTS(held_back_in_filtered_stretch, lost_events, lost_events_waiting_thread, lost_events_sleepers,
	          lost_events_new_thread, damaged_block_gap, hidden_real_occupant, filtered_stretches,
	          missing_switch_from_idle, hidden_occupant, switch_in_hidden_in_filtered_stretch,
	          idle_interrupted_after_hidden_switch, exit_in_filtered_stretch);
}
