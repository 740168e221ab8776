/*
 * irq.h - the interrupt programs of the eBPF recorder: IRQ handlers,
 * softirqs, and the local timer and IPI vectors (hrtimer expiry inside
 * them), included in the middle of record.bpf.c (it uses hdr(),
 * reserve(), intr_enter() and the CPU's interrupt depth).  One BPF object:
 * this file only keeps record.bpf.c to a size that reads.
 */
#ifndef TL_BPF_IRQ_H
#define TL_BPF_IRQ_H

SEC("raw_tp/irq_handler_entry")
int tl_irq_entry(struct bpf_raw_tracepoint_args *ctx)
{
	struct irqaction *action = (struct irqaction *)ctx->args[1];
	struct rec_name *r;
	long n;

	intr_enter(1);
	if (!enabled)
		return 0;
	if (in_stretch()) {
		sum_intr(0, 1, bpf_ktime_get_ns());
		return 0;
	}
	r = reserve(sizeof(*r));
	if (!r)
		return 0;
	hdr(&r->h, TL_EV_IRQ_ENTRY, bpf_ktime_get_ns(), TL_EVF_HARDIRQ);
	r->h.tid = r->h.cur_tid;
	r->h.a = (int)ctx->args[0];
	n = bpf_probe_read_kernel_str(r->name, 32, BPF_CORE_READ(action, name));
	r->h.name_len = n > 1 ? (__u8)(n - 1) : 0;
	submit(r);
	return 0;
}

SEC("raw_tp/irq_handler_exit")
int tl_irq_exit(struct bpf_raw_tracepoint_args *ctx)
{
	intr_enter(-1);
	if (enabled && in_stretch())
		sum_intr(0, 0, bpf_ktime_get_ns());
	else if (enabled)
		plain(TL_EV_IRQ_EXIT, bpf_ktime_get_ns(), TL_EVF_HARDIRQ, (__s32)bpf_get_current_pid_tgid(), 0,
		      (int)ctx->args[0], (int)ctx->args[2], 0);
	return 0;
}

SEC("raw_tp/softirq_entry")
int tl_softirq_entry(struct bpf_raw_tracepoint_args *ctx)
{
	if (!in_ksoftirqd())
		intr_enter(1);
	if (enabled && in_stretch())
		sum_intr(1, 1, bpf_ktime_get_ns());
	else if (enabled)
		plain(TL_EV_SOFTIRQ_ENTRY, bpf_ktime_get_ns(), TL_EVF_SOFTIRQ, (__s32)bpf_get_current_pid_tgid(), 0,
		      (unsigned int)ctx->args[0], 0, 0);
	return 0;
}

SEC("raw_tp/softirq_exit")
int tl_softirq_exit(struct bpf_raw_tracepoint_args *ctx)
{
	if (!in_ksoftirqd())
		intr_enter(-1);
	if (enabled && in_stretch())
		sum_intr(1, 0, bpf_ktime_get_ns());
	else if (enabled)
		plain(TL_EV_SOFTIRQ_EXIT, bpf_ktime_get_ns(), TL_EVF_SOFTIRQ, (__s32)bpf_get_current_pid_tgid(), 0,
		      (unsigned int)ctx->args[0], 0, 0);
	return 0;
}

/*
 * x86's own interrupts (irq_vectors: the local timer, IPIs), as IRQ_ENTRY/
 * EXIT with TL_EVF_VECTOR (trace/event.h); user space names them after c.
 */
/*
 * The scheduler tick: the hrtimer whose function is tick_nohz_handler (the
 * name since 6.10; a kernel without it has 0 here and no tick is told).
 * It updates the run time of the CPU's task, which the kernel's readings
 * of a running thread are as of (analysis/kcheck: stale readings); other
 * timers that expire in the same local timer interrupt do not.  Set when
 * it expires, told on that interrupt's IRQ_EXIT (b = 1), then cleared.
 */
extern const void tick_nohz_handler __ksym __weak;

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} ticked SEC(".maps");

static __always_inline int vector_event(int entry, int vector, int kind)
{
	__u32 k = 0, *tick = bpf_map_lookup_elem(&ticked, &k);
	__s64 b = 0;

	if (!entry && tick) {
		b = *tick;
		*tick = 0;
	}
	intr_enter(entry ? 1 : -1);
	if (enabled && in_stretch()) {
		sum_intr(0, entry, bpf_ktime_get_ns());
	} else if (enabled) {
		__u64 now = bpf_ktime_get_ns();

		if (b) /* the tick updated the clock: what it took out during the stay so far */
			taken_note(rq_of_task(bpf_get_current_task_btf()), now, (__s32)bpf_get_current_pid_tgid());
		plain(entry ? TL_EV_IRQ_ENTRY : TL_EV_IRQ_EXIT, now, TL_EVF_HARDIRQ | TL_EVF_VECTOR,
		      (__s32)bpf_get_current_pid_tgid(), 0, vector, b, kind);
	}
	return 0;
}

#define VECTOR_PROGS(tp, kind)                                       \
	SEC("raw_tp/" #tp "_entry")                                  \
	int tl_vec_##tp##_entry(struct bpf_raw_tracepoint_args *ctx) \
	{                                                            \
		return vector_event(1, (int)ctx->args[0], kind);     \
	}                                                            \
	SEC("raw_tp/" #tp "_exit")                                   \
	int tl_vec_##tp##_exit(struct bpf_raw_tracepoint_args *ctx)  \
	{                                                            \
		return vector_event(0, (int)ctx->args[0], kind);     \
	}

/* Keep in step with vector_progs() in bpf_rec.c. */
VECTOR_PROGS(local_timer, TL_VEC_LOCAL_TIMER)
VECTOR_PROGS(reschedule, TL_VEC_RESCHEDULE)
VECTOR_PROGS(call_function, TL_VEC_CALL_FUNCTION)
VECTOR_PROGS(call_function_single, TL_VEC_CALL_FUNCTION_SINGLE)
VECTOR_PROGS(x86_platform_ipi, TL_VEC_PLATFORM_IPI)

/* hrtimer callbacks (timeouts, sleeps) run in interrupt context: only counted, not recorded */
SEC("raw_tp/hrtimer_expire_entry")
int tl_hrtimer_entry(struct bpf_raw_tracepoint_args *ctx)
{
	struct hrtimer *t = (struct hrtimer *)ctx->args[0];
	__u32 k = 0, *tick;

	intr_enter(1);
	if (&tick_nohz_handler && BPF_CORE_READ(t, function) == &tick_nohz_handler &&
	    (tick = bpf_map_lookup_elem(&ticked, &k)))
		*tick = 1;
	return 0;
}

SEC("raw_tp/hrtimer_expire_exit")
int tl_hrtimer_exit(struct bpf_raw_tracepoint_args *ctx)
{
	intr_enter(-1);
	return 0;
}

#endif
