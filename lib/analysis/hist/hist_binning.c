/*
 * hist_binning.c - binning, counting, coverage and statistics of execution-time
 * histograms (see hist_binning.h for the bin layout shared by the three modes).
 *
 * Invariants of a binning made here: 3 <= k <= TL_HIST_K_MAX, step >= 1,
 * and the last bin's lower bound upper0 + 1 + (k-2)*step does not pass
 * TL_HIST_MAX_NS + TL_HIST_MAX_NS, so no bound computation overflows.
 *
 * The iterative mode, seed 002 Section II.  Eq. 1:
 *
 *     step = ceil((c_max - c_min) / (k - 2))
 *
 * Eq. 2 as printed:
 *
 *     x_0^l = 0,  x_{j+1}^l = x_j^l + 1,
 *     x_j^u = max(c_min - 1, 1)     j = 0
 *             x_{j-1}^u + step      1 <= j <= k-2
 *             infinity              j = k-1
 *
 * We use
 *
 *     step = ceil((c_max - c_min + 1) / (k - 2))
 *     x_0^l = 0,  x_j^l = x_{j-1}^u + 1,  x_j^u as printed
 *
 * with three departures from the printed equations, each for a case where
 * they would lose the very values the iteration is about:
 *  - the lower bounds: x_{j+1}^l = x_j^l + 1 would make bin 1 start at 1
 *    and every bin overlap the next; contiguous bins need
 *    x_{j+1}^l = x_j^u + 1 (tl_binning_lower()).  The seed's Table II ranges
 *    agree: HandleAcquisition [236..89318] is x_1^l = 236 to x_126^u + 1;
 *  - the + 1 in Eq. 1: the k-2 inner bins must hold the c_max - c_min + 1
 *    integer values of [c_min, c_max].  Without it, whenever k-2 divides
 *    c_max - c_min, the inner bins end at c_max - 1, c_max falls into the
 *    outer bin in every run and the range can never converge.  For all six
 *    rows of the seed's Table I both forms give the same step;
 *  - c_min <= 1: max(c_min - 1, 1) = 1 would put the value 1 (the observed
 *    minimum) into the outer bin 0 for ever; we use x_0^u = 0 (bin 0 holds
 *    only 0, below c_min = 1), and for c_min = 0, where nothing lies below
 *    c_min, bin 0 = [0, 0] is an inner bin (its values are exactly known).
 * So the inner bins always cover [c_min, c_max], and a run binned with the
 * range of earlier runs has nothing in its outer bins when all its values
 * lie inside that range.
 */
#include "analysis/hist/hist_binning.h"

#include <stdlib.h>
#include <string.h>

#include "base/errors.h"

static const char *const mode_names[TL_HIST__MODES] = {
	[TL_HIST_LINEAR] = "linear",
	[TL_HIST_CENTERED] = "centered",
	[TL_HIST_ITERATIVE] = "iterative",
};

const char *tl_hist_mode_name(unsigned mode)
{
	return mode < TL_HIST__MODES ? mode_names[mode] : "?";
}

int tl_hist_mode_parse(const char *s)
{
	for (unsigned m = 0; s && m < TL_HIST__MODES; m++)
		if (!strcmp(s, mode_names[m]))
			return (int)m;
	return -1;
}

static int check_k(uint32_t k)
{
	if (k < TL_HIST_K_MIN || k > TL_HIST_K_MAX)
		return tl_error("%u bins: a histogram has %d to %d bins", (unsigned)k, TL_HIST_K_MIN, TL_HIST_K_MAX);
	return 0;
}

/*
 * Set the layout and check that the last bin starts at or below
 * 2 * TL_HIST_MAX_NS (so every bound fits in 64 bits with room to spare).
 */
static int layout(struct tl_binning *b, uint32_t k, uint64_t step, uint64_t upper0, uint32_t first_inner)
{
	uint64_t span;

	if (upper0 >= 2 * TL_HIST_MAX_NS || __builtin_mul_overflow(step, (uint64_t)(k - 2), &span) ||
	    span > 2 * TL_HIST_MAX_NS - upper0 - 1)
		return tl_error("%u bins of %llu ns reach past %llu ns", (unsigned)k, (unsigned long long)step,
		                (unsigned long long)(2 * TL_HIST_MAX_NS));
	b->k = k;
	b->step = step;
	b->upper0 = upper0;
	b->first_inner = first_inner;
	return 0;
}

int tl_binning_linear(struct tl_binning *b, uint32_t k, uint64_t step)
{
	memset(b, 0, sizeof(*b));
	b->mode = TL_HIST_LINEAR;
	if (check_k(k))
		return -1;
	if (step == 0 || step > TL_HIST_MAX_NS)
		return tl_error("a linear step of %llu ns: it must be 1 to %llu ns", (unsigned long long)step,
		                (unsigned long long)TL_HIST_MAX_NS);
	return layout(b, k, step, step - 1, 0);
}

int tl_binning_centered(struct tl_binning *b, uint32_t k, uint64_t ref, uint32_t below, uint64_t factor,
                        uint64_t fallback_step)
{
	uint64_t step, origin;
	uint32_t kl = below;

	memset(b, 0, sizeof(*b));
	if (check_k(k))
		return -1;
	if (below > k)
		return tl_error("%u bins below the reference, but only %u bins in all", (unsigned)below, (unsigned)k);
	if (factor == 0)
		return tl_error("a centered factor of 0: it must be at least 1");
	if (ref > TL_HIST_MAX_NS)
		return tl_error("a reference of %llu ns is past %llu ns", (unsigned long long)ref,
		                (unsigned long long)TL_HIST_MAX_NS);
	if (__builtin_mul_overflow(ref / k, factor, &step) || step > TL_HIST_MAX_NS)
		return tl_error("a centered step of floor(%llu / %u) * %llu ns is too large", (unsigned long long)ref,
		                (unsigned)k, (unsigned long long)factor);
	if (step == 0) {
		/* the seed: "the linear bin distribution is used as fallback if step = 0" */
		if (tl_binning_linear(b, k, fallback_step))
			return -1;
		b->mode = TL_HIST_CENTERED;
		b->fallback = 1;
		b->ref = ref;
		b->factor = factor;
		b->below = b->below_asked = below;
		b->above = k - below;
		return 0;
	}
	/* bins wholly below 0 ns would stay empty: move them above the reference */
	if ((uint64_t)kl * step > ref)
		kl = (uint32_t)(ref / step);
	origin = ref - (uint64_t)kl * step; /* = r - k_l * step, the nominal start of bin 0 */
	if (layout(b, k, step, origin + step - 1, origin == 0 ? 0 : 1))
		return -1;
	b->mode = TL_HIST_CENTERED;
	b->ref = ref;
	b->factor = factor;
	b->below = kl;
	b->below_asked = below;
	b->above = k - kl;
	return 0;
}

uint64_t tl_hist_eq1_step(uint32_t k, uint64_t c_min, uint64_t c_max)
{
	/* ceil((d + 1) / n) = floor(d / n) + 1 for whole d >= 0, n >= 1 */
	return (c_max - c_min) / ((uint64_t)k - 2) + 1;
}

uint64_t tl_hist_linear_step(uint32_t k, uint64_t max)
{
	return max / ((uint64_t)k - 1) + 1;
}

int tl_binning_iterative(struct tl_binning *b, uint32_t k, uint64_t c_min, uint64_t c_max)
{
	uint64_t upper0;

	memset(b, 0, sizeof(*b));
	b->mode = TL_HIST_ITERATIVE;
	if (check_k(k))
		return -1;
	if (c_min > c_max)
		return tl_error("a range [%llu, %llu] whose minimum is above its maximum", (unsigned long long)c_min,
		                (unsigned long long)c_max);
	if (c_max > TL_HIST_MAX_NS)
		return tl_error("a range up to %llu ns is past %llu ns", (unsigned long long)c_max,
		                (unsigned long long)TL_HIST_MAX_NS);
	/* Eq. 2's max(c_min - 1, 1), except for c_min <= 1 (see the top of this file) */
	upper0 = c_min >= 2 ? c_min - 1 : 0;
	if (layout(b, k, tl_hist_eq1_step(k, c_min, c_max), upper0, c_min == 0 ? 0 : 1))
		return -1;
	b->c_min = c_min;
	b->c_max = c_max;
	return 0;
}

uint64_t tl_binning_lower(const struct tl_binning *b, uint32_t j)
{
	/* contiguous bins: x_j^l = x_{j-1}^u + 1 (the fix of Eq. 2's typo) */
	return j == 0 ? 0 : b->upper0 + 1 + (uint64_t)(j - 1) * b->step;
}

uint64_t tl_binning_upper(const struct tl_binning *b, uint32_t j)
{
	if (j >= b->k - 1)
		return TL_HIST_INF;
	return b->upper0 + (uint64_t)j * b->step;
}

void tl_binning_inner(const struct tl_binning *b, uint64_t *lo, uint64_t *hi)
{
	*lo = tl_binning_lower(b, b->first_inner);
	*hi = tl_binning_upper(b, b->k - 2);
}

double tl_hist_coverage_range(uint64_t a, uint64_t e, uint64_t min, uint64_t max)
{
	uint64_t lo, hi;

	if (min >= max)
		return a <= min && min < e ? 1.0 : 0.0;
	lo = a > min ? a : min;
	hi = e < max ? e : max;
	return hi > lo ? (double)(hi - lo) / (double)(max - min) : 0.0;
}

double tl_binning_coverage(const struct tl_binning *b, uint64_t min, uint64_t max)
{
	uint64_t a, hi;

	tl_binning_inner(b, &a, &hi);
	return tl_hist_coverage_range(a, hi + 1, min, max); /* the inner bins cover the real interval [a, hi + 1) */
}

/* ---- counting ---- */

int tl_hist_init(struct tl_hist *h, const struct tl_binning *b)
{
	memset(h, 0, sizeof(*h));
	h->b = *b;
	h->counts = calloc(b->k, sizeof(*h->counts));
	h->above = calloc(b->k, sizeof(*h->above));
	if (!h->counts || !h->above) {
		tl_hist_release(h);
		return tl_error("out of memory");
	}
	return 0;
}

void tl_hist_finish(struct tl_hist *h)
{
	uint64_t sum = 0;

	for (uint32_t j = h->b.k; j-- > 0;) {
		h->above[j] = sum;
		sum += h->counts[j];
	}
}

uint64_t tl_hist_outer_below(const struct tl_hist *h)
{
	return h->b.first_inner ? h->counts[0] : 0;
}

uint64_t tl_hist_outer_above(const struct tl_hist *h)
{
	return h->counts[h->b.k - 1];
}

uint64_t tl_hist_above_at(const struct tl_hist *h, uint64_t t, uint64_t min, uint64_t max)
{
	uint32_t j;

	if (t >= max)
		return 0;
	if (t < min)
		return h->n;
	/* values > t are values >= t + 1: the bins from t + 1's bin on hold them all */
	j = tl_binning_index(&h->b, t + 1);
	return j ? h->above[j - 1] : h->n;
}

void tl_hist_release(struct tl_hist *h)
{
	free(h->counts);
	free(h->above);
	h->counts = h->above = NULL;
}

/* ---- statistics ---- */

void tl_hist_stats_init(struct tl_hist_stats *s)
{
	memset(s, 0, sizeof(*s));
	s->min = UINT64_MAX;
}

void tl_hist_stats_add(struct tl_hist_stats *s, uint64_t v)
{
	if (!s->count)
		s->first = v;
	s->count++;
	if (v < s->min)
		s->min = v;
	if (v > s->max)
		s->max = v;
	/* 128-bit sum without a compiler extension: carry by hand */
	s->sum_lo += v;
	if (s->sum_lo < v)
		s->sum_hi++;
}

double tl_hist_stats_mean(const struct tl_hist_stats *s)
{
	if (!s->count)
		return 0;
	if (!s->sum_hi)
		return (double)(s->sum_lo / s->count) + (double)(s->sum_lo % s->count) / (double)s->count;
	return ((double)s->sum_hi * 18446744073709551616.0 + (double)s->sum_lo) / (double)s->count;
}

uint64_t tl_hist_rank(uint64_t n, unsigned per_mille)
{
	/* ceil(p * n / 1000) with n = 1000 q + r: p q + ceil(p r / 1000), never overflowing */
	uint64_t q = n / 1000, r = n % 1000, rank;

	if (per_mille > 1000)
		per_mille = 1000;
	rank = per_mille * q + (per_mille * r + 999) / 1000;
	return rank ? rank : 1;
}
