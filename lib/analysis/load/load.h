/*
 * load.h - how many threads of each process want a CPU over time: on one
 * (EXECUTING, INTERRUPTED) or waiting for one (RUNNABLE, READY_*).
 *
 * For each process, at_level[k] is the time (inside the window) during
 * which exactly k of its threads wanted a CPU; the last level gathers k >=
 * TL_LOAD_LEVELS - 1.  Against the CPUs the process may use (n):
 *   levels above n: oversubscribed, k - n threads wait for a CPU;
 *   levels 1..n-1:  the process runs but leaves n - k CPUs unused;
 *   level 0:        none of its threads wants a CPU (all asleep).
 *
 * The level changes when one of its threads moves between a wanting state
 * and another (a state interval closes: tl_load_interval(), from the
 * walk's on_interval); the machine closes intervals in time order, so the
 * levels integrate as they change.  Memory: 12 bytes per thread of the trace, and
 * per process its levels and a log of its last changes (8 to 1024 of them,
 * 16 bytes each, growing as needed), for the first intervals of threads
 * already running when the trace began, which close late and date their
 * change back (load.c).  Time: constant per interval, whatever the number
 * of processes, plus N per change of the number of threads on a CPU.
 *
 * Idle CPUs: the machine's N CPUs less the threads of the trace on one
 * (EXECUTING, INTERRUPTED).  In a filtered recording the CPUs that other
 * programs held count as idle (the trace does not say when they did); in
 * a system-wide one idle is the idle task.
 */
#ifndef TL_LOAD_H
#define TL_LOAD_H

#include <stddef.h>
#include <stdint.h>

#include "timeline/state_machine.h"
#include "timeline/walk.h"

#define TL_LOAD_LEVELS 65

struct tl_load_proc {
	int32_t pid;
	uint64_t at_level[TL_LOAD_LEVELS]; /* ns at each level, inside the window */
	int max_level;                     /* the highest level seen */
	uint64_t approx_ns;                /* time whose level is approximate (load.c) */
	/*
	 * Against the machine's N CPUs and those idle (no thread of the trace
	 * on them), over the time at levels 1..N-1: idle_under_ns, the time at
	 * least one CPU was idle; idle_spare_ns, the integral of min(N - k,
	 * idle CPUs).  What the process left unused that nothing else used.
	 */
	uint64_t idle_under_ns, idle_spare_ns;
};

struct tl_load_result {
	struct tl_load_proc *procs; /* sorted by pid */
	size_t n;
};

struct tl_load;

/* The walk whose window (r->win_start, r->win_end) clips the time.  NULL with tl_error set. */
struct tl_load *tl_load_new(const struct tl_walk_result *r);

/* Every closed state interval of every thread (outsiders are skipped). */
void tl_load_interval(struct tl_load *l, const struct tl_thread *th, const struct tl_interval *iv);

/* Close the levels at the window's end and move them to *out.  0, or -1 with tl_error set. */
int tl_load_finish(struct tl_load *l, struct tl_load_result *out);

void tl_load_free(struct tl_load *l);
void tl_load_release(struct tl_load_result *r);

/* The record of pid, or NULL. */
const struct tl_load_proc *tl_load_find(const struct tl_load_result *r, int32_t pid);

#endif
