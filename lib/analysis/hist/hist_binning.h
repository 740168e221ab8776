/*
 * hist_binning.h - execution-time histograms after seed 002 (Dreyer et al.,
 * "Iterative histogram-based performance analysis"): binning, counting,
 * statistics, the execution time profile (ETP), coverage and exact
 * percentiles.  Pure: no I/O, no trace; durations are integer nanoseconds
 * and every boundary is computed exactly in integers.
 *
 * A binning has k bins.  Bin j is the closed integer range
 * [lower_j, upper_j]; the bins are contiguous (lower_{j+1} = upper_j + 1),
 * bin 0 starts at 0 and the last bin ends at infinity (TL_HIST_INF), so every
 * value falls into exactly one bin.  All three modes share one layout:
 *
 *   bin 0        [0, upper0]
 *   bin j        [upper0 + 1 + (j-1)*step, upper0 + j*step]     1 <= j <= k-2
 *   bin k-1      [upper0 + 1 + (k-2)*step, infinity]
 *
 * and differ only in upper0, step and which bins are "inner":
 *  - linear (seed mode 1): upper0 = step - 1, so bin j = [j*step, (j+1)*step - 1];
 *    bins 0..k-2 are inner, bin k-1 collects the overflow;
 *  - centered (seed mode 2): k = k_l + k_u bins around r with
 *    step = floor(r/k) * f; bin k_l starts at r, bin 0 also takes everything
 *    below r - (k_l-1)*step and bin k-1 everything above; the inner bins are
 *    1..k-2 (bin 0 too when it starts exactly at r - k_l*step = 0);
 *  - iterative (Eq. 1-2): step = ceil((c_max - c_min + 1) / (k-2)),
 *    upper0 = max(c_min - 1, 1), inner bins 1..k-2, with the lower bounds
 *    made contiguous (the seed prints x_{j+1}^l = x_j^l + 1, a typo for
 *    x_j^u + 1).  hist_binning.c says where and why the code departs from the
 *    printed equations (that lower bound, the + 1 that keeps c_max inside
 *    the inner bins, c_min <= 1); the seed's Table II comes out the same.
 *
 * Bins that are not inner are the "outer" bins: a value there is only known
 * to lie below or above the inner range (the walk's min and max still bound
 * it).  Coverage is the share of the observed [min, max] that the inner
 * bins cover, as in the seed's Table III.
 */
#ifndef TL_HIST_BINNING_H
#define TL_HIST_BINNING_H

#include <stddef.h>
#include <stdint.h>

enum tl_hist_mode { TL_HIST_LINEAR = 0, TL_HIST_CENTERED, TL_HIST_ITERATIVE, TL_HIST__MODES };

#define TL_HIST_K_DEFAULT 128
#define TL_HIST_K_MIN 3
#define TL_HIST_K_MAX 1000000
#define TL_HIST_INF UINT64_MAX             /* upper bound of the last bin */
#define TL_HIST_MAX_NS (UINT64_C(1) << 62) /* largest duration a binning takes (146 years) */

/* "linear", "centered", "iterative"; "?" for anything else.  Never NULL. */
const char *tl_hist_mode_name(unsigned mode);

/* The mode for a name, or -1. */
int tl_hist_mode_parse(const char *s);

struct tl_binning {
	unsigned mode;        /* enum tl_hist_mode */
	uint32_t k;           /* number of bins */
	uint64_t step;        /* width of bins 1..k-2 */
	uint64_t upper0;      /* upper bound of bin 0 (Eq. 2's x_0^u) */
	uint32_t first_inner; /* 0: bin 0 is an inner bin; 1: it is an outer bin */
	/* what the bins were made from, for the record */
	uint64_t ref;          /* centered: r */
	uint64_t factor;       /* centered: f */
	uint32_t below, above; /* centered: k_l and k_u as used */
	uint32_t below_asked;  /* centered: k_l as asked (more than `below` if bins would lie below 0) */
	int fallback;          /* centered: step was 0, these are linear bins of the fallback step */
	uint64_t c_min, c_max; /* iterative: the range of Eq. 1 */
};

/*
 * Linear bins: k bins of `step` ns covering [0, (k-1)*step), the last one
 * also holding everything above.  Returns 0, or -1 with tl_error set when
 * k is outside [TL_HIST_K_MIN, TL_HIST_K_MAX], step is 0 or the bins would
 * end past TL_HIST_MAX_NS.
 */
int tl_binning_linear(struct tl_binning *b, uint32_t k, uint64_t step);

/*
 * Centered bins around ref: k_l = below bins below ref, k - below above it,
 * step = floor(ref / k) * factor.  If that step is 0 the bins are linear
 * with fallback_step (the seed's fallback; b->fallback = 1).  If
 * below * step > ref the bins would start below 0 ns, where no duration
 * lies: k_l is lowered to floor(ref / step) and the freed bins go above ref
 * (b->below < b->below_asked).  Returns 0, or -1 with tl_error set (k out of
 * range, below > k, factor 0, fallback_step 0 when needed, ref past
 * TL_HIST_MAX_NS, bins past TL_HIST_MAX_NS).
 */
int tl_binning_centered(struct tl_binning *b, uint32_t k, uint64_t ref, uint32_t below, uint64_t factor,
                        uint64_t fallback_step);

/*
 * Iterative bins (Eq. 1-2) for the range [c_min, c_max] of earlier runs.
 * Returns 0, or -1 with tl_error set (k out of range, c_min > c_max,
 * c_max past TL_HIST_MAX_NS).
 */
int tl_binning_iterative(struct tl_binning *b, uint32_t k, uint64_t c_min, uint64_t c_max);

/*
 * Eq. 1 as used: ceil((c_max - c_min + 1) / (k - 2)), the smallest step whose
 * k-2 inner bins hold every integer of [c_min, c_max] (the printed Eq. 1
 * lacks the + 1; see hist_binning.c).  Always >= 1.  k >= 3, c_min <= c_max.
 */
uint64_t tl_hist_eq1_step(uint32_t k, uint64_t c_min, uint64_t c_max);

/* The smallest linear step whose k-1 inner bins hold `max` (max / (k-1) + 1).  k >= 2. */
uint64_t tl_hist_linear_step(uint32_t k, uint64_t max);

/* Bounds of bin j < k (inclusive); the last bin's upper bound is TL_HIST_INF. */
uint64_t tl_binning_lower(const struct tl_binning *b, uint32_t j);
uint64_t tl_binning_upper(const struct tl_binning *b, uint32_t j);

/* The bin of value v: O(1), one division. */
static inline uint32_t tl_binning_index(const struct tl_binning *b, uint64_t v)
{
	uint64_t j;

	if (v <= b->upper0)
		return 0;
	j = 1 + (v - b->upper0 - 1) / b->step;
	return j < b->k - 1 ? (uint32_t)j : b->k - 1;
}

/* The inclusive range the inner bins cover: [lower(first_inner), upper(k-2)]. */
void tl_binning_inner(const struct tl_binning *b, uint64_t *lo, uint64_t *hi);

/*
 * Coverage: the share (0..1) of the observed range [min, max] that the inner
 * bins cover.  A bin [l, u] covers the real interval [l, u + 1), so the
 * inner bins cover [a, b) = [lower(first_inner), upper(k-2) + 1), and the
 * coverage is |[a, b) ∩ [min, max]| / (max - min); with min = max it is 1
 * if a <= min < b, else 0.  This is the seed's Table III from its Table II
 * ranges (which print [a..b] with b exclusive).
 */
double tl_binning_coverage(const struct tl_binning *b, uint64_t min, uint64_t max);

/* The same for a covered real interval [a, e) given directly (the seed's Table II ranges). */
double tl_hist_coverage_range(uint64_t a, uint64_t e, uint64_t min, uint64_t max);

/* ---- counting ---- */

struct tl_hist {
	struct tl_binning b;
	uint64_t n;       /* values added */
	uint64_t *counts; /* k: values per bin */
	uint64_t *above;  /* k, after tl_hist_finish(): values in bins after j (= values > upper_j) */
};

/* Empty histogram on binning b (copied).  Returns 0, or -1 with tl_error set.  Free with tl_hist_release(). */
int tl_hist_init(struct tl_hist *h, const struct tl_binning *b);

static inline void tl_hist_add(struct tl_hist *h, uint64_t v)
{
	h->counts[tl_binning_index(&h->b, v)]++;
	h->n++;
}

/* Fill h->above (suffix sums).  Call after the last tl_hist_add(). */
void tl_hist_finish(struct tl_hist *h);

/* Values in the outer bins: below the inner bins (bin 0 when it is outer) and above them (bin k-1).  After finish. */
uint64_t tl_hist_outer_below(const struct tl_hist *h);
uint64_t tl_hist_outer_above(const struct tl_hist *h);

/*
 * What the histogram says about the number of values > t, given the exact
 * observed min and max: exact when t < min, t >= max or t is a bin's upper
 * bound; otherwise the largest number the bins allow (the values of t's bin
 * may all lie above t), so ETP from it is an upper bound.  After finish.
 */
uint64_t tl_hist_above_at(const struct tl_hist *h, uint64_t t, uint64_t min, uint64_t max);

void tl_hist_release(struct tl_hist *h);

/* ---- statistics ---- */

/* Exact count, min, max, sum and the first value, in O(1) memory. */
struct tl_hist_stats {
	uint64_t count, min, max, first;
	uint64_t sum_lo, sum_hi; /* the sum as a 128-bit number */
};

void tl_hist_stats_init(struct tl_hist_stats *s);
void tl_hist_stats_add(struct tl_hist_stats *s, uint64_t v);
/* sum / count (0 if empty), rounded to a double. */
double tl_hist_stats_mean(const struct tl_hist_stats *s);

/*
 * The nearest rank (1-based) of the per_mille/10 percentile of n values:
 * ceil(per_mille * n / 1000), at least 1 (n >= 1, per_mille in 0..1000).
 * Computed without overflow for any n.
 */
uint64_t tl_hist_rank(uint64_t n, unsigned per_mille);

/* ---- exact order statistics in bounded memory ---- */

#define TL_SELECT_MAX 8
#define TL_SELECT_BUCKETS 65536      /* counters per range in a counting pass */
#define TL_SELECT_COLLECT (1u << 19) /* a range with at most this many values is collected and sorted */

/*
 * Finds the values of given ranks exactly, over several passes of the same
 * values in any order, never holding more than TL_SELECT_BUCKETS counters or
 * TL_SELECT_COLLECT values per distinct range (at most TL_SELECT_MAX ranges:
 * under 40 MB whatever the number of values; under 20 MB for the four
 * percentiles of `hist`).  Each pass either counts the values of a range
 * into TL_SELECT_BUCKETS equal buckets (the range shrinks by that factor)
 * or, once a range holds few enough values, collects and sorts them.  A range 2^62 wide takes at most 4 counting passes and one
 * collecting pass; typical data take one or two passes, and one after a
 * prepass (below).
 */
struct tl_select_range {
	uint64_t lo, hi;   /* the values of this range are in [lo, hi] */
	uint64_t below;    /* values < lo */
	uint64_t count;    /* values in [lo, hi] */
	uint64_t width;    /* counting: values per bucket */
	uint64_t *buckets; /* counting pass: TL_SELECT_BUCKETS counters */
	uint64_t *vals;    /* collecting pass: count values */
	uint64_t nvals;
};

struct tl_select {
	unsigned n, nranges, passes;
	uint64_t rank[TL_SELECT_MAX];  /* 1-based */
	uint64_t value[TL_SELECT_MAX]; /* the answer, once done[i] */
	unsigned char done[TL_SELECT_MAX];
	unsigned char range_of[TL_SELECT_MAX];
	struct tl_select_range r[TL_SELECT_MAX];
};

/*
 * A first pass that needs to know nothing in advance: values counted into
 * log-linear buckets (256 per power of two, so a bucket is at most 1/256 of
 * its values wide; values below 256 ns one bucket each).  Started from it,
 * a selection usually finishes in one more pass: the pass that fills the
 * histograms, when the bucket of each rank holds few enough values to be
 * collected.
 */
#define TL_SELECT_LOG_SUB 256
#define TL_SELECT_LOG_BUCKETS (TL_SELECT_LOG_SUB + (64 - 8) * TL_SELECT_LOG_SUB)

struct tl_select_prepass {
	uint64_t *buckets; /* TL_SELECT_LOG_BUCKETS */
	uint64_t count;
};

/* Returns 0, or -1 with tl_error set.  Free with tl_select_prepass_release(). */
int tl_select_prepass_init(struct tl_select_prepass *p);
void tl_select_prepass_add(struct tl_select_prepass *p, uint64_t v);
void tl_select_prepass_release(struct tl_select_prepass *p);

/*
 * Like tl_select_init(), with the prepass standing for the first pass:
 * each rank starts in the bucket that holds it.  The values of the next
 * passes must be the prepass's values.
 */
int tl_select_init_prepass(struct tl_select *s, const uint64_t *ranks, unsigned n, const struct tl_select_prepass *p);

/*
 * Look for the values of ranks[0..n) (1 <= rank <= count, n <= TL_SELECT_MAX)
 * among count values that lie in [min, max].  Returns 0, or -1 with
 * tl_error set.  Then feed every value with tl_select_add() and call
 * tl_select_end_pass(); repeat until it returns 1.  Free with
 * tl_select_release() (also after errors).
 */
int tl_select_init(struct tl_select *s, const uint64_t *ranks, unsigned n, uint64_t count, uint64_t min, uint64_t max);

/* One value of the current pass. */
void tl_select_add(struct tl_select *s, uint64_t v);

/*
 * End a pass.  Returns 1 when every rank is found (s->value[]), 0 when
 * another pass over the same values is needed, -1 with tl_error set when
 * the values were not the same as in earlier passes or memory ran out.
 */
int tl_select_end_pass(struct tl_select *s);

void tl_select_release(struct tl_select *s);

/* ---- saved ranges for the iterative mode (hist_bins.c) ---- */

/*
 * A bins file keeps, per span name, the k and the [c_min, c_max] range that
 * the next iterative run bins with.  The text format (docs/HIST.md):
 *
 *   # comments and blank lines are ignored
 *   threadlens-bins 1
 *   NAME K MIN_NS MAX_NS STEP_NS
 *
 * NAME is percent-encoded (bytes below 0x21, 0x7f, '%' and '#' as %XX);
 * STEP_NS is tl_hist_eq1_step() for K, MIN and MAX, written for the reader
 * and checked on load.
 */
struct tl_bins_entry {
	char *name;
	uint32_t k;
	uint64_t c_min, c_max;
};

struct tl_bins_file {
	struct tl_bins_entry *e;
	size_t n, cap;
};

#define TL_BINS_NAME_MAX 4096

void tl_bins_init(struct tl_bins_file *f);

/*
 * Parse a bins file held in buf[0..len) into f (initialized, empty).
 * Returns 0, or -1 with tl_error set to "line N: what is wrong" (f then
 * holds what was parsed before; release it either way).
 */
int tl_bins_parse(struct tl_bins_file *f, const char *buf, size_t len);

/*
 * Read and parse the file at path.  Returns 0, or -1 with tl_error set
 * ("cannot read 'x': ..." or "'x' line 3: ...").  *missing, if not NULL, is
 * set to 1 when the file does not exist (then f is left empty).
 */
int tl_bins_load(struct tl_bins_file *f, const char *path, int *missing);

/* The entry for a span name, or NULL. */
const struct tl_bins_entry *tl_bins_find(const struct tl_bins_file *f, const char *name);

/*
 * Add or replace the entry of `name` (copied).  Returns 0, or -1 with
 * tl_error set (out of memory, a name that is empty or too long, values
 * tl_binning_iterative() refuses).
 */
int tl_bins_set(struct tl_bins_file *f, const char *name, uint32_t k, uint64_t c_min, uint64_t c_max);

/*
 * Write the file's text to buf: *out is malloc'ed (caller frees), *len its
 * length.  Returns 0, or -1 with tl_error set.
 */
int tl_bins_format(const struct tl_bins_file *f, char **out, size_t *len);

/*
 * Write f to path atomically (a temporary file next to it, then rename), so
 * that a failed write never leaves half a file.  Returns 0, or -1 with
 * tl_error set.
 */
int tl_bins_save(const struct tl_bins_file *f, const char *path);

void tl_bins_release(struct tl_bins_file *f);

#endif
