/*
 * record_int.h - what the recorder's files share: record.c (the life
 * cycle: open, start, loop, finish), record_drain.c (the drain rounds:
 * back-end records into staged, sorted events, into the writer) and
 * record_uprobes.c (the eBPF back end's uprobes).  Not an
 * API: nothing outside lib/capture/record*.c includes it.
 */
#ifndef TL_RECORD_INT_H
#define TL_RECORD_INT_H

#include <stdint.h>
#include <time.h>

#include "capture/bpf_rec.h"
#include "capture/kwatch.h"
#include "capture/marks.h"
#include "capture/umarks.h"
#include "capture/perf_ring.h"
#include "capture/buildids.h"
#include "capture/jitnames.h"
#include "capture/procmaps.h"
#include "capture/procsnap.h"
#include "capture/record.h"
#include "capture/sample_events.h"
#include "capture/targets.h"
#include "capture/tp_decode.h"
#include "capture/uprobes.h"
#include "symbols/dwunwind.h"
#include "trace/trace.h"

#define SLACK_NS 10000000ull  /* watermark slack behind T0 */
#define FLUSH_NS 250000000ull /* longest time between chunks (loop() wakes for it): a killed recorder loses < 0.5 s */
#define PROGRESS_NS 250000000ull
#define STAGE_EVENTS 16384
#define IRQ_CACHE 64
#define TL_REC_UPROBE_HIT_NS 700 /* one uprobe hit, about (bench/RESULTS.md 4c, 4d: 0.6-0.95 us) */

struct irq_name {
	int64_t irq;
	uint32_t id;
	uint32_t len;
	char s[32];
};

struct rec {
	const struct tl_record_opts *o;
	struct tl_record_result *res;
	unsigned groups;
	char tracing[256];
	struct tl_tp_table *tps;
	int used[TL_TP__COUNT];
	int ncpus;                                   /* highest online CPU + 1 */
	struct tl_perf_set set;                      /* one ring per online CPU (perf back end) */
	struct tl_bpf_rec *bpf;                      /* the eBPF back end, or NULL */
	uint32_t sample_names[TL_SAMPLE_MAX_EVENTS]; /* --sample: the sampled events' name ids, in -e's order */
	int nsample_names;
	struct tl_unwinder *unwind; /* --stack dwarf */
	struct tl_procmaps *maps;   /* --sample: the sampled processes' code mappings */
	struct tl_jitnames *jit;    /* --sample: their JIT functions, named at the end */
	struct tl_buildids *bids;   /* --sample: the build IDs of the files they map */
	struct tl_locknames *ln;    /* the futex words named so far (FUTEX_NAME) */
	uint64_t map_ts;            /* the time MAP events get (capture/procmaps.h) */
	int16_t map_cpu;            /* and their CPU */
	uint64_t *kips;             /* kernel addresses of samples without a stack, to name */
	size_t nkips, capkips;
	uint64_t samples;                           /* SAMPLE events staged */
	uint64_t umarks;                            /* markers seen by uprobes (record -p, capture/umarks.h) */
	struct tl_umarks *um;                       /* what the uprobes are on: names of the OpenMP regions */
	uint64_t uspans;                            /* OpenMP region events (uprobe hits) staged */
	uint64_t uspan_begins;                      /* of which REGION_BEGIN: instances */
	uint64_t *bpf_dropped;                      /* per CPU: drops reported as LOST so far */
	int32_t filter_tgids[TL_TRACE_MAX_TARGETS]; /* -p processes the eBPF filter starts with */
	int nfilter_tgids;
	uint64_t stop_ns;           /* when the kernel's side was stopped (the last drain) */
	int draining_last;          /* the back end is stopped: this drain is the last */
	uint64_t aff_mark;          /* the time AFFINITY events of a recheck are stamped with */
	struct tl_uprobes *uprobes; /* --func: probes in tracefs until release() */
	struct tl_trace_writer *w;
	struct tl_marks *marks; /* user markers of the command (marks.h), or NULL */
	struct tl_kwatch *kw;   /* the kernel's accounting of the recorded threads (kwatch.h) */
	char *path;             /* the output, for unlink() when the command cannot run */
	struct tl_threads *threads;
	struct tl_event *stage;
	size_t nstage;
	uint64_t *lost_per_cpu;
	int32_t *oncpu; /* per CPU: the task the last recorded event put on it */
	uint64_t lost, malformed;
	uint64_t start_ns, last_flush_ns, last_progress_ns;
	uint64_t pending; /* events added since the last flush */
	struct irq_name irqs[IRQ_CACHE];
	struct tl_trace_info info;
	struct tl_targets tg; /* the command, or the -p processes */
};

uint64_t tl_rec_now_ns(clockid_t clk);

/* A line for the user in res->warnings (at most 8 are kept). */
void tl_rec_warn(struct tl_record_result *res, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* One event into the writer, counted.  0, or -1 with tl_error set. */
int tl_rec_add_event(struct rec *rc, const struct tl_event *ev);

/* Read the sampled processes' maps again; MAP events at ts for those that changed.  0 or -1. */
int tl_rec_rescan_maps(struct rec *rc, uint64_t ts);

/* The staged events, sorted by time, into the writer. */
int tl_rec_stage_flush(struct rec *rc);

/* What `at` says of thread tid (procsnap.h, tl_threads_learn), with the THREAD event it may need staged. */
int tl_rec_learn(struct rec *rc, const struct tl_event *at, int32_t tid, int32_t tgid, const struct tl_tp_str *comm);

/* The command's markers older than mark into the writer. */
int tl_rec_drain_marks(struct rec *rc, uint64_t mark);

/* The cpu -1 events older than mark: kernel-counter readings and markers, in time order. */
int tl_rec_drain_cpuless(struct rec *rc, uint64_t mark);

/* One round: read the back end, then promise the writer what the next round can still bring. */
int tl_rec_drain_all(struct rec *rc);

void tl_rec_progress(struct rec *rc, uint64_t now, int force);

/*
 * The eBPF back end's uprobes (record_uprobes.c): --func (spec), the
 * markers of processes not started by the recorder, OpenMP regions.  On
 * the perf back end (rc->bpf NULL), a warning for the markers and OpenMP
 * functions it does not probe.  0, or -1 with tl_error set (memory, or a
 * --func that cannot be probed).
 */
int tl_rec_attach_uprobes(struct rec *rc, const struct tl_uprobes_spec *spec);

#endif
