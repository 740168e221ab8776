/*
 * affinity.h - the CPUs a thread may run on, read from the kernel and
 * written as AFFINITY events (format 1.3, trace/event.h).
 *
 * The report's "% of available CPUs" divides by the CPUs a process may use
 * (seed 000, Eq. 4): the union of its threads' masks over the recording.
 * Threads change their masks (pthread_setaffinity_np, taskset -p), and no
 * tracepoint says so, so the recorder reads a thread's mask when it first
 * sees it and again every flush (250 ms) and at the end, and writes the
 * mask again whenever it changed.  A change undone between two readings is
 * missed; the report also counts every CPU a process was seen on, which
 * a mask must have allowed.
 */
#ifndef TL_CAPTURE_AFFINITY_H
#define TL_CAPTURE_AFFINITY_H

#include <stdint.h>

#include "trace/event.h"

/* Words of 64 CPUs kept per reading; CPUs beyond this many words are counted but not named. */
#define TL_AFFINITY_WORDS 64

struct tl_affinity {
	int count;  /* CPUs allowed, 0 if the mask could not be read */
	int nwords; /* words up to the last non-zero one */
	uint64_t w[TL_AFFINITY_WORDS];
};

/* Read tid's mask (sched_getaffinity).  Returns 0, or -1 (gone, or not ours to read: a->count 0). */
int tl_affinity_read(int tid, struct tl_affinity *a);

/* A hash of the mask, to notice a change without keeping it whole (0 for an unread mask). */
uint64_t tl_affinity_hash(const struct tl_affinity *a);

/*
 * The AFFINITY events of a mask: one per non-zero word (a = word index, b =
 * its bits, c = the count), at ts on cpu, into out[0..max).  Returns how
 * many were made.
 */
int tl_affinity_events(const struct tl_affinity *a, int32_t tid, uint64_t ts, int cpu, struct tl_event *out, int max);

#endif
