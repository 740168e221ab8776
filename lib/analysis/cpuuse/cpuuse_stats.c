/*
 * cpuuse_stats.c - the statistics of `threadlens util` (see cpuuse.h): Student
 * t quantiles, moments, the confidence interval of the mean, the central
 * 95% of single values, and the RM / EDF admission test.
 *
 * Pure functions on numbers: no trace, no allocation, no state, so the unit
 * tests check them on hand-computed values.  Durations are integer
 * nanoseconds; only the derived mean, deviation and interval are doubles.
 */
#include <math.h>

#include "analysis/cpuuse/cpuuse.h"

/*
 * t_{0.975, df} for df = 1..30, to ten significant digits (computed from the
 * regularized incomplete beta function).  Below 30 degrees of freedom the
 * series below is not accurate enough (at df = 2 it is off by 0.03).
 */
static const double t975_table[31] = {
	0.0,         12.70620474, 4.302652730, 3.182446305, 2.776445105, 2.570581836, 2.446911851, 2.364624252,
	2.306004135, 2.262157163, 2.228138852, 2.200985160, 2.178812830, 2.160368656, 2.144786688, 2.131449546,
	2.119905299, 2.109815578, 2.100922040, 2.093024054, 2.085963447, 2.079613845, 2.073873068, 2.068657610,
	2.063898562, 2.059538553, 2.055529439, 2.051830516, 2.048407142, 2.045229642, 2.042272456,
};

double tl_cpuuse_t975(uint64_t df)
{
	/* z_{0.975} and the Cornish-Fisher terms g1..g4 of the t quantile in 1/df */
	const double z = 1.959963984540054;
	double v, z2, g1, g2, g3, g4;

	if (df == 0)
		return 0;
	if (df <= 30)
		return t975_table[df];
	v = (double)df;
	z2 = z * z;
	g1 = (z2 + 1) * z / 4;
	g2 = ((5 * z2 + 16) * z2 + 3) * z / 96;
	g3 = (((3 * z2 + 19) * z2 + 17) * z2 - 15) * z / 384;
	g4 = ((((79 * z2 + 776) * z2 + 1482) * z2 - 1920) * z2 - 945) * z / 92160;
	return z + g1 / v + g2 / (v * v) + g3 / (v * v * v) + g4 / (v * v * v * v);
}

void tl_cpuuse_moments_of(const uint64_t *v, size_t n, struct tl_cpuuse_moments *m)
{
	double mean = 0, m2 = 0;

	*m = (struct tl_cpuuse_moments){ 0 };
	for (size_t i = 0; i < n; i++) {
		/* Welford: no cancellation when the spread is small next to the mean */
		double d = (double)v[i] - mean;
		mean += d / (double)(i + 1);
		m2 += d * ((double)v[i] - mean);
		if (!i || v[i] < m->min)
			m->min = v[i];
		if (v[i] > m->max)
			m->max = v[i];
		m->sum += v[i];
	}
	m->count = n;
	m->mean = mean;
	m->sd = n > 1 ? sqrt(m2 / (double)(n - 1)) : 0;
}

int tl_cpuuse_ci95(const struct tl_cpuuse_moments *m, double *low, double *high, double *t)
{
	double half, tq;

	if (m->count < 2)
		return -1;
	tq = tl_cpuuse_t975(m->count - 1);
	half = tq * m->sd / sqrt((double)m->count);
	*low = m->mean - half;
	*high = m->mean + half;
	if (t)
		*t = tq;
	return 0;
}

void tl_cpuuse_central95(const uint64_t *sorted, size_t n, uint64_t *low, uint64_t *high)
{
	size_t cut = n / 40; /* floor(2.5% of n): never more than 2.5% dropped on a side */

	if (!n) {
		*low = *high = 0;
		return;
	}
	*low = sorted[cut];
	*high = sorted[n - 1 - cut];
}

uint64_t tl_cpuuse_percentile(const uint64_t *sorted, size_t n, double p)
{
	size_t rank;

	if (!n)
		return 0;
	if (p >= 100)
		return sorted[n - 1];
	/* nearest rank, as tl_dist_percentile(): the smallest value with p% of the values at or below it */
	rank = (size_t)ceil(p / 100.0 * (double)n - 1e-9);
	if (rank < 1)
		rank = 1;
	if (rank > n)
		rank = n;
	return sorted[rank - 1];
}

double tl_cpuuse_rm_bound(size_t n)
{
	if (!n)
		return 1;
	return (double)n * (pow(2.0, 1.0 / (double)n) - 1.0);
}

/*
 * A sum that equals the bound exactly (a module of 1 ms at 500 Hz twice:
 * EDF's 1.0) must fit, but the products and sums carry rounding errors of
 * a few ulps; this tolerance absorbs them and nothing a measurement shows.
 */
#define FIT_EPS 1e-12

void tl_cpuuse_admit(const double *rate_hz, const double *p_ns, size_t n, struct tl_cpuuse_admit_row *rows,
                     struct tl_cpuuse_admit_total *total)
{
	double rm_u = 0, edf_u = 0, all = 0;
	size_t rm_k = 0, edf_k = 0;

	for (size_t i = 0; i < n; i++) {
		struct tl_cpuuse_admit_row *row = &rows[i];
		double u = rate_hz[i] * p_ns[i] / 1e9;

		row->u = u;
		all += u;
		row->rm_bound = tl_cpuuse_rm_bound(rm_k + 1);
		row->rm_slack = row->rm_bound - (rm_u + u);
		row->rm_admitted = row->rm_slack >= -FIT_EPS;
		if (row->rm_admitted) {
			rm_u += u;
			rm_k++;
		}
		row->edf_slack = 1.0 - (edf_u + u);
		row->edf_admitted = row->edf_slack >= -FIT_EPS;
		if (row->edf_admitted) {
			edf_u += u;
			edf_k++;
		}
	}
	total->n = n;
	total->u = all;
	total->rm_bound = tl_cpuuse_rm_bound(n);
	total->rm_slack = total->rm_bound - all;
	total->rm_fits = n > 0 && total->rm_slack >= -FIT_EPS;
	total->edf_slack = 1.0 - all;
	total->edf_fits = n > 0 && total->edf_slack >= -FIT_EPS;
	total->rm_admitted = rm_k;
	total->edf_admitted = edf_k;
}
