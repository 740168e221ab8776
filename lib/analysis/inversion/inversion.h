/*
 * inversion.h - priority inversion: a thread H waits on a lock whose
 * holder L has a lower priority than H, while L, which would release it,
 * waits preempted by a thread M whose priority lies between them (more
 * urgent than L, less than H).  H then waits on M, which it outranks.
 *
 * The collector rides on the report's walk (report.c calls it):
 *   tl_inversion_preempted()  every READY_PREEMPT interval (by = the
 *                             thread that took the CPU): kept in a small
 *                             ring per thread (its last TL_INV_RING);
 *   tl_inversion_lock_wait()  every SYNC_WAIT in a lock's futex that a
 *                             thread's wakeup ended (by = the holder):
 *                             the holder's preempted stretches inside the
 *                             wait, by a thread of middle priority, count.
 * A holder's preemptions end before it releases the lock, so they are in
 * its ring when the wait closes.  Priorities are the kernel's (lower is
 * more urgent: real-time 0-99, then 100-139 by nice), as each thread had
 * it last.  Results are summed per (waiter, holder, preemptor).
 */
#ifndef TL_INVERSION_H
#define TL_INVERSION_H

#include <stddef.h>
#include <stdint.h>

#include "timeline/state_machine.h"
#include "timeline/walk.h"

#define TL_INV_RING 16

struct tl_inversion {
	int32_t pid;
	int32_t waiter, holder, preemptor; /* tids */
	char waiter_name[TL_NAME_MAX], holder_name[TL_NAME_MAX], preemptor_name[TL_NAME_MAX];
	int waiter_prio, holder_prio, preemptor_prio;
	uint64_t ns;          /* the waiter's lock waits spent while the holder was preempted by the preemptor */
	uint64_t waits;       /* lock waits with some of it */
	uint64_t first, last; /* absolute ns: the first such wait's start, the last one's end */
};

struct tl_inversion_result {
	struct tl_inversion *items; /* sorted by ns, largest first */
	size_t n;
};

struct tl_inversions;

/* The walk's state machine, and its window (r) that clips the time.  NULL with tl_error set. */
struct tl_inversions *tl_inversion_new(struct tl_sched *sched, const struct tl_walk_result *r);
void tl_inversion_preempted(struct tl_inversions *v, const struct tl_thread *th, const struct tl_interval *iv);
void tl_inversion_lock_wait(struct tl_inversions *v, const struct tl_thread *th, const struct tl_interval *iv);
/* Move the results to *out.  0, or -1 with tl_error set. */
int tl_inversion_finish(struct tl_inversions *v, struct tl_inversion_result *out);
void tl_inversion_free(struct tl_inversions *v);
void tl_inversion_release(struct tl_inversion_result *r);

#endif
