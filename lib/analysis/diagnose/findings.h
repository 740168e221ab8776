/*
 * findings.h - what `threadlens diagnose` finds: threading problems, each
 * with where it is, the measured evidence and the threshold it crossed, the
 * likely cause and the usual fix.
 *
 * The findings are plain structs that writers print (text, JSON, HTML) and
 * `diff` compares; the detectors fill them (lib/analysis/diagnose/).  A finding's
 * `cost_ns` is the time it is estimated to cost the program (waiting that
 * would not happen without the problem); findings are ranked by it.
 */
#ifndef TL_FINDINGS_H
#define TL_FINDINGS_H

#include <stddef.h>
#include <stdint.h>

#include "timeline/run.h"
#include "timeline/state_machine.h"
#include "trace/trace.h"

enum tl_finding_kind {
	TL_FIND_WAKE_STORM = 0,           /* polling: very many very short bursts and voluntary switches */
	TL_FIND_POINTLESS_PARALLEL,       /* a parallel region whose workers wait more than they execute */
	TL_FIND_BARRIER_IMBALANCE,        /* workers of a region finish at very different times */
	TL_FIND_OVERSUBSCRIPTION,         /* runnable threads > CPUs, next to idle CPUs with work pending */
	TL_FIND_PREEMPT_STARVATION,       /* a thread spends much of its time preempted */
	TL_FIND_IO_BOUND,                 /* IO_WAIT dominates a thread and its consumers starve */
	TL_FIND_LOCK_CONTENTION,          /* SYNC_WAIT dominates; the wakers are the likely holders */
	TL_FIND_PRIORITY_INVERSION,       /* a high-priority thread waits on a low-priority one that is preempted */
	TL_FIND_SINGLE_THREAD_BOTTLENECK, /* one thread near 100% while the others wait on it */
	TL_FIND_MIGRATION_STORM,          /* a thread moves between CPUs far more often than it runs */
	TL_FIND_IRQ_INTERFERENCE,         /* a thread loses a notable share of its running time to interrupts */
	TL_FIND__COUNT
};

/* "wake-storm", "pointless-parallelism", ... (stable: JSON and --only use them).  Never NULL. */
const char *tl_finding_kind_name(unsigned kind);
int tl_finding_kind_from_name(const char *name); /* -1 if unknown */

#define TL_FINDING_MAX_THREADS 8
#define TL_FINDING_MAX_EVIDENCE 8
#define TL_FINDING_MAX_WINDOWS 4
#define TL_FINDING_MAX_FRAMES 8

/* One measured number behind a finding, and the threshold it crossed. */
struct tl_evidence {
	char what[64]; /* "median on-CPU burst", "voluntary switches per second" */
	double value;
	double threshold; /* NAN if this number is context, not a test */
	char unit[12];    /* "ns", "%", "/s", "" */
	int above;        /* 1: the finding needs value > threshold; 0: value < threshold */
};

struct tl_finding_thread {
	int32_t tid, pid;
	char name[TL_NAME_MAX];
	char role[24]; /* "victim", "preemptor", "holder", "waiter", "worker", "" */
};

struct tl_finding {
	unsigned kind;   /* enum tl_finding_kind */
	char title[160]; /* one line: what the problem is, with the main thread or region named */
	/* where */
	int32_t pid;
	char process[TL_NAME_MAX];
	char region[TL_NAME_MAX]; /* a region or step name, if the finding is about one */
	struct tl_finding_thread threads[TL_FINDING_MAX_THREADS];
	size_t nthreads;
	uint64_t windows[TL_FINDING_MAX_WINDOWS][2]; /* absolute ns: where to look on the timeline */
	size_t nwindows;
	int64_t frames[TL_FINDING_MAX_FRAMES]; /* frame ids where it shows most */
	size_t nframes;
	/* why */
	struct tl_evidence evidence[TL_FINDING_MAX_EVIDENCE];
	size_t nevidence;
	char cause[320];  /* the likely cause, in words */
	char fix[320];    /* the usual fix */
	uint64_t cost_ns; /* estimated time it costs; the ranking key */
	double severity;  /* cost as a share of the analysed time of the threads involved, 0..1 */
};

struct tl_findings {
	/*
	 * The run it was analysed in (timeline/run.h): trace, window, reader
	 * statistics, lost events.  The caller's; it must outlive the result.
	 */
	const struct tl_run *run;
	struct tl_finding *items; /* ranked: cost_ns, largest first */
	size_t n;
	uint64_t checked[TL_FIND__COUNT]; /* how many candidates each detector examined (0: it could not run) */
	char skipped[TL_FIND__COUNT][96]; /* why a detector could not run ("no markers", "no futex events"), or "" */
};

void tl_findings_release(struct tl_findings *f);

/*
 * The thresholds and options of the detectors (struct tl_diagnose_opts,
 * with documented defaults, to come with the detectors).
 * tl_diagnose_analyze() reads the trace of `run` once, as every analysis
 * does (docs/HACKING.md), and fills *out with the findings ranked by cost.
 * opts may be NULL (the defaults).  Returns 0, or -1 with tl_error set; the
 * caller frees *out with tl_findings_release().
 */
struct tl_diagnose_opts;
int tl_diagnose_analyze(struct tl_run *run, const struct tl_diagnose_opts *opts, struct tl_findings *out);

#endif
