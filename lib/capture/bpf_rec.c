/*
 * bpf_rec.c - the eBPF back end's loader and reader (see bpf_rec.h).
 *
 * The program's object is compiled into the binary through the skeleton
 * bpftool makes at build time (capture/bpf/record.skel.h).  Records are
 * parsed with every length checked against the record's size: the ring is
 * written by our own program, but a reader that trusts a length can be
 * made to read out of bounds by any bug there (fuzz_bpf_rec checks this).
 */
#include "capture/bpf_rec.h"

#include <errno.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <linux/types.h>

#include "base/errors.h"
#include "capture/bpf_msg.h"
#include "capture/bpf_rec_int.h"
#include "capture/umarks.h"
#include "capture/sample_events.h"
#include "capture/bpf/record.skel.h" /* generated: bpftool gen skeleton */
#include "capture/bpf/tlb.h"

#define DEFAULT_RING (16u << 20)

/* ---- parsing ---- */

int64_t tl_bpf_prev_state(uint32_t raw, int preempt)
{
	uint32_t st = raw & 0xffff, tsk = (st & 0x7f) | ((raw >> 16) & 0xffff);

	if (preempt)
		return TL_PS_PREEMPT;
	if ((st & 0x402) == 0x402) /* TASK_IDLE: uninterruptible, not counted as load */
		return TL_PS_I;
	if (st & 0x1000) /* TASK_RTLOCK_WAIT reports as D */
		tsk = 0x2;
	if (!tsk)
		return TL_PS_RUNNING;
	/* the highest bit wins, as the kernel's task_state_index() does */
	if (tsk & 0x40)
		return TL_PS_P;
	if (tsk & 0x20)
		return TL_PS_Z;
	if (tsk & 0x10)
		return TL_PS_X;
	if (tsk & 0x8)
		return TL_PS_TRACED;
	if (tsk & 0x4)
		return TL_PS_T;
	if (tsk & 0x2)
		return TL_PS_D;
	return TL_PS_S;
}

static uint32_t strn(const char *s, uint32_t max)
{
	uint32_t n = 0;

	while (n < max && s[n])
		n++;
	return n;
}

_Static_assert(TL_BPF_SAMPLE_FRAMES == TLB_STACK_KERNEL + TLB_STACK_USER, "a SAMPLE record's frames fit");

int tl_bpf_parse(const void *rec, size_t size, struct tl_bpf_event *out)
{
	const char *p = rec;
	struct tlb_hdr h;
	size_t need;

	if (size < sizeof(h))
		return 0;
	memcpy(&h, p, sizeof(h));
	need = sizeof(h) + (size_t)h.ncomm * sizeof(struct tlb_comm) + h.name_len;
	if (h.type == TL_EV_NONE || h.type >= TL_EV__COUNT || h.ncomm > 2 || need > size ||
	    h.name_len > (tl_bpf_is_marker(h.type) ? TLB_MARK_NAME_MAX : TLB_NAME_MAX))
		return 0;
	memset(out, 0, offsetof(struct tl_bpf_event, frames)); /* frames: only nframes of them count */
	out->cur_tid = h.cur_tid;
	out->cur_pid = h.cur_tgid;
	out->d.ev.ts = h.ts;
	out->d.ev.type = h.type;
	out->d.ev.cpu = h.cpu;
	out->d.ev.flags = h.flags;
	out->d.ev.tid = h.tid;
	out->d.ev.arg = h.arg;
	out->d.ev.a = h.a;
	out->d.ev.b = h.b;
	out->d.ev.c = h.c;
	for (int i = 0; i < h.ncomm; i++) {
		const struct tlb_comm *c = (const struct tlb_comm *)(p + sizeof(h) + (size_t)i * sizeof(*c));

		out->d.ids[i].tid = c->tid;
		out->d.ids[i].comm.s = c->comm;
		out->d.ids[i].comm.len = strn(c->comm, TLB_COMM_LEN);
	}
	out->d.nids = h.ncomm;
	if (h.name_len) {
		out->d.name.s = p + sizeof(h) + (size_t)h.ncomm * sizeof(struct tlb_comm);
		out->d.name.len = strn(out->d.name.s, h.name_len);
	}
	out->span = -1;
	if (h.type == TL_EV_FUNC_ENTRY || h.type == TL_EV_FUNC_EXIT) {
		/* a --func function's entry or return (umarks.h, span()): named by the recorder, c = index + 1 */
		if (h.ncomm || h.name_len || h.c <= 0 || h.c > INT32_MAX || (h.flags & ~(unsigned)TL_EVF_INLINED) ||
		    (h.flags && h.type != TL_EV_FUNC_ENTRY))
			return 0;
		out->span = (int)(h.c - 1);
		out->d.ev.a = out->d.ev.b = out->d.ev.c = 0;
		return 1;
	}
	if (tl_bpf_is_marker(h.type)) {
		/*
		 * A marker call seen by a uprobe (umarks.h): as the marker library's own
		 * would be (marks.c), but on the CPU it ran on (theirs has none), so
		 * that CPU's stream keeps its time order.  c > 0: an OpenMP function's
		 * region, named by the recorder (its cookie + 1).
		 */
		if (h.ncomm || (h.type <= TL_EV_FRAME_END && h.name_len))
			return 0;
		if (h.c > 0) {
			if (h.name_len || h.c > INT32_MAX ||
			    (h.type != TL_EV_REGION_BEGIN && h.type != TL_EV_REGION_END))
				return 0;
			out->span = (int)(h.c - 1);
			out->d.ev.c = 0;
		}
		out->d.ev.b = 0;
		if (h.b && !h.name_len) {
			out->d.name.s = TL_BPF_NAME_LOST;
			out->d.name.len = sizeof(TL_BPF_NAME_LOST) - 1;
		}
		return 1;
	}
	switch (h.type) {
	case TL_EV_SAMPLE: {
		/* a = kernel frames | user frames << 16; the frames follow the header (sample.h) */
		unsigned nk = (unsigned)(h.a & 0xffff), nu = (unsigned)((h.a >> 16) & 0xffff);

		out->sample_event = (unsigned)((uint64_t)h.a >> 32) & 0xff;
		out->dwarf = (int)(((uint64_t)h.a >> 40) & 1);
		if (out->dwarf) { /* nu is the stack's bytes: kernel frames, registers, stack (sample_dwarf) */
			size_t regs_at = sizeof(h) + TLB_STACK_KERNEL * 8, stack_at = regs_at + 3 * 8;
			if (h.ncomm || h.name_len || nk > TLB_STACK_KERNEL || nu > TLB_DWARF_STACK ||
			    stack_at + nu > size)
				return 0;
			out->nframes = nk;
			memcpy(out->frames, p + sizeof(h), (size_t)nk * 8);
			memcpy(out->uregs, p + regs_at, sizeof(out->uregs));
			out->ustack = (const uint8_t *)p + stack_at;
			out->ustack_len = nu;
			out->d.ev.a = 0;
			break;
		}
		if (h.ncomm || h.name_len || nk > TLB_STACK_KERNEL || nu > TLB_STACK_USER ||
		    sizeof(h) + (size_t)(TLB_STACK_KERNEL + nu) * 8 > size)
			return 0;
		/* kernel frames, then the user ones from their fixed place */
		out->nframes = nk + nu;
		memcpy(out->frames, p + sizeof(h), (size_t)nk * 8);
		memcpy(out->frames + nk, p + sizeof(h) + TLB_STACK_KERNEL * 8, (size_t)nu * 8);
		/* a frame-pointer walk through code without frame pointers ends in 0: the stack ends there */
		for (unsigned i = 0; i < out->nframes; i++)
			if (!out->frames[i])
				out->nframes = i;
		out->d.ev.a = 0; /* the stack id, once interned */
		break;
	}
	case TL_EV_SWITCH: {
		uint64_t end_ns = ((uint64_t)h.b >> 16) & 0xffffff; /* above prev's prio: kclock_end_lag() */

		out->d.ev.a = tl_bpf_prev_state((uint32_t)h.a, (h.a >> 32) & 1);
		out->d.ev.lag = tl_lag_units((uint32_t)((uint64_t)h.a >> 33)); /* record.bpf.c, kclock_lag() */
		out->d.ev.b = (int16_t)(h.b & 0xffff);
		/* next's priority + 1 under a futex wait's word (record.bpf.c) */
		out->d.ev.c = (int64_t)((uint64_t)h.c & 0xff) - 1;
		out->d.futex_addr = h.flags & TL_EVF_WAIT_FUTEX ? (uint64_t)h.c >> 8 : 0;
		end_ns = (end_ns + TL_LAG_UNIT_NS / 2) / TL_LAG_UNIT_NS; /* now in units */
		out->d.ev.lag_end = (uint16_t)(end_ns < 0xffff ? end_ns : 0xffff);
		break;
	}
	case TL_EV_WAKEUP:
	case TL_EV_WAKEUP_NEW:
	case TL_EV_EXIT:
		out->d.ev.lag = tl_lag_units((uint32_t)h.c);
		out->d.ev.c = 0;
		break;
	case TL_EV_FORK:
		/* the child's name is the event's name; its process rides in a */
		out->child_tgid = (int32_t)h.a;
		out->d.ev.a = 0;
		out->d.reset_tid = h.tid;
		if (h.ncomm)
			out->d.name = out->d.ids[0].comm;
		break;
	case TL_EV_RENAME:
		if (h.ncomm)
			out->d.name = out->d.ids[0].comm;
		break;
	default: break;
	}
	return 1;
}

/* ---- loading ---- */

static int on_record(void *ctx, void *data, size_t size)
{
	struct tl_bpf_rec *r = ctx;
	struct tl_bpf_event ev;

	if (!tl_bpf_parse(data, size, &ev)) {
		(*r->malformed)++;
		return 0;
	}
	if (r->fn(r->ctx, &ev)) {
		r->failed = 1;
		return -1; /* stops ring_buffer__consume() */
	}
	return 0;
}

/* 1 if tracefs shows the tracepoint "system/name" (raw_tp attach fails on one the kernel lacks) */
static int have_tracepoint(const char *tp)
{
	char path[128];

	snprintf(path, sizeof(path), "/sys/kernel/tracing/events/%s", tp);
	if (!access(path, F_OK))
		return 1;
	snprintf(path, sizeof(path), "/sys/kernel/debug/tracing/events/%s", tp);
	return !access(path, F_OK);
}

/* 1 if the kernel has the tracepoint tp for tp_btf programs (one with no trace event is not in tracefs). */
static int have_btf_tracepoint(const char *tp)
{
	struct btf *btf = btf__load_vmlinux_btf();
	char name[128];
	int yes;

	if (!btf)
		return 0;
	snprintf(name, sizeof(name), "btf_trace_%s", tp);
	yes = btf__find_by_name_kind(btf, name, BTF_KIND_TYPEDEF) >= 0;
	btf__free(btf);
	return yes;
}

/*
 * x86's irq_vectors programs (record.bpf.c VECTOR_PROGS): loaded with the
 * interrupts, where the kernel has them.  1 if the local timer's are.
 */
static int vector_progs(struct record *skel, unsigned groups)
{
	const struct {
		struct bpf_program *entry, *exit;
		const char *tp;
	} v[] = {
		{ skel->progs.tl_vec_local_timer_entry, skel->progs.tl_vec_local_timer_exit,
		  "irq_vectors/local_timer_entry" },
		{ skel->progs.tl_vec_reschedule_entry, skel->progs.tl_vec_reschedule_exit,
		  "irq_vectors/reschedule_entry" },
		{ skel->progs.tl_vec_call_function_entry, skel->progs.tl_vec_call_function_exit,
		  "irq_vectors/call_function_entry" },
		{ skel->progs.tl_vec_call_function_single_entry, skel->progs.tl_vec_call_function_single_exit,
		  "irq_vectors/call_function_single_entry" },
		{ skel->progs.tl_vec_x86_platform_ipi_entry, skel->progs.tl_vec_x86_platform_ipi_exit,
		  "irq_vectors/x86_platform_ipi_entry" },
	};
	int timer = 0;

	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		int on = (groups & TL_REC_IRQ) && have_tracepoint(v[i].tp);

		bpf_program__set_autoload(v[i].entry, on);
		bpf_program__set_autoload(v[i].exit, on);
		timer |= on && !i;
	}
	return timer;
}

/*
 * One sampling perf event per event and CPU, each running tl_sample
 * (sample.h) with the event's index as its cookie.  An event that does not
 * open on a CPU that is online is one the machine lacks: skipped, with
 * its reason; -1 when every event is.
 */
static int attach_sampling(struct tl_bpf_rec *r, const struct tl_bpf_sample *s)
{
	size_t n = (size_t)r->ncpus * (size_t)s->nevents;
	int any = 0;

	r->sample_fds = malloc(n * sizeof(*r->sample_fds));
	r->sample_links = calloc(n, sizeof(*r->sample_links));
	if (!r->sample_fds || !r->sample_links)
		return tl_error("out of memory");
	for (int e = 0; e < s->nevents && e < TL_SAMPLE_MAX_EVENTS; e++) {
		int before = r->nsample;
		for (int cpu = 0; cpu < r->ncpus; cpu++) {
			LIBBPF_OPTS(bpf_perf_event_opts, po, .bpf_cookie = (uint64_t)e);
			int fd = tl_sample_event_open(s->events[e], s->hz, cpu);

			if (fd < 0) {
				if (errno == ENODEV || errno == ENXIO)
					continue; /* an offline CPU */
				snprintf(r->skipped[e], sizeof(r->skipped[e]), "%s", tl_error_msg());
				break;
			}
			r->sample_fds[r->nsample] = fd;
			r->sample_links[r->nsample++] =
			        bpf_program__attach_perf_event_opts(r->skel->progs.tl_sample, fd, &po);
			if (!r->sample_links[r->nsample - 1]) {
				r->sample_links[r->nsample - 1] = NULL;
				return tl_bpf_fail("eBPF: cannot attach the sampling program", -errno);
			}
		}
		if (r->skipped[e][0]) { /* not on every CPU: not at all */
			while (r->nsample > before) {
				r->nsample--;
				bpf_link__destroy(r->sample_links[r->nsample]);
				r->sample_links[r->nsample] = NULL;
				close(r->sample_fds[r->nsample]);
			}
		} else {
			any = 1;
		}
	}
	if (!any)
		return tl_error("%s", r->skipped[0]);
	return 0;
}

const char *tl_bpf_rec_sample_skipped(const struct tl_bpf_rec *r, int i)
{
	return i >= 0 && i < TL_SAMPLE_MAX_EVENTS && r->skipped[i][0] ? r->skipped[i] : NULL;
}

struct tl_bpf_rec *tl_bpf_rec_open(unsigned groups, size_t ring_bytes, int filter, const struct tl_bpf_sample *sample,
                                   int umarks)
{
	libbpf_print_fn_t old = tl_bpf_msg_begin();
	struct tl_bpf_rec *r = calloc(1, sizeof(*r));
	int err;

	if (!r) {
		tl_error("out of memory");
		goto fail;
	}
	if (!ring_bytes)
		ring_bytes = DEFAULT_RING;
	r->ncpus = libbpf_num_possible_cpus();
	if (r->ncpus <= 0) {
		tl_error("eBPF: cannot tell the number of CPUs");
		goto fail;
	}
	if (!(r->skel = record__open())) {
		tl_bpf_fail("eBPF: cannot open the recorder program", -errno);
		goto fail;
	}
	r->skel->rodata->wake_bytes = ring_bytes / 4;
	bpf_map__set_max_entries(r->skel->maps.rb, (uint32_t)ring_bytes);
	if (!(groups & TL_REC_IRQ)) {
		bpf_program__set_autoload(r->skel->progs.tl_irq_entry, false);
		bpf_program__set_autoload(r->skel->progs.tl_irq_exit, false);
		bpf_program__set_autoload(r->skel->progs.tl_softirq_entry, false);
		bpf_program__set_autoload(r->skel->progs.tl_softirq_exit, false);
	}
	r->vectors = vector_progs(r->skel, groups);
	if (!have_tracepoint("timer/hrtimer_expire_entry")) {
		/* no hrtimer tracepoints seen (or no tracefs mounted): timeouts are told by the stack alone */
		bpf_program__set_autoload(r->skel->progs.tl_hrtimer_entry, false);
		bpf_program__set_autoload(r->skel->progs.tl_hrtimer_exit, false);
	}
	if (!(groups & TL_REC_BLOCK)) {
		bpf_program__set_autoload(r->skel->progs.tl_bio_queue, false);
		bpf_program__set_autoload(r->skel->progs.tl_rq_complete, false);
	}
	r->skel->rodata->classify_futex = !!(groups & TL_REC_FUTEX);
	r->skel->rodata->classify_yield = !!(groups & TL_REC_YIELD);
	/* without it, no YIELD_SPIN: the switches still say which waits are yields */
	if (!(groups & TL_REC_YIELD) || !have_btf_tracepoint("sched_exit_tp"))
		bpf_program__set_autoload(r->skel->progs.tl_yield, false);
	r->skel->rodata->filter = !!filter;
	if (sample)
		r->skel->rodata->stack_dwarf = !!sample->dwarf;
	if (sample)
		r->skel->rodata->stack_frames = sample->frames < 1                ? 1
		                                : sample->frames > TLB_STACK_USER ? TLB_STACK_USER
		                                                                  : sample->frames;
	else
		bpf_program__set_autoload(r->skel->progs.tl_sample, false);
	tl_bpf_rec_uprobes_prepare(r, umarks);
	if ((err = record__load(r->skel))) {
		tl_bpf_fail("eBPF: the kernel did not load the recorder program", err);
		goto fail;
	}
	if ((err = record__attach(r->skel))) {
		tl_bpf_fail("eBPF: cannot attach the recorder's raw tracepoints", err);
		goto fail;
	}
	if (sample && attach_sampling(r, sample))
		goto fail;
	r->rb = ring_buffer__new(bpf_map__fd(r->skel->maps.rb), on_record, r, NULL);
	if (!r->rb) {
		tl_bpf_fail("eBPF: cannot map the ring buffer", -errno);
		goto fail;
	}
	tl_bpf_msg_end(old);
	return r;
fail:
	tl_bpf_rec_close(r);
	tl_bpf_msg_end(old);
	return NULL;
}

void tl_bpf_rec_enable(struct tl_bpf_rec *r, int on)
{
	__atomic_store_n(&r->skel->bss->enabled, on, __ATOMIC_SEQ_CST);
}

int tl_bpf_rec_fd(const struct tl_bpf_rec *r)
{
	return ring_buffer__epoll_fd(r->rb);
}

int tl_bpf_rec_ncpus(const struct tl_bpf_rec *r)
{
	return r->ncpus;
}

long tl_bpf_rec_drain(struct tl_bpf_rec *r, int (*fn)(void *ctx, const struct tl_bpf_event *ev), void *ctx,
                      uint64_t *malformed)
{
	int n;

	r->fn = fn;
	r->ctx = ctx;
	r->malformed = malformed;
	r->failed = 0;
	n = ring_buffer__consume(r->rb);
	if (r->failed)
		return -1;
	if (n < 0)
		return tl_error("eBPF: cannot read the ring buffer: %s", strerror(-n));
	return n;
}

/* One per-CPU counter of map "stats" (tlb.h, enum tlb_stat). */
static int read_stat(struct tl_bpf_rec *r, uint32_t key, uint64_t *per_cpu, int ncpus)
{
	uint64_t *v = calloc((size_t)r->ncpus, sizeof(*v));

	if (!v)
		return tl_error("out of memory");
	if (bpf_map__lookup_elem(r->skel->maps.stats, &key, sizeof(key), v, (size_t)r->ncpus * sizeof(*v), 0)) {
		free(v);
		return tl_error_errno("eBPF: cannot read the program's counters");
	}
	for (int c = 0; c < ncpus; c++)
		per_cpu[c] = c < r->ncpus ? v[c] : 0;
	free(v);
	return 0;
}

int tl_bpf_rec_dropped(struct tl_bpf_rec *r, uint64_t *per_cpu, int ncpus)
{
	return read_stat(r, TLB_STAT_DROPPED, per_cpu, ncpus);
}

/* ---- filtering ---- */

int tl_bpf_rec_track(struct tl_bpf_rec *r, int32_t tgid)
{
	uint32_t k = (uint32_t)tgid;
	uint8_t one = 1;

	if (bpf_map__update_elem(r->skel->maps.tracked, &k, sizeof(k), &one, sizeof(one), BPF_ANY))
		return tl_error_errno("eBPF: cannot add process %d to the filter", tgid);
	return 0;
}

int tl_bpf_rec_start_at(struct tl_bpf_rec *r, uint64_t start_ns)
{
	struct tlb_cpu *acct = calloc((size_t)r->ncpus, sizeof(*acct));
	uint32_t zero = 0;
	int ret = 0;

	if (!acct)
		return tl_error("out of memory");
	for (int c = 0; c < r->ncpus; c++)
		acct[c].since = start_ns;
	if (bpf_map__update_elem(r->skel->maps.acct, &zero, sizeof(zero), acct, (size_t)r->ncpus * sizeof(*acct), 0))
		ret = tl_error_errno("eBPF: cannot start the filter's sums");
	free(acct);
	return ret;
}

/* The open stretch of a CPU at the end: what close_stretch() in record.bpf.c would do at end_ns. */
static void close_at_end(struct tlb_cpu *c, uint64_t end_ns, uint64_t *open_ns)
{
	uint64_t d = end_ns > c->since ? end_ns - c->since : 0;

	*open_ns = 0;
	if (c->kind != TLB_OCC_OTHER && c->kind != TLB_OCC_IDLE)
		return;
	d -= c->intr_ns < d ? c->intr_ns : d;
	if (c->kind == TLB_OCC_IDLE) {
		c->idle_ns += d;
	} else {
		c->busy_ns += d;
		*open_ns = d;
	}
}

int tl_bpf_rec_filtered(struct tl_bpf_rec *r, uint64_t end_ns,
                        int (*fn)(void *ctx, const struct tl_event *ev, const char *name), void *ctx,
                        uint64_t *left_out)
{
	int n = r->ncpus, fd = bpf_map__fd(r->skel->maps.others), ret = -1;
	struct tlb_cpu *acct = calloc((size_t)n, sizeof(*acct));
	uint64_t *open_ns = calloc((size_t)n, sizeof(*open_ns)), *cnt = calloc((size_t)n, sizeof(*cnt));
	struct tlb_other_key k, nk, *prev = NULL;
	uint32_t zero = 0;

	*left_out = 0;
	if (!acct || !open_ns || !cnt) {
		tl_error("out of memory");
		goto out;
	}
	if (bpf_map__lookup_elem(r->skel->maps.acct, &zero, sizeof(zero), acct, (size_t)n * sizeof(*acct), 0)) {
		tl_error_errno("eBPF: cannot read the filter's sums");
		goto out;
	}
	if (read_stat(r, TLB_STAT_FILTERED, cnt, n))
		goto out;
	for (int c = 0; c < n; c++) {
		struct tl_event e = { .ts = end_ns, .type = TL_EV_FILTERED, .cpu = (int16_t)c };

		*left_out += cnt[c];
		close_at_end(&acct[c], end_ns, &open_ns[c]);
		if (acct[c].kind == TLB_OCC_UNKNOWN && !acct[c].busy_ns && !acct[c].idle_ns)
			continue; /* no switch on this CPU: nothing filtered */
		e.arg = TL_FILT_CPU_TIME;
		e.a = (int64_t)acct[c].busy_ns;
		e.b = (int64_t)acct[c].idle_ns;
		e.c = (int64_t)acct[c].switches;
		if (fn(ctx, &e, NULL))
			goto out;
		e.arg = TL_FILT_CPU_INTR;
		e.a = (int64_t)acct[c].irq_ns;
		e.b = (int64_t)acct[c].softirq_ns;
		e.c = (int64_t)acct[c].unknown_ns;
		if (fn(ctx, &e, NULL))
			goto out;
	}
	/* per CPU and process; the stretch still open at the end adds to its occupant's */
	while (!bpf_map_get_next_key(fd, prev, &nk)) {
		struct tlb_other o;
		char name[TLB_COMM_LEN + 1];
		struct tl_event e = { .ts = end_ns, .type = TL_EV_FILTERED, .arg = TL_FILT_PROCESS };

		k = nk;
		prev = &k;
		if (bpf_map_lookup_elem(fd, &k, &o) || k.cpu >= (uint32_t)n)
			continue;
		if (acct[k.cpu].acc_tgid == k.tgid) {
			/* not yet added in the kernel (record.bpf.c, new_occupant()), and the open stretch's */
			o.ns += acct[k.cpu].acc_ns + open_ns[k.cpu];
			acct[k.cpu].acc_ns = open_ns[k.cpu] = 0;
		}
		if (!o.ns)
			continue;
		memcpy(name, o.comm, TLB_COMM_LEN);
		name[TLB_COMM_LEN] = 0;
		e.cpu = (int16_t)k.cpu;
		e.tid = (int32_t)k.tgid;
		e.a = (int64_t)o.ns;
		if (fn(ctx, &e, name[0] ? name : NULL))
			goto out;
	}
	ret = 0;
out:
	free(acct);
	free(open_ns);
	free(cnt);
	return ret;
}

int tl_bpf_rec_yield_runs(struct tl_bpf_rec *r, uint64_t end_ns, int (*fn)(void *ctx, const struct tl_event *ev),
                          void *ctx)
{
	int n = r->ncpus, ret = -1;
	struct tlb_yspin *y = calloc((size_t)n, sizeof(*y));
	uint32_t zero = 0;

	if (!y)
		return tl_error("out of memory");
	if (bpf_map__lookup_elem(r->skel->maps.yspin, &zero, sizeof(zero), y, (size_t)n * sizeof(*y), 0)) {
		tl_error_errno("eBPF: cannot read the open runs of sched_yield calls");
		goto out;
	}
	for (int c = 0; c < n; c++) {
		struct tl_event e = { .ts = end_ns, .type = TL_EV_YIELD_SPIN, .cpu = (int16_t)c };

		if (y[c].calls < 2)
			continue;
		e.tid = (int32_t)y[c].tid;
		e.a = y[c].calls;
		e.b = (int64_t)(y[c].last - y[c].first);
		e.c = end_ns > y[c].last ? (int64_t)(end_ns - y[c].last) : 0;
		if (fn(ctx, &e))
			goto out;
	}
	ret = 0;
out:
	free(y);
	return ret;
}

void tl_bpf_rec_close(struct tl_bpf_rec *r)
{
	if (!r)
		return;
	ring_buffer__free(r->rb);
	tl_bpf_rec_unlink_all(r);
	for (int i = 0; i < r->nsample; i++) {
		bpf_link__destroy(r->sample_links[i]);
		close(r->sample_fds[i]);
	}
	free(r->sample_links);
	free(r->sample_fds);
	record__destroy(r->skel);
	free(r);
}

int tl_bpf_rec_vectors(const struct tl_bpf_rec *r)
{
	return r->vectors;
}
