/*
 * cpuuse.h - CPU utilization of a processing module (HeiPOET, seed 003):
 * for every instance of a span, the CPU time its thread really used inside
 * it, net of interrupts, of other threads and of waits; per span type the
 * statistics of that time, and the rate-monotonic / EDF admission test.
 *
 * An instance is one region, task or probed function span (spans.h) of one
 * thread.  Its elapsed time splits exactly into the thread's states between
 * the span's begin and end: the analysis clips the thread's state
 * intervals to the span (cpuuse.c says why intervals and not snapshots of
 * the running totals).  The net processing time P is the EXECUTING time
 * only: interrupt and softirq time that hit the thread is INTERRUPTED, time
 * other threads ran while it was preempted or waited for a CPU is a ready
 * state, sleeps are asleep states.  Page faults are not in the trace: a
 * fault that sleeps is an asleep state already, one served on the CPU is
 * inside EXECUTING (docs/UTIL.md).
 *
 * Memory: per open span one entry, per thread a bounded number of ended
 * instances waiting for their last interval, one value per instance of a
 * selected span (up to TL_CPUUSE_EXACT_MAX, for exact quantiles; past that a
 * bounded histogram), and the instances themselves only when
 * keep_instances is set.
 */
#ifndef TL_CPUUSE_H
#define TL_CPUUSE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "timeline/run.h"
#include "timeline/states.h"
#include "trace/trace.h"

#define TL_CPUUSE_MAX_SPANS 64         /* span types in one run */
#define TL_CPUUSE_EXACT_MAX (1u << 20) /* net CPU values kept per span type for exact quantiles */
#define TL_CPUUSE_MAX_SEEN 16          /* names of other spans remembered, for "did you mean" */

/* One span type to measure: a module. */
struct tl_cpuuse_spec {
	/*
	 * The span's name as the program marked it (region, task or probed
	 * function).  A prefix "region:", "task:" or "function:" restricts the
	 * kind; without one, every kind with that name counts.
	 */
	const char *name;
	double rate_hz;     /* > 0: the module's processing rate R; its period is 1/R */
	uint64_t period_ns; /* used when rate_hz is 0: the period; 0 = none given */
};

struct tl_cpuuse_opts {
	const struct tl_cpuuse_spec *specs;
	size_t nspecs;      /* 1 .. TL_CPUUSE_MAX_SPANS */
	int keep_instances; /* keep every instance in the result (memory grows with them) */
	double worst_pct;   /* percentile of P for the worst-case view, in (0, 100]; 100 = the
				     * maximum; 0 = the default, 99 */
};

/* One instance of a span: one processing period of a module. */
struct tl_cpuuse_instance {
	uint64_t id;         /* the span's id (spans.h) */
	uint64_t begin, end; /* absolute CLOCK_MONOTONIC */
	int64_t frame;       /* the frame its thread worked on, -1 none */
	int32_t tid;
	uint16_t kind; /* enum tl_span_kind */
	uint16_t depth;
	uint64_t elapsed_ns; /* end - begin: the raw span length */
	uint64_t cpu_ns;     /* EXECUTING: the net processing time */
	uint64_t irq_ns;     /* INTERRUPTED: hard IRQs and softirqs on the thread's CPU */
	uint64_t ready_ns;   /* preempted or waiting for a CPU (the ready states) */
	uint64_t asleep_ns;  /* sleeping, lock wait, I/O, blocked, stopped */
	uint64_t unknown_ns; /* UNKNOWN, NEW, ZOMBIE: what the trace cannot explain */
	uint64_t fault_ns;   /* page-fault stalls: always 0, the trace has no fault events */
};

/* count, sum, min, max, mean and standard deviation of one duration. */
struct tl_cpuuse_moments {
	uint64_t count, sum, min, max;
	double mean;
	double sd; /* sample standard deviation (divisor n - 1); 0 when count < 2 */
};

/* The results for one span type. */
struct tl_cpuuse_span {
	char *name;          /* without the kind prefix; owned by the result */
	int kind;            /* the kind the prefix asked for, or -1 for any */
	unsigned kinds_seen; /* bit (1 << enum tl_span_kind) per kind measured */
	double rate_hz;      /* 0 if none given */
	uint64_t period_ns;  /* 1e9 / rate_hz, or the period given; 0 = none */
	uint64_t threads;    /* distinct threads among the measured instances */
	uint64_t incomplete; /* cut by the end of the trace or window, or by an END of an outer span */
	uint64_t outside;    /* began before the window: not measured */
	uint64_t unmeasured; /* no state interval of its thread covered any of it: not counted */
	struct tl_cpuuse_moments cpu, elapsed, irq, ready, asleep, unknown;
	uint64_t state_ns[TL_ST__COUNT]; /* every state's time, summed over the instances */
	/* distribution of the net CPU time P over the instances */
	int quantiles_exact; /* 0: more than TL_CPUUSE_EXACT_MAX instances, quantiles within 3.2% */
	uint64_t p50_ns, p99_ns;
	uint64_t worst_ns;                    /* the percentile opts.worst_pct of P (the max for 100) */
	uint64_t range_low_ns, range_high_ns; /* central 95% of single values (see tl_cpuuse_central95()) */
	int has_ci;                           /* count >= 2 */
	double ci_low_ns, ci_high_ns;         /* 95% confidence interval of the MEAN of P (Student t) */
	double t_quantile;                    /* t_{0.975, count - 1} used for it */
	struct tl_cpuuse_instance *inst;      /* keep_instances: in end order; owned by the result */
	size_t ninst;
};

/* One module in the admission test. */
struct tl_cpuuse_admit_row {
	double u;        /* R x P, as a fraction of one CPU */
	double rm_bound; /* k(2^(1/k) - 1) for k = the modules admitted so far plus this one */
	int rm_admitted; /* fits the RM bound together with the modules admitted before it */
	double rm_slack; /* rm_bound - (admitted U + u); negative: how far it overshoots */
	int edf_admitted;
	double edf_slack; /* 1 - (admitted U + u) */
};

/* The whole set of modules against both bounds. */
struct tl_cpuuse_admit_total {
	size_t n;        /* modules in the test */
	double u;        /* sum of R x P */
	double rm_bound; /* n(2^(1/n) - 1) */
	int rm_fits;
	double rm_slack;                  /* rm_bound - u */
	int edf_fits;                     /* u <= 1 */
	double edf_slack;                 /* 1 - u */
	size_t rm_admitted, edf_admitted; /* modules admitted one by one, in the given order */
};

/* The admission test on the measured spans, twice: with the mean of P and with the worst-case P. */
struct tl_cpuuse_admission {
	size_t n;     /* spans with a rate or period and at least one instance */
	size_t *span; /* n indices into tl_cpuuse_result.spans, in the order given */
	struct tl_cpuuse_admit_row *mean_rows, *worst_rows;
	struct tl_cpuuse_admit_total mean, worst;
};

struct tl_cpuuse_result {
	/*
	 * The run it was analysed in: trace, window, reader statistics, lost
	 * events (states near the gaps are uncertain), markers the program
	 * could not hand over (spans.marks_lost), switches and wakeups the state
	 * machine inferred (sched).  The caller's; it must outlive the result.
	 */
	const struct tl_run *run;
	double worst_pct;             /* the percentile of the worst-case view */
	int instances_kept;           /* opts.keep_instances was set */
	struct tl_cpuuse_span *spans; /* one per spec, in the order given */
	size_t nspans;
	struct tl_cpuuse_admission admission;
	char *seen[TL_CPUUSE_MAX_SEEN]; /* names of other region/task/function spans in the trace */
	size_t nseen;
};

/*
 * Read the trace of `run` once (tl_run_start(); its window and preemption
 * window apply, its thread filters do not) and measure every span of
 * opts->specs, keeping the walk's summary in the run.  Fills *r
 * (the caller releases it with tl_cpuuse_result_release(), also after a
 * failure).  Returns 0, or -1 with tl_error set (read error, out of
 * memory, bad options: no spec, too many, a bad worst_pct or rate).
 * A span that never occurs is no error: its count is 0.
 */
int tl_cpuuse_analyze(struct tl_run *run, const struct tl_cpuuse_opts *opts, struct tl_cpuuse_result *r);

void tl_cpuuse_result_release(struct tl_cpuuse_result *r);

/*
 * The admission test over the spans of r that have a rate or a period and
 * a measured instance (cpu.mean, worst_ns), into r->admission: what
 * tl_cpuuse_analyze() does last; also for spans filled from elsewhere
 * (results from a sweep's database, analysis/sweep/results.h).  0, or -1
 * with tl_error set (out of memory).
 */
int tl_cpuuse_admission_compute(struct tl_cpuuse_result *r);

/* ---- the statistics, exposed for the tests and the writers ---- */

/*
 * The 97.5% quantile of Student's t distribution with df degrees of
 * freedom (df >= 1): a table for df <= 30, above that the Cornish-Fisher
 * expansion around the normal quantile (error below 1e-7).  0 for df 0.
 */
double tl_cpuuse_t975(uint64_t df);

/*
 * Moments of v[0..n): exact min, max, sum; mean and sample standard
 * deviation in double.  All zero for n = 0.
 */
void tl_cpuuse_moments_of(const uint64_t *v, size_t n, struct tl_cpuuse_moments *m);

/*
 * The 95% confidence interval of the mean, mean +- t975(n-1) sd / sqrt(n).
 * Returns 0, or -1 (and leaves low/high alone) when count < 2.
 */
int tl_cpuuse_ci95(const struct tl_cpuuse_moments *m, double *low, double *high, double *t);

/*
 * The central 95% of single values of the SORTED v[0..n): drop the
 * floor(n / 40) lowest and highest values and return the smallest and
 * largest left; at least 95% of the values lie in [low, high], at most
 * 2.5% on either side.  With fewer than 40 values this is [min, max].
 * Both 0 for n = 0.
 */
void tl_cpuuse_central95(const uint64_t *sorted, size_t n, uint64_t *low, uint64_t *high);

/* Nearest-rank percentile of the SORTED v[0..n), p in (0, 100]; 0 for n = 0. */
uint64_t tl_cpuuse_percentile(const uint64_t *sorted, size_t n, double p);

/* The rate-monotonic bound n(2^(1/n) - 1) of Liu and Layland; 1 for n = 1, tends to ln 2. */
double tl_cpuuse_rm_bound(size_t n);

/*
 * The admission test of seed 003, sum(R_i x P_i) <= B, for n modules with
 * rates rate_hz[i] and processing times p_ns[i].  The modules are offered
 * one by one in the given order, as an admission controller sees them
 * arrive: one is admitted if it fits with the ones admitted before it
 * (rows[i]; a rejected module is not counted further).  *total tests the
 * whole set.  Both bounds are for one CPU.  rows has n entries.
 */
void tl_cpuuse_admit(const double *rate_hz, const double *p_ns, size_t n, struct tl_cpuuse_admit_row *rows,
                     struct tl_cpuuse_admit_total *total);

/* ---- writers (cpuuse_write.c): they print, never compute ---- */

/*
 * The terminal report in `width` columns, 80 or more (0: 100): per span
 * type its statistics, utilization and (with instances kept) one row per
 * instance; then the admission test.  Narrower than 100 the instances
 * drop unknown, then irq; narrower than 96 the admission table drops its
 * RM bound column.  Returns 0, or -1 with tl_error set on a write error.
 */
int tl_cpuuse_write_text(FILE *out, const struct tl_cpuuse_result *r, int width);

/* The JSON document "threadlens-util" version 1 of docs/JSON.md.  Returns 0, or -1 with tl_error set. */
int tl_cpuuse_write_json(FILE *out, const struct tl_cpuuse_result *r);

/* The admission test alone, as the text report prints it (in `width` columns), or as its JSON key "admission". */
int tl_cpuuse_write_admission_text(FILE *out, const struct tl_cpuuse_result *r, int width);
struct tl_json;
void tl_cpuuse_json_admission(struct tl_json *j, const struct tl_cpuuse_result *r);

#endif
