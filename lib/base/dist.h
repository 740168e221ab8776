/*
 * dist.h - a distribution of durations in bounded memory.
 *
 * The first TL_DIST_EXACT values are kept as they are, so small samples give
 * exact percentiles.  Past that, values go into a log-linear histogram with
 * 32 sub-buckets per power of two (relative error under 3.2%); values below
 * 64 ns stay exact.  count, sum, min and max are always exact.
 */
#ifndef TL_DIST_H
#define TL_DIST_H

#include <stddef.h>
#include <stdint.h>

#define TL_DIST_EXACT 64

struct tl_dist {
	uint64_t count, sum, min, max;
	uint64_t exact[TL_DIST_EXACT]; /* the first values, while count <= TL_DIST_EXACT */
	uint32_t *buckets;             /* allocated when count passes TL_DIST_EXACT */
};

void tl_dist_init(struct tl_dist *d);
/* Returns 0, or -1 with tl_error set on allocation failure (the value is still counted). */
int tl_dist_add(struct tl_dist *d, uint64_t v);
/* p in [0,100]; nearest-rank percentile (exact while small, else the bucket's midpoint clamped to [min,max]); 0 if empty. */
uint64_t tl_dist_percentile(const struct tl_dist *d, double p);
uint64_t tl_dist_mean(const struct tl_dist *d);
void tl_dist_release(struct tl_dist *d);

/* The mean and the sample standard deviation (n - 1) of n values; sd 0 below two values, both 0 for none. */
void tl_mean_sd(const double *v, size_t n, double *mean, double *sd);

#endif
