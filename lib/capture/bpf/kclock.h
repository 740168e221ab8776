/*
 * kclock.h - the kernel's clock lag of the recorder's events (trace/event.h,
 * a SWITCH's, WAKEUP's or EXIT's lag and a SWITCH's lag_end): where the
 * kernel's own accounting dates them, read from the run queue's clock and
 * the task's last accounting.  Included by record.bpf.c only, after
 * kstruct.h; BPF code, not user space.
 *
 * Invariant: kclock_est is the least (ktime - rq->clock) seen, as of
 * kclock_at, or INT64_MAX before the first; every lag returned is + 1 in
 * ns (0 unknown) and capped (lag_plus_1, kclock_end_lag).
 */
#ifndef TL_BPF_KCLOCK_H
#define TL_BPF_KCLOCK_H

/*
 * The kernel's clock lag of an event (tlb.h): how long before it the run
 * queue's clock (rq->clock, which the kernel's accounting dates a switch
 * or an enqueue by) was last updated.  That clock is sched_clock(), not
 * CLOCK_MONOTONIC: the two differ by an offset that drifts (6 ppm measured
 * on this project's VM), so the offset is estimated as the least
 * difference (ktime - rq->clock) seen, which an enqueue gives within about
 * 0.15 us of the truth (its WAKEUP comes right after the clock update),
 * let rise by 15 ppm of the time since (1/65536) so that it follows a
 * drift either way.  Every switch and enqueue of the machine is an
 * observation, recorded or not, and from before the recording starts.
 * Measured against the least difference within 50 ms either side, over
 * 5497 switches: -0.19 to +0.09 us (10th to 90th percentile).  The two
 * globals are written only on a new least value, by any CPU: a torn pair
 * is off by nanoseconds.  Returns the lag + 1 in ns (at most 2^31 - 1),
 * 0 when this kernel has no such fields (rq NULL: rq_of_task()).
 */
__s64 kclock_est = 0x7fffffffffffffffLL;
__u64 kclock_at;

/* p's run queue (its CPU's), or NULL on a kernel without the fields (no CONFIG_FAIR_GROUP_SCHED). */
static __always_inline struct rq *rq_of_task(struct task_struct *p)
{
	if (!bpf_core_field_exists(p->se.cfs_rq) || !bpf_core_field_exists(struct cfs_rq, rq))
		return NULL;
	return p->se.cfs_rq->rq; /* plain loads of BTF pointers, as the task's fields (a faulting one reads 0) */
}

/* A lag of d ns as the records carry it: d + 1 (0 is unknown), at most 2^31 - 1. */
static __always_inline __u32 lag_plus_1(__s64 d)
{
	return d <= 0 ? 1 : d < 0x7ffffffe ? (__u32)d + 1 : 0x7fffffff;
}

static __always_inline __u32 kclock_lag(struct rq *rq, __u64 now)
{
	__s64 d, e;

	if (!rq)
		return 0;
	d = (__s64)(now - rq->clock);
	e = kclock_est;
	if (e != 0x7fffffffffffffffLL && now > kclock_at)
		e += (__s64)((now - kclock_at) >> 16);
	if (d <= e) {
		kclock_est = d;
		kclock_at = now;
		return lag_plus_1(0);
	}
	return lag_plus_1(d - e);
}

/*
 * An exiting task's exit totals (taskstats, sent just before this
 * tracepoint) hold its run time as of its last accounting (se.exec_start,
 * in the task clock: the clock less the steal and interrupt time the run
 * queue has taken out of it).  How long before `now` that was, + 1, in ns
 * (trace/event.h, an EXIT's lag); 0 unknown.
 */
static __always_inline __u32 kclock_exit_lag(struct task_struct *p, __u64 now)
{
	struct rq *rq = rq_of_task(p);

	if (!rq || kclock_est == 0x7fffffffffffffffLL)
		return 0;
	return lag_plus_1((__s64)(now - p->se.exec_start - (rq->clock - rq->clock_task)) - kclock_est);
}

/*
 * How much before its run queue's last clock update the kernel last
 * accounted prev's run (se.exec_start, in the task clock that moves with
 * the clock): schedule() updates the clock again after the dequeue when it
 * balances load for a CPU about to go idle (trace/event.h, lag_end).  In
 * ns, at most 2^24 - 1; 0 for the idle task, or without the fields (rq
 * NULL).  rq is this CPU's, the switch's.
 */
static __always_inline __u32 kclock_end_lag(struct task_struct *prev, struct rq *rq)
{
	__s64 d;

	if (!prev->pid || !rq)
		return 0;
	d = (__s64)(rq->clock_task - prev->se.exec_start);
	return d <= 0 ? 0 : d < 0xffffff ? (__u32)d : 0xffffff;
}

#endif
