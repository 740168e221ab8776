/*
 * bpf_rec.h - the eBPF recording back end: loads capture/bpf/record.bpf.c,
 * reads its ring buffer, and turns its records (capture/bpf/tlb.h) into
 * the same decoded events the perf back end gets from tp_decode.h, so the
 * recorder handles both alike.
 *
 * Life: tl_bpf_rec_open() loads and attaches the programs of the chosen
 * event groups, disabled; tl_bpf_rec_enable() starts and stops them (a flag
 * in the program's memory, so starting is one store); tl_bpf_rec_drain()
 * consumes what the ring holds; tl_bpf_rec_close() detaches.  Needs root
 * (or CAP_BPF and CAP_PERFMON), BTF at /sys/kernel/btf/vmlinux, and the
 * raw tracepoints; without them open fails with one line saying why, and
 * the recorder falls back to perf.
 */
#ifndef TL_BPF_REC_H
#define TL_BPF_REC_H

#include <stddef.h>
#include <stdint.h>

#include "capture/tp_decode.h"
#include "capture/sample_events.h"

struct tl_bpf_rec;
struct tl_sample_event;

/* record --sample: what to sample (capture/sample_events.h), how often, how deep. */
struct tl_bpf_sample {
	const struct tl_sample_event *events[TL_SAMPLE_MAX_EVENTS]; /* a SAMPLE says which (tl_bpf_event) */
	int nevents;
	unsigned hz;
	int frames; /* of each part of a stack (kernel, user): 1 (no stack: the sampled address) .. 64 */
	int dwarf;  /* copy the user registers and stack (sample.h) for DWARF unwinding instead */
};

/*
 * Load and attach, disabled.  groups: enum tl_record_groups (which programs
 * and which wait classifications); ring_bytes: the ring buffer's size (a
 * power of two, at least a page; 0 = 16 MiB); filter: only events about
 * the processes given to tl_bpf_rec_track() leave the kernel (tlb.h);
 * sample: also sample (one perf event per event and CPU runs
 * capture/bpf/sample.h), or NULL; an event the machine lacks is skipped
 * (tl_bpf_rec_sample_skipped), unless it lacks them all; umarks: see
 * below.  NULL with tl_error set.
 */
struct tl_bpf_rec *tl_bpf_rec_open(unsigned groups, size_t ring_bytes, int filter, const struct tl_bpf_sample *sample,
                                   int umarks);

/* tl_bpf_rec_open()'s umarks: which uprobe programs to load. */
enum { TL_BPF_UMARKS = 1 << 0, TL_BPF_USPANS = 1 << 1 };

/*
 * umarks & TL_BPF_UMARKS (tl_bpf_rec_open): load the marker library's uprobe programs
 * (capture/bpf/umarks.h), for record -p.  Then attach them to a file that
 * holds the library (capture/umarks.h), for every process that maps it;
 * the filter keeps the recorded ones' calls.  0, or -1 with tl_error set.
 */
struct tl_umarks_file;
int tl_bpf_rec_attach_marks(struct tl_bpf_rec *r, const struct tl_umarks_file *f);

/*
 * The same for a function (capture/bpf/umarks.h, span()): a uprobe on its
 * entry and one on its return write events of the thread that runs it,
 * carrying the name's index (tl_bpf_event.span) in place of a name.
 * cookie = index << 2 | TL_BPF_SPAN_* bits: FUNC makes FUNC_ENTRY and
 * FUNC_EXIT (record --func), else REGION_BEGIN and REGION_END (an OpenMP
 * outlined function, capture/umarks.h); INLINED, an inlined copy: its
 * entry only, flagged TL_EVF_INLINED.  0, or -1 with tl_error set.
 */
enum { TL_BPF_SPAN_FUNC = 1, TL_BPF_SPAN_INLINED = 2 };
int tl_bpf_rec_attach_span(struct tl_bpf_rec *r, const char *path, uint64_t offset, uint64_t cookie);

/* 1 for the event types of the marker library, which a uprobe record may carry. */
static inline int tl_bpf_is_marker(unsigned type)
{
	return type >= TL_EV_FRAME_BEGIN && type <= TL_EV_INSTANT;
}

/* The name of a marker whose name could not be read from the process (as capture/marks.c names it). */
#define TL_BPF_NAME_LOST "(name lost)"

/* Why sampled event i (its index in tl_bpf_sample.events) is not sampled, or NULL if it is. */
const char *tl_bpf_rec_sample_skipped(const struct tl_bpf_rec *r, int i);

/*
 * With filtering on, before enabling: the recording starts at start_ns
 * (CLOCK_MONOTONIC), so a CPU's time before its first switch is summed too,
 * as its first switch's prev's.  0, or -1 with tl_error set.
 */
int tl_bpf_rec_start_at(struct tl_bpf_rec *r, uint64_t start_ns);

/* Record process tgid (and the processes it forks), with filtering on.  0, or -1 with tl_error set. */
int tl_bpf_rec_track(struct tl_bpf_rec *r, int32_t tgid);

/*
 * With filtering on, after the recording stopped at end_ns: the totals of
 * what was left in the kernel, as FILTERED events (trace/event.h) at end_ns
 * handed to fn with the process name (or NULL), the filtered stretch each
 * CPU was in at end_ns closed then.  *left_out gets the number of events
 * left in the kernel.  0, or -1 (fn's failure, or the maps unreadable, with
 * tl_error set).
 */
int tl_bpf_rec_filtered(struct tl_bpf_rec *r, uint64_t end_ns,
                        int (*fn)(void *ctx, const struct tl_event *ev, const char *name), void *ctx,
                        uint64_t *left_out);

/*
 * The runs of sched_yield calls still open when the recording ended at
 * end_ns (trace/event.h, YIELD_SPIN; a switch or a gap ended the others),
 * each passed to fn as a YIELD_SPIN event at end_ns.  0, or -1 (fn's
 * failure, or tl_error set).
 */
int tl_bpf_rec_yield_runs(struct tl_bpf_rec *r, uint64_t end_ns, int (*fn)(void *ctx, const struct tl_event *ev),
                          void *ctx);

/* Start (1) or stop (0) recording.  Stopping waits for no program: records already reserved still arrive. */
void tl_bpf_rec_enable(struct tl_bpf_rec *r, int on);

/* A descriptor readable when the ring wants draining (an epoll fd). */
int tl_bpf_rec_fd(const struct tl_bpf_rec *r);

/* The number of CPU ids the kernel may use (drop counters are per CPU). */
int tl_bpf_rec_ncpus(const struct tl_bpf_rec *r);

/* 1 if the local timer's interrupts are recorded (x86's irq_vectors, with TL_REC_IRQ): trace META irq_vectors. */
int tl_bpf_rec_vectors(const struct tl_bpf_rec *r);

#define TL_BPF_SAMPLE_FRAMES 128 /* TLB_STACK_KERNEL + TLB_STACK_USER (capture/bpf/tlb.h) */

/* One record, parsed. */
struct tl_bpf_event {
	struct tl_tp_decoded d;   /* the event and the names it reveals; strings point into the record */
	int32_t cur_tid, cur_pid; /* the task on the CPU */
	int32_t child_tgid;       /* FORK: the child's process, else 0 */
	int span;              /* REGION_*, FUNC_* of a probed function (tl_bpf_rec_attach_span): its index; else -1 */
	unsigned nframes;      /* SAMPLE: its stack, innermost first, kernel frames before user ones */
	unsigned sample_event; /* SAMPLE: the index of its event in tl_bpf_sample.events */
	int dwarf;             /* SAMPLE of --stack dwarf: frames holds the kernel part; the user part is: */
	uint64_t uregs[3];     /*   the user ip, sp, bp */
	const uint8_t *ustack; /*   and the user stack from sp, ustack_len bytes (in the ring: during fn only) */
	size_t ustack_len;
	uint64_t frames[TL_BPF_SAMPLE_FRAMES];
};

/*
 * Consume every record the ring holds now, calling fn for each; returns
 * the number consumed, or -1 (fn's failure, tl_error set by it).  A record
 * that does not parse is counted in *malformed and skipped.
 */
long tl_bpf_rec_drain(struct tl_bpf_rec *r, int (*fn)(void *ctx, const struct tl_bpf_event *ev), void *ctx,
                      uint64_t *malformed);

/* Records the ring had no room for, per CPU since open (ncpus entries).  0, or -1 with tl_error set. */
int tl_bpf_rec_dropped(struct tl_bpf_rec *r, uint64_t *per_cpu, int ncpus);

/* Detach and free.  NULL is fine. */
void tl_bpf_rec_close(struct tl_bpf_rec *r);

/*
 * Parse one record of `size` bytes (tlb.h).  1 with *out filled, 0 if it is
 * malformed (a length beyond the record, an unknown type).  Pure: the unit
 * tests and fuzz_bpf_rec call it on bytes.
 */
int tl_bpf_parse(const void *rec, size_t size, struct tl_bpf_event *out);

/*
 * The raw sched_switch state (the kernel's __state bits) and preempt flag
 * as TL_PS_* bits: what the tracepoint's print format does, for the bits
 * of Linux 4.14 and later.
 */
int64_t tl_bpf_prev_state(uint32_t state, int preempt);

#endif
