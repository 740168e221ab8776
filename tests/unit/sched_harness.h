/*
 * sched_harness.h - the thread-state machine's test harness, shared by
 * test_sched.c and test_sched_gaps.c: a recorder of the intervals a
 * sequence of hand-written events produces (times in microseconds from a
 * trace start of 1000 us), and builders of those events.  finish() checks
 * the invariant that a thread's intervals are gapless and sum to its life.
 */
#ifndef TL_TEST_SCHED_HARNESS_H
#define TL_TEST_SCHED_HARNESS_H
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
	uint64_t held[MAXT], held_ns[MAXT]; /* held back: READY_QUANTUM intervals with `by` 0 */
	int gaps;
	int n;
	uint64_t cpu_ns[2][8];
	uint64_t vector_ns; /* TL_CPU_IRQ time whose source is TL_IRQ_VECTOR | TL_VEC_LOCAL_TIMER */
};

static struct rec R;
static struct tl_sched *S;

static inline int slot(const struct tl_thread *th)
{
	for (int i = 0; i < R.n; i++)
		if (R.serial[i] == th->serial)
			return i;
	R.tid[R.n] = th->tid;
	R.serial[R.n] = th->serial;
	R.last_end[R.n] = th->born;
	return R.n++;
}

static inline void on_iv(void *ctx, struct tl_thread *th, const struct tl_interval *iv)
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
	if (iv->state == TL_ST_READY_QUANTUM && !iv->by) {
		R.held[i]++;
		R.held_ns[i] += iv->end - iv->start;
	}
}

static inline void on_cpu(void *ctx, const struct tl_cpu_interval *iv)
{
	if (iv->cpu < 2)
		R.cpu_ns[iv->cpu][iv->what] += iv->end - iv->start;
	if (iv->what == TL_CPU_IRQ && iv->irq == (TL_IRQ_VECTOR | TL_VEC_LOCAL_TIMER))
		R.vector_ns += iv->end - iv->start;
}

static inline void on_end(void *ctx, struct tl_thread *th)
{
	int i = slot(th);
	R.born[i] = th->born;
	R.died[i] = th->died;
	if (R.last_end[i] != th->died)
		R.gaps++;
}

static inline void start(void)
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

static inline void finish(uint64_t end_us)
{
	tl_sched_finish(S, end_us * US);
}

/* The slot of the first thread instance with this tid, -1 if none. */
static inline int find(int32_t tid)
{
	for (int i = 0; i < R.n; i++)
		if (R.tid[i] == tid)
			return i;
	return -1;
}

/* state time (us) of the n-th thread instance with this tid (n = 0 first) */
static inline uint64_t st(int32_t tid, int n, unsigned state)
{
	for (int i = 0; i < R.n; i++)
		if (R.tid[i] == tid && n-- == 0)
			return R.ns[i][state] / US;
	return 999999;
}

static inline uint64_t life(int32_t tid)
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

static inline int32_t by(int32_t tid, unsigned state)
{
	for (int i = 0; i < R.n; i++)
		if (R.tid[i] == tid)
			return R.last_by[i][state];
	return -99;
}

static inline void ev(uint64_t ts_us, int cpu, unsigned type, int32_t tid, int32_t arg, int64_t a, int64_t b, int64_t c,
                      uint16_t flags, const char *name)
{
	struct tl_event e = event_us(ts_us, cpu, type, tid, arg, a, b, c, flags);
	tl_sched_feed(S, &e, name);
}

static inline void sw(uint64_t t, int cpu, int32_t prev, int64_t state, int32_t next)
{
	ev(t, cpu, TL_EV_SWITCH, prev, next, state, 120, 120, 0, NULL);
}
static inline void sw_prio(uint64_t t, int cpu, int32_t prev, int64_t state, int prev_prio, int32_t next, int next_prio)
{
	ev(t, cpu, TL_EV_SWITCH, prev, next, state, prev_prio, next_prio, 0, NULL);
}
static inline void waking(uint64_t t, int cpu, int32_t tid, int32_t waker)
{
	ev(t, cpu, TL_EV_WAKING, tid, waker, cpu, 120, 0, 0, NULL);
}
static inline void wakeup(uint64_t t, int cpu, int32_t tid, int32_t waker)
{
	ev(t, cpu, TL_EV_WAKEUP, tid, waker, cpu, 120, 0, 0, NULL);
}
static inline void fork_(uint64_t t, int cpu, int32_t parent, int32_t child, const char *name)
{
	ev(t, cpu, TL_EV_FORK, child, parent, 0, 0, 0, 0, name);
}
static inline void wakeup_new(uint64_t t, int cpu, int32_t tid, int32_t waker)
{
	ev(t, cpu, TL_EV_WAKEUP_NEW, tid, waker, cpu, 120, 0, 0, NULL);
}

/*
 * The end of a life (docs/STATES.md, "Exit"): a thread that is not its
 * process's leader ends at its last switch-out (it reaps itself); a leader
 * is a zombie until its parent, woken by its exit, runs again and reaps it;
 * otherwise until sched_process_free.
 */
static inline void thread_info(uint64_t t, int32_t tid, int32_t tgid)
{
	ev(t, -1, TL_EV_THREAD, tid, tgid, 0, 0, 0, 0, NULL);
}

/*
 * A filtered recording (TL_EVF_OTHER_*): other processes' tasks have no
 * states, the CPU's time while they (or idle) hold it is FILTERED, a woken
 * outsider still tells a preemption, and no event of theirs reveals them.
 */
static inline void sw_f(uint64_t t, int cpu, int32_t prev, int64_t state, int32_t next, uint16_t flags)
{
	ev(t, cpu, TL_EV_SWITCH, prev, next, state, 120, 120, flags, NULL);
}

#endif
