/*
 * tp_decode.c - tracepoint format text into a decode table, and raw samples
 * into struct tl_event (see tp_decode.h).
 *
 * Invariants: after tl_tp_table_add(), a kind's field descriptors hold
 * offsets and sizes exactly as the kernel's format file gave them; nothing
 * about a layout is assumed.  The decoder checks every access against the
 * sample's size, so hostile bytes can only make a sample be rejected.
 * libtraceevent is used at table-building time only, never per sample.
 * Dynamic tracepoints (uprobes) get kinds from TL_TP__COUNT up, in the
 * order they were added; their samples need no field but common_type.
 */
#include "capture/tp_decode.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include "base/errors.h"
#include "base/grow.h"
#include "capture/tp_state.h"

/*
 * Kernel trace flags in common_flags.  libtraceevent names the first ones
 * (TRACE_FLAG_HARDIRQ, TRACE_FLAG_SOFTIRQ); NMI is kernel/trace/trace.h's
 * TRACE_FLAG_NMI, which libtraceevent's copy of the enum does not carry.
 */
#define KFLAG_NMI 0x40

#define MAX_FIELDS 7

static const struct tl_tp_desc descs[TL_TP__COUNT] = {
	[TL_TP_SCHED_SWITCH] = { "sched", "sched_switch", 0, 1, NULL },
	[TL_TP_SCHED_WAKING] = { "sched", "sched_waking", 0, 1, NULL },
	[TL_TP_SCHED_WAKEUP] = { "sched", "sched_wakeup", 0, 1, NULL },
	[TL_TP_SCHED_WAKEUP_NEW] = { "sched", "sched_wakeup_new", 0, 0, NULL },
	[TL_TP_SCHED_FORK] = { "sched", "sched_process_fork", 0, 0, NULL },
	[TL_TP_SCHED_EXEC] = { "sched", "sched_process_exec", 0, 0, NULL },
	[TL_TP_SCHED_EXIT] = { "sched", "sched_process_exit", 0, 0, NULL },
	[TL_TP_SCHED_FREE] = { "sched", "sched_process_free", 0, 0, NULL },
	[TL_TP_SCHED_MIGRATE] = { "sched", "sched_migrate_task", 0, 0, NULL },
	[TL_TP_TASK_RENAME] = { "task", "task_rename", 0, 0, NULL },
	[TL_TP_IRQ_ENTRY] = { "irq", "irq_handler_entry", TL_REC_IRQ, 0, NULL },
	[TL_TP_IRQ_EXIT] = { "irq", "irq_handler_exit", TL_REC_IRQ, 0, NULL },
	[TL_TP_SOFTIRQ_ENTRY] = { "irq", "softirq_entry", TL_REC_IRQ, 0, NULL },
	[TL_TP_SOFTIRQ_EXIT] = { "irq", "softirq_exit", TL_REC_IRQ, 0, NULL },
	/*
	 * Only futex calls that can sleep matter (SYNC_WAIT); a lock hand-off also
	 * makes a FUTEX_WAKE call and its return, which the kernel drops for us:
	 * the waiting ops with the PRIVATE (128) and CLOCK_REALTIME (256) flags,
	 * and the returns of those ops, which are never positive (a wake returns
	 * how many it woke).  Keep in step with tl_futex_op_waits().
	 */
	[TL_TP_FUTEX_ENTER] = { "syscalls", "sys_enter_futex", TL_REC_FUTEX, 0,
	                        "op==0||op==128||op==256||op==384||op==9||op==137||op==265||op==393||"
	                        "op==6||op==134||op==262||op==390||op==11||op==139||op==267||op==395||"
	                        "op==13||op==141||op==269||op==397" },
	[TL_TP_FUTEX_EXIT] = { "syscalls", "sys_exit_futex", TL_REC_FUTEX, 0, "ret<=0" },
	[TL_TP_FUTEX_WAITV_ENTER] = { "syscalls", "sys_enter_futex_waitv", TL_REC_FUTEX, 0, NULL },
	[TL_TP_FUTEX_WAITV_EXIT] = { "syscalls", "sys_exit_futex_waitv", TL_REC_FUTEX, 0, NULL },
	[TL_TP_BLOCK_BIO_QUEUE] = { "block", "block_bio_queue", TL_REC_BLOCK, 0, NULL },
	[TL_TP_BLOCK_RQ_COMPLETE] = { "block", "block_rq_complete", TL_REC_BLOCK, 0, NULL },
	[TL_TP_SCHED_STAT_RUNTIME] = { "sched", "sched_stat_runtime", 0, 0, NULL },
	[TL_TP_YIELD_ENTER] = { "syscalls", "sys_enter_sched_yield", TL_REC_YIELD, 0, NULL },
	[TL_TP_YIELD_EXIT] = { "syscalls", "sys_exit_sched_yield", TL_REC_YIELD, 0, NULL },
	[TL_TP_VEC_TIMER_ENTRY] = { "irq_vectors", "local_timer_entry", TL_REC_IRQ, 0, NULL },
	[TL_TP_VEC_TIMER_EXIT] = { "irq_vectors", "local_timer_exit", TL_REC_IRQ, 0, NULL },
	[TL_TP_VEC_RESCHED_ENTRY] = { "irq_vectors", "reschedule_entry", TL_REC_IRQ, 0, NULL },
	[TL_TP_VEC_RESCHED_EXIT] = { "irq_vectors", "reschedule_exit", TL_REC_IRQ, 0, NULL },
	[TL_TP_VEC_CALL_ENTRY] = { "irq_vectors", "call_function_entry", TL_REC_IRQ, 0, NULL },
	[TL_TP_VEC_CALL_EXIT] = { "irq_vectors", "call_function_exit", TL_REC_IRQ, 0, NULL },
	[TL_TP_VEC_CALL1_ENTRY] = { "irq_vectors", "call_function_single_entry", TL_REC_IRQ, 0, NULL },
	[TL_TP_VEC_CALL1_EXIT] = { "irq_vectors", "call_function_single_exit", TL_REC_IRQ, 0, NULL },
	[TL_TP_VEC_PLATFORM_ENTRY] = { "irq_vectors", "x86_platform_ipi_entry", TL_REC_IRQ, 0, NULL },
	[TL_TP_VEC_PLATFORM_EXIT] = { "irq_vectors", "x86_platform_ipi_exit", TL_REC_IRQ, 0, NULL },
};

/*
 * The fields each kind reads, in the order decode() indexes them.  A
 * leading '?' marks a field the decoder can do without (it reads as 0),
 * because some kernels lack it.
 */
static const char *const field_names[TL_TP__COUNT][MAX_FIELDS] = {
	[TL_TP_SCHED_SWITCH] = { "prev_comm", "prev_pid", "prev_prio", "prev_state", "next_comm", "next_pid",
	                         "next_prio" },
	[TL_TP_SCHED_WAKING] = { "comm", "pid", "?prio", "?target_cpu" },
	[TL_TP_SCHED_WAKEUP] = { "comm", "pid", "?prio", "?target_cpu" },
	[TL_TP_SCHED_WAKEUP_NEW] = { "comm", "pid", "?prio", "?target_cpu" },
	[TL_TP_SCHED_FORK] = { "?parent_comm", "parent_pid", "child_comm", "child_pid" },
	[TL_TP_SCHED_EXEC] = { "filename", "pid", "?old_pid" },
	[TL_TP_SCHED_EXIT] = { "pid" },
	[TL_TP_SCHED_FREE] = { "pid" },
	[TL_TP_SCHED_MIGRATE] = { "?comm", "pid", "orig_cpu", "dest_cpu" },
	[TL_TP_TASK_RENAME] = { "pid", "newcomm" },
	[TL_TP_IRQ_ENTRY] = { "irq", "?name" },
	[TL_TP_IRQ_EXIT] = { "irq", "?ret" },
	[TL_TP_SOFTIRQ_ENTRY] = { "vec" },
	[TL_TP_SOFTIRQ_EXIT] = { "vec" },
	[TL_TP_FUTEX_ENTER] = { "uaddr", "op", "?val" },
	[TL_TP_FUTEX_EXIT] = { "ret" },
	[TL_TP_FUTEX_WAITV_ENTER] = { "waiters" },
	[TL_TP_FUTEX_WAITV_EXIT] = { "ret" },
	[TL_TP_BLOCK_BIO_QUEUE] = { "dev", "sector", "nr_sector" },
	[TL_TP_BLOCK_RQ_COMPLETE] = { "dev", "sector", "nr_sector" },
	[TL_TP_SCHED_STAT_RUNTIME] = { "pid", "runtime" },
	[TL_TP_YIELD_ENTER] = { NULL },
	[TL_TP_YIELD_EXIT] = { NULL },
	[TL_TP_VEC_TIMER_ENTRY] = { "vector" },
	[TL_TP_VEC_TIMER_EXIT] = { "vector" },
	[TL_TP_VEC_RESCHED_ENTRY] = { "vector" },
	[TL_TP_VEC_RESCHED_EXIT] = { "vector" },
	[TL_TP_VEC_CALL_ENTRY] = { "vector" },
	[TL_TP_VEC_CALL_EXIT] = { "vector" },
	[TL_TP_VEC_CALL1_ENTRY] = { "vector" },
	[TL_TP_VEC_CALL1_EXIT] = { "vector" },
	[TL_TP_VEC_PLATFORM_ENTRY] = { "vector" },
	[TL_TP_VEC_PLATFORM_EXIT] = { "vector" },
};

enum fld_kind {
	FLD_ABSENT = 0,
	FLD_UINT,   /* unsigned integer of size 1, 2, 4 or 8 */
	FLD_SINT,   /* signed integer */
	FLD_CHARS,  /* char name[N]: NUL-padded */
	FLD_DYN,    /* __data_loc: u32 at off, (len << 16) | offset from record start */
	FLD_RELDYN, /* __rel_loc: the same, offset counted from the end of the u32 */
};

struct fld {
	uint16_t off;
	uint16_t size;
	uint8_t kind;
};

struct tp {
	int id;            /* -1 until added */
	uint32_t min_size; /* bytes every field needs; shorter samples are rejected */
	struct fld f[MAX_FIELDS];
};

struct dyn_tp {
	int id;
	uint16_t type;  /* TL_EV_FUNC_ENTRY or TL_EV_FUNC_EXIT */
	uint16_t flags; /* TL_EVF_INLINED: the entry of an inlined copy */
	uint32_t len;
	char *name; /* owned */
};

struct tl_tp_table {
	struct fld common_type, common_flags;
	int have_common;
	struct tp tp[TL_TP__COUNT];
	struct tl_tp_state_map st;
	int ndyn;
	size_t capdyn;
	struct dyn_tp *dyn;         /* kind TL_TP__COUNT + i */
	uint16_t kind_of_id[65536]; /* common_type -> kind + 1; 0 = not ours */
};

const struct tl_tp_desc *tl_tp_desc(unsigned kind)
{
	return kind < TL_TP__COUNT ? &descs[kind] : NULL;
}

struct tl_tp_table *tl_tp_table_new(void)
{
	struct tl_tp_table *t = calloc(1, sizeof(*t));

	if (!t) {
		tl_error("out of memory");
		return NULL;
	}
	for (int k = 0; k < TL_TP__COUNT; k++)
		t->tp[k].id = -1;
	tl_tp_state_default(&t->st);
	return t;
}

void tl_tp_table_free(struct tl_tp_table *t)
{
	if (!t)
		return;
	for (int i = 0; i < t->ndyn; i++)
		free(t->dyn[i].name);
	free(t->dyn);
	free(t);
}

int tl_tp_table_id(const struct tl_tp_table *t, unsigned kind)
{
	return kind < TL_TP__COUNT ? t->tp[kind].id : -1;
}

static int fld_from_tep(struct fld *f, const struct tep_format_field *tf)
{
	if (tf->offset < 0 || tf->size <= 0 || tf->offset + tf->size > 0xffff)
		return -1;
	f->off = (uint16_t)tf->offset;
	f->size = (uint16_t)tf->size;
	if (tf->flags & TEP_FIELD_IS_DYNAMIC) {
		if (tf->size != 4)
			return -1;
		f->kind = (tf->flags & TEP_FIELD_IS_RELATIVE) ? FLD_RELDYN : FLD_DYN;
	} else if (tf->flags & TEP_FIELD_IS_ARRAY) {
		f->kind = FLD_CHARS;
	} else {
		if (tf->size != 1 && tf->size != 2 && tf->size != 4 && tf->size != 8)
			return -1;
		f->kind = (tf->flags & TEP_FIELD_IS_SIGNED) ? FLD_SINT : FLD_UINT;
	}
	return 0;
}

int64_t tl_tp_table_prev_state(const struct tl_tp_table *t, uint64_t kstate)
{
	const struct tl_tp_state_map *m = &t->st;
	uint64_t st = kstate & m->mask;
	int64_t out = 0;

	for (int i = 0; st && i < m->n; i++)
		if (st & m->kval[i])
			out |= m->tl[i];
	if (m->noload && (out & TL_PS_I))
		out &= ~(int64_t)TL_PS_D;
	if (kstate & m->preempt)
		out |= TL_PS_PREEMPT;
	return out;
}

int tl_tp_table_state_fallback(const struct tl_tp_table *t)
{
	return t->st.fallback;
}

const char *tl_tp_table_state_desc(const struct tl_tp_table *t, char *buf, size_t len)
{
	return tl_tp_state_desc(&t->st, buf, len);
}

/* ---- building the table ---- */

static int add_common(struct tl_tp_table *t, struct tep_event *ev)
{
	struct tep_format_field *ty = tep_find_common_field(ev, "common_type");
	struct tep_format_field *fl = tep_find_common_field(ev, "common_flags");
	struct fld a = { 0 }, b = { 0 };

	if (!ty || fld_from_tep(&a, ty) || a.kind == FLD_CHARS || a.kind >= FLD_DYN)
		return tl_error("format of '%s:%s' has no usable common_type", ev->system, ev->name);
	if (fl && (fld_from_tep(&b, fl) || b.size != 1))
		b.kind = FLD_ABSENT;
	if (!t->have_common) {
		t->common_type = a;
		t->common_flags = b;
		t->have_common = 1;
	} else if (memcmp(&a, &t->common_type, sizeof(a))) {
		return tl_error("format of '%s:%s' disagrees with the others on common_type", ev->system, ev->name);
	}
	return 0;
}

/* A libtraceevent handle for parsing format files of this machine. */
static struct tep_handle *new_tep(void)
{
	struct tep_handle *tep = tep_alloc();

	if (!tep) {
		tl_error("out of memory");
		return NULL;
	}
	tep_set_long_size(tep, (int)sizeof(long));
	tep_set_file_bigendian(tep, tep_is_bigendian() ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(tep, tep_is_bigendian() ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	return tep;
}

int tl_tp_table_add(struct tl_tp_table *t, unsigned kind, const char *text, size_t len)
{
	struct tep_handle *tep;
	struct tep_event *ev = NULL;
	struct tp tp = { .id = -1 };
	const struct tl_tp_desc *d = tl_tp_desc(kind);
	int ret = -1;

	if (!d)
		return tl_error("unknown tracepoint kind %u", kind);
	tep = new_tep();
	if (!tep)
		return -1;
	/* A print fmt that libtraceevent cannot fully parse still yields the fields we need. */
	tep_parse_format(tep, &ev, text, len, d->system);
	if (!ev) {
		tl_error("cannot parse the format of '%s:%s'", d->system, d->name);
		goto out;
	}
	if (strcmp(ev->name, d->name)) {
		tl_error("format text is for '%s', not '%s:%s'", ev->name, d->system, d->name);
		goto out;
	}
	if (ev->id < 0 || ev->id > 0xffff) {
		tl_error("format of '%s:%s' has an invalid id %d", d->system, d->name, ev->id);
		goto out;
	}
	if (add_common(t, ev))
		goto out;
	tp.id = ev->id;
	tp.min_size = t->common_type.off + t->common_type.size;
	if (t->common_flags.kind && t->common_flags.off + 1u > tp.min_size)
		tp.min_size = t->common_flags.off + 1u;
	for (int i = 0; i < MAX_FIELDS && field_names[kind][i]; i++) {
		const char *name = field_names[kind][i];
		int optional = name[0] == '?';
		struct tep_format_field *f = tep_find_field(ev, name + optional);

		if (!f) {
			if (optional)
				continue;
			tl_error("format of '%s:%s' has no field '%s'", d->system, d->name, name);
			goto out;
		}
		if (fld_from_tep(&tp.f[i], f)) {
			tl_error("field '%s' of '%s:%s' has an unexpected layout", name + optional, d->system, d->name);
			goto out;
		}
		if (tp.f[i].off + tp.f[i].size > tp.min_size)
			tp.min_size = tp.f[i].off + tp.f[i].size;
	}
	if (kind == TL_TP_SCHED_SWITCH) {
		struct tl_tp_state_map m;
		if (tl_tp_state_derive(&m, ev))
			tl_tp_state_default(&t->st);
		else
			t->st = m;
	}
	if (t->tp[kind].id >= 0 && t->tp[kind].id != tp.id)
		t->kind_of_id[t->tp[kind].id] = 0;
	t->tp[kind] = tp;
	t->kind_of_id[tp.id] = (uint16_t)(kind + 1);
	ret = tp.id;
out:
	tep_free(tep);
	return ret;
}

int tl_tp_table_add_dynamic(struct tl_tp_table *t, const char *text, size_t len, unsigned type, unsigned flags,
                            const char *name)
{
	struct tep_handle *tep;
	struct tep_event *ev = NULL;
	struct dyn_tp *dt;
	unsigned kind;
	int ret = -1;

	if (type != TL_EV_FUNC_ENTRY && type != TL_EV_FUNC_EXIT)
		return tl_error("a dynamic tracepoint cannot make events of type %u", type);
	if (flags & ~(unsigned)TL_EVF_INLINED || (flags && type != TL_EV_FUNC_ENTRY))
		return tl_error("a dynamic tracepoint cannot set the flags 0x%x on events of type %u", flags, type);
	if (t->ndyn >= TL_TP_MAX_DYNAMIC)
		return tl_error("too many probes (at most %d)", TL_TP_MAX_DYNAMIC);
	tep = new_tep();
	if (!tep)
		return -1;
	tep_parse_format(tep, &ev, text, len, "dynamic");
	if (!ev) {
		tl_error("cannot parse the format of probe '%s'", name);
		goto out;
	}
	if (ev->id < 0 || ev->id > 0xffff) {
		tl_error("format of probe '%s' has an invalid id %d", name, ev->id);
		goto out;
	}
	kind = t->kind_of_id[ev->id];
	if (kind && kind - 1 < TL_TP__COUNT) {
		tl_error("probe '%s' has the id %d of tracepoint '%s'", name, ev->id, descs[kind - 1].name);
		goto out;
	}
	if (add_common(t, ev))
		goto out;
	if (TL_GROW(t->dyn, t->capdyn, (size_t)t->ndyn + 1) < 0)
		goto out;
	dt = &t->dyn[t->ndyn];
	dt->name = strdup(name);
	if (!dt->name) {
		tl_error("out of memory");
		goto out;
	}
	dt->id = ev->id;
	dt->type = (uint16_t)type;
	dt->flags = (uint16_t)flags;
	dt->len = (uint32_t)strlen(name);
	/* An id seen before (a probe made again) now means the new one. */
	t->kind_of_id[ev->id] = (uint16_t)(TL_TP__COUNT + t->ndyn + 1);
	t->ndyn++;
	ret = ev->id;
out:
	tep_free(tep);
	return ret;
}

/* ---- decoding ---- */

static inline uint64_t rd_uint(const uint8_t *p, const struct fld *f)
{
	switch (f->size) {
	case 1: return p[f->off];
	case 2: {
		uint16_t v;
		memcpy(&v, p + f->off, 2);
		return v;
	}
	case 4: {
		uint32_t v;
		memcpy(&v, p + f->off, 4);
		return v;
	}
	default: {
		uint64_t v;
		memcpy(&v, p + f->off, 8);
		return v;
	}
	}
}

/* Integer field value; 0 if absent.  Bounds were checked against min_size. */
static inline int64_t rd_int(const uint8_t *p, const struct fld *f)
{
	uint64_t v;

	if (f->kind != FLD_UINT && f->kind != FLD_SINT)
		return 0;
	v = rd_uint(p, f);
	if (f->kind == FLD_SINT && f->size < 8) {
		unsigned shift = 64 - 8 * f->size;
		return (int64_t)(v << shift) >> shift;
	}
	return (int64_t)v;
}

/* String field; returns -1 if a __data_loc points outside the sample. */
static inline int rd_str(const uint8_t *p, uint32_t size, const struct fld *f, struct tl_tp_str *out)
{
	uint32_t loc, off, len;

	out->s = NULL;
	out->len = 0;
	switch (f->kind) {
	case FLD_CHARS:
		out->s = (const char *)p + f->off;
		out->len = (uint32_t)strnlen(out->s, f->size);
		return 0;
	case FLD_DYN:
	case FLD_RELDYN:
		memcpy(&loc, p + f->off, 4);
		off = loc & 0xffff;
		len = loc >> 16;
		if (f->kind == FLD_RELDYN)
			off += f->off + 4u;
		if (off > size || len > size - off)
			return -1;
		out->s = (const char *)p + off;
		out->len = (uint32_t)strnlen(out->s, len);
		return 0;
	default: return 0;
	}
}

static inline uint16_t ctx_flags(const struct tl_tp_table *t, const uint8_t *p)
{
	uint8_t k;
	uint16_t f = 0;

	if (t->common_flags.kind == FLD_ABSENT)
		return 0;
	k = p[t->common_flags.off];
	if (k & TRACE_FLAG_HARDIRQ)
		f |= TL_EVF_HARDIRQ;
	if (k & TRACE_FLAG_SOFTIRQ)
		f |= TL_EVF_SOFTIRQ;
	if (k & KFLAG_NMI)
		f |= TL_EVF_NMI;
	return f;
}

int tl_tp_decode(const struct tl_tp_table *t, const struct tl_tp_sample *s, struct tl_tp_decoded *out)
{
	const uint8_t *p = s->raw;
	const struct tp *tp;
	const struct fld *f;
	struct tl_tp_decoded d;
	unsigned kind;

	if (!t->have_common || !p || s->raw_size < (uint32_t)t->common_type.off + t->common_type.size)
		return 0;
	kind = t->kind_of_id[rd_uint(p, &t->common_type) & 0xffff];
	if (!kind--)
		return 0;
	if (kind >= TL_TP__COUNT) {
		/* a probed function: the current thread entered or left it; the name is the table's */
		const struct dyn_tp *dt = &t->dyn[kind - TL_TP__COUNT];
		if (t->common_flags.kind && s->raw_size < t->common_flags.off + 1u)
			return -1;
		memset(&d, 0, sizeof(d));
		d.ev.ts = s->ts;
		d.ev.cpu = s->cpu;
		d.ev.flags = ctx_flags(t, p) | dt->flags;
		d.ev.tid = s->tid;
		d.ev.type = dt->type;
		d.name.s = dt->name;
		d.name.len = dt->len;
		*out = d;
		return 1;
	}
	tp = &t->tp[kind];
	if (s->raw_size < tp->min_size)
		return -1;
	f = tp->f;

	memset(&d, 0, sizeof(d));
	d.ev.ts = s->ts;
	d.ev.cpu = s->cpu;
	d.ev.flags = ctx_flags(t, p);
	d.ev.tid = s->tid;

	switch (kind) {
	case TL_TP_SCHED_SWITCH:
		d.ev.type = TL_EV_SWITCH;
		d.ev.tid = (int32_t)rd_int(p, &f[1]);
		d.ev.arg = (int32_t)rd_int(p, &f[5]);
		d.ev.a = tl_tp_table_prev_state(t, (uint64_t)rd_int(p, &f[3]));
		d.ev.b = rd_int(p, &f[2]);
		d.ev.c = rd_int(p, &f[6]);
		d.nids = 2;
		d.ids[0].tid = d.ev.tid;
		d.ids[1].tid = d.ev.arg;
		if (rd_str(p, s->raw_size, &f[0], &d.ids[0].comm) || rd_str(p, s->raw_size, &f[4], &d.ids[1].comm))
			return -1;
		break;
	case TL_TP_SCHED_WAKING:
	case TL_TP_SCHED_WAKEUP:
	case TL_TP_SCHED_WAKEUP_NEW:
		d.ev.type = kind == TL_TP_SCHED_WAKING   ? TL_EV_WAKING
		            : kind == TL_TP_SCHED_WAKEUP ? TL_EV_WAKEUP
		                                         : TL_EV_WAKEUP_NEW;
		d.ev.tid = (int32_t)rd_int(p, &f[1]);
		d.ev.arg = s->tid; /* the waker is whoever runs when the wakeup fires */
		d.ev.a = rd_int(p, &f[3]);
		d.ev.b = rd_int(p, &f[2]);
		d.nids = 1;
		d.ids[0].tid = d.ev.tid;
		if (rd_str(p, s->raw_size, &f[0], &d.ids[0].comm))
			return -1;
		break;
	case TL_TP_SCHED_FORK:
		d.ev.type = TL_EV_FORK;
		d.ev.tid = (int32_t)rd_int(p, &f[3]);
		d.ev.arg = (int32_t)rd_int(p, &f[1]);
		d.reset_tid = d.ev.tid;
		if (rd_str(p, s->raw_size, &f[2], &d.name) || rd_str(p, s->raw_size, &f[0], &d.ids[1].comm))
			return -1;
		d.nids = 1;
		d.ids[0].tid = d.ev.tid;
		d.ids[0].comm = d.name;
		if (d.ids[1].comm.len) {
			d.ids[1].tid = d.ev.arg;
			d.nids = 2;
		}
		break;
	case TL_TP_SCHED_EXEC:
		d.ev.type = TL_EV_EXEC;
		d.ev.tid = (int32_t)rd_int(p, &f[1]);
		d.ev.arg = f[2].kind ? (int32_t)rd_int(p, &f[2]) : d.ev.tid;
		if (rd_str(p, s->raw_size, &f[0], &d.name))
			return -1;
		break;
	case TL_TP_SCHED_EXIT:
	case TL_TP_SCHED_FREE:
		d.ev.type = kind == TL_TP_SCHED_EXIT ? TL_EV_EXIT : TL_EV_FREE;
		d.ev.tid = (int32_t)rd_int(p, &f[0]);
		break;
	case TL_TP_SCHED_MIGRATE:
		d.ev.type = TL_EV_MIGRATE;
		d.ev.tid = (int32_t)rd_int(p, &f[1]);
		d.ev.a = rd_int(p, &f[2]);
		d.ev.b = rd_int(p, &f[3]);
		if (rd_str(p, s->raw_size, &f[0], &d.ids[0].comm))
			return -1;
		if (d.ids[0].comm.len) {
			d.ids[0].tid = d.ev.tid;
			d.nids = 1;
		}
		break;
	case TL_TP_TASK_RENAME:
		d.ev.type = TL_EV_RENAME;
		d.ev.tid = (int32_t)rd_int(p, &f[0]);
		if (rd_str(p, s->raw_size, &f[1], &d.name))
			return -1;
		d.nids = 1;
		d.ids[0].tid = d.ev.tid;
		d.ids[0].comm = d.name;
		break;
	case TL_TP_IRQ_ENTRY:
		d.ev.type = TL_EV_IRQ_ENTRY;
		d.ev.a = rd_int(p, &f[0]);
		if (rd_str(p, s->raw_size, &f[1], &d.name))
			return -1;
		break;
	case TL_TP_IRQ_EXIT:
		d.ev.type = TL_EV_IRQ_EXIT;
		d.ev.a = rd_int(p, &f[0]);
		d.ev.b = rd_int(p, &f[1]);
		break;
	case TL_TP_SOFTIRQ_ENTRY:
	case TL_TP_SOFTIRQ_EXIT:
		d.ev.type = kind == TL_TP_SOFTIRQ_ENTRY ? TL_EV_SOFTIRQ_ENTRY : TL_EV_SOFTIRQ_EXIT;
		d.ev.a = rd_int(p, &f[0]);
		break;
	case TL_TP_FUTEX_ENTER:
		d.ev.type = TL_EV_FUTEX_ENTER;
		d.ev.a = rd_int(p, &f[1]) & TL_FUTEX_CMD_MASK;
		d.ev.b = rd_int(p, &f[0]);
		/* a wait's expected value (format 1.11): a rwlock's or a condition's */
		d.ev.c = tl_futex_op_waits(d.ev.a) ? (uint32_t)rd_int(p, &f[2]) : 0;
		break;
	case TL_TP_FUTEX_WAITV_ENTER:
		d.ev.type = TL_EV_FUTEX_ENTER;
		d.ev.a = TL_FUTEX_WAITV;
		d.ev.b = rd_int(p, &f[0]);
		break;
	case TL_TP_FUTEX_EXIT:
	case TL_TP_FUTEX_WAITV_EXIT:
		d.ev.type = TL_EV_FUTEX_EXIT;
		d.ev.a = rd_int(p, &f[0]);
		break;
	case TL_TP_BLOCK_BIO_QUEUE:
	case TL_TP_BLOCK_RQ_COMPLETE:
		d.ev.type = kind == TL_TP_BLOCK_BIO_QUEUE ? TL_EV_BLOCK_ISSUE : TL_EV_BLOCK_COMPLETE;
		d.ev.a = rd_int(p, &f[0]);
		d.ev.b = rd_int(p, &f[1]);
		d.ev.c = rd_int(p, &f[2]) * 512; /* nr_sector counts 512-byte sectors whatever the device */
		break;
	case TL_TP_SCHED_STAT_RUNTIME:
		d.ev.type = TL_EV_RUNTIME;
		d.ev.tid = (int32_t)rd_int(p, &f[0]);
		d.ev.a = rd_int(p, &f[1]);
		break;
	case TL_TP_YIELD_ENTER:
	case TL_TP_YIELD_EXIT: d.ev.type = kind == TL_TP_YIELD_ENTER ? TL_EV_YIELD_ENTER : TL_EV_YIELD_EXIT; break;
	default:
		if (kind < TL_TP_VEC_TIMER_ENTRY || kind > TL_TP_VEC_PLATFORM_EXIT)
			return 0;
		/* irq_vectors: pairs in tl_vector_kind order; the recorder names the entry after c */
		d.ev.type = (kind - TL_TP_VEC_TIMER_ENTRY) % 2 ? TL_EV_IRQ_EXIT : TL_EV_IRQ_ENTRY;
		d.ev.flags |= TL_EVF_VECTOR;
		d.ev.a = rd_int(p, &f[0]);
		d.ev.c = TL_VEC_LOCAL_TIMER + (kind - TL_TP_VEC_TIMER_ENTRY) / 2;
		break;
	}
	*out = d;
	return 1;
}
