/*
 * locks.h - the contended locks of a trace, each told apart by its futex
 * word: per lock, its waits, their time, and who waited and who held it.
 *
 * A lock wait is a SYNC_WAIT in a lock's futex (report.h, lock_wait_ns).
 * The futex word the thread sleeps on names the lock: the eBPF back end's
 * FUTEX_WAIT right before the switch (format 1.9), the perf back end's
 * FUTEX_ENTER uaddr.  A lock is (process, address): a process-shared
 * mutex mapped by two processes is one lock per process.  Waits whose
 * word the trace does not give (traces before 1.9, `record --no-futex`,
 * futex_waitv) go to the process's entry of address 0.
 *
 * As `perf lock contention` gives per lock: the waits that ended in the
 * window, their time in it, the longest (whole); the waiters and the
 * holders (the threads whose wakeups ended the waits: the last to hold
 * the lock), each with its waits and time; and what the holders did
 * meanwhile (lockhold.h's classes, back along a convoy).
 *
 * A lock's name is the recorder's for its word (FUTEX_NAME, format 1.10:
 * "queue_lock (app)", "[heap]"), empty when the trace has none.
 *
 * The collector rides on the report's walk: report.c calls tl_locks_wait()
 * for every lock wait that ends in the window, with what lockhold found
 * for it, and tl_locks_name() for every FUTEX_NAME.  Memory: one record per lock, and per thread that waited on or
 * held it.
 */
#ifndef TL_LOCKS_H
#define TL_LOCKS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "analysis/lockhold/lockhold.h"
#include "timeline/state_machine.h"

#define TL_LOCK_NAME_MAX 96

/* A thread's part in a lock: its waits on it, or the waits its wakeups ended. */
struct tl_lock_thread {
	int32_t tid; /* first: the threads' map reads its key here (base/tidmap.h) */
	char name[TL_NAME_MAX];
	uint64_t waits;
	uint64_t ns; /* their time in the window */
};

struct tl_lock {
	int32_t pid;
	uint64_t addr;                    /* the futex word; 0: waits whose word is unknown */
	char name[TL_LOCK_NAME_MAX];      /* what holds the word (FUTEX_NAME), "" if the trace does not say */
	uint64_t waits, wait_ns, max_ns;  /* ended in the window; their time in it; the longest, whole */
	uint64_t holder_ns[TL_LH__COUNT]; /* what the holders did meanwhile (adds up to wait_ns) */
	uint64_t convoy_ns;               /* of which the last holder waited for a lock itself */
	struct tl_lock_thread *waiters;   /* every one, the most time first */
	struct tl_lock_thread *holders;   /* every thread, the most time first (not interrupts, unknown wakers) */
	size_t nwaiters, nholders;
};

struct tl_lock_result {
	struct tl_lock *items; /* by wait_ns, largest first; addr 0 entries too; every one with waits */
	size_t n;
};

struct tl_locks;

/* An empty collector.  NULL with tl_error set. */
struct tl_locks *tl_locks_new(void);

/*
 * A lock wait of th on futex word addr (0: unknown) ended in the window:
 * its time in the window ns, its whole length whole, its waker `holder`
 * (NULL: an interrupt or unknown), and what lockhold found the holders
 * did in it (did[] and convoy, as tl_lockhold_wait() adds them).  0, or -1
 * out of memory (tl_error set).
 */
int tl_locks_wait(struct tl_locks *l, const struct tl_thread *th, uint64_t addr, uint64_t ns, uint64_t whole,
                  const struct tl_thread *holder, const uint64_t did[TL_LH__COUNT], uint64_t convoy);

/* The name of process pid's futex word addr (a FUTEX_NAME event).  0, or -1 out of memory (tl_error set). */
int tl_locks_name(struct tl_locks *l, int32_t pid, uint64_t addr, const char *name);

/* Move the locks into *out (sorted) and empty the collector.  0, or -1 with tl_error set. */
int tl_locks_finish(struct tl_locks *l, struct tl_lock_result *out);

void tl_locks_free(struct tl_locks *l);
void tl_locks_release(struct tl_lock_result *r);

/*
 * The LOCKS table of the text report: the first `max` locks of known
 * address (pid, lock, waits, time, longest, the holders' time on a CPU and
 * in a convoy, the waiters with their shares) in `width` columns, after
 * its heading line.  Writes nothing when no wait has a known word.
 * Returns how many such locks there are (locks_write.c).
 */
size_t tl_locks_write_text(FILE *f, const struct tl_lock_result *r, size_t max, int width);

/*
 * What the text calls a lock, into buf[len]: its symbol ("queue_lock
 * (app)"); a region's label, which many locks share, with the word's
 * address ("[heap] 0x558b57be7038"); else the address alone.  Returns buf
 * (locks_write.c).
 */
const char *tl_lock_label(uint64_t addr, const char *name, char *buf, size_t len);

/* The lock of process pid at addr in r, or NULL. */
const struct tl_lock *tl_locks_find(const struct tl_lock_result *r, int32_t pid, uint64_t addr);

#endif
