/*
 * report_common.c - what the report writers share: option names, row order
 * and limits, number formatting and the cleaning of untrusted names.
 *
 * Sorting never changes the model: it returns an array of indices, and ties
 * keep the model's order (pid, tid, serial), so every writer shows the same
 * threads in the same order for the same options.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <stdio.h>

#include "base/errors.h"
#include "output/json.h"
#include "analysis/report/report_int.h"

static const char *const csv_tables[TL_CSV__COUNT] = {
	[TL_CSV_THREADS] = "threads", [TL_CSV_STATES] = "states",       [TL_CSV_TRANSITIONS] = "transitions",
	[TL_CSV_CPUS] = "cpus",       [TL_CSV_PROCESSES] = "processes", [TL_CSV_WAKERS] = "wakers",
};

int tl_report_sort_parse(const char *key)
{
	static const struct {
		const char *name;
		int sort;
	} keys[] = {
		{ "name", TL_REPORT_SORT_NAME },
		{ "tid", TL_REPORT_SORT_TID },
		{ "pid", TL_REPORT_SORT_PID },
		{ "lifetime", TL_REPORT_SORT_LIFETIME },
	};

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (!strcasecmp(key, keys[i].name))
			return keys[i].sort;
	int st = tl_state_from_name(key);
	return st >= 0 ? st : -2;
}

int tl_report_csv_table_parse(const char *name)
{
	for (int i = 0; i < TL_CSV__COUNT; i++)
		if (!strcasecmp(name, csv_tables[i]))
			return i;
	return -1;
}

const char *tl_report_csv_table_name(int table)
{
	return table >= 0 && table < TL_CSV__COUNT ? csv_tables[table] : "?";
}

const char *tl_intr_source_name(const struct tl_intr_stat *s, char *buf, size_t len)
{
	if (s->irq < 0)
		snprintf(buf, len, "other interrupts");
	else if (s->soft)
		snprintf(buf, len, "%s softirq", tl_softirq_name(s->irq));
	else if (s->irq & TL_IRQ_VECTOR)
		snprintf(buf, len, "%s", tl_vector_name(s->irq & ~TL_IRQ_VECTOR));
	else
		snprintf(buf, len, "IRQ %d", (int)s->irq);
	return buf;
}

uint64_t tl_report_lifetime(const struct tl_thread_stats *t)
{
	return t->end > t->start ? t->end - t->start : 0;
}

static int cmp_tid(const void *x, const void *y)
{
	const struct tl_report_tid *a = x, *b = y;
	if (a->tid != b->tid)
		return a->tid < b->tid ? -1 : 1;
	return a->i < b->i ? -1 : a->i > b->i;
}

void tl_report_tids_sort(struct tl_report_tid *v, size_t n)
{
	if (n > 1)
		qsort(v, n, sizeof(*v), cmp_tid);
}

const struct tl_report_tid *tl_report_tids_find(const struct tl_report_tid *v, size_t n, int32_t tid)
{
	size_t lo = 0, hi = n;

	while (lo < hi) { /* the first entry whose tid is not below the one asked */
		size_t mid = lo + (hi - lo) / 2;
		if (v[mid].tid < tid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && v[lo].tid == tid ? &v[lo] : NULL;
}

struct order_ctx {
	const struct tl_model *m;
	int sort;
};

static int cmp_u64_desc(uint64_t a, uint64_t b)
{
	return a > b ? -1 : a < b;
}

static int cmp_int(int64_t a, int64_t b)
{
	return a < b ? -1 : a > b;
}

static int cmp_rows(const void *pa, const void *pb, void *arg)
{
	const struct order_ctx *c = arg;
	size_t ia = *(const size_t *)pa, ib = *(const size_t *)pb;
	const struct tl_thread_stats *a = &c->m->threads[ia], *b = &c->m->threads[ib];
	int r = 0;

	if (c->sort >= 0 && c->sort < TL_ST__COUNT)
		r = cmp_u64_desc(a->state_ns[c->sort], b->state_ns[c->sort]);
	else if (c->sort == TL_REPORT_SORT_NAME)
		r = strcmp(a->name, b->name);
	else if (c->sort == TL_REPORT_SORT_TID)
		r = cmp_int(a->tid, b->tid);
	else if (c->sort == TL_REPORT_SORT_PID)
		r = cmp_int(a->pid, b->pid);
	else if (c->sort == TL_REPORT_SORT_LIFETIME)
		r = cmp_u64_desc(tl_report_lifetime(a), tl_report_lifetime(b));
	if (!r && c->sort == TL_REPORT_SORT_NAME)
		r = cmp_int(a->tid, b->tid);
	return r ? r : cmp_int((int64_t)ia, (int64_t)ib);
}

size_t *tl_report_thread_order(const struct tl_model *m, int sort, size_t limit, size_t *n)
{
	struct order_ctx ctx = { m, sort };
	size_t *idx = malloc((m->nthreads ? m->nthreads : 1) * sizeof(*idx));

	if (!idx) {
		tl_error("out of memory sorting %zu threads", m->nthreads);
		return NULL;
	}
	for (size_t i = 0; i < m->nthreads; i++)
		idx[i] = i;
	if (sort != TL_REPORT_SORT_DEFAULT && m->nthreads > 1)
		qsort_r(idx, m->nthreads, sizeof(*idx), cmp_rows, &ctx);
	*n = m->nthreads < limit ? m->nthreads : limit;
	return idx;
}

size_t tl_report_limit(const struct tl_report_opts *o, size_t avail, size_t dflt)
{
	size_t lim = dflt;

	if (o && o->top > 0)
		lim = (size_t)o->top;
	else if (o && o->top < 0)
		lim = SIZE_MAX;
	return avail < lim ? avail : lim;
}
