/*
 * kcheck.h - the self-check: each thread's state times, as the trace tells
 * them, against the kernel's own accounting of the same thread, recorded
 * in the trace as KSTAT/KSTAT_CSW readings (capture/kwatch.h).
 *
 * For a thread with a reading (or its birth in the trace) at `from` and a
 * later one at `to` (trace end, or its exit):
 *
 *   trace side (this walk)              kernel side (to - from)
 *   EXECUTING + INTERRUPTED          vs  run time (sum_exec_runtime)
 *   RUNNABLE (from the WAKEUP)       vs  run-queue wait (run_delay)
 *     + READY_*
 *   IO_WAIT                          vs  block-I/O delay (delay accounting)
 *   switches out, blocked            vs  voluntary switches
 *   switches out, runnable (R, R+)   vs  involuntary switches
 *
 * Tolerances (issue "Numbers you can trust", part 3): times within 1% of
 * the compared window or 1 ms, whichever is more; switch counts within 1%
 * or 1.  Block-I/O delay is shown, not judged: the trace's IO_WAIT is
 * every D-state sleep on block I/O, the kernel's only the synchronous
 * part.  An exited thread is compared up to its EXIT event: the kernel
 * sends its exit totals (taskstats_exit) just before sched_process_exit,
 * so what follows (a last preemption, the final switch-out) is in neither.
 * Its run time there is as of the last update of it (its switch-in, a
 * tick, a wakeup on its CPU): a short-lived process that never left the
 * CPU showed 0 ns for 1.03 ms of run.  The check allows the time from its
 * switch-in to its EXIT (lag_exit, capped at TL_KCHECK_MAX_LAG_NS); with
 * the EXIT lost, from the last update of its last stay to the gap that
 * ended it (kcheck.c, close_early()).
 *
 * The kernel dates a switch from its CPU's last clock update, not from the
 * switch.  Measured on this project's VM (a SCHED_FIFO thread woken by a
 * timer beside a spinning thread on the same CPU, 30 wakeups): by the
 * thread's own wall clock it ran its first instruction 161 us after the
 * deadline on average, the trace put it RUNNABLE for 152 us before its
 * switch-in, and the kernel charged it 152 us of CPU time across each sleep
 * and 0.7 us of run-queue wait; without recording, 25-30 us and 20-25 us.
 * So on-CPU time moves between the two threads of a switch by the lag
 * between the CPU's last clock update (which the trace sees as the CPU's
 * last wakeup or interrupt event since its previous switch) and the
 * switch.  A wakeup that makes a CPU switch (onto an idle CPU, or a
 * preemption) skips the switch's own clock update (rq_clock_skip_update()),
 * so then the clock is the one of the enqueue (the WAKEUP whose target the
 * CPU is, wherever it fired), however many interrupts come between: a
 * direct-I/O writer woken by the disk's interrupt ran its softirq after the
 * enqueue, and counting from the softirq left 2-6% of the window unallowed
 * (tests/live/kernel.sh, kernel-dio).  On such workloads the kernel's
 * numbers say little: 7134 wakeups of a writer showed 1.8 ms of run-queue
 * wait in the kernel and 60 ms in the trace, the kernel charging the rest
 * as run time.  The same skip dates a thread that blocks after such an
 * enqueue onto its CPU (the enqueued thread comes next) at the enqueue: it
 * is charged that lag less run time, which nobody else's wait makes up
 * (lag_end; the sum of run and wait may be that much shorter too).
 *
 * A switch to sleep is dated where schedule() updated the clock, before it
 * dequeued the thread and chose the next one (with idle balancing when
 * nothing is left): that much of the thread's last run goes to the next
 * task, or to nobody when the CPU goes idle, so the kernel's run time and
 * its sum of run and wait are short by it at every sleep.  Measured without
 * a recording (a BPF program comparing, per sleep, the time from the
 * WAKEUP to the switch out with the change of sum_exec_runtime + run_delay;
 * docs/REPORT.md, "Self-check"): 0.9-1.3 us on average when the CPU goes
 * idle (a direct-I/O reader, 7431 sleeps: 6.8 ms), 0.1-0.8 us when another
 * thread comes next.  A 9000-sleep direct-I/O reader is thus 1.3% of its
 * window short in the kernel.  The check allows TL_KCHECK_SLEEP_LAG_NS per
 * such sleep, or less when an event on the CPU (a wakeup it sent, an
 * interrupt) came later than that before the switch (lag_sleep).
 *
 * The check allows, per thread, the sum of these lags (each capped at
 * TL_KCHECK_MAX_LAG_NS) in the direction the kernel errs: more run time
 * and less wait for the thread switched in (lag_in), less run and more wait
 * for a runnable thread switched out (lag_out), less run for a thread that
 * sleeps (lag_end, lag_sleep).  The sum of on-CPU time and run-queue wait
 * does not depend on where a switch-in or a preemption is dated, so it is
 * held to the plain tolerance plus lag_end and lag_sleep.
 *
 * A wakeup from another CPU first marks the thread waking (sched_waking,
 * where the trace's RUNNABLE begins) and enqueues it on its CPU later, at
 * sched_wakeup (an IPI: 15-20 us here); the kernel's run-queue wait starts
 * at the enqueue, so the check counts RUNNABLE from the WAKEUP.  But when
 * the target CPU is busy, the waker enqueues the thread itself, holding
 * the target's lock, and the WAKEUP fires on the waker's CPU after the
 * enqueue and the request to preempt (an IPI, a VM exit on a guest): the
 * kernel dated the enqueue at its clock update before all that.  Measured
 * (bench/kdating.sh, a contended mutex beside two busy loops): 891 such
 * wakeups dated 8.2 us before their WAKEUP on average, against 0.3-0.5 us
 * for a WAKEUP on the target CPU; the thread's run+wait was 6.8 ms (1.4%
 * of its window) short in the trace.  So a WAKEUP that fired on another
 * CPU than its target may have been dated as early as its WAKING (capped
 * at TL_KCHECK_MAX_WAKE_NS): the kernel may show that much more wait, and
 * more run time when the switch-in keeps the enqueue's clock (lag_wake;
 * lag_in counts from the WAKING then).
 *
 * All of the above is an estimate from the trace's other events.  A trace
 * of format 1.6 from the eBPF back end has the lag itself on every switch
 * and enqueue (trace/event.h, `lag`): how long before the event the run
 * queue's clock that dates it was last updated.  Then the check dates as
 * the kernel does, and allows nothing for clock lags: per thread, the
 * kernel's run time is the trace's plus the lags of its switch-ins less
 * those of its switch-outs (lag_run), and its run-queue wait the trace's
 * (from each WAKEUP, or a preemption that left it running) plus the lags
 * of those enqueues and preemptions less those of the switch-ins that end
 * them (lag_wait).  One more rule of the kernel's: a thread preempted on
 * its way to sleep (state S or D at the switch) is not queued in its
 * accounting (sched_info_depart() queues only a running task), so that
 * wait is in no run_delay.  An EXIT's lag says where its exit totals end
 * (lag_exit is then not needed).  What is left is held to the plain
 * tolerance, beside steal time and UNKNOWN time: measured, 0.00-0.03% of
 * the window for run time and up to 0.38% for the wait, where the
 * undated differences were 3-13% (tests/live/kernel.sh).
 *
 * UNKNOWN: time the trace says it cannot account for (lost events, a
 * switch nobody reported) may hide run or wait time, so the trace may show
 * up to that much less of either, never more.
 *
 * Steal time: a hypervisor that runs something else while a vCPU has work
 * takes time that the kernel leaves out of the running thread's run time
 * (PARAVIRT_TIME_ACCOUNTING) and that a trace cannot see.  The readings
 * hold each CPU's steal counter (KSTAT_CPU, in ticks); a thread may show
 * that much more on-CPU time (and runnable time) than the kernel, for the
 * CPUs it ran on.  Seen on this project's VM: 10 ms in a 620 ms run.
 *
 * It is not an analysis of its own walk: any analysis feeds it the events
 * and intervals of its walk (the report does), so the check costs no
 * second read.
 */
#ifndef TL_KCHECK_H
#define TL_KCHECK_H

#include <stddef.h>
#include <stdint.h>

#include "timeline/state_machine.h"
#include "trace/event.h"

#define TL_KCHECK_MIN_TOL_NS 1000000ull /* 1 ms */
/*
 * The most clock lag believed of one switch: a busy CPU's clock is updated
 * at every tick at least, 10 ms at HZ=100 (measured: 25-170 us at a
 * wakeup's preemption; 1.8-2.4 ms when a kernel without preemption, as
 * here, preempts a thread in a system call only at its next preemption
 * point, dated at the tick or the enqueue before it).
 */
#define TL_KCHECK_MAX_LAG_NS 10000000ull
#define TL_KCHECK_MAX_WAKE_NS 250000ull /* the most believed from a WAKING to its enqueue (measured: 6-19 us) */
#define TL_KCHECK_SLEEP_LAG_NS \
	1500ull               /* the most believed from a sleep's clock update to its switch (0.1-1.3 us mean) */
#define TL_KCHECK_TOL_PCT 1.0 /* of the window, and of a switch count */

enum tl_kcheck_have {
	TL_KCHECK_WAIT = 1 << 0,     /* run-queue wait on both readings (delay accounting on) */
	TL_KCHECK_BLKIO = 1 << 1,    /* block-I/O delay on both */
	TL_KCHECK_SWITCHES = 1 << 2, /* switch counts on both */
};

struct tl_kcheck_side {
	uint64_t run_ns, wait_ns, blkio_ns;
	uint64_t vol, invol;
};

struct tl_kcheck_thread {
	int32_t tid;
	uint64_t from, to; /* the compared window, absolute ns */
	int born;          /* created in the trace: the kernel's counters start at 0 at `from` */
	int exited;        /* the end reading is its exit totals */
	unsigned have;     /* enum tl_kcheck_have; run time is always there */
	struct tl_kcheck_side kernel, trace;
	int64_t run_diff, wait_diff; /* trace - kernel, ns */
	uint64_t lag_in_ns;          /* clock lag at its switch-ins: the kernel may show that much more run time */
	uint64_t lag_out_ns;         /* at its preempted switch-outs: that much less */
	uint64_t lag_end_ns;         /* at switch-outs to sleep the kernel dated at an enqueue: less run time */
	uint64_t lag_sleep_ns; /* at its other switch-outs to sleep: less run time (TL_KCHECK_SLEEP_LAG_NS each) */
	uint64_t lag_wake_ns;  /* at enqueues by another CPU, WAKING to WAKEUP: the kernel may show more wait */
	uint64_t lag_exit_ns;  /* on a CPU at its EXIT since that long: its exit totals may lack that run time */
	uint64_t steal_ns;     /* steal time of the CPUs it ran on (+1 tick each): the kernel may show less */
	uint64_t taken_ns;     /* CLOCK_TAKEN (1.15): taken out of its stays (steal), out of the trace's run */
	uint64_t unknown_ns;   /* UNKNOWN in the window: the trace may show that much less of both */
	int lags;              /* dated by the recorded clock lags (format 1.6): the lag_*_ns above are not allowed */
	int64_t lag_run_ns;    /* the kernel's dating minus the trace's, of its run time (lags) */
	int64_t lag_wait_ns;   /* and of its run-queue wait: run_diff + lag_run_ns is the dated difference */
	int64_t stale_run_ns;  /* the kernel's run delta short by this: its readings as of their last update */
	int64_t stale_wait_ns; /* the same for the wait (both in lag_*_ns when lags) */
	int wait_open;         /* maybe waiting since before the trace at the start reading: the wait is not judged */
	/*
	 * A reading taken while it was on a CPU that no switch-in or tick
	 * before it in the trace dates (on since before the trace): the
	 * kernel's figure is as of an update up to a tick period earlier, so
	 * its delta may be that much longer (start) or shorter (end).  The
	 * period is the shortest gap between two ticks of a CPU in the trace;
	 * none when the trace has no such gap.
	 */
	uint64_t stale_open_start_ns, stale_open_end_ns;
	int64_t vol_diff, invol_diff;
	uint64_t lost_events;     /* lost while it was UNKNOWN in its window: it may show that many fewer switches */
	uint64_t unseen_switches; /* switches into it beyond those out of it: its counts are not judged */
	int ok;                   /* every judged quantity within its tolerance */
	int allowed; /* lags: ok only with its UNKNOWN, stolen or undated exit time, or stale_open_*, allowed for */
};

struct tl_kcheck_result {
	struct tl_kcheck_thread *threads; /* sorted by tid */
	size_t nthreads;
	size_t bad;       /* threads not ok */
	size_t allowed;   /* threads ok only with what the trace does not know allowed for (lags) */
	size_t unchecked; /* threads with a reading but no pair to compare (no start, or no end) */
	/*
	 * The worst of the checked threads, as a percentage of their window /
	 * of the kernel's count; times only where off by more than
	 * TL_KCHECK_MIN_TOL_NS (a shorter thread's tiny difference is a large
	 * share of its window, and tolerated at any window), counts only where
	 * off by more than one (one of one switch read "within 100%").
	 */
	double max_run_pct, max_wait_pct, max_switch_pct;
	double max_run_dated_pct,
	        max_wait_dated_pct;       /* the same dated by the recorded clock lags (lags), else as above */
	uint64_t max_run_ns, max_wait_ns; /* the worst in ns, every thread (dated with lags) */
	int have_wait;                    /* some thread had run-queue wait on both readings */
	int lags; /* the trace has the kernel's clock lags: the verdicts are on the dated differences */
	/*
	 * The trace has CLOCK_TAKEN (1.15): taken_ns of the checked threads'
	 * run_ns on a CPU in the trace (their windows) was the run queues'
	 * taken time, the hypervisor's steal: EXECUTING holds it, the kernel's
	 * run time does not.
	 */
	int taken;
	uint64_t taken_ns, run_ns;
};

struct tl_kcheck;

/* NULL with tl_error set. */
struct tl_kcheck *tl_kcheck_new(void);

/*
 * Every event of the walk, in time order (KSTAT, KSTAT_CSW, FORK, SWITCH,
 * the wakeups and interrupts are used), with the thread it is about as
 * the walk has it (its state at a KSTAT reading; NULL when unknown).
 */
void tl_kcheck_event(struct tl_kcheck *kc, const struct tl_event *ev, const struct tl_thread *th);

/* Every state interval of thread tid. */
void tl_kcheck_interval(struct tl_kcheck *kc, int32_t tid, const struct tl_interval *iv);

/*
 * After the walk: compare.  Fills *r (release with tl_kcheck_release).
 * 0, or -1 with tl_error set (out of memory, or a feed ran out of memory).
 */
int tl_kcheck_finish(struct tl_kcheck *kc, struct tl_kcheck_result *r);

void tl_kcheck_free(struct tl_kcheck *kc);

void tl_kcheck_release(struct tl_kcheck_result *r);

/* ---- writers ---- */

struct tl_json;

/*
 * The "kernel_check" value of a JSON document: both sides per thread, times
 * relative to trace_start.  Keys are added, never changed (docs/JSON.md).
 */
void tl_kcheck_write_json(struct tl_json *j, const struct tl_kcheck_result *r, uint64_t trace_start);

/*
 * The one-line verdict, without a newline, into buf: "5 threads agree with
 * the kernel: ..." or "THE KERNEL DISAGREES on 2 of 5 threads ...".  An
 * empty string when nothing was checked.
 */
void tl_kcheck_verdict(const struct tl_kcheck_result *r, char *buf, size_t len);

/* The tolerance for a time over a window of window_ns: max(1% of it, 1 ms). */
uint64_t tl_kcheck_time_tol(uint64_t window_ns);

/* The tolerance for a switch count: max(1% of it, 1). */
uint64_t tl_kcheck_count_tol(uint64_t kernel_count);

#endif
