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

/* A value of r's metric for a table: a duration ("1.25ms") for an _ns metric, else "%.4g". */
const char *tl_results_fmt(const struct tl_results *r, double v, char *buf, size_t n);

/* The text in `width` columns, 80 or more (0: 100): prose wraps; under 92 the points leave out min and max. */
int tl_results_write_text(FILE *f, const struct tl_results *r, int width);
int tl_results_write_json(FILE *f, const struct tl_results *r);
int tl_results_write_csv(FILE *f, const struct tl_results *r);

/* ---- comparing: two databases at each value, or two values of one (results_cmp.c) ---- */

#define TL_RESULTS_NOISE_SE 3   /* a change beyond this many standard errors of the difference is marked */
#define TL_RESULTS_BLIND_PCT 10 /* with one run on a side the noise is unknown: changes over this % are marked */

struct tl_results_cmp_row {
	char label[140];                      /* the value ("4"), or "2 -> 10" for two values */
	const struct tl_results_point *a, *b; /* NULL: the value is on one side only */
	double change, change_pct;            /* b - a, and as % of a (0 when a's mean is 0) */
	int noise_known;                      /* both sides have 2 runs or more */
	double band;                          /* noise_known: 3 x sqrt(sd_a^2 / n_a + sd_b^2 / n_b) */
	int marked;                           /* beyond the band, or over 10% when the noise is unknown */
};

struct tl_results_cmp {
	struct tl_results_cmp_row *rows;
	size_t nrows;
	size_t marked;
};

/* Two databases' points, paired by value (numbers by value, names by text), in a's order then b's. */
int tl_results_compare_dbs(const struct tl_results *a, const struct tl_results *b, struct tl_results_cmp *c);
/* Two values of one result's parameter ("2" and "10"), as one row a -> b.  0, or -1 with tl_error set. */
int tl_results_compare_values(const struct tl_results *r, const char *va, const char *vb, struct tl_results_cmp *c);
void tl_results_cmp_release(struct tl_results_cmp *c);

/* The comparison as text in `width` columns, 80 or more (0: 100): under 86 the rows leave out 3 SE. */
int tl_results_cmp_write_text(FILE *f, const struct tl_results *a, const struct tl_results *b,
                              const struct tl_results_cmp *c, int width);
int tl_results_cmp_write_json(FILE *f, const struct tl_results *a, const struct tl_results *b,
                              const struct tl_results_cmp *c);

/* ---- the admission test from the database (results_admit.c) ---- */

struct tl_cpuuse_result;
struct tl_cpuuse_spec;

#define TL_RESULTS_MAX_AT 16

/* A parameter's value to select runs by ("outputs=4"): text equal, or numerically equal. */
struct tl_results_at {
	const char *name, *value;
};

/* What the admission test used from the database, per module (index as the specs). */
struct tl_results_admit_src {
	uint64_t runs;      /* runs done at the chosen values that measured the module */
	uint64_t instances; /* their instances, summed */
};

/*
 * Fill r (zeroed first; no run: r->run is NULL) with each module's net CPU
 * time P from the sweep's runs done whose parameters have every value of
 * `at`: the mean of P over all their instances, and as the worst case the
 * largest of the runs' p99 of P (r->worst_pct 99); then the admission test
 * (tl_cpuuse_admission_compute).  A module no such run measured is an
 * error that names it.  0, or -1 with tl_error set; release r with
 * tl_cpuuse_result_release() either way.  *sweep_id gets the sweep used.
 */
int tl_results_admission(const char *path, int64_t sweep, const struct tl_results_at *at, size_t nat,
                         const struct tl_cpuuse_spec *specs, size_t nspecs, struct tl_cpuuse_result *r,
                         struct tl_results_admit_src *src, int64_t *sweep_id);

/* The admission test from the database, with where each P came from (docs/JSON.md "threadlens-util-admission"). */
int tl_results_admission_write_text(FILE *f, const char *path, int64_t sweep, const struct tl_results_at *at,
                                    size_t nat, const struct tl_cpuuse_result *r,
                                    const struct tl_results_admit_src *src);
int tl_results_admission_write_json(FILE *f, const char *path, int64_t sweep, const struct tl_results_at *at,
                                    size_t nat, const struct tl_cpuuse_result *r,
                                    const struct tl_results_admit_src *src);

/* The least-squares line through (x[i], y[i]); valid when n >= 2 and the x are not all equal. */
void tl_results_fit(const double *x, const double *y, size_t n, struct tl_results_fit *fit);

#endif
