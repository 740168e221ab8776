/*
 * diagnose_int.h - what the detectors share (diagnose.c for the ones that
 * read each thread's statistics, diagnose_regions.c for the ones that read
 * the parallel regions, diagnose_serial.c for serialized threads,
 * diagnose_spin.c for OpenMP workers spinning, diagnose_throttle.c for a
 * CPU limit, diagnose_herd.c for thundering herds, diagnose_saturation.c
 * for a program of several processes short of CPUs, diagnose_affinity.c
 * for threads kept off idle CPUs by their masks, diagnose_workers.c for
 * work split unevenly among threads created for it and a thread per
 * task, diagnose_lock.c for lock contention): the context of one analysis and the helpers that
 * fill a finding.
 */
#ifndef TL_DIAGNOSE_INT_H
#define TL_DIAGNOSE_INT_H

#include "analysis/diagnose/diagnose.h"
#include "analysis/report/report.h"

struct tl_dg_ctx {
	const struct tl_diagnose_opts *o;
	const struct tl_model *m;
	struct tl_findings *out;
	size_t cap;
	/*
	 * Per thread of m->threads: its SYNC_WAIT in the rounds of parallel
	 * regions (barriers and joins, regions.h), which the region detectors
	 * judge; lock contention and the bottleneck leave it out.
	 */
	uint64_t *rsync;
};

/* The region-explained SYNC_WAIT of t (a thread of c->m). */
uint64_t tl_dg_rsync(const struct tl_dg_ctx *c, const struct tl_thread_stats *t);

/* Fill c->rsync.  0, or -1 (memory). */
int tl_dg_rsync_init(struct tl_dg_ctx *c);

/* part / whole in %, 0 if whole is 0 */
double tl_dg_pct(uint64_t part, uint64_t whole);
uint64_t tl_dg_lifetime(const struct tl_thread_stats *t);
/* The time t wanted a CPU: on one (EXECUTING, INTERRUPTED) or waiting for one (RUNNABLE, READY_*). */
uint64_t tl_dg_wanting(const struct tl_thread_stats *t);
/*
 * Keep t in top[0..*n), the TL_FINDING_MAX_THREADS threads first in cmp's
 * order (qsort's, on pointers to the pointers), sorted.
 */
void tl_dg_keep_top(const struct tl_thread_stats **top, size_t *n, const struct tl_thread_stats *t,
                    int (*cmp)(const void *, const void *));

/* The threads whose wakeups ended a thread's waits (w[0..n), largest share first), up to max, in `role`. */
void tl_dg_add_wakers(struct tl_finding *f, const struct tl_waker_stat *w, size_t n, const char *role, size_t max);

/*
 * The test the share-of-life detectors have in common: the thread spent w
 * ns (the cost) in what `doing` says, at least min_pct of its life and at
 * least opts->min_cost_ns.  Then *out is a new finding with its title, the
 * thread in `role`, and the evidence of both thresholds (share_what,
 * time_what).  1 when it fires, 0 when not, -1 out of memory.
 */
int tl_dg_share_finding(struct tl_dg_ctx *c, const struct tl_thread_stats *t, unsigned kind, uint64_t w, double min_pct,
                        const char *doing, const char *role, const char *share_what, const char *time_what,
                        struct tl_finding **out);

/* Add a thread (up to TL_FINDING_MAX_THREADS) or a measured number (up to TL_FINDING_MAX_EVIDENCE). */
void tl_dg_add_thread(struct tl_finding *f, int32_t tid, int32_t pid, const char *name, const char *role);
void tl_dg_add_evidence(struct tl_finding *f, const char *what, double value, double threshold, const char *unit,
                        int above);

/*
 * A new finding in c->out (NULL when out of memory), its window [from, to]
 * (absolute ns), its severity cost / base (capped at 1).
 */
struct tl_finding *tl_dg_new_finding_at(struct tl_dg_ctx *c, unsigned kind, int32_t pid, const char *process,
                                        uint64_t from, uint64_t to, uint64_t cost, uint64_t base);
/* The same about thread t: its window and base are its life in the analysed window. */
struct tl_finding *tl_dg_new_finding(struct tl_dg_ctx *c, unsigned kind, const struct tl_thread_stats *t,
                                     uint64_t cost);

/* The region detectors (diagnose_regions.c): barrier imbalance, pointless parallelism.  0, or -1 (memory). */
int tl_dg_regions(struct tl_dg_ctx *c);

/* Serialized threads of process p (diagnose_serial.c).  0, or -1 (memory). */
int tl_dg_serialized(struct tl_dg_ctx *c, const struct tl_process_stats *p);

/* OpenMP workers of process p spinning between the regions (diagnose_spin.c).  0, or -1 (memory). */
int tl_dg_spin(struct tl_dg_ctx *c, const struct tl_process_stats *p);

/* Process p's threads held off idle CPUs: a CPU limit (diagnose_throttle.c).  0, or -1 (memory). */
int tl_dg_throttle(struct tl_dg_ctx *c, const struct tl_process_stats *p);
/* Process p's threads waiting beside idle CPUs their masks exclude (diagnose_affinity.c).  0, or -1 (memory). */
int tl_dg_affinity(struct tl_dg_ctx *c, const struct tl_process_stats *p);
/* Process p's threads created together for parts of a work, finishing far apart (diagnose_workers.c).  0, or -1. */
int tl_dg_workers(struct tl_dg_ctx *c, const struct tl_process_stats *p);
/* Process p's threads created anew for each small task (diagnose_workers.c).  0, or -1 (memory). */
int tl_dg_churn(struct tl_dg_ctx *c, const struct tl_process_stats *p);

/* Thread t waiting by calling sched_yield in a loop (diagnose_yield.c).  0, or -1 (memory). */
int tl_dg_yield(struct tl_dg_ctx *c, const struct tl_thread_stats *t);

/* Lock contention: one finding per lock, or per thread where the lock is unknown (diagnose_lock.c).  0, or -1. */
int tl_dg_locks(struct tl_dg_ctx *c);

/* Thundering herds of the recorded processes (diagnose_herd.c).  0, or -1 (memory). */
int tl_dg_herds(struct tl_dg_ctx *c);

/* The recorded processes together wanting more CPUs than there are (diagnose_saturation.c).  0, or -1. */
int tl_dg_saturation(struct tl_dg_ctx *c);

#endif
