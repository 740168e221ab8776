/*
 * results_write.c - the results of a sweep as a table, JSON and CSV
 * (results.h): they print, never compute.
 */
#include "analysis/sweep/results.h"

#include <inttypes.h>
#include <math.h>

#include "output/fmt.h"
#include "output/json.h"

const char *tl_results_fmt(const struct tl_results *r, double v, char *buf, size_t n)
{
	if (r->is_ns)
		return tl_fmt_dur_sig(v, 4, buf, n);
	snprintf(buf, n, "%.4g", v);
	return buf;
}

static void sweeps_text(FILE *f, const struct tl_results *r)
{
	fprintf(f, "%6s  %-20s %6s %6s %6s %6s  %-20s  %s\n", "sweep", "name", "combos", "repeat", "done", "failed",
	        "created", "specification");
	for (size_t i = 0; i < r->nsweeps; i++) {
		const struct tl_results_sweep *s = &r->sweeps[i];
		fprintf(f, "%6lld  %-20.20s %6" PRIu64 " %6" PRIu64 " %6" PRIu64 " %6" PRIu64 "  %-20s  %s\n",
		        (long long)s->id, s->name[0] ? s->name : "-", s->combinations, s->repeat, s->done, s->failed,
		        s->created, s->spec_path);
	}
}

int tl_results_write_text(FILE *f, const struct tl_results *r)
{
	char a[32], b[32], c[32], d[32], e[32], g[32];

	if (!r->param[0]) {
		sweeps_text(f, r);
		fflush(f);
		return ferror(f) ? -1 : 0;
	}
	fprintf(f, "threadlens results: %s, sweep %lld%s%s%s: %" PRIu64 " runs done, %" PRIu64 " failed\n", r->path,
	        (long long)r->sweep->id, r->sweep->name[0] ? " (" : "", r->sweep->name, r->sweep->name[0] ? ")" : "",
	        r->sweep->done, r->sweep->failed);
	fprintf(f, "%s%s%s against %s (mean of the runs, sample sd, 95%% CI of the mean):\n", r->metric,
	        r->is_frames ? "" : " of ", r->is_frames ? "" : r->span, r->param);
	fprintf(f, "%12s %5s %11s %11s %25s %11s %11s\n", r->param, "runs", "mean", "sd", "95% CI", "min", "max");
	for (size_t i = 0; i < r->npoints; i++) {
		const struct tl_results_point *p = &r->points[i];
		char ci[80] = "-";
		if (p->has_ci)
			snprintf(ci, sizeof(ci), "[%s, %s]", tl_results_fmt(r, p->ci_low, a, sizeof(a)),
			         tl_results_fmt(r, p->ci_high, b, sizeof(b)));
		fprintf(f, "%12.12s %5" PRIu64 " %11s %11s %25s %11s %11s\n", p->value, p->n,
		        tl_results_fmt(r, p->mean, c, sizeof(c)), tl_results_fmt(r, p->sd, d, sizeof(d)), ci,
		        tl_results_fmt(r, p->min, e, sizeof(e)), tl_results_fmt(r, p->max, g, sizeof(g)));
	}
	if (r->fit.valid)
		fprintf(f, "least squares, %" PRIu64 " runs: %s = %s x %s %s %s; R^2 %.4f, %s (%s %.2f)\n", r->fit.n,
		        r->metric, tl_results_fmt(r, r->fit.slope, a, sizeof(a)), r->param,
		        r->fit.intercept < 0 ? "-" : "+", tl_results_fmt(r, fabs(r->fit.intercept), b, sizeof(b)),
		        r->fit.r2, r->fit.linear ? "linear" : "not linear", r->fit.linear ? ">=" : "<",
		        TL_RESULTS_LINEAR_R2);
	else
		fprintf(f, "no least-squares line: %s\n",
		        r->points[0].is_num ? "one value of the parameter only" : "the parameter is not a number");
	fflush(f);
	return ferror(f) ? -1 : 0;
}

int tl_results_write_json(FILE *f, const struct tl_results *r)
{
	struct tl_json j;

	tl_json_init(&j, f, TL_JSON_PRETTY);
	tl_json_begin_object(&j, TL_JSON_BLOCK);
	tl_json_kv_string(&j, "schema", "threadlens-results");
	tl_json_kv_int(&j, "version", 1);
	tl_json_kv_string(&j, "database", r->path);
	tl_json_key(&j, "sweeps");
	tl_json_begin_array(&j, TL_JSON_BLOCK);
	for (size_t i = 0; i < r->nsweeps; i++) {
		const struct tl_results_sweep *s = &r->sweeps[i];
		tl_json_begin_object(&j, TL_JSON_INLINE);
		tl_json_kv_int(&j, "id", s->id);
		tl_json_kv_string(&j, "name", s->name);
		tl_json_kv_string(&j, "spec_path", s->spec_path);
		tl_json_kv_string(&j, "created", s->created);
		tl_json_kv_uint(&j, "combinations", s->combinations);
		tl_json_kv_uint(&j, "repeat", s->repeat);
		tl_json_kv_uint(&j, "done", s->done);
		tl_json_kv_uint(&j, "failed", s->failed);
		tl_json_end_object(&j);
	}
	tl_json_end_array(&j);
	if (r->param[0]) {
		tl_json_kv_int(&j, "sweep", r->sweep->id);
		tl_json_kv_string(&j, "parameter", r->param);
		tl_json_kv_string(&j, "metric", r->metric);
		if (!r->is_frames)
			tl_json_kv_string(&j, "span", r->span);
		tl_json_key(&j, "points");
		tl_json_begin_array(&j, TL_JSON_BLOCK);
		for (size_t i = 0; i < r->npoints; i++) {
			const struct tl_results_point *p = &r->points[i];
			tl_json_begin_object(&j, TL_JSON_INLINE);
			tl_json_kv_string(&j, "value", p->value);
			tl_json_key(&j, "x");
			if (p->is_num)
				tl_json_double(&j, p->x, 6);
			else
				tl_json_null(&j);
			tl_json_kv_uint(&j, "runs", p->n);
			tl_json_kv_double(&j, "mean", p->mean, 3);
			tl_json_kv_double(&j, "sd", p->sd, 3);
			tl_json_key(&j, "ci95");
			if (p->has_ci) {
				tl_json_begin_array(&j, TL_JSON_INLINE);
				tl_json_double(&j, p->ci_low, 3);
				tl_json_double(&j, p->ci_high, 3);
				tl_json_end_array(&j);
			} else {
				tl_json_null(&j);
			}
			tl_json_kv_double(&j, "min", p->min, 3);
			tl_json_kv_double(&j, "max", p->max, 3);
			tl_json_end_object(&j);
		}
		tl_json_end_array(&j);
		tl_json_key(&j, "fit");
		if (r->fit.valid) {
			tl_json_begin_object(&j, TL_JSON_INLINE);
			tl_json_kv_uint(&j, "runs", r->fit.n);
			tl_json_kv_double(&j, "slope", r->fit.slope, 6);
			tl_json_kv_double(&j, "intercept", r->fit.intercept, 6);
			tl_json_kv_double(&j, "r2", r->fit.r2, 6);
			tl_json_kv_bool(&j, "linear", r->fit.linear);
			tl_json_end_object(&j);
		} else {
			tl_json_null(&j);
		}
	}
	tl_json_end_object(&j);
	return tl_json_finish(&j);
}

int tl_results_write_csv(FILE *f, const struct tl_results *r)
{
	if (!r->param[0]) {
		fputs("sweep,name,combinations,repeat,done,failed,created,spec_path\n", f);
		for (size_t i = 0; i < r->nsweeps; i++) {
			const struct tl_results_sweep *s = &r->sweeps[i];
			fprintf(f, "%lld", (long long)s->id);
			tl_fmt_csv_cell(f, s->name, 0);
			fprintf(f, ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%s", s->combinations, s->repeat,
			        s->done, s->failed, s->created);
			tl_fmt_csv_cell(f, s->spec_path, 0);
			fputc('\n', f);
		}
	} else {
		fputs("value,runs,mean,sd,ci_low,ci_high,min,max\n", f);
		for (size_t i = 0; i < r->npoints; i++) {
			const struct tl_results_point *p = &r->points[i];
			tl_fmt_csv_cell(f, p->value, 1);
			fprintf(f, ",%" PRIu64 ",%.3f,%.3f,", p->n, p->mean, p->sd);
			if (p->has_ci)
				fprintf(f, "%.3f,%.3f,", p->ci_low, p->ci_high);
			else
				fputs(",,", f);
			fprintf(f, "%.3f,%.3f\n", p->min, p->max);
		}
	}
	fflush(f);
	return ferror(f) ? -1 : 0;
}
