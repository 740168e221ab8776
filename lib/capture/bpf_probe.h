/*
 * bpf_probe.h - can this kernel run threadlens' eBPF programs, and do they
 * see the scheduler events that perf_event_open delivery misses?
 *
 * The first piece of the eBPF recording back end (issue "Numbers you can
 * trust"): tl_bpf_probe() loads capture/bpf/switch_count.bpf.c (CO-RE,
 * against /sys/kernel/btf/vmlinux), attaches it to raw_tp/sched_switch for
 * a moment and reads, per CPU, the switches out of and into the idle task.
 * A kernel whose perf delivery drops the switches out of idle on some CPU
 * still shows them here: on each CPU the two counts differ by at most one.
 *
 * Needs root (CAP_BPF and CAP_PERFMON).  libbpf's own messages are kept
 * from stderr; the reason a load fails comes back through tl_error.
 */
#ifndef TL_BPF_PROBE_H
#define TL_BPF_PROBE_H

#include <stdint.h>

#define TL_BPF_PROBE_MAX_CPUS 1024

struct tl_bpf_probe {
	int ncpus;                                   /* possible CPUs */
	uint64_t out_of_idle[TL_BPF_PROBE_MAX_CPUS]; /* switches whose prev was the idle task */
	uint64_t into_idle[TL_BPF_PROBE_MAX_CPUS];   /* switches whose next was the idle task */
	uint64_t total_out, total_into;
};

/*
 * Load, attach for `ms` milliseconds (the caller's own work may run on
 * other threads meanwhile), read the counts into *r and unload.  Returns 0,
 * or -1 with tl_error saying why (not root, no BTF, the verifier refused,
 * the tracepoint is missing).
 */
int tl_bpf_probe(unsigned ms, struct tl_bpf_probe *r);

#endif
