/*
 * hist_select.c - exact order statistics (percentiles) over repeated passes
 * of the same values, in memory that does not grow with their number (see
 * tl_select in hist_binning.h).
 *
 * Each rank lives in a range [lo, hi] of values with `below` values under
 * it and `count` inside, so below < rank <= below + count.  Ranks that share
 * a range share its work.  A pass over a range either counts its values into
 * TL_SELECT_BUCKETS buckets of equal width, after which every rank moves to
 * the bucket that holds it (a range TL_SELECT_BUCKETS times narrower), or,
 * when the range holds at most TL_SELECT_COLLECT values, keeps them all and
 * sorts them, which answers its ranks.  A range one value wide answers them
 * at once.  The prepass replaces the first counting pass when the values
 * can be seen once before min and max are known: its log-linear buckets
 * need no range, and a bucket 1/256 of its values wide usually holds few
 * enough of them to be collected in the very next pass.  Every pass checks that it saw exactly the values the previous
 * one promised, so a file that changed between passes is an error, not a
 * wrong answer.
 */
#include <stdlib.h>
#include <string.h>

#include "base/errors.h"
#include "analysis/hist/hist_binning.h"

static void range_free(struct tl_select_range *r)
{
	free(r->buckets);
	free(r->vals);
	r->buckets = r->vals = NULL;
	r->nvals = 0;
}

/* Allocate what the next pass over r needs. */
static int range_prepare(struct tl_select_range *r)
{
	if (r->count <= TL_SELECT_COLLECT) {
		r->vals = malloc((r->count ? r->count : 1) * sizeof(*r->vals));
		r->width = 0;
		return r->vals ? 0 : tl_error("out of memory");
	}
	/* (hi - lo) / width < TL_SELECT_BUCKETS, so the bucket index stays in bounds */
	r->width = (r->hi - r->lo) / TL_SELECT_BUCKETS + 1;
	r->buckets = calloc(TL_SELECT_BUCKETS, sizeof(*r->buckets));
	return r->buckets ? 0 : tl_error("out of memory");
}

int tl_select_init(struct tl_select *s, const uint64_t *ranks, unsigned n, uint64_t count, uint64_t min, uint64_t max)
{
	memset(s, 0, sizeof(*s));
	if (n > TL_SELECT_MAX)
		return tl_error("at most %d ranks at a time", TL_SELECT_MAX);
	if (min > max || count == 0)
		return tl_error("no values to select from");
	s->n = n;
	for (unsigned i = 0; i < n; i++) {
		if (ranks[i] < 1 || ranks[i] > count)
			return tl_error("rank %llu of %llu values", (unsigned long long)ranks[i],
			                (unsigned long long)count);
		s->rank[i] = ranks[i];
		s->range_of[i] = 0;
	}
	s->nranges = 1;
	s->r[0].lo = min;
	s->r[0].hi = max;
	s->r[0].count = count;
	if (min == max) {
		/* one possible value: nothing to read */
		for (unsigned i = 0; i < n; i++) {
			s->value[i] = min;
			s->done[i] = 1;
		}
		s->nranges = 0;
		return 0;
	}
	return range_prepare(&s->r[0]);
}

/* ---- the prepass: log-linear buckets over all of 64 bits ---- */

static uint32_t log_bucket(uint64_t v)
{
	unsigned e;

	if (v < TL_SELECT_LOG_SUB)
		return (uint32_t)v;
	e = 63u - (unsigned)__builtin_clzll(v); /* 8..63 */
	return TL_SELECT_LOG_SUB + (e - 8) * TL_SELECT_LOG_SUB + (uint32_t)((v >> (e - 8)) & (TL_SELECT_LOG_SUB - 1));
}

/* The values of bucket b: [*lo, *hi]. */
static void log_range(uint32_t b, uint64_t *lo, uint64_t *hi)
{
	unsigned e;
	uint64_t width;

	if (b < TL_SELECT_LOG_SUB) {
		*lo = *hi = b;
		return;
	}
	e = (b - TL_SELECT_LOG_SUB) / TL_SELECT_LOG_SUB + 8;
	width = UINT64_C(1) << (e - 8);
	*lo = (UINT64_C(1) << e) + (uint64_t)((b - TL_SELECT_LOG_SUB) % TL_SELECT_LOG_SUB) * width;
	*hi = *lo + (width - 1);
}

int tl_select_prepass_init(struct tl_select_prepass *p)
{
	p->count = 0;
	p->buckets = calloc(TL_SELECT_LOG_BUCKETS, sizeof(*p->buckets));
	return p->buckets ? 0 : tl_error("out of memory");
}

void tl_select_prepass_add(struct tl_select_prepass *p, uint64_t v)
{
	p->buckets[log_bucket(v)]++;
	p->count++;
}

void tl_select_prepass_release(struct tl_select_prepass *p)
{
	free(p->buckets);
	p->buckets = NULL;
}

int tl_select_init_prepass(struct tl_select *s, const uint64_t *ranks, unsigned n, const struct tl_select_prepass *p)
{
	memset(s, 0, sizeof(*s));
	if (n > TL_SELECT_MAX)
		return tl_error("at most %d ranks at a time", TL_SELECT_MAX);
	s->n = n;
	for (unsigned i = 0; i < n; i++) {
		uint64_t cum = 0;
		uint32_t b = 0;
		unsigned j;
		struct tl_select_range nr = { 0 };

		if (ranks[i] < 1 || ranks[i] > p->count)
			return tl_error("rank %llu of %llu values", (unsigned long long)ranks[i],
			                (unsigned long long)p->count);
		s->rank[i] = ranks[i];
		while (cum + p->buckets[b] < ranks[i])
			cum += p->buckets[b++];
		log_range(b, &nr.lo, &nr.hi);
		nr.below = cum;
		nr.count = p->buckets[b];
		if (nr.lo == nr.hi) {
			s->value[i] = nr.lo;
			s->done[i] = 1;
			continue;
		}
		for (j = 0; j < s->nranges; j++)
			if (s->r[j].lo == nr.lo)
				break;
		if (j == s->nranges)
			s->r[s->nranges++] = nr;
		s->range_of[i] = (unsigned char)j;
	}
	for (unsigned j = 0; j < s->nranges; j++)
		if (range_prepare(&s->r[j]))
			return -1;
	return 0;
}

void tl_select_add(struct tl_select *s, uint64_t v)
{
	for (unsigned i = 0; i < s->nranges; i++) {
		struct tl_select_range *r = &s->r[i];

		if (v < r->lo || v > r->hi)
			continue;
		if (r->vals) {
			if (r->nvals < r->count)
				r->vals[r->nvals] = v;
			r->nvals++; /* counted past the end too: end_pass sees the mismatch */
		} else {
			r->buckets[(v - r->lo) / r->width]++;
		}
	}
}

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
	return a < b ? -1 : a > b;
}

static int changed(void)
{
	return tl_error("the values changed between passes (was the file rewritten?)");
}

int tl_select_end_pass(struct tl_select *s)
{
	struct tl_select_range next[TL_SELECT_MAX];
	unsigned char next_of[TL_SELECT_MAX];
	unsigned nnext = 0, i;
	int rc = 0;

	memset(next, 0, sizeof(next));
	memcpy(next_of, s->range_of, sizeof(next_of));
	s->passes++;
	for (i = 0; i < s->nranges && !rc; i++) {
		struct tl_select_range *r = &s->r[i];
		uint64_t sum = 0;

		if (r->vals) {
			if (r->nvals != r->count) {
				rc = changed();
				break;
			}
			if (r->count > 1)
				qsort(r->vals, r->count, sizeof(*r->vals), cmp_u64);
			for (unsigned t = 0; t < s->n; t++)
				if (!s->done[t] && s->range_of[t] == i) {
					s->value[t] = r->vals[s->rank[t] - r->below - 1];
					s->done[t] = 1;
				}
			continue;
		}
		for (uint32_t b = 0; b < TL_SELECT_BUCKETS; b++)
			sum += r->buckets[b];
		if (sum != r->count) {
			rc = changed();
			break;
		}
		for (unsigned t = 0; t < s->n; t++) {
			struct tl_select_range nr = { 0 };
			uint64_t want, cum = 0;
			uint32_t b = 0;
			unsigned j;

			if (s->done[t] || s->range_of[t] != i)
				continue;
			want = s->rank[t] - r->below; /* 1..count */
			while (cum + r->buckets[b] < want)
				cum += r->buckets[b++];
			nr.lo = r->lo + (uint64_t)b * r->width;
			nr.hi = r->hi - nr.lo < r->width - 1 ? r->hi : nr.lo + r->width - 1;
			nr.below = r->below + cum;
			nr.count = r->buckets[b];
			if (nr.lo == nr.hi) {
				s->value[t] = nr.lo;
				s->done[t] = 1;
				continue;
			}
			for (j = 0; j < nnext; j++)
				if (next[j].lo == nr.lo && next[j].hi == nr.hi)
					break;
			if (j == nnext)
				next[nnext++] = nr;
			next_of[t] = (unsigned char)j; /* not range_of yet: later ranges still read it */
		}
	}
	for (i = 0; i < s->nranges; i++)
		range_free(&s->r[i]);
	memcpy(s->r, next, sizeof(next));
	memcpy(s->range_of, next_of, sizeof(next_of));
	s->nranges = nnext;
	if (rc)
		return -1;
	for (i = 0; i < nnext; i++)
		if (range_prepare(&s->r[i]))
			return -1;
	return nnext ? 0 : 1;
}

void tl_select_release(struct tl_select *s)
{
	for (unsigned i = 0; i < TL_SELECT_MAX; i++)
		range_free(&s->r[i]);
	s->nranges = 0;
}
