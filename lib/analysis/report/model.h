/*
 * model.h - the results of the state analysis, as plain structs that the
 * writers (text, JSON, CSV, later HTML) print and never recompute.
 *
 * tl_analyze() reads a trace once, runs the state machine (state_machine.h) and
 * fills a tl_model: per thread, per CPU, per process.  All times are in
 * nanoseconds; instants are CLOCK_MONOTONIC like the trace (writers show
 * them relative to model->trace_start).
 */
#ifndef TL_MODEL_H
#define TL_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "base/dist.h"
#include "timeline/state_machine.h"
#include "trace/trace.h"

struct tl_waker_stat {
	int32_t tid;      /* -1: woken from interrupt context */
	char name[TL_NAME_MAX];
	uint64_t count;   /* waits it ended */
	uint64_t wait_ns; /* total time of those waits (inside the window) */
};

struct tl_thread_stats {
	int32_t tid, pid;
	uint32_t serial;
	char name[TL_NAME_MAX];
	char process[TL_NAME_MAX];
	int snapshot;                 /* existed before the trace */
	int is_target;                /* belongs to the recorded program */
	uint64_t start, end;          /* lifetime inside the window */
	uint64_t state_ns[TL_ST__COUNT];  /* sums to end - start */
	uint64_t entries[TL_ST__COUNT];   /* intervals that began inside the window */
	uint32_t trans[TL_ST__COUNT][TL_ST__COUNT]; /* [from][to] */
	uint64_t vol_switches;        /* left the CPU to sleep */
	uint64_t invol_switches;      /* left the CPU while runnable (preempt, quantum) */
	uint64_t yields;              /* left the CPU runnable without preemption */
	uint64_t migrations;
	struct tl_dist sched_latency; /* wakeup -> on CPU (RUNNABLE intervals) */
	struct tl_dist ready_wait;    /* every wait for a CPU, whatever the reason */
	struct tl_dist bursts;        /* on-CPU bursts: switch-in to switch-out */
	struct tl_waker_stat *wakers; /* sorted by wait_ns, largest first */
	size_t nwakers;
	int prio;
};

struct tl_cpu_proc {
	int32_t pid;
	char name[TL_NAME_MAX];
	uint64_t ns;
};

struct tl_cpu_stats {
	int cpu;
	uint64_t busy_ns;      /* threads running (not idle), excluding IRQ and softirq time */
	uint64_t idle_ns;
	uint64_t irq_ns;
	uint64_t softirq_ns;
	uint64_t unknown_ns;   /* before its first event, or after lost events */
	uint64_t switches;
	struct tl_cpu_proc *procs; /* sorted by ns, largest first */
	size_t nprocs;
};

struct tl_process_stats {
	int32_t pid;
	char name[TL_NAME_MAX];
	int is_target;
	size_t nthreads;
	uint64_t start, end;
	uint64_t state_ns[TL_ST__COUNT]; /* summed over its threads */
	uint64_t cpu_ns;                 /* EXECUTING, summed over threads */
	int available_cpus;              /* CPUs it may run on (affinity), else all */
	int cpus_used;                   /* distinct CPUs it ran on */
	double cpu_pct_machine;          /* cpu_ns / (window * ncpus) */
	double cpu_pct_available;        /* the seed's Eq. 4: scaled to available_cpus */
};

struct tl_analysis_opts {
	int64_t from_ns, to_ns;      /* window relative to trace start; to_ns < 0: to the end */
	int all_threads;             /* include threads outside the recorded program */
	const int *pids; int npids;  /* keep only these processes (0 = no filter) */
	const int *tids; int ntids;  /* keep only these threads */
	const char *name_filter;     /* keep threads whose name or process name contains this */
	uint64_t preempt_window_ns;  /* passed to the state machine */
	void (*progress)(double fraction, void *ctx);
	void *progress_ctx;
};

struct tl_model {
	struct tl_trace_info info;
	struct tl_trace_stats read;    /* reader statistics and warnings */
	struct tl_sched_counters counters;
	uint64_t trace_start, trace_end;   /* first and last instant of the trace */
	uint64_t win_start, win_end;       /* the analysed window (absolute) */
	int ncpus;
	uint64_t lost_total;
	uint64_t *lost_per_cpu;            /* ncpus entries */
	struct tl_thread_stats *threads;   /* sorted by pid, then tid, then serial */
	size_t nthreads;
	struct tl_cpu_stats *cpus;         /* ncpus entries */
	struct tl_process_stats *procs;    /* sorted by cpu_ns, largest first */
	size_t nprocs;
};

/*
 * Read the whole trace once and fill *m.  Returns 0, or -1 with tl_error
 * set (the model is then released).  Caller frees with tl_model_release().
 */
int tl_analyze(struct tl_trace *t, const struct tl_analysis_opts *opts, struct tl_model *m);

void tl_model_release(struct tl_model *m);

#endif
