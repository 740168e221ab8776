/*
 * tp_decode.h - kernel tracepoint samples into struct tl_event.
 *
 * The recorder reads raw tracepoint records (the bytes the kernel's format
 * files describe) out of perf ring buffers.  This module knows which
 * tracepoints threadlens uses and how each one maps onto the event model
 * (see the table in event.h), but it knows no layout: a table is built from
 * the text of the kernel's format files, parsed once with libtraceevent, and
 * keeps only precomputed field offsets.  Decoding a sample is then a few
 * bounds-checked memcpy()s, with no library call, allocation or syscall.
 *
 * Everything here is pure: no tracefs, no perf, no root.  Tests feed format
 * text and hand-built records.  Any byte string is safe to decode: a record
 * too short for its fields, or a __data_loc pointing outside it, is rejected.
 */
#ifndef TL_TP_DECODE_H
#define TL_TP_DECODE_H

#include <stddef.h>
#include <stdint.h>

#include "trace/event.h"

/* Optional event groups of the recorder (all on by default); each
 * tracepoint below belongs to one, or to none (always recorded). */
enum tl_record_groups {
	TL_REC_IRQ = 1 << 0,   /* irq_handler_entry/exit, softirq_entry/exit, irq_vectors (x86) */
	TL_REC_FUTEX = 1 << 1, /* sys_enter/exit_futex (and futex_waitv): SYNC_WAIT */
	TL_REC_BLOCK = 1 << 2, /* block I/O issue/complete: IO_WAIT evidence */
	TL_REC_YIELD = 1 << 3, /* sys_enter/exit_sched_yield: READY_YIELD */
	TL_REC_ALL = TL_REC_IRQ | TL_REC_FUTEX | TL_REC_BLOCK | TL_REC_YIELD,
	TL_REC_EXPLICIT = 1 << 15, /* the group bits are a choice, even if none is set */
};

/* The tracepoints threadlens records; index into tl_tp_desc(). */
enum tl_tp_kind {
	TL_TP_SCHED_SWITCH = 0,
	TL_TP_SCHED_WAKING,
	TL_TP_SCHED_WAKEUP,
	TL_TP_SCHED_WAKEUP_NEW,
	TL_TP_SCHED_FORK,
	TL_TP_SCHED_EXEC,
	TL_TP_SCHED_EXIT,
	TL_TP_SCHED_FREE,
	TL_TP_SCHED_MIGRATE,
	TL_TP_TASK_RENAME,
	TL_TP_IRQ_ENTRY,
	TL_TP_IRQ_EXIT,
	TL_TP_SOFTIRQ_ENTRY,
	TL_TP_SOFTIRQ_EXIT,
	TL_TP_FUTEX_ENTER,
	TL_TP_FUTEX_EXIT,
	TL_TP_FUTEX_WAITV_ENTER,
	TL_TP_FUTEX_WAITV_EXIT,
	TL_TP_BLOCK_BIO_QUEUE,
	TL_TP_BLOCK_RQ_COMPLETE,
	TL_TP_SCHED_STAT_RUNTIME,
	TL_TP_YIELD_ENTER,
	TL_TP_YIELD_EXIT,
	/*
	 * x86's irq_vectors: entry and exit of each tl_vector_kind from 1 up, in
	 * order.  Not irq_work: perf may not trace it (its own wakeups are irq
	 * work), and it is short.
	 */
	TL_TP_VEC_TIMER_ENTRY,
	TL_TP_VEC_TIMER_EXIT,
	TL_TP_VEC_RESCHED_ENTRY,
	TL_TP_VEC_RESCHED_EXIT,
	TL_TP_VEC_CALL_ENTRY,
	TL_TP_VEC_CALL_EXIT,
	TL_TP_VEC_CALL1_ENTRY,
	TL_TP_VEC_CALL1_EXIT,
	TL_TP_VEC_PLATFORM_ENTRY,
	TL_TP_VEC_PLATFORM_EXIT,
	TL_TP__COUNT
};

struct tl_tp_desc {
	const char *system; /* "sched" */
	const char *name;   /* "sched_switch" */
	unsigned group;     /* enum tl_record_groups bit; 0 = always recorded */
	int required;       /* 1: recording is impossible without it */
	const char *filter; /* in-kernel filter (ftrace syntax) that drops samples we do not need, or NULL */
};

/* Description of a kind; NULL if kind >= TL_TP__COUNT. */
const struct tl_tp_desc *tl_tp_desc(unsigned kind);

struct tl_tp_table;

/* An empty table.  NULL with tl_error set on allocation failure; free with tl_tp_table_free(). */
struct tl_tp_table *tl_tp_table_new(void);

void tl_tp_table_free(struct tl_tp_table *t);

/*
 * Learn one tracepoint from the text of its format file
 * (events/SYSTEM/NAME/format).  Returns the tracepoint's id (what perf
 * wants in attr.config and what the records carry in common_type), or -1
 * with tl_error set if the text does not parse or lacks a field we need.
 * For sched_switch this also derives the prev_state mapping (see
 * tl_tp_table_state_desc()).  The text is not kept.
 */
int tl_tp_table_add(struct tl_tp_table *t, unsigned kind, const char *text, size_t len);

/* The id given to a kind by tl_tp_table_add(), or -1 if not added. */
int tl_tp_table_id(const struct tl_tp_table *t, unsigned kind);

#define TL_TP_MAX_DYNAMIC 1024

/*
 * Learn a dynamic tracepoint (a uprobe that lib/capture/uprobes.c made) from the
 * text of its format file.  Its samples decode to an event of `type`
 * (TL_EV_FUNC_ENTRY or TL_EV_FUNC_EXIT) with `flags` (0, or
 * TL_EVF_INLINED on an entry: an inlined copy's) of the current thread, whose name
 * is `name` (copied: a function, "lib:function" for another file).  Only
 * common_type is read from its samples.  Returns the id, or -1 with
 * tl_error set (bad text, an id of a static kind, more than
 * TL_TP_MAX_DYNAMIC).
 */
int tl_tp_table_add_dynamic(struct tl_tp_table *t, const char *text, size_t len, unsigned type, unsigned flags,
                            const char *name);

/*
 * The kernel's prev_state bits in TL_PS_* terms, using the mapping that
 * tl_tp_table_add() derived from sched_switch's print fmt (or the built-in
 * mapping of Linux 4.14+ if sched_switch was not added or its print fmt was
 * not understood).
 */
int64_t tl_tp_table_prev_state(const struct tl_tp_table *t, uint64_t kstate);

/* 1 if the prev_state mapping is the built-in fallback rather than derived. */
int tl_tp_table_state_fallback(const struct tl_tp_table *t);

/* The mapping as text, e.g. "S=0x1 D=0x2 ... preempt=0x100 (from print fmt)", into buf. */
const char *tl_tp_table_state_desc(const struct tl_tp_table *t, char *buf, size_t len);

/* One raw sample as a recording back end delivers it. */
struct tl_tp_sample {
	uint64_t ts;       /* CLOCK_MONOTONIC ns */
	const void *raw;   /* the trace entry, starting with common_type */
	uint32_t raw_size; /* bytes readable at raw (may include padding) */
	int32_t pid, tid;  /* the current task: process id and thread id */
	int16_t cpu;
};

/* A string inside the sample's raw bytes: not NUL-terminated, len <= its field. */
struct tl_tp_str {
	const char *s;
	uint32_t len;
};

/* What a sample says: the event, and the thread names it reveals. */
struct tl_tp_decoded {
	struct tl_event ev;    /* ev.name is 0: the caller interns `name` */
	struct tl_tp_str name; /* text for ev.name; len 0 = none */
	int nids;
	struct {
		int32_t tid;
		struct tl_tp_str comm;
	} ids[2];          /* (tid, comm) pairs seen in the sample */
	int32_t reset_tid; /* FORK: the child, whose old identity (pid reuse) is void; else 0 */
	/* SWITCH into a futex wait (the eBPF back end): the futex word's address, staged as FUTEX_WAIT before it */
	uint64_t futex_addr;
};

/*
 * Decode a sample.  Returns 1 with *out filled, 0 if the sample is not a
 * tracepoint of this table (out untouched), -1 if it is one but its bytes
 * are too short or inconsistent (out untouched).  Strings in *out point into
 * s->raw and are valid as long as it is; the name of a dynamic tracepoint's
 * event points into the table.
 */
int tl_tp_decode(const struct tl_tp_table *t, const struct tl_tp_sample *s, struct tl_tp_decoded *out);

#endif
