/*
 * switch_count.bpf.c - the smallest eBPF recorder piece: count, per CPU,
 * the context switches into and out of the idle task, at the raw
 * sched_switch tracepoint.
 *
 * tl_bpf_probe() (capture/bpf_probe.c) loads it to learn whether this
 * kernel runs CO-RE eBPF programs on sched_switch, and whether they see
 * what perf_event_open delivery misses: on some kernels the switches out of
 * the idle task on a CPU never reach perf or ftrace, while a program here
 * runs before that delivery and sees them: on each CPU the switches into
 * idle and out of idle agree to about one per edge of the window.  Not
 * exactly: under load (stress-ng --cpu 2 --fork 1 --switch 1 beside it),
 * about one 200 ms window in four on CPU 0 saw two switches out of idle
 * (to ksoftirqd/0, rcu_preempt, a forked child) with no switch into idle
 * between them, and no recursion miss.  The cause, found later: on this
 * project's VM no switch *out of* a thread of the sandbox's agent (PID 1,
 * process_api: its tokio-rt-worker, vsock-console... threads) ever fires
 * sched_switch, on either CPU, while the switches into them do (a
 * tp_btf and a raw_tp program counting both, 5 s: 16 in, 0 out); when
 * such a thread goes idle, the switch into idle is the one missing.  The
 * recorder's state machine infers such a switch (docs/STATES.md).
 *
 * raw_tp/sched_switch arguments: (bool preempt, struct task_struct *prev,
 * struct task_struct *next, unsigned int prev_state).  task_struct is
 * declared with only the field used; CO-RE relocates it against the
 * running kernel's BTF at load time.
 */
#include <linux/bpf.h>
#include <linux/types.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>

struct task_struct {
	int pid;
} __attribute__((preserve_access_index));

/* [0]: switches out of idle (prev is pid 0); [1]: switches into idle (next is pid 0). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, __u64);
} counts SEC(".maps");

static void bump(__u32 key)
{
	__u64 *v = bpf_map_lookup_elem(&counts, &key);

	if (v)
		(*v)++;
}

SEC("raw_tp/sched_switch")
int count_switch(struct bpf_raw_tracepoint_args *ctx)
{
	struct task_struct *prev = (struct task_struct *)ctx->args[1];
	struct task_struct *next = (struct task_struct *)ctx->args[2];

	if (BPF_CORE_READ(prev, pid) == 0)
		bump(0);
	if (BPF_CORE_READ(next, pid) == 0)
		bump(1);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
