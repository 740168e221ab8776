/*
 * lockhold.h - what a lock's holder did while a thread waited for the lock.
 *
 * A thread waits on a lock (a SYNC_WAIT in a lock's futex) until the
 * holder releases it and wakes the thread.  What the holder did meanwhile
 * says what to fix: on a CPU, its critical section is long (shorten it,
 * split the lock); asleep or blocked (I/O, another lock, a condition), it
 * blocks while holding the lock (move the blocking call out); waiting for
 * a CPU, it was preempted while holding it (too many runnable threads, or
 * priorities).
 *
 * The collector rides on the report's walk (report.c calls it):
 *   tl_lockhold_interval()  every interval of every thread: kept in a ring
 *                           per thread (its last TL_LOCKHOLD_RING);
 *   tl_lockhold_wait()      every lock wait that a thread's wakeup ended
 *                           (by = the holder that released the lock):
 *                           the holder's intervals inside the wait, and
 *                           its current state up to the wait's end, are
 *                           added up by class.
 * The holder is the thread whose wakeup ended the wait: the last to hold
 * the lock.  Where it waited for a lock itself during the wait (a convoy:
 * others held it before it), that part goes to the thread that ended its
 * wait, and so on back along the convoy (TL_LOCKHOLD_DEPTH holders at
 * most; beyond, unknown): what the threads that held the lock did.  The
 * direct holder's time waiting for a lock is also given apart (convoy).
 * A wait longer than a holder's ring reaches back counts the rest as
 * unknown.  Only the part of a wait inside the window counts.
 */
#ifndef TL_LOCKHOLD_H
#define TL_LOCKHOLD_H

#include <stdint.h>

#include "timeline/state_machine.h"
#include "timeline/walk.h"

#define TL_LOCKHOLD_RING 32
#define TL_LOCKHOLD_DEPTH 8

/* What a holder did, by class of its states. */
enum tl_lockhold_class {
	TL_LH_RUNNING, /* EXECUTING, INTERRUPTED: its critical section */
	TL_LH_QUEUED,  /* RUNNABLE, READY_*: waiting for a CPU */
	TL_LH_BLOCKED, /* IO_WAIT, BLOCKED: block I/O, an uninterruptible wait in the kernel */
	TL_LH_ASLEEP,  /* SLEEPING, SYNC_WAIT: a sleep, another lock, a condition */
	TL_LH_UNKNOWN, /* UNKNOWN, NEW, ZOMBIE, or older than its ring */
	TL_LH__COUNT
};

/* "running", "queued", ... (JSON keys, with "_ns").  Never NULL. */
const char *tl_lockhold_class_name(unsigned c);

struct tl_lockhold;

/* The walk's state machine (for the holders), its window.  NULL with tl_error set. */
struct tl_lockhold *tl_lockhold_new(struct tl_sched *sched, const struct tl_walk_result *r);
/* Every interval of every thread, in its order; lock: iv is a SYNC_WAIT in a lock's futex.  0, or -1 out of memory. */
int tl_lockhold_interval(struct tl_lockhold *h, const struct tl_thread *th, const struct tl_interval *iv, int lock);
/*
 * A lock wait iv of a thread ended by iv->by's wakeup: add the holders'
 * time in it to out[] by class (along the convoy: see above), and the
 * direct holder's time waiting for a lock itself to *convoy.
 */
void tl_lockhold_wait(struct tl_lockhold *h, const struct tl_interval *iv, uint64_t out[TL_LH__COUNT],
                      uint64_t *convoy);
void tl_lockhold_free(struct tl_lockhold *h);

#endif
