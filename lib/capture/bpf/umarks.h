/*
 * umarks.h - the marker library's calls seen through uprobes, for processes
 * the recorder did not start (record -p): included by record.bpf.c, whose
 * ring, filter and record helpers it uses.
 *
 * A program started by `threadlens record` writes its markers into the
 * recorder's shared memory (capture/marks.c).  One already running was
 * started without it: its tl_frame_begin() and the rest return at once.
 * But they are still called, so a uprobe on each function's entry
 * (capture/bpf_rec.c attaches them, capture/umarks.c finds the library)
 * sees every call, with its arguments in the user registers: one record
 * per marker, of the marker's event type, as marks.c would make it (a =
 * frame id, value, or the thread's frame), but with the CPU it ran on.
 *
 * The thread's current frame (what a region or task begin carries) lives
 * in the library's TLS; here it is kept per thread in map "frame_of", set
 * by tl_frame_begin and tl_frame_join and cleared by the tl_frame_end of
 * that frame, as instr/threadlens.c keeps its own.  A thread seen first
 * in the middle of a frame has none until its next begin or join (-1, as
 * for a region outside any frame).
 *
 * Names are read from user memory (bpf_probe_read_user_str): a name whose
 * page is not resident reads as empty, and the record says so (b = 1, the
 * reader names it "(name lost)").  Names are cut at TLB_MARK_NAME_MAX
 * bytes.  Only the recorded processes' calls are written (the filter).
 */
#ifndef TL_UMARKS_BPF_H
#define TL_UMARKS_BPF_H

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, __s64);
} frame_of SEC(".maps");

struct rec_mark {
	struct tlb_hdr h;
	char name[TLB_MARK_NAME_MAX + 1];
};

#if defined(__TARGET_ARCH_x86)
#define MARK_ARG1(ctx) ((ctx)->di)
#define MARK_ARG2(ctx) ((ctx)->si)
#else
#define MARK_ARG1(ctx) 0 /* markers through uprobes: x86-64 only (bpf_rec.c does not attach them elsewhere) */
#define MARK_ARG2(ctx) 0
#endif

/* The calling thread's frame, or -1. */
static __always_inline __s64 frame_now(__u32 tid)
{
	__s64 *f = bpf_map_lookup_elem(&frame_of, &tid);

	return f ? *f : -1;
}

/* Set it: in place when the thread has an entry (an LRU map's insert and delete cost microseconds). */
static __always_inline void frame_set(__u32 tid, __s64 id)
{
	__s64 *f = bpf_map_lookup_elem(&frame_of, &tid);

	if (f)
		*f = id;
	else if (id >= 0)
		bpf_map_update_elem(&frame_of, &tid, &id, BPF_ANY);
}

/* One marker of the current thread: type, a, and a name read from user address `name` (0: none). */
static __always_inline int mark(__u16 type, __s64 a, unsigned long name)
{
	struct task_struct *cur = bpf_get_current_task_btf();
	struct rec_mark *r;
	long n = 0;

	if (!enabled || (filter && !is_tracked(cur)))
		return 0;
	r = reserve(sizeof(*r)); /* one size for all: the ring's reserve wants a constant */
	if (!r)
		return 0;
	hdr(&r->h, type, bpf_ktime_get_ns(), 0);
	r->h.tid = cur->pid;
	r->h.a = a;
	if (name) {
		n = bpf_probe_read_user_str(r->name, sizeof(r->name), (const void *)name);
		r->h.name_len = n > 1 ? (__u8)(n - 1) : 0;
		r->h.b = n <= 0; /* unreadable: the reader says so */
	}
	submit(r);
	return 0;
}

SEC("uprobe")
int tl_u_frame_begin(struct pt_regs *ctx)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	__s64 id = (__s64)MARK_ARG1(ctx);

	frame_set(tid, id);
	return mark(TL_EV_FRAME_BEGIN, id, 0);
}

SEC("uprobe")
int tl_u_frame_end(struct pt_regs *ctx)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	__s64 id = (__s64)MARK_ARG1(ctx);

	mark(TL_EV_FRAME_END, id, 0);
	if (frame_now(tid) == id)
		frame_set(tid, -1);
	return 0;
}

SEC("uprobe")
int tl_u_frame_join(struct pt_regs *ctx)
{
	frame_set((__u32)bpf_get_current_pid_tgid(), (__s64)MARK_ARG1(ctx));
	return 0;
}

SEC("uprobe")
int tl_u_region_begin(struct pt_regs *ctx)
{
	return mark(TL_EV_REGION_BEGIN, frame_now((__u32)bpf_get_current_pid_tgid()), MARK_ARG1(ctx));
}

SEC("uprobe")
int tl_u_region_end(struct pt_regs *ctx)
{
	return mark(TL_EV_REGION_END, 0, MARK_ARG1(ctx));
}

SEC("uprobe")
int tl_u_task_begin(struct pt_regs *ctx)
{
	return mark(TL_EV_TASK_BEGIN, frame_now((__u32)bpf_get_current_pid_tgid()), MARK_ARG1(ctx));
}

SEC("uprobe")
int tl_u_task_end(struct pt_regs *ctx)
{
	return mark(TL_EV_TASK_END, 0, MARK_ARG1(ctx));
}

SEC("uprobe")
int tl_u_instant(struct pt_regs *ctx)
{
	return mark(TL_EV_INSTANT, (__s64)MARK_ARG2(ctx), MARK_ARG1(ctx));
}

/*
 * A probed function's entry and return (capture/bpf_rec.h,
 * tl_bpf_rec_attach_span): the attach cookie says what it makes, bit 0
 * FUNC_ENTRY/FUNC_EXIT (record --func) or else REGION_BEGIN/REGION_END (an
 * OpenMP outlined function), bit 1 an inlined copy (entry only,
 * TL_EVF_INLINED), and above them its index in the recorder's list of
 * names (c = index + 1).
 */
static __always_inline int span(struct pt_regs *ctx, int entry)
{
	struct task_struct *cur = bpf_get_current_task_btf();
	__u64 cookie = bpf_get_attach_cookie(ctx);
	__u16 type = cookie & 1 ? (entry ? TL_EV_FUNC_ENTRY : TL_EV_FUNC_EXIT)
	                        : (entry ? TL_EV_REGION_BEGIN : TL_EV_REGION_END);
	struct tlb_hdr *h;

	if (!enabled || (filter && !is_tracked(cur)))
		return 0;
	h = reserve(sizeof(*h));
	if (!h)
		return 0;
	hdr(h, type, bpf_ktime_get_ns(), cookie & 2 ? TL_EVF_INLINED : 0);
	h->tid = cur->pid;
	h->a = type == TL_EV_REGION_BEGIN ? frame_now((__u32)cur->pid) : 0;
	h->c = (__s64)(cookie >> 2) + 1;
	submit(h);
	return 0;
}

SEC("uprobe")
int tl_u_span_begin(struct pt_regs *ctx)
{
	return span(ctx, 1);
}

SEC("uretprobe")
int tl_u_span_end(struct pt_regs *ctx)
{
	return span(ctx, 0);
}

#endif
