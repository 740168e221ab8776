/*
 * herd.h - wakeups that find nothing to do: a thundering herd.
 *
 * A thread that wakes every thread waiting for work at once (a broadcast:
 * pthread_cond_broadcast, notify_all, a FUTEX_WAKE of all waiters) when
 * there is work for one makes the others run, find nothing and wait again:
 * CPU time and context switches for nothing, and a queue for the CPUs in
 * front of the one thread that has work.
 *
 * The collector rides on the report's walk (report.c calls it for every
 * interval of the threads it analyses, saying whether a SYNC_WAIT was a
 * lock's).  Definitions:
 *   a wait for work  SYNC_WAIT that is not a lock's (a condition, a
 *                    semaphore, a join), or SLEEPING;
 *   a burst          the ends of waits for work of distinct threads by one
 *                    waker thread, each within TL_HERD_GAP_NS of the one
 *                    before (one FUTEX_WAKE of all wakes them a few us
 *                    apart); a thread woken again starts a new burst;
 *   a run            a woken thread's time on a CPU from its wakeup until it
 *                    waits for work again or sleeps otherwise; lock waits in
 *                    between are part of it (a broadcast under the mutex
 *                    makes every woken thread queue for that mutex first);
 *   futile           a run of a burst of at least TL_HERD_MIN threads that
 *                    is under TL_HERD_FUTILE_NS and under half the
 *                    burst's longest run, or of the longest runs of its
 *                    bursts before (`work_run`, averaged, each burst's
 *                    taken in up to twice the average: when a thread
 *                    still running took the item, every woken one finds
 *                    nothing): it found nothing to do.  wl_pool herd on
 *                    this VM: futile runs take 4-30 us, the one with the
 *                    item 60-70 us; three recordings read 0.46-0.54%
 *                    fewer futile runs than the workers counted wakeups
 *                    to an empty queue (with a quarter of the burst's
 *                    own longest, 2.7-5.0% fewer; a tenth, 27% fewer).
 * A waker that is itself woken in bursts (of TL_HERD_MIN or more) is a
 * `peer`: the last of a group to reach a barrier wakes the others, and
 * those with nothing to do after it wait again (a barrier, not a herd).
 * Bursts are judged when their runs have ended (at the latest, at the end
 * of the trace: a run still going counts as it stands) and summed per
 * (process of the woken threads, waker).  Memory: one small record per
 * thread and per burst whose runs have not all ended.
 *
 * A run's time on a CPU leaves out the hypervisor's steal when the trace
 * says it (CLOCK_TAKEN, format 1.15: tl_herd_event()), as the kernel's
 * run time does: a vCPU descheduled for a millisecond in a 5 us futile run
 * made it count as work (three recordings of wl_pool herd on this
 * project's VM with 1.6, 3.1 and 18.9 ms taken read -5.1, -5.1 and -8.7%
 * futile runs against the workers' own count before).
 */
#ifndef TL_HERD_H
#define TL_HERD_H

#include <stddef.h>
#include <stdint.h>

#include "timeline/state_machine.h"
#include "timeline/walk.h"

#define TL_HERD_GAP_NS 20000ull     /* wakeups of one burst: at most this apart */
#define TL_HERD_MIN 3               /* a burst wakes at least this many threads */
#define TL_HERD_FUTILE_NS 100000ull /* a futile run is shorter than this ... */
#define TL_HERD_FUTILE_DIV 2        /* ... and than half its burst's longest */
#define TL_HERD_THREADS 6           /* woken threads kept per result, most futile first */

struct tl_herd_woken {
	int32_t tid;
	char name[TL_NAME_MAX];
	uint64_t futile; /* its futile runs */
};

struct tl_herd {
	int32_t pid;   /* the woken threads' process */
	int32_t waker; /* its tid */
	char waker_name[TL_NAME_MAX];
	uint64_t bursts;      /* bursts of at least TL_HERD_MIN threads that began in the window */
	uint64_t woken;       /* runs in them */
	uint64_t futile;      /* of those, futile */
	uint64_t futile_ns;   /* the futile runs' time on a CPU */
	uint64_t work_ns;     /* the other runs' time on a CPU */
	uint64_t queued_ns;   /* every run's time waiting for a CPU (RUNNABLE, READY_*): woken at once, they queue */
	uint64_t first, last; /* absolute ns: the first burst's first wakeup, the last burst's */
	uint64_t work_run;    /* its bursts' longest runs, averaged (1/8 each, at most twice it; 0 none yet) */
	int peer;             /* the waker was woken in such bursts itself */
	struct tl_herd_woken threads[TL_HERD_THREADS];
	size_t nthreads;
};

struct tl_herd_result {
	struct tl_herd *items; /* sorted by futile_ns, largest first */
	size_t n;
};

struct tl_herds;

/* The walk's state machine (for the wakers' names) and window (r: which bursts count).  NULL with tl_error set. */
struct tl_herds *tl_herd_new(struct tl_sched *sched, const struct tl_walk_result *r);
/*
 * Every event of the walk in time order (CLOCK_TAKEN, SWITCH and LOST are
 * used: the steal in each stay); th: the thread CLOCK_TAKEN names, or NULL.
 */
void tl_herd_event(struct tl_herds *h, const struct tl_thread *th, const struct tl_event *ev);
/* Every interval of an analysed thread, in its order; lock: a SYNC_WAIT interval was a lock's. */
void tl_herd_interval(struct tl_herds *h, const struct tl_thread *th, const struct tl_interval *iv, int lock);
/* Judge what is left and move the results to *out.  0, or -1 with tl_error set. */
int tl_herd_finish(struct tl_herds *h, struct tl_herd_result *out);
void tl_herd_free(struct tl_herds *h);
void tl_herd_release(struct tl_herd_result *r);

#endif
