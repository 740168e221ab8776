/*
 * results.h - `threadlens results DB`: what a sweep's database says, as
 * HeiPOET's Fig. 7 does: one metric against one parameter, each point the
 * mean of its runs with its spread and the 95% confidence interval of the
 * mean, and a least-squares line through every run that says whether the
 * relation is linear (docs/SWEEP.md, "Reading the results").
 *
 * Metrics are columns of the database's `modules` table (per MODULE span:
 * cpu_mean_ns, utilization, len_p99_ns...) or of its `frames` table (fps,
 * latency_mean_ns...); only those names are accepted, so the queries are
 * built from a fixed list and never from the user's text.
 */
#ifndef TL_SWEEP_RESULTS_H
#define TL_SWEEP_RESULTS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define TL_RESULTS_LINEAR_R2 0.95 /* the fit is called linear at or above this R^2 */

/* A sweep in the database. */
struct tl_results_sweep {
	int64_t id;
	char name[64], spec_path[256], created[32];
	uint64_t combinations, repeat, done, failed;
};

/* One value of the parameter: the metric over its runs. */
struct tl_results_point {
	char value[64]; /* as the specification wrote it */
	int is_num;
	double x;        /* the value as a number (is_num) */
	uint64_t n;      /* runs done with a value of the metric */
	double mean, sd; /* sd: sample (n - 1), 0 below 2 */
	int has_ci;      /* n >= 2 */
	double ci_low, ci_high;
	double min, max;
};

/* y = slope x + intercept over every run (not the points' means). */
struct tl_results_fit {
	int valid; /* a numeric parameter with at least 2 distinct values */
	uint64_t n;
	double slope, intercept, r2;
	int linear; /* r2 >= TL_RESULTS_LINEAR_R2 */
};

struct tl_results_opts {
	int64_t sweep;      /* 0: the only sweep, or the newest */
	const char *param;  /* NULL: list the sweeps only */
	const char *metric; /* default cpu_mean_ns */
	const char *span;   /* the MODULE span for a modules metric; NULL: the only one */
};

struct tl_results {
	char path[256];
	struct tl_results_sweep *sweeps; /* every sweep, oldest first */
	size_t nsweeps;
	const struct tl_results_sweep *sweep; /* the one asked for (NULL when listing only) */
	char param[64], metric[64], span[64];
	int is_frames;                   /* the metric is a frames one (span unused) */
	int is_ns;                       /* the metric is a time in ns */
	struct tl_results_point *points; /* by the parameter's value (numbers ascending, then names) */
	size_t npoints;
	struct tl_results_fit fit;
};

/* Read the database at path (read-only).  0, or -1 with tl_error set. */
int tl_results_read(const char *path, const struct tl_results_opts *o, struct tl_results *r);
void tl_results_release(struct tl_results *r);

/* "cpu_mean_ns, cpu_sd_ns, ..." : the metrics accepted, for messages and --help. */
const char *tl_results_metrics(void);

int tl_results_write_text(FILE *f, const struct tl_results *r);
int tl_results_write_json(FILE *f, const struct tl_results *r);
int tl_results_write_csv(FILE *f, const struct tl_results *r);

/* The least-squares line through (x[i], y[i]); valid when n >= 2 and the x are not all equal. */
void tl_results_fit(const double *x, const double *y, size_t n, struct tl_results_fit *fit);

#endif
