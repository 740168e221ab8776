/*
 * kdating.bpf.c - how much shorter the kernel's accounting of a thread's
 * run plus run-queue wait is than the time between its tracepoints, per
 * sleep (bench/kdating.sh; the self-check's lag_sleep allowance,
 * lib/analysis/kcheck/kcheck.h).
 *
 * For the first thread whose name is `want`: from each sched_wakeup of it
 * (or a preempted switch-out) to its switch-in is wait, from switch-in to
 * switch-out is run, both as the trace dates them (bpf_ktime_get_ns() at
 * the tracepoint).  At each switch-out to sleep, the trace's run + wait
 * since the previous one is compared with the change of the kernel's
 * se.sum_exec_runtime + sched_info.run_delay, read from the task.  The
 * differences (trace - kernel) are summed and histogrammed, split by
 * whether the CPU went idle.
 *
 * Where the kernel dates an enqueue: at each sched_wakeup, the time of the
 * tracepoint minus the run queue's clock at the enqueue
 * (sched_info.last_queued), split by whether the event fired on the target
 * CPU or on the waker's.  The two clocks differ by a constant offset,
 * estimated as the least such difference seen at any event (clock_min), so
 * the figures are late by at most the shortest enqueue-to-event time.
 *
 * Single-thread, single-writer state: the watched thread runs on one CPU
 * at a time, so its events are serialized.
 */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#define NBUCKET 64
#define BUCKET_NS 250
#define LOW_NS 5000 /* the first bucket holds everything below -LOW_NS */

const volatile char want[16] = {};

int tid;
__u64 ready_t, in_t, running, started;
__u64 trace_sum, trace_prev, kern_prev;
__s64 sum[2]; /* [0]: another task came next, [1]: the CPU went idle */
__u64 n[2], hist[2][NBUCKET];
__s64 enq_sum[2]; /* [0]: WAKEUP on the target CPU, [1]: on the waker's */
__u64 enq_n[2];
__s64 clock_min = 0x7fffffffffffffffLL; /* least (ktime - rq clock) seen */

static int watched(struct task_struct *p)
{
	char c[16];

	if (tid)
		return p->pid == tid;
	bpf_probe_read_kernel_str(c, sizeof(c), p->comm);
	for (int i = 0; i < 16; i++) {
		if (c[i] != want[i])
			return 0;
		if (!c[i])
			break;
	}
	tid = p->pid;
	return 1;
}

SEC("tp_btf/sched_wakeup")
int BPF_PROG(on_wakeup, struct task_struct *p)
{
	__u64 now = bpf_ktime_get_ns(), queued;
	__s64 lag;
	__u32 remote;

	if (!watched(p) || running)
		return 0;
	ready_t = now;
	queued = BPF_CORE_READ(p, sched_info.last_queued);
	if (!queued)
		return 0; /* woken on its run queue still (a delayed dequeue): no enqueue */
	lag = (__s64)(now - queued);
	remote = BPF_CORE_READ(p, thread_info.cpu) != bpf_get_smp_processor_id();
	enq_sum[remote & 1] += lag;
	enq_n[remote & 1]++;
	if (lag < clock_min)
		clock_min = lag;
	return 0;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(on_switch, bool preempt, struct task_struct *prev, struct task_struct *next, unsigned int prev_state)
{
	__u64 now = bpf_ktime_get_ns(), k, b;
	int idle;
	__s64 d;

	if (watched(next)) {
		__s64 lag = (__s64)(now - BPF_CORE_READ(next, se.cfs_rq, rq, clock));

		if (lag < clock_min)
			clock_min = lag;
		if (ready_t)
			trace_sum += now - ready_t;
		in_t = now;
		running = 1;
		ready_t = 0;
	}
	if (!watched(prev) || !running)
		return 0;
	trace_sum += now - in_t;
	running = 0;
	if (preempt || !prev_state) {
		ready_t = now;
		return 0;
	}
	k = BPF_CORE_READ(prev, se.sum_exec_runtime) + BPF_CORE_READ(prev, sched_info.run_delay);
	if (started) {
		d = (__s64)(trace_sum - trace_prev) - (__s64)(k - kern_prev);
		b = d < -LOW_NS ? 0 : (__u64)(d + LOW_NS) / BUCKET_NS;
		if (b > NBUCKET - 1)
			b = NBUCKET - 1;
		asm volatile("%0 &= 63" : "+r"(b)); /* NBUCKET - 1, for the verifier */
		idle = next->pid == 0;
		sum[idle] += d;
		n[idle]++;
		hist[idle][b]++;
	}
	started = 1;
	trace_prev = trace_sum;
	kern_prev = k;
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
