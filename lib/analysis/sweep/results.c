/*
 * results.c - tl_results_read(): a sweep's metric against a parameter,
 * from its database (results.h), and the least-squares line.
 *
 * Invariants: the database is opened read-only; a metric's name is looked
 * up in a fixed table before it becomes part of a query; the points are
 * the distinct values of the parameter among the runs done, and their n
 * sum to the fit's n.
 */
#include "analysis/sweep/results.h"

#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/cpuuse/cpuuse.h"
#include "analysis/sweep/db.h"
#include "base/errors.h"
#include "base/grow.h"

static const struct {
	const char *name;
	int frames; /* a column of `frames`, else of `modules` */
	int ns;
} metrics[] = {
	{ "cpu_mean_ns", 0, 1 },     { "cpu_sd_ns", 0, 1 },      { "cpu_p50_ns", 0, 1 },     { "cpu_p99_ns", 0, 1 },
	{ "ci_low_ns", 0, 1 },       { "ci_high_ns", 0, 1 },     { "range_low_ns", 0, 1 },   { "range_high_ns", 0, 1 },
	{ "elapsed_mean_ns", 0, 1 }, { "irq_mean_ns", 0, 1 },    { "utilization", 0, 0 },    { "count", 0, 0 },
	{ "len_min_ns", 0, 1 },      { "len_p50_ns", 0, 1 },     { "len_p90_ns", 0, 1 },     { "len_p99_ns", 0, 1 },
	{ "len_p999_ns", 0, 1 },     { "len_max_ns", 0, 1 },     { "frames", 1, 0 },         { "fps", 1, 0 },
	{ "latency_mean_ns", 1, 1 }, { "latency_p50_ns", 1, 1 }, { "latency_p99_ns", 1, 1 }, { "latency_max_ns", 1, 1 },
};

const char *tl_results_metrics(void)
{
	static char list[600];

	if (!list[0])
		for (size_t i = 0; i < sizeof(metrics) / sizeof(metrics[0]); i++)
			snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s", i ? ", " : "",
			         metrics[i].name);
	return list;
}

void tl_results_fit(const double *x, const double *y, size_t n, struct tl_results_fit *fit)
{
	double mx = 0, my = 0, sxx = 0, sxy = 0, syy = 0;

	memset(fit, 0, sizeof(*fit));
	fit->n = n;
	if (n < 2)
		return;
	for (size_t i = 0; i < n; i++) {
		mx += x[i];
		my += y[i];
	}
	mx /= (double)n;
	my /= (double)n;
	for (size_t i = 0; i < n; i++) {
		sxx += (x[i] - mx) * (x[i] - mx);
		sxy += (x[i] - mx) * (y[i] - my);
		syy += (y[i] - my) * (y[i] - my);
	}
	if (sxx <= 0)
		return;
	fit->valid = 1;
	fit->slope = sxy / sxx;
	fit->intercept = my - fit->slope * mx;
	fit->r2 = syy > 0 ? sxy * sxy / (sxx * syy) : 1; /* every y equal: the line fits exactly */
	fit->linear = fit->r2 >= TL_RESULTS_LINEAR_R2;
}

static int read_sweeps(sqlite3 *db, struct tl_results *r)
{
	static const char sql[] = "SELECT s.id, s.name, s.spec_path, s.created, s.combinations, s.repeat,\n"
	                          "  (SELECT count(*) FROM runs WHERE sweep = s.id AND status = 'done'),\n"
	                          "  (SELECT count(*) FROM runs WHERE sweep = s.id AND status = 'failed')\n"
	                          "FROM sweeps s ORDER BY s.id";
	sqlite3_stmt *st;
	size_t cap = 0;
	int rc;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return tl_sweep_db_fail(db, r->path, NULL);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct tl_results_sweep *s;
		if (TL_GROW_ZERO(r->sweeps, cap, r->nsweeps + 1) < 0) {
			sqlite3_finalize(st);
			return -1;
		}
		s = &r->sweeps[r->nsweeps++];
		s->id = sqlite3_column_int64(st, 0);
		snprintf(s->name, sizeof(s->name), "%s", (const char *)sqlite3_column_text(st, 1));
		snprintf(s->spec_path, sizeof(s->spec_path), "%s", (const char *)sqlite3_column_text(st, 2));
		snprintf(s->created, sizeof(s->created), "%s", (const char *)sqlite3_column_text(st, 3));
		s->combinations = (uint64_t)sqlite3_column_int64(st, 4);
		s->repeat = (uint64_t)sqlite3_column_int64(st, 5);
		s->done = (uint64_t)sqlite3_column_int64(st, 6);
		s->failed = (uint64_t)sqlite3_column_int64(st, 7);
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : tl_sweep_db_fail(db, r->path, NULL);
}

/* The span when none is given: the sweep's only one. */
static int pick_span(sqlite3 *db, struct tl_results *r)
{
	sqlite3_stmt *st;
	int n = 0;

	if (sqlite3_prepare_v2(db,
	                       "SELECT DISTINCT m.span FROM modules m JOIN runs u ON u.id = m.run WHERE u.sweep = ?1",
	                       -1, &st, NULL) != SQLITE_OK)
		return tl_sweep_db_fail(db, r->path, NULL);
	sqlite3_bind_int64(st, 1, r->sweep->id);
	while (sqlite3_step(st) == SQLITE_ROW)
		if (n++ == 0)
			snprintf(r->span, sizeof(r->span), "%s", (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	if (n == 1)
		return 0;
	return tl_error(n ? "sweep %lld measured %d module spans: --span names one"
	                  : "sweep %lld measured no module span (its specification has no MODULE line)",
	                (long long)r->sweep->id, n);
}

/* Add a run's (value, y) to its point; points stay in query order (by value). */
static int add(struct tl_results *r, size_t *cap, const char *value, int is_num, double x, double y)
{
	struct tl_results_point *p = r->npoints ? &r->points[r->npoints - 1] : NULL;

	if (!p || strcmp(p->value, value)) {
		if (TL_GROW_ZERO(r->points, *cap, r->npoints + 1) < 0)
			return -1;
		p = &r->points[r->npoints++];
		snprintf(p->value, sizeof(p->value), "%s", value);
		p->is_num = is_num;
		p->x = x;
		p->min = p->max = y;
	}
	p->n++;
	p->mean += y; /* a sum until finish() */
	p->sd += y * y;
	p->min = y < p->min ? y : p->min;
	p->max = y > p->max ? y : p->max;
	return 0;
}

static void finish(struct tl_results_point *p)
{
	double sum = p->mean, sq = p->sd, n = (double)p->n;

	p->mean = sum / n;
	p->sd = p->n > 1 ? sqrt(fmax(0, (sq - sum * sum / n) / (n - 1))) : 0;
	p->has_ci = p->n > 1;
	if (p->has_ci) {
		double h = tl_cpuuse_t975(p->n - 1) * p->sd / sqrt(n);
		p->ci_low = p->mean - h;
		p->ci_high = p->mean + h;
	}
}

static int read_points(sqlite3 *db, struct tl_results *r)
{
	char sql[600];
	sqlite3_stmt *st;
	double *xs = NULL, *ys = NULL;
	size_t cap = 0, ncap = 0, n = 0;
	int rc, numeric = 1;

	snprintf(sql, sizeof(sql),
	         "SELECT p.value, p.num, m.%s FROM runs u JOIN params p ON p.run = u.id JOIN %s m ON m.run = u.id\n"
	         "WHERE u.sweep = ?1 AND u.status = 'done' AND p.name = ?2 AND m.%s IS NOT NULL%s\n"
	         "ORDER BY p.num IS NULL, p.num, p.value, u.id",
	         r->metric, r->is_frames ? "frames" : "modules", r->metric, r->is_frames ? "" : " AND m.span = ?3");
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return tl_sweep_db_fail(db, r->path, NULL);
	sqlite3_bind_int64(st, 1, r->sweep->id);
	sqlite3_bind_text(st, 2, r->param, -1, SQLITE_STATIC);
	if (!r->is_frames)
		sqlite3_bind_text(st, 3, r->span, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int is_num = sqlite3_column_type(st, 1) != SQLITE_NULL;
		double x = sqlite3_column_double(st, 1), y = sqlite3_column_double(st, 2);
		if (add(r, &cap, (const char *)sqlite3_column_text(st, 0), is_num, x, y) < 0 ||
		    TL_GROW(xs, ncap, n + 1) < 0 || !(ys = realloc(ys, ncap * sizeof(*ys)))) {
			rc = -1;
			break;
		}
		numeric &= is_num;
		xs[n] = x;
		ys[n++] = y;
	}
	sqlite3_finalize(st);
	if (rc == SQLITE_DONE) {
		for (size_t i = 0; i < r->npoints; i++)
			finish(&r->points[i]);
		if (numeric)
			tl_results_fit(xs, ys, n, &r->fit);
		else
			r->fit.n = n;
	}
	free(xs);
	free(ys);
	if (rc == -1)
		return tl_error("out of memory");
	if (rc != SQLITE_DONE)
		return tl_sweep_db_fail(db, r->path, NULL);
	if (!r->npoints)
		return tl_error("sweep %lld has no run done with a parameter '%s'%s%s", (long long)r->sweep->id,
		                r->param, r->is_frames ? "" : " and the span ", r->is_frames ? "" : r->span);
	return 0;
}

int tl_results_read(const char *path, const struct tl_results_opts *o, struct tl_results *r)
{
	sqlite3 *db = NULL;
	size_t m = 0;
	int rc = -1;

	memset(r, 0, sizeof(*r));
	snprintf(r->path, sizeof(r->path), "%s", path);
	if (o->param) {
		const char *metric = o->metric ? o->metric : "cpu_mean_ns";
		while (m < sizeof(metrics) / sizeof(metrics[0]) && strcmp(metrics[m].name, metric))
			m++;
		if (m == sizeof(metrics) / sizeof(metrics[0]))
			return tl_error("unknown metric '%s' (one of %s)", metric, tl_results_metrics());
		snprintf(r->metric, sizeof(r->metric), "%s", metric);
		snprintf(r->param, sizeof(r->param), "%s", o->param);
		r->is_frames = metrics[m].frames;
		r->is_ns = metrics[m].ns;
	}
	if (tl_sweep_db_open_read(path, &db) < 0)
		goto out;
	if (read_sweeps(db, r) < 0)
		goto out;
	for (size_t i = 0; i < r->nsweeps; i++)
		if (o->sweep ? r->sweeps[i].id == o->sweep : 1)
			r->sweep = &r->sweeps[i]; /* the newest when none is given */
	if (!r->sweep) {
		tl_error(r->nsweeps ? "the database has no sweep %lld" : "the database holds no sweep",
		         (long long)o->sweep);
		goto out;
	}
	if (!o->param) {
		rc = 0;
		goto out;
	}
	if (!r->is_frames) {
		if (o->span)
			snprintf(r->span, sizeof(r->span), "%s", o->span);
		else if (pick_span(db, r) < 0)
			goto out;
	}
	rc = read_points(db, r);
out:
	sqlite3_close(db);
	if (rc)
		tl_results_release(r);
	return rc;
}

void tl_results_release(struct tl_results *r)
{
	free(r->sweeps);
	free(r->points);
	memset(r, 0, sizeof(*r));
}
