/*
 * taskstats.h - the kernel's accounting of a thread over generic netlink
 * (the "taskstats" family): the same counters as capture/kstat.h, in ns,
 * for a live thread on request and for every thread that exits.
 *
 * Why both this and /proc: when a thread exits, its /proc entry goes with
 * it, so its final totals exist only in the message the kernel sends to the
 * listeners registered for exits; and /proc gives block-I/O delay only in
 * clock ticks (10 ms), taskstats in ns.  Both need root (GENL_ADMIN_PERM).
 *
 * Fields used, from struct taskstats (linux/taskstats.h):
 *   run_ns   = cpu_run_virtual_total  the scheduler's sum_exec_runtime, the
 *                                     run time of /proc/.../schedstat
 *   wait_ns  = cpu_delay_total        sched_info.run_delay (run-queue wait)
 *   blkio_ns = blkio_delay_total      block-I/O delay (delay accounting)
 *   vol, invol = nvcsw, nivcsw
 *   tgid     = ac_tgid                (version 12 on; -1 before)
 * The kernel's struct grows at its end between versions: a message is read
 * up to the fields it has, and one shorter than nivcsw is malformed.
 */
#ifndef TL_TASKSTATS_H
#define TL_TASKSTATS_H

#include <stddef.h>
#include <stdint.h>

#include "capture/kstat.h"

struct tl_taskstats;

/*
 * Open the family.  With listen_exits, also register for the exits on
 * every possible CPU (the socket of tl_taskstats_fd()).  NULL with tl_error
 * set when the kernel has no taskstats or the caller is not root.
 */
struct tl_taskstats *tl_taskstats_open(int listen_exits);

/* Deregister and close.  NULL is fine. */
void tl_taskstats_close(struct tl_taskstats *ts);

/* The counters of live thread tid (and its tgid, or -1).  0, or -1 with tl_error set. */
int tl_taskstats_query(struct tl_taskstats *ts, int32_t tid, struct tl_kstat *k, int32_t *tgid);

/* The exit socket, readable when exits are waiting; -1 without listen_exits. */
int tl_taskstats_fd(const struct tl_taskstats *ts);

typedef void (*tl_taskstats_fn)(const struct tl_kstat *k, int32_t tgid, void *ctx);

/*
 * Read every exit waiting on the socket, without blocking, and call fn for
 * each exited thread.  Returns the number of threads, or -1 with tl_error
 * set.  Messages the kernel could not queue (a full socket buffer) are
 * counted in *lost when it is not NULL.
 */
long tl_taskstats_drain(struct tl_taskstats *ts, tl_taskstats_fn fn, void *ctx, uint64_t *lost);

/*
 * Parse one datagram of netlink messages as the kernel sends them: calls fn
 * for each TASKSTATS_TYPE_AGGR_PID (a thread; the process aggregates
 * TASKSTATS_TYPE_AGGR_TGID are skipped).  Returns the number of threads, or
 * -1 if the datagram is malformed or holds an error message (tl_error set).
 * Pure: the unit tests and the fuzz target call it on bytes.
 */
long tl_taskstats_parse(const void *buf, size_t len, uint16_t family, tl_taskstats_fn fn, void *ctx);

#endif
