/*
 * yspin.h - threads that wait by calling sched_yield in a loop.
 *
 * With a CPU free, sched_yield returns at once: a thread that waits for
 * another one by yielding in a loop (`while (!ready) sched_yield();`) spins
 * on its CPU, and no switch shows it.  The recorder counts the calls in
 * runs (trace/event.h, YIELD_SPIN: calls at most TL_YIELD_SPIN_GAP_NS
 * apart with no switch between them); the perf back end writes every call
 * (YIELD_ENTER), and tl_yspin_call() finds the same runs in them.
 *
 * A run spins when its calls come at most TL_YSPIN_LOOP_NS apart on
 * average: a sched_yield that returns at once costs about 0.7 us here, so
 * a loop with a few checks between its calls makes about one a
 * microsecond, while a thread that yields between pieces of real work
 * makes a few a millisecond.  Its time is its span, from the first call
 * to the last, on the CPU (no switch inside a run; interrupts and a
 * virtual CPU's stops aside); the last call's return and the check after
 * it are left out (about a microsecond a run).  Only the part of a run
 * inside the window counts, and of its calls the same share.
 */
#ifndef TL_YSPIN_H
#define TL_YSPIN_H

#include <stdint.h>

#include "trace/event.h"

#define TL_YSPIN_LOOP_NS 10000 /* a spinning run's mean time between two calls, at most */

/* A thread's spinning runs, in the window. */
struct tl_yspin_sum {
	uint64_t calls; /* sched_yield calls in them */
	uint64_t runs;
	uint64_t ns; /* their spans */
};

/* The run a thread has open (the perf back end's calls). */
struct tl_yspin_run {
	uint64_t first, last;
	uint64_t calls; /* 0: none open */
};

/* A run of `calls` calls from first to last (absolute ns): into s if it spins, clipped to [from, to]. */
void tl_yspin_add(struct tl_yspin_sum *s, uint64_t first, uint64_t last, uint64_t calls, uint64_t from, uint64_t to);
/* A YIELD_SPIN event (the eBPF back end's runs). */
void tl_yspin_event(struct tl_yspin_sum *s, const struct tl_event *ev, uint64_t from, uint64_t to);
/* A sched_yield call at ts (YIELD_ENTER) of the thread whose open run is r. */
void tl_yspin_call(struct tl_yspin_run *r, uint64_t ts, struct tl_yspin_sum *s, uint64_t from, uint64_t to);
/* The thread left its CPU, or its life or the trace ended: its open run ends. */
void tl_yspin_end(struct tl_yspin_run *r, struct tl_yspin_sum *s, uint64_t from, uint64_t to);

#endif
