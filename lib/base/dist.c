/*
 * dist.c - bounded-memory distributions of durations (see dist.h).
 *
 * Bucket layout: values below 64 ns have one bucket each (0..63).  A value
 * v >= 64 with highest set bit e (6..63) goes to bucket
 * 64 + (e - 6) * 32 + the next 5 bits below the top bit.  So each power of
 * two is split in 32 equal parts: the relative width of a bucket is at most
 * 1/32.
 */
#include "base/dist.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/errors.h"

#define SUB_BITS 5
#define SUB (1u << SUB_BITS)
#define NBUCKETS (64 + (64 - 6) * SUB)

static unsigned bucket_of(uint64_t v)
{
	unsigned e;

	if (v < 64)
		return (unsigned)v;
	e = 63u - (unsigned)__builtin_clzll(v);
	return 64 + (e - 6) * SUB + (unsigned)((v >> (e - SUB_BITS)) & (SUB - 1));
}

/* Lowest value of a bucket, and its width. */
static void bucket_range(unsigned b, uint64_t *lo, uint64_t *width)
{
	unsigned e, sub;

	if (b < 64) {
		*lo = b;
		*width = 1;
		return;
	}
	e = (b - 64) / SUB + 6;
	sub = (b - 64) % SUB;
	*width = 1ull << (e - SUB_BITS);
	*lo = (1ull << e) + (uint64_t)sub * *width;
}

void tl_dist_init(struct tl_dist *d)
{
	memset(d, 0, sizeof(*d));
}

int tl_dist_add(struct tl_dist *d, uint64_t v)
{
	if (!d->count || v < d->min)
		d->min = v;
	if (v > d->max)
		d->max = v;
	d->sum += v;
	if (d->count < TL_DIST_EXACT) {
		d->exact[d->count++] = v;
		return 0;
	}
	if (!d->buckets) {
		d->buckets = calloc(NBUCKETS, sizeof(*d->buckets));
		if (!d->buckets) {
			d->count++;
			return tl_error("out of memory for a distribution");
		}
		for (unsigned i = 0; i < TL_DIST_EXACT; i++)
			d->buckets[bucket_of(d->exact[i])]++;
	}
	d->buckets[bucket_of(v)]++;
	d->count++;
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

uint64_t tl_dist_percentile(const struct tl_dist *d, double p)
{
	uint64_t rank, seen = 0;

	if (!d->count)
		return 0;
	if (p <= 0)
		return d->min;
	if (p >= 100)
		return d->max;
	/* nearest rank: the smallest value with at least p% of values <= it */
	rank = (uint64_t)(p / 100.0 * (double)d->count + 0.999999999);
	if (rank < 1)
		rank = 1;
	if (!d->buckets) {
		uint64_t sorted[TL_DIST_EXACT];
		memcpy(sorted, d->exact, d->count * sizeof(uint64_t));
		qsort(sorted, d->count, sizeof(uint64_t), cmp_u64);
		return sorted[rank - 1];
	}
	for (unsigned b = 0; b < NBUCKETS; b++) {
		seen += d->buckets[b];
		if (seen >= rank) {
			uint64_t lo, width, mid;
			bucket_range(b, &lo, &width);
			mid = lo + width / 2;
			if (mid < d->min)
				mid = d->min;
			if (mid > d->max)
				mid = d->max;
			return mid;
		}
	}
	return d->max;
}

uint64_t tl_dist_mean(const struct tl_dist *d)
{
	return d->count ? d->sum / d->count : 0;
}

void tl_dist_release(struct tl_dist *d)
{
	free(d->buckets);
	d->buckets = NULL;
}

void tl_mean_sd(const double *v, size_t n, double *mean, double *sd)
{
	double sum = 0, sq = 0;

	for (size_t i = 0; i < n; i++)
		sum += v[i];
	*mean = n ? sum / (double)n : 0;
	for (size_t i = 0; i < n; i++)
		sq += (v[i] - *mean) * (v[i] - *mean);
	*sd = n > 1 ? sqrt(sq / (double)(n - 1)) : 0;
}
