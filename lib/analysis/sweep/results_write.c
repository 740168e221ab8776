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

/*
 * One line a sweep; under 96 columns without when it was created (--json
 * has it), and its specification's path takes what the width leaves
 * (names cleaned, cut with '~').
 */
static void sweeps_text(FILE *f, const struct tl_results *r, int w)
{
	int created = w >= 96;
	int left = w - (created ? 80 : 58);
	size_t tail = left > 4 ? (size_t)left : 4;
	char spec[4 * 256 + 8];

	fprintf(f, "%6s  %-20s %6s %6s %6s %6s  ", "sweep", "name", "combos", "repeat", "done", "failed");
	if (created)
		fprintf(f, "%-20s  ", "created");
	fprintf(f, "%s\n", tail >= 13 ? "specification" : "spec");
	for (size_t i = 0; i < r->nsweeps; i++) {
		const struct tl_results_sweep *s = &r->sweeps[i];

		fprintf(f, "%6lld  ", (long long)s->id);
		tl_fmt_put_name(f, s->name[0] ? s->name : "-", 20);
		fprintf(f, " %6" PRIu64 " %6" PRIu64 " %6" PRIu64 " %6" PRIu64 "  ", s->combinations, s->repeat,
		        s->done, s->failed);
		if (created)
			fprintf(f, "%-20s  ", s->created);
		tl_fmt_name_cut(s->spec_path, tail, spec, sizeof(spec));
		fprintf(f, "%s\n", spec);
	}
}

/*
 * A sweep's points: 92 columns; narrower, min and max go (--json and --csv
 * have them).  Prose wraps; names are cleaned by the wrap.
 */
int tl_results_write_text(FILE *f, const struct tl_results *r, int width)
{
	int w = width > 0 ? width : 100, minmax = w >= 92;
	char a[32], b[32], c[32], d[32], e[32], g[32], v[1024];

	if (!r->param[0]) {
		sweeps_text(f, r, w);
		fflush(f);
		return ferror(f) ? -1 : 0;
	}
	snprintf(v, sizeof(v), "%s, sweep %lld%s%s%s: %" PRIu64 " runs done, %" PRIu64 " failed", r->path,
	         (long long)r->sweep->id, r->sweep->name[0] ? " (" : "", r->sweep->name, r->sweep->name[0] ? ")" : "",
	         r->sweep->done, r->sweep->failed);
	tl_fmt_wrap(f, "threadlens results: ", v, w);
	snprintf(v, sizeof(v), "%s%s%s against %s (mean of the runs, sample sd, 95%% CI of the mean):", r->metric,
	         r->is_frames ? "" : " of ", r->is_frames ? "" : r->span, r->param);
	tl_fmt_wrap(f, "", v, w);
	fprintf(f, "%12.12s %5s %11s %11s %25s", r->param, "runs", "mean", "sd", "95% CI");
	fprintf(f, minmax ? " %11s %11s\n" : "\n", "min", "max");
	for (size_t i = 0; i < r->npoints; i++) {
		const struct tl_results_point *p = &r->points[i];
		char ci[80] = "-";
		if (p->has_ci)
			snprintf(ci, sizeof(ci), "[%s, %s]", tl_results_fmt(r, p->ci_low, a, sizeof(a)),
			         tl_results_fmt(r, p->ci_high, b, sizeof(b)));
		fprintf(f, "%12.12s %5" PRIu64 " %11s %11s %25s", p->value, p->n,
		        tl_results_fmt(r, p->mean, c, sizeof(c)), tl_results_fmt(r, p->sd, d, sizeof(d)), ci);
		if (minmax)
			fprintf(f, " %11s %11s", tl_results_fmt(r, p->min, e, sizeof(e)),
			        tl_results_fmt(r, p->max, g, sizeof(g)));
		fputc('\n', f);
	}
	if (r->fit.valid) {
		snprintf(v, sizeof(v), "%" PRIu64 " runs: %s = %s x %s %s %s; R^2 %.4f, %s (%s %.2f)", r->fit.n,
		         r->metric, tl_results_fmt(r, r->fit.slope, a, sizeof(a)), r->param,
		         r->fit.intercept < 0 ? "-" : "+", tl_results_fmt(r, fabs(r->fit.intercept), b, sizeof(b)),
		         r->fit.r2, r->fit.linear ? "linear" : "not linear", r->fit.linear ? ">=" : "<",
		         TL_RESULTS_LINEAR_R2);
		tl_fmt_wrap(f, "least squares, ", v, w);
	} else {
		fprintf(f, "no least-squares line: %s\n",
		        r->points[0].is_num ? "one value of the parameter only" : "the parameter is not a number");
	}
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
