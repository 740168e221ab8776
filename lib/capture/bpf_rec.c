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
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/types.h>

#include "base/errors.h"
#include "capture/bpf_msg.h"
#include "capture/bpf/record.skel.h" /* generated: bpftool gen skeleton */
#include "capture/bpf/tlb.h"

#define DEFAULT_RING (16u << 20)

struct tl_bpf_rec {
	struct record *skel;
	struct ring_buffer *rb;
	int ncpus;
	/* during a drain */
	int (*fn)(void *ctx, const struct tl_bpf_event *ev);
	void *ctx;
	uint64_t *malformed;
	int failed;
};

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

int tl_bpf_parse(const void *rec, size_t size, struct tl_bpf_event *out)
{
	const char *p = rec;
	struct tlb_hdr h;
	size_t need;

	if (size < sizeof(h))
		return 0;
	memcpy(&h, p, sizeof(h));
	need = sizeof(h) + (size_t)h.ncomm * sizeof(struct tlb_comm) + h.name_len;
	if (h.type == TL_EV_NONE || h.type >= TL_EV__COUNT || h.ncomm > 2 || h.name_len > TLB_NAME_MAX || need > size)
		return 0;
	memset(out, 0, sizeof(*out));
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
	switch (h.type) {
	case TL_EV_SWITCH: out->d.ev.a = tl_bpf_prev_state((uint32_t)h.a, (h.a >> 32) & 1); break;
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

struct tl_bpf_rec *tl_bpf_rec_open(unsigned groups, size_t ring_bytes)
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
	if (!(groups & TL_REC_BLOCK)) {
		bpf_program__set_autoload(r->skel->progs.tl_bio_queue, false);
		bpf_program__set_autoload(r->skel->progs.tl_rq_complete, false);
	}
	r->skel->rodata->classify_futex = !!(groups & TL_REC_FUTEX);
	r->skel->rodata->classify_yield = !!(groups & TL_REC_YIELD);
	if ((err = record__load(r->skel))) {
		tl_bpf_fail("eBPF: the kernel did not load the recorder program", err);
		goto fail;
	}
	if ((err = record__attach(r->skel))) {
		tl_bpf_fail("eBPF: cannot attach the recorder's raw tracepoints", err);
		goto fail;
	}
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

int tl_bpf_rec_dropped(struct tl_bpf_rec *r, uint64_t *per_cpu, int ncpus)
{
	uint32_t key = TLB_STAT_DROPPED;
	uint64_t *v = calloc((size_t)r->ncpus, sizeof(*v));

	if (!v)
		return tl_error("out of memory");
	if (bpf_map__lookup_elem(r->skel->maps.stats, &key, sizeof(key), v, (size_t)r->ncpus * sizeof(*v), 0)) {
		free(v);
		return tl_error_errno("eBPF: cannot read the drop counters");
	}
	for (int c = 0; c < ncpus; c++)
		per_cpu[c] = c < r->ncpus ? v[c] : 0;
	free(v);
	return 0;
}

void tl_bpf_rec_close(struct tl_bpf_rec *r)
{
	if (!r)
		return;
	ring_buffer__free(r->rb);
	record__destroy(r->skel);
	free(r);
}
