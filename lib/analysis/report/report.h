/*
 * report.h - `threadlens report`: the results of the state analysis, as
 * plain structs that the writers (text, JSON, CSV, later HTML) print and
 * never recompute.
 *
 * tl_report_analyze() reads a trace once, runs the state machine (state_machine.h) and
 * fills a tl_model: per thread, per CPU, per process.  All times are in
 * nanoseconds; instants are CLOCK_MONOTONIC like the trace (writers show
 * them relative to model->trace_start).
 *
 * The writers below print an analysed model: terminal tables, the JSON of
 * docs/JSON.md and CSV tables (report_text.c, report_json.c, report_csv.c).
 *
 * Writers only print.  They never compute analysis results; the numbers they
 * derive are simple ratios (percentages of a lifetime or of the window).
 * They never exit and never print anything but the report: failures (a
 * write error, out of memory) return -1 with tl_error set.  docs/REPORT.md
 * explains every column.
 */
#ifndef TL_REPORT_H
#define TL_REPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "analysis/kcheck/kcheck.h"
#include "analysis/herd/herd.h"
#include "analysis/lockhold/lockhold.h"
#include "analysis/locks/locks.h"
#include "analysis/inversion/inversion.h"
#include "analysis/load/load.h"
#include "analysis/regions/regions.h"
#include "analysis/yspin/yspin.h"
#include "base/dist.h"
#include "timeline/run.h"
#include "timeline/state_machine.h"
#include "trace/trace.h"

struct tl_waker_stat {
	int32_t tid; /* -1: woken from interrupt context */
	char name[TL_NAME_MAX];
	uint64_t count;   /* waits it ended */
	uint64_t wait_ns; /* total time of those waits (inside the window) */
	int prio;         /* its kernel prio as last seen (lower is more urgent), -1 unknown */
};

/*
 * Interrupt handling that ran inside a thread's time on a CPU (its
 * INTERRUPTED state), by source.  The last of a thread's TL_INTR_SOURCES
 * slots gathers every source that found the others taken (irq -1).
 */
#define TL_INTR_SOURCES 6
struct tl_intr_stat {
	int soft;       /* 1: softirq vector `irq` (tl_softirq_name()); 0: hard IRQ number `irq` */
	int32_t irq;    /* -1: the other sources */
	uint64_t count; /* handler runs with time inside the window */
	uint64_t ns;
};

/* "NET_RX softirq", "IRQ 24", "other interrupts": a source in words, in buf. */
const char *tl_intr_source_name(const struct tl_intr_stat *s, char *buf, size_t len);

struct tl_thread_stats {
	int32_t tid, pid;
	uint32_t serial;
	char name[TL_NAME_MAX];
	char process[TL_NAME_MAX];
	int snapshot;         /* existed before the trace */
	int is_target;        /* belongs to the recorded program */
	int32_t creator;      /* the thread that created it (a FORK seen), 0 if unknown */
	uint64_t exited_at;   /* its EXIT event inside the window (absolute ns), 0 if none */
	uint64_t exec_at;     /* its first EXEC inside the window (absolute ns), 0 if none */
	uint64_t pre_exec_ns; /* born in the window: its time on a CPU from birth to that EXEC (a fork's copy) */
	uint64_t start, end;  /* lifetime inside the window */
	uint64_t first_run;   /* when it was first on a CPU inside the window (absolute ns), 0 if never */
	uint64_t state_ns[TL_ST__COUNT];            /* sums to end - start */
	uint64_t entries[TL_ST__COUNT];             /* intervals that began inside the window */
	uint32_t trans[TL_ST__COUNT][TL_ST__COUNT]; /* [from][to] */
	uint64_t vol_switches;                      /* left the CPU to sleep */
	uint64_t invol_switches;                    /* left the CPU while runnable (preempt, quantum) */
	uint64_t yields;                            /* left the CPU runnable without preemption */
	uint64_t migrations;
	struct tl_dist sched_latency; /* wakeup -> on CPU (RUNNABLE intervals) */
	struct tl_dist ready_wait;    /* every wait for a CPU, whatever the reason */
	struct tl_dist bursts;        /* on-CPU bursts: switch-in to switch-out */
	uint64_t waits_inferred;      /* waits for a CPU left out of the two above: their end was inferred */
	uint64_t latency_max_at;      /* when the longest sched latency began (its wakeup; absolute ns), 0 if none */
	uint64_t burst_max_at;        /* when the longest burst began (its switch-in; absolute ns), 0 if none */
	uint64_t join_wait_ns;        /* SYNC_WAIT or SLEEPING ended by a thread that had exited: a join, a wait4 */
	uint64_t lock_wait_ns;        /* SYNC_WAIT in a lock's futex wait (TL_EVF_WAIT_LOCK, FUTEX_ENTER op) */
	/*
	 * What the holders did while it waited on locks (analysis/lockhold), by
	 * class, back along a convoy; adds up to lock_wait_ns.  lock_convoy_ns:
	 * the part in which the holder waited for a lock itself (a convoy).
	 */
	uint64_t lock_holder_ns[TL_LH__COUNT], lock_convoy_ns;
	/*
	 * Held back: waiting for a CPU while that CPU is idle (READY_QUANTUM
	 * with `by` 0: it left the CPU runnable to the idle task, or waited
	 * there when the CPU went idle, until the CPU runs a task again).  The
	 * kernel kept a runnable thread off an idle CPU: a CPU bandwidth limit
	 * ran out (a cgroup's quota, RT throttling).  `throttles` counts the
	 * waits that ended in the window, `throttled_ns` their time in it.
	 */
	uint64_t throttles, throttled_ns, throttled_max_ns;
	/*
	 * Confined: waiting for a CPU (RUNNABLE, READY_PREEMPT, READY_QUANTUM
	 * not held back) while a CPU its affinity mask leaves out was idle
	 * (analysis/confine: in a filtered recording, an estimate).  `confined`
	 * counts such waits that ended in the window, `confined_ns` their
	 * idle-elsewhere time in it, `confined_cpus` the CPUs its last mask
	 * allowed.
	 */
	uint64_t confined, confined_ns;
	int confined_cpus;
	/* its runs of sched_yield calls that spun: waits on a CPU no switch shows (analysis/yspin) */
	struct tl_yspin_sum yield_spin;
	struct tl_waker_stat *wakers; /* sorted by wait_ns, largest first */
	size_t nwakers;
	struct tl_waker_stat *preemptors; /* the threads that took its CPU (READY_PREEMPT `by`), the same way */
	size_t npreemptors;
	struct tl_waker_stat *lock_wakers; /* the wakers that ended its lock waits (the holders), the same way */
	size_t nlock_wakers;
	struct tl_intr_stat intr[TL_INTR_SOURCES]; /* sorted by ns, largest first; count 0: unused */
	int prio;
};

struct tl_cpu_proc {
	int32_t pid;
	char name[TL_NAME_MAX];
	uint64_t ns;
};

struct tl_cpu_stats {
	int cpu;
	uint64_t busy_ns; /* threads running (not idle), excluding IRQ and softirq time */
	uint64_t idle_ns;
	uint64_t irq_ns;
	uint64_t softirq_ns;
	uint64_t unknown_ns;  /* before its first event, or after lost events */
	uint64_t filtered_ns; /* of all the above, the time a filtered recording's kernel totals split (FILTERED) */
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

struct tl_model {
	/*
	 * The run it was analysed in: the trace's description, window, reader
	 * statistics and lost events (timeline/run.h).  The caller's; it must
	 * outlive every use of the model.
	 */
	const struct tl_run *run;
	int ncpus;                       /* entries of cpus: run->ncpus */
	int program_cpus;                /* the CPUs the recorded processes together may use (their masks' union) */
	struct tl_thread_stats *threads; /* sorted by pid, then tid, then serial */
	size_t nthreads;
	struct tl_cpu_stats *cpus;      /* ncpus entries */
	struct tl_process_stats *procs; /* sorted by cpu_ns, largest first */
	size_t nprocs;
	struct tl_kcheck_result kcheck;        /* the self-check against the kernel's accounting (kcheck.h) */
	struct tl_regions_result regions;      /* the parallel regions of the user's markers (regions.h) */
	struct tl_load_result load;            /* threads wanting a CPU over time, per process (load.h) */
	struct tl_inversion_result inversions; /* priority inversions (inversion.h) */
	struct tl_herd_result herds;           /* wakeups that find nothing to do (herd.h) */
	struct tl_lock_result locks;           /* the lock waits per lock (locks.h) */
};

/*
 * Read the trace of `run` once (tl_run_open() unless the caller attached a
 * trace) and fill *m, keeping the walk's summary in the run.  The run's
 * window, thread filters (--all, --pid, --tid, --comm) and preemption
 * window apply.  Returns 0, or -1 with tl_error set (the model is then
 * released).  Caller frees with tl_report_release().
 */
int tl_report_analyze(struct tl_run *run, struct tl_model *m);

void tl_report_release(struct tl_model *m);

/*
 * What the OpenMP workers of process pid did with their time on a CPU: its
 * threads other than the main one (tid = pid) that ran instances of the
 * functions OpenMP outlined (regions named as capture/umarks.h names them).
 * A runtime keeps idle workers spinning before they sleep, so their
 * EXECUTING time is inside their instances (the work), around them in a
 * parallel round (waiting at its start, or at the barrier after finishing),
 * or between the regions: spinning.  An instance begun inside another of
 * its thread (a task in its region) is inside that one and not counted
 * again: the three parts add up to its EXECUTING (regions.h, `nested`).
 * docs/DIAGNOSE.md, spin-waiting.
 */
struct tl_omp_workers {
	int threads;
	uint64_t exec_ns, inside_ns, around_ns, between_ns;
};
void tl_model_omp_workers(const struct tl_model *m, int32_t pid, struct tl_omp_workers *w);

/* 1 if t is one of those workers; *inside and *around get its parts. */
int tl_model_omp_worker(const struct tl_model *m, const struct tl_thread_stats *t, uint64_t *inside, uint64_t *around);

/* ---- writers: they print, never compute ---- */

/*
 * Row order of the thread tables.  0 .. TL_ST__COUNT-1 sort by the time
 * spent in that state, largest first.
 */
enum tl_report_sort {
	TL_REPORT_SORT_DEFAULT = -1, /* text: EXECUTING; JSON and CSV: model order (pid, tid) */
	TL_REPORT_SORT_NAME = 100,   /* thread name, then tid */
	TL_REPORT_SORT_TID,          /* tid ascending */
	TL_REPORT_SORT_PID,          /* pid, then tid */
	TL_REPORT_SORT_LIFETIME,     /* lifetime in the window, longest first */
};

/* The tables of --csv=TABLE. */
enum tl_report_csv_table {
	TL_CSV_THREADS = 0, /* one row per thread: totals per state, switches, latency */
	TL_CSV_STATES,      /* one row per thread and state: tid,pid,name,state,ns,pct,entries */
	TL_CSV_TRANSITIONS, /* one row per thread and (from, to) pair that occurred */
	TL_CSV_CPUS,        /* one row per CPU */
	TL_CSV_PROCESSES,   /* one row per process */
	TL_CSV_WAKERS,      /* one row per thread and waker */
	TL_CSV__COUNT
};

struct tl_report_opts {
	int sort;    /* enum tl_report_sort, or a state */
	int top;     /* at most this many thread and process rows; 0 = default (see REPORT.md), <0 = all */
	int width;   /* text: terminal width to fit in; 0 = 100 */
	int compact; /* JSON: no newlines nor indentation (for a machine: the HTML page embeds it) */
};

/* Parse a --sort key: a state name, "name", "tid", "pid" or "lifetime" (any case); -2 if unknown. */
int tl_report_sort_parse(const char *key);

/* Parse a CSV table name ("threads", ...); -1 if unknown. */
int tl_report_csv_table_parse(const char *name);

/* "threads", ...; "?" if out of range.  Never NULL. */
const char *tl_report_csv_table_name(int table);

/*
 * Print the terminal report: header (trace, window, warnings such as lost
 * events), per-thread state occupation with a bar profile, per-thread
 * scheduling, per-CPU utilization and per-process summary.
 * Returns 0, or -1 with tl_error set.
 */
int tl_report_write_text(FILE *out, const struct tl_model *m, const struct tl_report_opts *o);

/* Print the JSON document of docs/JSON.md.  Returns 0, or -1 with tl_error set. */
int tl_report_write_json(FILE *out, const struct tl_model *m, const struct tl_report_opts *o);

/*
 * Print one CSV table (RFC 4180, a header line first, "\r\n"-free: rows end
 * with "\n").  Returns 0, or -1 with tl_error set.
 */
int tl_report_write_csv(FILE *out, const struct tl_model *m, int table, const struct tl_report_opts *o);

#endif
