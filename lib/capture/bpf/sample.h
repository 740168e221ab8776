/*
 * sample.h - the sampling program of the eBPF recorder (record --sample),
 * included at the end of record.bpf.c (it uses hdr(), reserve(), is_tracked()).
 *
 * A perf event per CPU (cpu-clock at 997 Hz by default: capture/bpf_rec.c
 * opens them) runs tl_sample at each sample.  It writes a SAMPLE record:
 * the task on the CPU (the idle task is left out), the kernel frames then
 * the user frames of its stack (bpf_get_stack: frame pointers for user
 * code), at most TLB_STACK_KERNEL + TLB_STACK_USER, or only the
 * innermost one without stacks (stack_frames 1).  The sampled address is
 * the first frame.  With the filter, samples of other processes are only
 * counted.
 *
 * Record: tlb_hdr, then TLB_STACK_KERNEL slots of kernel frames and
 * TLB_STACK_USER of user frames (fixed places: the verifier bounds them);
 * a = kernel frames | user frames << 16 | the event's index << 32 (the
 * cookie bpf_rec.c attached the program with, one per event),
 * b = the first frame, c = the period (the event's count since the last
 * sample: ns for cpu-clock); tid/arg the thread and its process.
 */
#ifndef TL_BPF_SAMPLE_H
#define TL_BPF_SAMPLE_H

const volatile int stack_frames = TLB_STACK_USER; /* per part (kernel, user): 1 .. TLB_STACK_USER */

/* The context of a perf_event program: the user-visible pt_regs, then the period (x86-64 layout). */
struct tl_perf_ctx {
	unsigned long regs[21];
	__u64 sample_period;
	__u64 addr;
};

struct rec_sample {
	struct tlb_hdr h;
	__u64 ips[TLB_STACK_KERNEL + TLB_STACK_USER];
};

const volatile int stack_dwarf = 0; /* --stack dwarf: user registers and stack bytes instead of user frames */

/* --stack dwarf: the kernel frames, the user ip, sp and bp, then the top of the user stack */
struct rec_sample_dwarf {
	struct tlb_hdr h;
	__u64 ips[TLB_STACK_KERNEL];
	__u64 regs[3];
	__u8 stack[TLB_DWARF_STACK];
};

/* The user registers and stack of the current task into r (a user task: not a kernel thread); the bytes copied. */
static __always_inline long copy_user_stack(struct rec_sample_dwarf *r)
{
	struct task_struct *t = bpf_get_current_task_btf();
	struct pt_regs *u = (struct pt_regs *)bpf_task_pt_regs(t);
	__u64 sp;
	long n = 0;

	if (BPF_CORE_READ(t, flags) & PF_KTHREAD)
		return 0;
	r->regs[0] = BPF_CORE_READ(u, ip);
	r->regs[1] = sp = BPF_CORE_READ(u, sp);
	r->regs[2] = BPF_CORE_READ(u, bp);
	/* a page at a time from sp: the stack may end before TLB_DWARF_STACK bytes */
	for (int i = 0; i < TLB_DWARF_STACK / TLB_DWARF_CHUNK; i++) {
		if (bpf_probe_read_user(&r->stack[i * TLB_DWARF_CHUNK], TLB_DWARF_CHUNK,
		                        (const void *)(sp + (__u64)i * TLB_DWARF_CHUNK)))
			break;
		n += TLB_DWARF_CHUNK;
	}
	return n;
}

/* tl_sample with --stack dwarf: a = kernel frames | stack bytes << 16 | event << 32 | 1 << 40 */
static __always_inline int sample_dwarf(struct tl_perf_ctx *ctx, __u64 id)
{
	struct rec_sample_dwarf *r = reserve(sizeof(*r));
	long nk, bytes;

	if (!r)
		return 0;
	hdr(&r->h, TL_EV_SAMPLE, bpf_ktime_get_ns(), 0);
	r->h.tid = (__s32)id;
	r->h.arg = (__s32)(id >> 32);
#if defined(__TARGET_ARCH_x86)
	r->h.c = (__s64)ctx->sample_period;
#endif
	nk = bpf_get_stack(ctx, r->ips, TLB_STACK_KERNEL * 8u, 0);
	nk = nk > 0 ? nk >> 3 : 0;
	if (nk > TLB_STACK_KERNEL)
		nk = TLB_STACK_KERNEL;
	bytes = copy_user_stack(r);
	r->h.a = nk | (bytes << 16) | ((__s64)(bpf_get_attach_cookie(ctx) & 0xff) << 32) | (1ll << 40);
	r->h.b = nk ? (__s64)r->ips[0] : (__s64)r->regs[0];
	submit(r);
	return 0;
}

SEC("perf_event")
int tl_sample(struct tl_perf_ctx *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct rec_sample *r;
	long nk, nu;

	if (!enabled || !(__u32)id)
		return 0;
	if (filter && !is_tracked(bpf_get_current_task_btf())) {
		count(TLB_STAT_FILTERED);
		return 0;
	}
	if (stack_dwarf)
		return sample_dwarf(ctx, id);
	r = reserve(sizeof(*r));
	if (!r)
		return 0;
	hdr(&r->h, TL_EV_SAMPLE, bpf_ktime_get_ns(), 0); /* always from the sampling interrupt: no context flag */
	r->h.tid = (__s32)id;
	r->h.arg = (__s32)(id >> 32);
#if defined(__TARGET_ARCH_x86)
	r->h.c = (__s64)ctx->sample_period;
#endif
	nk = bpf_get_stack(ctx, r->ips, (__u32)stack_frames * 8u, 0);
	nk = nk > 0 ? nk >> 3 : 0; /* bytes to frames (no signed division in BPF) */
	if (nk > TLB_STACK_KERNEL)
		nk = TLB_STACK_KERNEL;
	nu = 0;
	if (!nk || stack_frames > 1) {
		nu = bpf_get_stack(ctx, &r->ips[TLB_STACK_KERNEL], (__u32)stack_frames * 8u, BPF_F_USER_STACK);
		nu = nu > 0 ? nu >> 3 : 0;
		if (nu > TLB_STACK_USER)
			nu = TLB_STACK_USER;
	}
	r->h.a = nk | (nu << 16) | ((__s64)(bpf_get_attach_cookie(ctx) & 0xff) << 32);
	r->h.b = nk ? (__s64)r->ips[0] : nu ? (__s64)r->ips[TLB_STACK_KERNEL] : 0;
	submit(r);
	return 0;
}

#endif
