/*
 * state_machine.h - the thread-state machine: events in, state intervals out.
 *
 * tl_sched consumes events in timestamp order (as tl_trace_next() yields
 * them) and turns them into intervals: for every thread, a gapless sequence
 * of (state, start, end) from the thread's first appearance to its end; for
 * every CPU, a gapless sequence of (what ran, start, end).  The rules that
 * choose a state are in docs/STATES.md.
 *
 * Intervals are handed to callbacks when they close, in time order per
 * thread and per CPU (not globally).  The machine holds one small struct per
 * live thread and per CPU and nothing per event, so memory grows with the
 * number of threads, not with the length of the trace.
 *
 * Later analyses (statistics, frames, critical path, HTML timelines) are
 * callbacks on these intervals; none of them re-derives states.
 */
#ifndef TL_STATE_MACHINE_H
#define TL_STATE_MACHINE_H

#include <stdint.h>

#include "trace/event.h"
#include "timeline/states.h"

#define TL_NAME_MAX 64

/* What the machine knows about a thread (valid during callbacks). */
struct tl_thread {
	int32_t tid;
	int32_t tgid;    /* 0 while unknown */
	uint32_t serial; /* unique per thread instance: tid reuse gives a new serial */
	char name[TL_NAME_MAX];
	uint64_t born;    /* first instant it exists in the trace */
	uint64_t died;    /* reaped (or last instant), 0 while alive */
	int prio;         /* kernel prio as of the last event (lower is more urgent) */
	int parent;       /* tid of the creator, 0 if unknown */
	int snapshot;     /* 1 if it existed before the trace started */
	int cpus_allowed; /* from the recorder, 0 if unknown */
	int outsider;     /* a filtered trace's thread that is not recorded (TL_EVF_OTHER_*): no states */
	/* current state (private to state_machine.c; read-only for callbacks) */
	uint16_t state;
	int16_t cpu; /* CPU it runs on or last ran on, -1 unknown */
	uint64_t state_since;
	uint64_t state_total[TL_ST__COUNT]; /* time in each state over its closed intervals */
	void *user;                         /* free for one pass to hang data on (see tl_sched_opts) */
};

/*
 * The thread's time in each state from its birth up to `at` (>= the start
 * of its open interval): the closed intervals plus the open one.  Exact at
 * any instant the machine has reached, so the time a thread spent in each
 * state during any span is the difference of two calls.
 */
static inline void tl_thread_totals(const struct tl_thread *th, uint64_t at, uint64_t out[TL_ST__COUNT])
{
	for (int s = 0; s < TL_ST__COUNT; s++)
		out[s] = th->state_total[s];
	if (th->state < TL_ST__COUNT && at > th->state_since)
		out[th->state] += at - th->state_since;
}

/*
 * Wakers that are not threads.  A wakeup from interrupt context is
 * TL_WAKER_DEVICE when the CPU was inside a traced IRQ line's handler or a
 * softirq other than the timers' (TIMER, HRTIMER): a device's or the
 * network's work, data arriving.  Otherwise TL_WAKER_IRQ: a timer (the local
 * timer's vector: timeouts, sleeps), an IPI, or an interrupt the trace does
 * not show.
 */
#define TL_WAKER_IRQ (-1)
#define TL_WAKER_DEVICE (-2)

/* One closed interval of one thread. */
struct tl_interval {
	uint64_t start, end;
	uint16_t state;       /* enum tl_state */
	int16_t cpu;          /* CPU for on-CPU states; for ready states the CPU it waits on; -1 otherwise */
	int32_t by;           /* asleep, NEW and RUNNABLE: the waker that ended or began the wait
			   * (TL_WAKER_IRQ, TL_WAKER_DEVICE: interrupt context; 0 unknown);
			   * READY_PREEMPT/QUANTUM: the thread that took the CPU (QUANTUM 0: held
			   * back, the CPU idle while it waited: a CPU limit); otherwise 0 */
	uint16_t next;        /* the state that follows (TL_ST__COUNT at the end of its life) */
	uint8_t inferred_end; /* `end` is an estimate: a switch-in the kernel did not report (docs/STATES.md) */
};

/* What a CPU did during one interval. */
enum tl_cpu_activity {
	TL_CPU_IDLE = 0,
	TL_CPU_THREAD,   /* running thread `tid` */
	TL_CPU_IRQ,      /* hard interrupt (inside `tid`'s time if tid != 0) */
	TL_CPU_SOFTIRQ,  /* softirq processing */
	TL_CPU_UNKNOWN,  /* before the first event of the CPU, or after lost events */
	TL_CPU_FILTERED, /* other processes or idle, left in the kernel by a filtered recording (tid 0) */
};

struct tl_cpu_interval {
	uint64_t start, end;
	int16_t cpu;
	uint16_t what; /* enum tl_cpu_activity */
	int32_t tid;   /* thread that was current (0 = idle task) */
	int32_t tgid;
	int32_t irq; /* IRQ number (tl_irq_source: TL_IRQ_VECTOR | kind for a timer or IPI) or softirq vector */
};

struct tl_sched_opts {
	uint64_t start_ns; /* trace start (tl_trace_info.start_ns) */
	int ncpus;
	uint64_t preempt_window_ns; /* see docs/STATES.md; 0 = default 1 ms */
	/* callbacks; any may be NULL */
	void *ctx;
	void (*on_interval)(void *ctx, struct tl_thread *th, const struct tl_interval *iv);
	void (*on_cpu_interval)(void *ctx, const struct tl_cpu_interval *iv);
	void (*on_thread_end)(void *ctx, struct tl_thread *th); /* after its last interval */
	void (*on_event)(void *ctx, struct tl_thread *th,
	                 const struct tl_event
	                         *ev); /* every event, after the machine applied it; th = the subject thread or NULL */
	void (*on_name)(void *ctx, struct tl_thread *th); /* name or tgid changed */
};

struct tl_sched_counters {
	uint64_t events;
	uint64_t lost;              /* LOST counts seen */
	uint64_t anomalies;         /* events that contradict the model (after lost data, clock skew) */
	uint64_t late_wakeups;      /* wakeups that arrived before the switch-out they end (cross-CPU race) */
	uint64_t inferred_switches; /* switch-ins the kernel did not report, inferred from later events */
	uint64_t inferred_wakeups;  /* wakeups the kernel did not report (a sleeper showed up running) */
	uint64_t samples;           /* SAMPLE events (record --sample), in the window or not */
};

struct tl_sched;

/* Returns NULL with tl_error set on allocation failure.  Free with tl_sched_free(). */
struct tl_sched *tl_sched_new(const struct tl_sched_opts *opts);

/* Apply one event.  Events must come in timestamp order (small disorder is tolerated and counted). */
void tl_sched_feed(struct tl_sched *s, const struct tl_event *ev, const char *name);

/* Close all open intervals at `end` and call on_thread_end for every live thread. */
void tl_sched_finish(struct tl_sched *s, uint64_t end);

const struct tl_sched_counters *tl_sched_counters(const struct tl_sched *s);

/* Look up the live thread with this tid, or NULL. */
struct tl_thread *tl_sched_thread(struct tl_sched *s, int32_t tid);

/*
 * Each CPU's idle time (TL_CPU_IDLE: the idle task, no interrupt) from the
 * start until `at`, which is no earlier than the last event applied, into
 * idle[0..ncpus-1]: the difference of two readings is its idle time
 * between them.  filtered[]: its TL_CPU_FILTERED time the same way (idle
 * or other processes: a filtered recording's totals split it).
 */
void tl_sched_cpu_idle(const struct tl_sched *s, uint64_t at, uint64_t *idle, uint64_t *filtered);

void tl_sched_free(struct tl_sched *s);

#endif
