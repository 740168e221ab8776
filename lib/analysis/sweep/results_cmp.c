/*
 * results_cmp.c - comparing sweeps' results (results.h): a metric at each
 * value of a parameter in two databases (before and after a change), or
 * at two values of one database, each difference against the noise of the
 * runs behind it, as `threadlens diff` judges two sides of recordings.
 *
 * Invariant: a row's change is b's mean minus a's; its band is three
 * standard errors of that difference, from the runs' sample deviations;
 * with a single run on a side the noise is unknown and the row is marked
 * over 10% instead, and says so.
 */
#include "analysis/sweep/results.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/errors.h"
#include "base/grow.h"
#include "output/fmt.h"
#include "output/json.h"

static void judge(struct tl_results_cmp_row *row)
{
	const struct tl_results_point *a = row->a, *b = row->b;

	if (!a || !b)
		return;
	row->change = b->mean - a->mean;
	row->change_pct = a->mean != 0 ? 100 * row->change / fabs(a->mean) : 0;
	row->noise_known = a->n > 1 && b->n > 1;
	if (row->noise_known) {
		row->band = TL_RESULTS_NOISE_SE * sqrt(a->sd * a->sd / (double)a->n + b->sd * b->sd / (double)b->n);
		row->marked = fabs(row->change) > row->band;
	} else {
		row->marked = fabs(row->change_pct) > TL_RESULTS_BLIND_PCT;
	}
}

static int same_value(const struct tl_results_point *p, const struct tl_results_point *q)
{
	if (p->is_num && q->is_num)
		return p->x == q->x;
	return !p->is_num && !q->is_num && !strcmp(p->value, q->value);
}

static struct tl_results_cmp_row *new_row(struct tl_results_cmp *c, size_t *cap)
{
	if (TL_GROW_ZERO(c->rows, *cap, c->nrows + 1) < 0)
		return NULL;
	return &c->rows[c->nrows++];
}

int tl_results_compare_dbs(const struct tl_results *a, const struct tl_results *b, struct tl_results_cmp *c)
{
	size_t cap = 0;

	memset(c, 0, sizeof(*c));
	for (size_t i = 0; i < a->npoints + b->npoints; i++) {
		const struct tl_results_point *p = i < a->npoints ? &a->points[i] : &b->points[i - a->npoints];
		const struct tl_results_point *match = NULL;
		struct tl_results_cmp_row *row;
		if (i >= a->npoints) { /* b's values that a lacks */
			int in_a = 0;
			for (size_t k = 0; k < a->npoints && !in_a; k++)
				in_a = same_value(&a->points[k], p);
			if (in_a)
				continue;
		} else {
			for (size_t k = 0; k < b->npoints && !match; k++)
				if (same_value(&b->points[k], p))
					match = &b->points[k];
		}
		if (!(row = new_row(c, &cap)))
			goto oom;
		snprintf(row->label, sizeof(row->label), "%s", p->value);
		row->a = i < a->npoints ? p : NULL;
		row->b = i < a->npoints ? match : p;
		judge(row);
		c->marked += row->marked;
	}
	return 0;
oom:
	tl_results_cmp_release(c);
	return tl_error("out of memory");
}

static const struct tl_results_point *find(const struct tl_results *r, const char *v)
{
	char *end;
	double x = strtod(v, &end);
	int num = end != v && !*end;

	for (size_t i = 0; i < r->npoints; i++)
		if (num ? r->points[i].is_num && r->points[i].x == x : !strcmp(r->points[i].value, v))
			return &r->points[i];
	return NULL;
}

int tl_results_compare_values(const struct tl_results *r, const char *va, const char *vb, struct tl_results_cmp *c)
{
	const struct tl_results_point *a = find(r, va), *b = find(r, vb);
	size_t cap = 0;
	struct tl_results_cmp_row *row;

	memset(c, 0, sizeof(*c));
	if (!a || !b)
		return tl_error("sweep %lld has no run done with %s = %s", (long long)r->sweep->id, r->param,
		                a ? vb : va);
	if (!(row = new_row(c, &cap)))
		return tl_error("out of memory");
	snprintf(row->label, sizeof(row->label), "%s -> %s", a->value, b->value);
	row->a = a;
	row->b = b;
	judge(row);
	c->marked = row->marked;
	return 0;
}

void tl_results_cmp_release(struct tl_results_cmp *c)
{
	free(c->rows);
	memset(c, 0, sizeof(*c));
}

/* The rows: 86 columns; narrower, the 3 SE column goes (the prose says what it is). Prose wraps. */
int tl_results_cmp_write_text(FILE *f, const struct tl_results *a, const struct tl_results *b,
                              const struct tl_results_cmp *c, int width)
{
	int w = width > 0 ? width : 100, se = w >= 86;
	char ma[32], mb[32], ch[32], chs[40], bd[32], v[1024];

	if (b) {
		snprintf(v, sizeof(v), "%s of %s against %s", a->metric, a->is_frames ? "frames" : a->span, a->param);
		tl_fmt_wrap(f, "threadlens results: ", v, w);
		snprintf(v, sizeof(v), "%s (sweep %lld)", a->path, (long long)a->sweep->id);
		tl_fmt_wrap(f, "before: ", v, w);
		snprintf(v, sizeof(v), "%s (sweep %lld)", b->path, (long long)b->sweep->id);
		tl_fmt_wrap(f, "after:  ", v, w);
	} else {
		snprintf(v, sizeof(v), "%s of %s in %s (sweep %lld), one value of %s against another", a->metric,
		         a->is_frames ? "frames" : a->span, a->path, (long long)a->sweep->id, a->param);
		tl_fmt_wrap(f, "threadlens results: ", v, w);
	}
	snprintf(v, sizeof(v),
	         "* = a change beyond %d standard errors of the difference (the runs' noise), or over %d%% when a "
	         "side has one run (noise unknown: '?')",
	         TL_RESULTS_NOISE_SE, TL_RESULTS_BLIND_PCT);
	tl_fmt_wrap(f, "", v, w);
	fprintf(f, "%14.14s %6s %11s %6s %11s %11s %9s", a->param, "runs", "before", "runs", "after", "change", "in %");
	fprintf(f, se ? " %11s\n" : "\n", "3 SE");
	for (size_t i = 0; i < c->nrows; i++) {
		const struct tl_results_cmp_row *r = &c->rows[i];
		char pct[24] = "";
		if (!r->a || !r->b) {
			fprintf(f, "%14.14s %6" PRIu64 " %11s %6" PRIu64 " %11s   (on one side only)\n", r->label,
			        r->a ? r->a->n : 0, r->a ? tl_results_fmt(a, r->a->mean, ma, sizeof(ma)) : "-",
			        r->b ? r->b->n : 0, r->b ? tl_results_fmt(a, r->b->mean, mb, sizeof(mb)) : "-");
			continue;
		}
		snprintf(pct, sizeof(pct), "%+.1f%% %s", r->change_pct, r->marked ? "*" : " ");
		snprintf(chs, sizeof(chs), "%s%s", r->change < 0 ? "-" : "+",
		         tl_results_fmt(a, fabs(r->change), ch, sizeof(ch)));
		fprintf(f, "%14.14s %6" PRIu64 " %11s %6" PRIu64 " %11s %11s %9s", r->label, r->a->n,
		        tl_results_fmt(a, r->a->mean, ma, sizeof(ma)), r->b->n,
		        tl_results_fmt(a, r->b->mean, mb, sizeof(mb)), chs, pct);
		if (se)
			fprintf(f, " %11s", r->noise_known ? tl_results_fmt(a, r->band, bd, sizeof(bd)) : "?");
		fputc('\n', f);
	}
	fprintf(f, "%zu of %zu marked\n", c->marked, c->nrows);
	fflush(f);
	return ferror(f) ? -1 : 0;
}

static void point_json(struct tl_json *j, const char *key, const struct tl_results_point *p)
{
	tl_json_key(j, key);
	if (!p) {
		tl_json_null(j);
		return;
	}
	tl_json_begin_object(j, TL_JSON_INLINE);
	tl_json_kv_string(j, "value", p->value);
	tl_json_kv_uint(j, "runs", p->n);
	tl_json_kv_double(j, "mean", p->mean, 3);
	tl_json_kv_double(j, "sd", p->sd, 3);
	tl_json_end_object(j);
}

int tl_results_cmp_write_json(FILE *f, const struct tl_results *a, const struct tl_results *b,
                              const struct tl_results_cmp *c)
{
	struct tl_json j;

	tl_json_init(&j, f, TL_JSON_PRETTY);
	tl_json_begin_object(&j, TL_JSON_BLOCK);
	tl_json_kv_string(&j, "schema", "threadlens-results-compare");
	tl_json_kv_int(&j, "version", 1);
	tl_json_kv_string(&j, "before", a->path);
	tl_json_kv_int(&j, "before_sweep", a->sweep->id);
	tl_json_kv_string(&j, "after", b ? b->path : a->path);
	tl_json_kv_int(&j, "after_sweep", b ? b->sweep->id : a->sweep->id);
	tl_json_kv_string(&j, "parameter", a->param);
	tl_json_kv_string(&j, "metric", a->metric);
	if (!a->is_frames)
		tl_json_kv_string(&j, "span", a->span);
	tl_json_key(&j, "rows");
	tl_json_begin_array(&j, TL_JSON_BLOCK);
	for (size_t i = 0; i < c->nrows; i++) {
		const struct tl_results_cmp_row *r = &c->rows[i];
		tl_json_begin_object(&j, TL_JSON_INLINE);
		tl_json_kv_string(&j, "label", r->label);
		point_json(&j, "before", r->a);
		point_json(&j, "after", r->b);
		if (r->a && r->b) {
			tl_json_kv_double(&j, "change", r->change, 3);
			tl_json_kv_double(&j, "change_pct", r->change_pct, 3);
			tl_json_kv_bool(&j, "noise_known", r->noise_known);
			tl_json_key(&j, "band");
			if (r->noise_known)
				tl_json_double(&j, r->band, 3);
			else
				tl_json_null(&j);
			tl_json_kv_bool(&j, "marked", r->marked);
		}
		tl_json_end_object(&j);
	}
	tl_json_end_array(&j);
	tl_json_end_object(&j);
	return tl_json_finish(&j);
}
