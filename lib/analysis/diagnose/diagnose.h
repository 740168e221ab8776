/*
 * diagnose.h - `threadlens diagnose`: threading problems found in a trace,
 * each with where it is, the measured evidence and the threshold it
 * crossed, the likely cause and the usual fix.
 *
 * The findings are plain structs that writers print (text, JSON, HTML) and
 * `diff` compares; the detectors fill them.  A finding's `cost_ns` is the
 * time it is estimated to cost the program (waiting or burning that would
 * not happen without the problem); findings are ranked by it, largest
 * first.  The detectors read the per-thread statistics of one walk (the
 * report's model, analysis/report/report.h): one read of the trace.
 *
 * Detectors (docs/DIAGNOSE.md has each rule, threshold and reason): from
 * each thread's statistics lock contention, I/O-bound thread, wake storm,
 * preemption starvation, migration storm, single-thread bottleneck,
 * interrupt interference, priority inversion (the model's inversions); and
 * from the parallel regions of the markers (the model's `regions`) barrier
 * imbalance and pointless parallelism; from each process's load
 * (analysis/load) oversubscription and serialized threads; from the
 * OpenMP regions and the threads' time spin waiting; from each process's
 * threads held off idle CPUs, a CPU limit (cpu-throttled); from the
 * bursts of wakeups by one waker (analysis/herd), a thundering herd; from
 * all the recorded processes together, CPU saturation; from each
 * process's waits beside idle CPUs its threads may not use
 * (analysis/confine), affinity-bound; from the lives of the threads one
 * thread created together for parts of a work, worker-imbalance; from
 * many short-lived threads of one creator, thread-churn; from each
 * thread's runs of sched_yield calls (analysis/yspin), yield-spinning.  A detector that could not run says
 * why in `skipped` (a kind added to the enum before its detector says
 * "not implemented yet"), so that silence is never mistaken for health.
 * Only the recorded program's threads are examined
 * (the run's thread filters apply).
 */
#ifndef TL_DIAGNOSE_H
#define TL_DIAGNOSE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

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
	TL_FIND_SERIALIZED,               /* threads of a process compute one at a time while a CPU is idle */
	TL_FIND_SPIN_WAITING,             /* OpenMP workers spin while no parallel region runs */
	TL_FIND_TASK_STARVATION,          /* an OpenMP team waits at its barriers with no task left to run */
	TL_FIND_CPU_THROTTLED,            /* runnable threads held off idle CPUs: a CPU limit (cgroup quota) ran out */
	TL_FIND_THUNDERING_HERD,          /* one waker wakes many threads at once and most find nothing to do */
	TL_FIND_CPU_SATURATION,           /* a program of several processes wants more CPUs than there are */
	TL_FIND_AFFINITY_BOUND,           /* threads wait for the CPUs their mask allows while another is idle */
	TL_FIND_WORKER_IMBALANCE,         /* threads created for parts of a work finish far apart: uneven split */
	TL_FIND_THREAD_CHURN,             /* a thread created anew for each small task */
	TL_FIND_YIELD_SPIN,               /* a thread waits by calling sched_yield in a loop: it spins */
	TL_FIND__COUNT
};

/* "wake-storm", "pointless-parallelism", ... (stable: JSON and --only use them).  Never NULL. */
const char *tl_finding_kind_name(unsigned kind);
int tl_finding_kind_from_name(const char *name); /* -1 if unknown */

#define TL_FINDING_MAX_THREADS 8
#define TL_FINDING_MAX_EVIDENCE 10
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
	char lock[96];            /* a lock's name (what holds its futex word: locks.h), if it is about a named one */
	struct tl_finding_thread threads[TL_FINDING_MAX_THREADS];
	size_t nthreads;
	uint64_t windows[TL_FINDING_MAX_WINDOWS][2]; /* absolute ns: where to look on the timeline */
	size_t nwindows;
	int64_t frames[TL_FINDING_MAX_FRAMES]; /* frame ids where it shows most */
	size_t nframes;
	/* why */
	struct tl_evidence evidence[TL_FINDING_MAX_EVIDENCE];
	size_t nevidence;
	char cause[448];  /* the likely cause, in words */
	char fix[320];    /* the usual fix */
	uint64_t cost_ns; /* estimated time it costs; the ranking key */
	double severity;  /* cost as a share of the analysed time of the threads involved, 0..1 */
	char doubt[160];  /* why its numbers are in doubt (lost events, the self-check failed), or "" */
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

/* skipped[k] of a detector not written yet */
#define TL_DIAGNOSE_NOT_YET "not implemented yet"

void tl_findings_release(struct tl_findings *f);

/* The detectors' thresholds (docs/DIAGNOSE.md); tl_diagnose_defaults() gives the documented ones. */
struct tl_diagnose_opts {
	uint64_t min_cost_ns;     /* no finding costs less than this (10 ms) */
	double lock_wait_pct;     /* lock contention: SYNC_WAIT share of the thread's lifetime (20) */
	double io_wait_pct;       /* I/O-bound: IO_WAIT share of the thread's lifetime (30) */
	double storm_switches_hz; /* wake storm: voluntary switches per second of lifetime (1000) */
	uint64_t storm_burst_ns;  /* wake storm: median on-CPU burst at most this (50 us) */
	double storm_invol_pct;   /* wake storm: involuntary switches at most this share (5) */
	double storm_timer_pct;   /* wake storm: waits ended by interrupt context (timeouts), at least (50) */
	double preempt_pct;       /* preemption starvation: READY_PREEMPT share of the thread's life (20) */
	double migrate_hz;        /* migration storm: migrations per second of life (100) */
	double migrate_pct;       /* migration storm: migrations per run on a CPU, in % (50) */
	uint64_t migrate_cost_ns; /* migration storm: estimated cost of one migration, cold caches (50 us) */
	double busy_pct;          /* single-thread bottleneck: on-CPU share of the thread's life (90) */
	double irq_pct;           /* interrupt interference: INTERRUPTED share of its time on a CPU (10) */
	double imbalance_pct;     /* barrier imbalance: last finish after the mean, share of the round (20) */
	double overhead_pct;      /* pointless parallelism: waiting per time executing in its rounds (100) */
	double oversub_pct;       /* oversubscription: share of the active time over, and under, the CPUs (10) */
	double throttle_pct;      /* cpu-throttled: held-back waits, share of the time wanting a CPU (5) */
	double affinity_pct;      /* affinity-bound: waits beside an idle CPU the mask excludes, same share (5) */
	double yield_spin_pct;    /* yield-spinning: runs of sched_yield calls, share of its time on a CPU (20) */
};

void tl_diagnose_defaults(struct tl_diagnose_opts *o);

/*
 * Read the trace of `run` once (docs/HACKING.md) and fill *out with the
 * findings, ranked by cost.  opts may be NULL (the defaults).  Returns 0, or
 * -1 with tl_error set; the caller frees *out with tl_findings_release().
 */
int tl_diagnose_analyze(struct tl_run *run, const struct tl_diagnose_opts *opts, struct tl_findings *out);

/*
 * The same on a model the report already made (analysis/report/report.h):
 * `report` shows the findings in its walk, with no second read.  The
 * findings keep m->run, not m.
 */
struct tl_model;
int tl_diagnose_model(const struct tl_model *m, const struct tl_diagnose_opts *opts, struct tl_findings *out);

/*
 * Writers: they print, never compute.  0, or -1 with tl_error set (a write
 * failed).  The text's prose (titles, where, causes, fixes, what was
 * examined) is wrapped to `width` columns (0: TL_DIAGNOSE_WIDTH); its
 * evidence tables are not, and fit 80 columns (a `what` of up to 46).
 */
#define TL_DIAGNOSE_WIDTH 100
int tl_diagnose_write_text(FILE *out, const struct tl_findings *f, int width);
int tl_diagnose_write_json(FILE *out, const struct tl_findings *f);

/*
 * The findings in brief, a line or two each, as the last section of
 * `report`'s text; titles wrapped to `width` columns (0: TL_DIAGNOSE_WIDTH).
 */
int tl_diagnose_write_brief(FILE *out, const struct tl_findings *f, int width);

#endif
