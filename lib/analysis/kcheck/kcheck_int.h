/*
 * kcheck_int.h - what the self-check's two halves share: the walk
 * (kcheck.c: each thread's window, the trace's side of it, the clock lags
 * the kernel dates by) and the verdict (kcheck_compare.c: the kernel's
 * deltas against the trace's, with the tolerances kcheck.h states).  Not a
 * public interface: only kcheck*.c include it.
 */
#ifndef TL_KCHECK_INT_H
#define TL_KCHECK_INT_H

#include <stdint.h>

#include "analysis/kcheck/kcheck.h"
#include "base/tidmap.h"
#include "timeline/taken.h"

enum { PENDING = 0, OPEN, CLOSED };

struct reading {
	int have_times, have_csw;
	int64_t run, wait, blkio, vol, invol;
};

struct kth {
	int32_t tid; /* tidmap key */
	int status;
	int born, exited, has_start;
	uint64_t from, to;
	uint64_t exit_ts;         /* its EXIT event, 0 before: the kernel sent its exit totals just before it */
	uint64_t lag_in, lag_out; /* clock lag at its switch-ins and preempted switch-outs (kcheck.h) */
	uint64_t lag_end;         /* at switch-outs to sleep dated at an enqueue's clock (kcheck.h) */
	uint64_t lag_sleep;       /* at the other switch-outs to sleep: the kernel's dequeue and pick (kcheck.h) */
	uint64_t enq_ts;          /* its last WAKEUP: when it joined a run queue */
	uint64_t waking_ts;       /* its WAKING since, 0 none */
	uint64_t lag_wake;        /* at enqueues by another CPU: the kernel's wait starts up to this much earlier */
	uint64_t lag_exit;        /* on a CPU at its EXIT since this long: its exit totals may lack that run time */
	uint64_t unknown_ns;      /* UNKNOWN in the window: could be any state, so it may hide run or wait time */
	uint64_t lost_from;       /* kc->lost when its window opened, and when it closed */
	uint64_t lost_to;
	uint64_t ins;       /* switches into it in its window: more than out of it are switches not in the trace */
	uint64_t cpus_used; /* bit c: it ran on CPU c (c < 64); bit 63 also stands for every CPU above */
	/* the recorded clock lags (format 1.6): the kernel's dating minus the trace's, of its run and its wait */
	int64_t kd_run, kd_wait;
	uint64_t enq_lag; /* its last WAKEUP's, until the RUNNABLE it begins is counted */
	int unqueued;     /* preempted while not running (state S/D): the kernel does not count that wait */
	int exit_dated;   /* its EXIT has the lag of its exit totals: kd_run has it, lag_exit is not needed */
	/*
	 * The kernel's run total at its EXIT (format 1.12: the EXIT's b, its
	 * sum_exec_runtime, plus its lag), 0 unknown, and that lag.  The exit
	 * totals are taken a little before the EXIT's tracepoint; when the
	 * kernel accounts the run again in between (a tick), the lag alone
	 * counts from there: the total at the EXIT less the totals' run is
	 * what the thread ran after them.
	 */
	int64_t exit_sum;
	uint64_t exit_lag_ns;
	/*
	 * Its exit totals came before its EXIT: the kernel sends them early in
	 * the exit, before it frees the memory and passes the tracepoint, and
	 * they are stamped when read.  They stand for the EXIT (and its lag),
	 * so the window stays open until it comes; `post` is what was counted
	 * after the reading, taken back if it never does (lost).
	 */
	int exit_early;
	uint64_t exit_read_ts, exit_read_lost;
	struct tl_kcheck_side post;
	uint64_t post_unknown;
	/* how much the kernel's delta between its readings is short, each reading being as of its last update */
	int64_t stale_run, stale_wait;
	int wait_open; /* maybe waiting for a CPU since before the trace at the start reading: its wait is not judged */
	int stale_open[2]; /* reading [k] on a CPU with no update before it in the trace: up to a tick old */
	/*
	 * Reading [k] began before its CPU's last update (within its span,
	 * TL_KSTAT_READ_SPAN_NS): it may be as of the update before, this
	 * much older (the kernel's delta longer for the start, shorter for
	 * the end).
	 */
	uint64_t stale_span[2];
	struct stale_mark {
		uint64_t at;   /* the reading, [0] start and [1] end, until the interval holding it comes */
		uint64_t tick; /* its CPU's last tick or reschedule IPI then: its last update */
		uint64_t alt;  /* that update came in the reading's span: the update before it; else tick */
		int cpu;       /* the CPU the walk had it on then, -1 none */
		int set;
	} mark[2];
	/* the stay on a CPU, and the wait for one, that its last intervals make up */
	uint64_t run_from, run_to, wait_from, wait_to;
	/*
	 * Its last stay ended at a gap (lost events): its run from the stay's
	 * last clock update (switch-in, tick, reschedule IPI) to the gap, which
	 * exit totals read with the EXIT lost may lack (close_early()); else 0.
	 */
	uint64_t gap_run;
	int run_inferred, wait_inferred; /* they began where a switch-in nobody reported was guessed */
	uint64_t inferred_at;            /* the end of its last interval that ended at such a guess */
	struct reading start, end;
	struct tl_kcheck_side trace;
	/*
	 * CLOCK_TAKEN (format 1.15, timeline/taken.h): what the values grew
	 * by during its stays in the window, which the kernel left out of
	 * its run time.  taken_late: 1, a
	 * stay in the window began before its CPU's first value (what was
	 * taken before it is allowed for, up to a tick); 2, a value came after
	 * lost events or on another CPU than its base (a switch not in the
	 * trace: what was taken is allowed for as before 1.15).
	 */
	uint64_t taken_ns;
	int taken_late;
};

struct cpu_marks {
	uint64_t mark;      /* the CPU's last event at which the kernel updates its clock */
	uint64_t enq_mark;  /* the last enqueue onto it (a WAKEUP whose target it is) */
	int32_t enq_tid;    /* the thread enqueued then */
	uint64_t switch_ts; /* its last switch */
	int32_t in_tid;     /* the thread it switched in */
	int64_t steal[2];   /* KSTAT_CPU at the start and the end, -1 unknown */
	uint64_t tick;      /* their unit */
	uint64_t timer;     /* the end of its last tick (or local timer interrupt): it updated its task's run time */
	uint64_t resched;   /* the end of its last reschedule IPI: schedule() ran on its return and updated it too */
	uint64_t prev_upd;  /* the later of the two before the last of either: the update before */
};

#define TL_KCHECK_MIN_TICK_NS 1000000ull  /* HZ is at most 1000: a shorter gap is not between two ticks */
#define TL_KCHECK_MAX_TICK_NS 10000000ull /* HZ is at least 100 */

#define CACHE 64 /* a power of two */

/* A tid's lookup, remembered (found or not) until the next insertion moves the map's values. */
struct cached {
	int32_t tid;
	uint32_t gen;
	struct kth *t;
};

struct tl_kcheck {
	struct tl_tidmap m;
	uint32_t gen; /* bumped at every insertion */
	struct cached cache[CACHE];
	struct cpu_marks *cpus;
	size_t ncpus;
	uint64_t lost;      /* events lost so far (LOST) */
	int lags;           /* the trace has the kernel's clock lags (format 1.6): the check dates as the kernel */
	int ticks_told;     /* an IRQ_EXIT said the scheduler tick ran in it (1.6): only those update run times */
	uint64_t tick_gap;  /* the shortest gap between two ticks of one CPU (1 to 10 ms), 0 none yet */
	struct tl_taken tk; /* CLOCK_TAKEN (1.15); tk.seen: what steal took from a run is known, not allowed */
	int oom;
};

/*
 * One thread's comparison into *o, its worst differences into r's maxima;
 * 0 (o untouched) if it has no pair of readings to compare.
 */
int tl_kcheck_compare(const struct tl_kcheck *kc, const struct kth *t, struct tl_kcheck_thread *o,
                      struct tl_kcheck_result *r);

#endif
