/*
 * test_hist.c - execution-time histograms (lib/analysis/hist/) with exact,
 * hand-computed expectations: Eq. 1-2 boundaries (the seed's Table I/II
 * numbers and small cases, with the fixed lower bound and the outer bins),
 * linear and centered boundaries, coverage (the seed's Table III from its
 * Tables I and II), ETP values, exact percentiles over several passes, the
 * bins file, and whole runs over small written traces (incomplete spans,
 * filters, the compare grid, the saved range widening until it converges).
 */
#include <stdlib.h>
#include <unistd.h>

#include "base/errors.h"
#include "harness.h"
#include "analysis/hist/hist_binning.h"
#include "analysis/hist/hist.h"
#include "trace/trace.h"

static char tmpdir[] = "/tmp/tl-test-hist-XXXXXX";

/* ---- Eq. 1-2 ---- */

/* The seed's Table I (k = 128) and the iterative column of its Table II, [x_1^l .. x_126^u + 1]. */
static const struct {
	const char *name;
	uint64_t min, max;     /* Table I */
	uint64_t lin_a, lin_e; /* Table II, linear */
	uint64_t cen_a, cen_e; /* Table II, centered */
	uint64_t it_a, it_e;   /* Table II, iterative */
	int lin, cen;          /* Table III, percent; -1 for "<1 %" */
} seed[] = {
	{ "HandleAcquisition", 236, 89259, 0, 1016, 164, 667, 236, 89318, -1, -1 },
	{ "HandleHealthMonitoring", 10670, 23395, 0, 1016, 2628, 13715, 10670, 23396, 0, 24 },
	{ "HandleHitTrigger", 66, 7504, 0, 1016, 126, 251, 66, 7626, 13, 2 },
	{ "HandleTelecommand", 86, 3863, 0, 1016, 358, 1617, 86, 3866, 25, 33 },
	{ "TC_InterruptService", 50, 673, 0, 1016, 140, 265, 50, 680, 100, 20 },
	{ "TM_InterruptService", 77, 239, 0, 1016, 134, 239, 77, 329, 100, 65 },
};
#define NSEED (sizeof(seed) / sizeof(seed[0]))

static void check_contiguous(const struct tl_binning *b)
{
	CHECK_EQ_INT(tl_binning_lower(b, 0), 0);
	CHECK(tl_binning_upper(b, b->k - 1) == TL_HIST_INF);
	for (uint32_t j = 0; j + 1 < b->k; j++) {
		CHECK(tl_binning_lower(b, j + 1) == tl_binning_upper(b, j) + 1);
		CHECK_EQ_INT(tl_binning_index(b, tl_binning_lower(b, j)), j);
		CHECK_EQ_INT(tl_binning_index(b, tl_binning_upper(b, j)), j);
	}
	CHECK_EQ_INT(tl_binning_index(b, UINT64_MAX), b->k - 1);
}

TEST(eq2_seed_table2)
{
	for (size_t i = 0; i < NSEED; i++) {
		struct tl_binning b;
		CHECK(tl_binning_iterative(&b, 128, seed[i].min, seed[i].max) == 0);
		check_contiguous(&b);
		CHECK_EQ_INT(b.first_inner, 1);
		/* Table II's iterative range: x_1^l = c_min, x_126^u + 1 */
		CHECK_EQ_INT(tl_binning_lower(&b, 1), seed[i].it_a);
		CHECK_EQ_INT(tl_binning_upper(&b, 126) + 1, seed[i].it_e);
		CHECK_EQ_INT(tl_binning_lower(&b, 127), seed[i].it_e);
	}
}

TEST(eq2_handle_acquisition_by_hand)
{
	struct tl_binning b;

	/* step = ceil((89259 - 236 + 1) / 126) = ceil(706.54) = 707 */
	CHECK(tl_binning_iterative(&b, 128, 236, 89259) == 0);
	CHECK_EQ_INT(b.step, 707);
	CHECK_EQ_INT(tl_hist_eq1_step(128, 236, 89259), 707);
	CHECK_EQ_INT(tl_binning_upper(&b, 0), 235); /* max(c_min - 1, 1) */
	CHECK_EQ_INT(tl_binning_lower(&b, 1), 236); /* x_1^l = x_0^u + 1, not x_0^l + 1 = 1 */
	CHECK_EQ_INT(tl_binning_upper(&b, 1), 942); /* 235 + 707 */
	CHECK_EQ_INT(tl_binning_lower(&b, 2), 943);
	CHECK_EQ_INT(tl_binning_upper(&b, 126), 89317); /* 235 + 126 * 707 */
	CHECK_EQ_INT(tl_binning_lower(&b, 127), 89318);
	CHECK_EQ_INT(tl_binning_index(&b, 0), 0);
	CHECK_EQ_INT(tl_binning_index(&b, 235), 0);
	CHECK_EQ_INT(tl_binning_index(&b, 236), 1);
	CHECK_EQ_INT(tl_binning_index(&b, 89259), 126);
	CHECK_EQ_INT(tl_binning_index(&b, 89318), 127);
}

TEST(eq2_small_cases)
{
	struct tl_binning b;

	/* k 5 over [10, 20]: step ceil(11 / 3) = 4; bins [0,9] [10,13] [14,17] [18,21] [22,inf] */
	CHECK(tl_binning_iterative(&b, 5, 10, 20) == 0);
	check_contiguous(&b);
	CHECK_EQ_INT(b.step, 4);
	CHECK_EQ_INT(tl_binning_upper(&b, 0), 9);
	CHECK_EQ_INT(tl_binning_lower(&b, 1), 10);
	CHECK_EQ_INT(tl_binning_upper(&b, 1), 13);
	CHECK_EQ_INT(tl_binning_lower(&b, 2), 14);
	CHECK_EQ_INT(tl_binning_upper(&b, 2), 17);
	CHECK_EQ_INT(tl_binning_lower(&b, 3), 18);
	CHECK_EQ_INT(tl_binning_upper(&b, 3), 21);
	CHECK_EQ_INT(tl_binning_lower(&b, 4), 22);

	/* k-2 divides c_max - c_min: k 4 over [100, 200].  The printed Eq. 1 gives step 50 and bins
	 * [100,149] [150,199], leaving c_max = 200 in the outer bin for ever; with + 1 the step is 51 */
	CHECK(tl_binning_iterative(&b, 4, 100, 200) == 0);
	CHECK_EQ_INT(b.step, 51);
	CHECK_EQ_INT(tl_binning_upper(&b, 2), 201);
	CHECK_EQ_INT(tl_binning_index(&b, 200), 2);
	/* the seed's HandleHealthMonitoring: 12725 / 126 = 100.99, 12726 / 126 = 101 exactly: same step */
	CHECK_EQ_INT(tl_hist_eq1_step(128, 10670, 23395), 101);

	/* c_min = 2: max(c_min - 1, 1) = 1, as printed */
	CHECK(tl_binning_iterative(&b, 4, 2, 5) == 0);
	CHECK_EQ_INT(tl_binning_upper(&b, 0), 1);
	CHECK_EQ_INT(b.step, 2); /* ceil(4 / 2) */
	/* c_min = 1: bin 0 = [0, 0] (Eq. 2's floor of 1 would keep the minimum in the outer bin) */
	CHECK(tl_binning_iterative(&b, 4, 1, 5) == 0);
	CHECK_EQ_INT(tl_binning_upper(&b, 0), 0);
	CHECK_EQ_INT(tl_binning_index(&b, 1), 1);
	CHECK_EQ_INT(b.first_inner, 1);
	/* c_min = 0: bin 0 = [0, 0] holds exactly c_min, an inner bin */
	CHECK(tl_binning_iterative(&b, 4, 0, 5) == 0);
	CHECK_EQ_INT(tl_binning_upper(&b, 0), 0);
	CHECK_EQ_INT(b.first_inner, 0);
	CHECK_EQ_INT(b.step, 3); /* ceil(6 / 2) */
	/* c_min = c_max: step 1 */
	CHECK(tl_binning_iterative(&b, 4, 7, 7) == 0);
	CHECK_EQ_INT(b.step, 1);
	CHECK_EQ_INT(tl_binning_index(&b, 7), 1);
	check_contiguous(&b);

	/* refusals */
	CHECK(tl_binning_iterative(&b, 2, 1, 5) == -1);
	CHECK(tl_binning_iterative(&b, 4, 6, 5) == -1);
	CHECK(tl_binning_iterative(&b, 4, 0, TL_HIST_MAX_NS + 1) == -1);
	CHECK(tl_binning_iterative(&b, TL_HIST_K_MAX + 1, 0, 5) == -1);
	CHECK(tl_binning_iterative(&b, TL_HIST_K_MAX, 0, TL_HIST_MAX_NS) == 0);
	check_contiguous(&b);
}

/* ---- linear and centered ---- */

TEST(linear_bounds)
{
	struct tl_binning b;

	/* the seed's Fig. 3 setup: k 128, step 8 covers [0..1016] */
	CHECK(tl_binning_linear(&b, 128, 8) == 0);
	check_contiguous(&b);
	CHECK_EQ_INT(b.first_inner, 0);
	CHECK_EQ_INT(tl_binning_upper(&b, 0), 7);
	CHECK_EQ_INT(tl_binning_lower(&b, 5), 40);
	CHECK_EQ_INT(tl_binning_upper(&b, 126), 1015);
	CHECK_EQ_INT(tl_binning_lower(&b, 127), 1016);
	CHECK_EQ_INT(tl_binning_index(&b, 1016), 127);
	CHECK_EQ_INT(tl_binning_index(&b, 99999), 127);
	/* default step: the smallest whose k-1 inner bins hold the maximum */
	CHECK_EQ_INT(tl_hist_linear_step(128, 1016), 9);
	CHECK_EQ_INT(tl_hist_linear_step(128, 1015), 8);
	CHECK(tl_binning_linear(&b, 128, 0) == -1);
	CHECK(tl_binning_linear(&b, 128, TL_HIST_MAX_NS) == -1); /* the bins would pass 2^63 */
}

TEST(centered_bounds)
{
	struct tl_binning b;

	/* k 10, r 1000, k_l 6, f 1: step 100, nominal start r - 600 = 400 */
	CHECK(tl_binning_centered(&b, 10, 1000, 6, 1, 1) == 0);
	check_contiguous(&b);
	CHECK_EQ_INT(b.step, 100);
	CHECK_EQ_INT(b.below, 6);
	CHECK_EQ_INT(b.above, 4);
	CHECK_EQ_INT(b.first_inner, 1);
	CHECK_EQ_INT(tl_binning_upper(&b, 0), 499); /* ]r - k_l*step ... and everything below */
	CHECK_EQ_INT(tl_binning_lower(&b, 1), 500);
	CHECK_EQ_INT(tl_binning_lower(&b, 6), 1000); /* bin k_l starts at r */
	CHECK_EQ_INT(tl_binning_index(&b, 999), 5);
	CHECK_EQ_INT(tl_binning_index(&b, 1000), 6);
	CHECK_EQ_INT(tl_binning_upper(&b, 8), 1299);
	CHECK_EQ_INT(tl_binning_lower(&b, 9), 1300); /* ... r + k_u*step[ = 1400, the last bin open */

	/* f 3: step 300; 6 bins below would start at -800: k_l becomes floor(1000/300) = 3 */
	CHECK(tl_binning_centered(&b, 10, 1000, 6, 3, 1) == 0);
	CHECK_EQ_INT(b.step, 300);
	CHECK_EQ_INT(b.below, 3);
	CHECK_EQ_INT(b.below_asked, 6);
	CHECK_EQ_INT(b.above, 7);
	CHECK_EQ_INT(tl_binning_upper(&b, 0), 399); /* start 100 */
	CHECK_EQ_INT(tl_binning_lower(&b, 3), 1000);

	/* nominal start exactly 0: bin 0 is an ordinary inner bin */
	CHECK(tl_binning_centered(&b, 10, 1000, 10, 1, 1) == 0);
	CHECK_EQ_INT(b.first_inner, 0);
	CHECK_EQ_INT(tl_binning_upper(&b, 0), 99);

	/* step floor(5 / 10) = 0: the seed's fallback to linear bins */
	CHECK(tl_binning_centered(&b, 10, 5, 7, 1, 7) == 0);
	CHECK_EQ_INT(b.mode, TL_HIST_CENTERED);
	CHECK_EQ_INT(b.fallback, 1);
	CHECK_EQ_INT(b.step, 7);
	CHECK_EQ_INT(tl_binning_upper(&b, 0), 6);
	CHECK_EQ_INT(b.first_inner, 0);

	/* the seed's configuration: k 128, k_l 100, f 1 with r = 10670 (HandleHealthMonitoring's min) */
	CHECK(tl_binning_centered(&b, 128, 10670, 100, 1, 1) == 0);
	CHECK_EQ_INT(b.step, 83); /* floor(10670 / 128) */
	CHECK_EQ_INT(tl_binning_lower(&b, 100), 10670);
	CHECK_EQ_INT(tl_binning_lower(&b, 1), 10670 - 99 * 83);
	CHECK_EQ_INT(tl_binning_lower(&b, 127), 10670 + 27 * 83);

	CHECK(tl_binning_centered(&b, 10, 1000, 11, 1, 1) == -1); /* k_l > k */
	CHECK(tl_binning_centered(&b, 10, 1000, 5, 0, 1) == -1);  /* f = 0 */
	CHECK(tl_binning_centered(&b, 10, 5, 5, 1, 0) == -1);     /* fallback with step 0 */
}

/* ---- coverage ---- */

static int pct_matches(double cov, int want)
{
	double p = 100 * cov;
	if (want < 0)
		return p > 0 && p < 1; /* "<1 %" */
	return (int)(p + 0.5) == want;
}

TEST(coverage_seed_table3)
{
	for (size_t i = 0; i < NSEED; i++) {
		struct tl_binning b;
		/* all three columns of Table III from the ranges of Table II and the min/max of Table I */
		CHECK(pct_matches(tl_hist_coverage_range(seed[i].lin_a, seed[i].lin_e, seed[i].min, seed[i].max),
		                  seed[i].lin));
		CHECK(pct_matches(tl_hist_coverage_range(seed[i].cen_a, seed[i].cen_e, seed[i].min, seed[i].max),
		                  seed[i].cen));
		CHECK(pct_matches(tl_hist_coverage_range(seed[i].it_a, seed[i].it_e, seed[i].min, seed[i].max), 100));
		/* the same from the binnings themselves: linear k 128 step 8, iterative Eq. 1-2 */
		CHECK(tl_binning_linear(&b, 128, 8) == 0);
		CHECK(pct_matches(tl_binning_coverage(&b, seed[i].min, seed[i].max), seed[i].lin));
		CHECK(tl_binning_iterative(&b, 128, seed[i].min, seed[i].max) == 0);
		CHECK(tl_binning_coverage(&b, seed[i].min, seed[i].max) == 1.0);
	}
	/* HandleHitTrigger, linear, exactly: (1016 - 66) / (7504 - 66) */
	CHECK(tl_hist_coverage_range(0, 1016, 66, 7504) == 950.0 / 7438.0);
	/* HandleHealthMonitoring, centered: (13715 - 10670) / (23395 - 10670) */
	CHECK(tl_hist_coverage_range(2628, 13715, 10670, 23395) == 3045.0 / 12725.0);
	CHECK(tl_hist_coverage_range(0, 1016, 10670, 23395) == 0.0);
	/* a single observed value: covered or not */
	CHECK(tl_hist_coverage_range(10, 20, 15, 15) == 1.0);
	CHECK(tl_hist_coverage_range(10, 20, 20, 20) == 0.0);
}

/* ---- counting and ETP ---- */

TEST(etp_values)
{
	static const uint64_t v[] = { 10, 11, 14, 15, 17, 18, 21, 25, 9 };
	struct tl_binning b;
	struct tl_hist h;

	/* bins [0,9] [10,13] [14,17] [18,21] [22,inf] hold 1, 2, 3, 2, 1 */
	CHECK(tl_binning_iterative(&b, 5, 10, 20) == 0);
	CHECK(tl_hist_init(&h, &b) == 0);
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		tl_hist_add(&h, v[i]);
	tl_hist_finish(&h);
	CHECK_EQ_INT(h.n, 9);
	CHECK_EQ_INT(h.counts[0], 1);
	CHECK_EQ_INT(h.counts[1], 2);
	CHECK_EQ_INT(h.counts[2], 3);
	CHECK_EQ_INT(h.counts[3], 2);
	CHECK_EQ_INT(h.counts[4], 1);
	/* ETP(upper_j) = above_j / n: 8/9 at 9, 6/9 at 13, 3/9 at 17, 1/9 at 21 */
	CHECK_EQ_INT(h.above[0], 8);
	CHECK_EQ_INT(h.above[1], 6);
	CHECK_EQ_INT(h.above[2], 3);
	CHECK_EQ_INT(h.above[3], 1);
	CHECK_EQ_INT(h.above[4], 0);
	CHECK_EQ_INT(tl_hist_outer_below(&h), 1);
	CHECK_EQ_INT(tl_hist_outer_above(&h), 1);
	/* between bounds the bins only bound it: 6 values are > 12, the bins allow 8 */
	CHECK_EQ_INT(tl_hist_above_at(&h, 12, 9, 25), 8);
	CHECK_EQ_INT(tl_hist_above_at(&h, 13, 9, 25), 6);
	CHECK_EQ_INT(tl_hist_above_at(&h, 8, 9, 25), 9);
	CHECK_EQ_INT(tl_hist_above_at(&h, 25, 9, 25), 0);
	CHECK_EQ_INT(tl_hist_above_at(&h, 24, 9, 25), 1);
	tl_hist_release(&h);
}

/* ---- statistics and percentiles ---- */

TEST(stats_and_ranks)
{
	struct tl_hist_stats s;

	tl_hist_stats_init(&s);
	tl_hist_stats_add(&s, 7);
	tl_hist_stats_add(&s, 3);
	tl_hist_stats_add(&s, 9);
	tl_hist_stats_add(&s, 4);
	CHECK_EQ_INT(s.count, 4);
	CHECK_EQ_INT(s.min, 3);
	CHECK_EQ_INT(s.max, 9);
	CHECK_EQ_INT(s.first, 7);
	CHECK(tl_hist_stats_mean(&s) == 5.75);
	/* the sum carries into 128 bits */
	tl_hist_stats_init(&s);
	for (int i = 0; i < 4; i++)
		tl_hist_stats_add(&s, UINT64_MAX / 2);
	CHECK_EQ_INT(s.sum_hi, 1);
	CHECK(tl_hist_stats_mean(&s) == (double)(UINT64_MAX / 2));

	CHECK_EQ_INT(tl_hist_rank(1000, 500), 500);
	CHECK_EQ_INT(tl_hist_rank(1000, 999), 999);
	CHECK_EQ_INT(tl_hist_rank(10, 500), 5);
	CHECK_EQ_INT(tl_hist_rank(10, 900), 9);
	CHECK_EQ_INT(tl_hist_rank(10, 990), 10); /* ceil(9.9) */
	CHECK_EQ_INT(tl_hist_rank(2001, 500), 1001);
	CHECK_EQ_INT(tl_hist_rank(1, 999), 1);
	CHECK_EQ_INT(tl_hist_rank(7, 0), 1);
	CHECK(tl_hist_rank(UINT64_MAX, 1000) == UINT64_MAX);
}

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
	return a < b ? -1 : a > b;
}

/* Select ranks over v[0..n) by passes (after a prepass if asked); check against a sort.  Returns the passes. */
static unsigned select_check(const uint64_t *v, size_t n, int prepass)
{
	struct tl_select_prepass pre;
	uint64_t ranks[5] = { 1, tl_hist_rank(n, 500), tl_hist_rank(n, 990), tl_hist_rank(n, 999), n };
	uint64_t *sorted = malloc(n * sizeof(*sorted)), min = UINT64_MAX, max = 0;
	struct tl_select s;
	int rc = 0;

	memcpy(sorted, v, n * sizeof(*v));
	qsort(sorted, n, sizeof(*sorted), cmp_u64);
	for (size_t i = 0; i < n; i++) {
		min = v[i] < min ? v[i] : min;
		max = v[i] > max ? v[i] : max;
	}
	if (prepass) {
		CHECK(tl_select_prepass_init(&pre) == 0);
		for (size_t i = 0; i < n; i++)
			tl_select_prepass_add(&pre, v[i]);
		CHECK(tl_select_init_prepass(&s, ranks, 5, &pre) == 0);
		tl_select_prepass_release(&pre);
	} else {
		CHECK(tl_select_init(&s, ranks, 5, n, min, max) == 0);
	}
	while (s.nranges && (rc = 0, 1)) {
		for (size_t i = 0; i < n; i++)
			tl_select_add(&s, v[i]);
		rc = tl_select_end_pass(&s);
		CHECK(rc >= 0);
		if (rc != 0)
			break;
		CHECK(s.passes < 8);
		if (s.passes >= 8)
			break;
	}
	for (int i = 0; i < 5; i++) {
		CHECK(s.done[i]);
		CHECK(s.value[i] == sorted[ranks[i] - 1]);
	}
	tl_select_release(&s);
	free(sorted);
	return s.passes;
}

TEST(exact_percentiles)
{
	size_t n = 700000; /* more than TL_SELECT_COLLECT: counting passes come first */
	uint64_t *v = malloc(n * sizeof(*v));
	uint64_t x = 88172645463325252ull;

	/* small: one collecting pass */
	for (size_t i = 0; i < 1000; i++)
		v[i] = (i * 7919) % 1000 + 5;
	CHECK_EQ_INT(select_check(v, 1000, 0), 1);
	CHECK_EQ_INT(select_check(v, 1000, 1), 1);
	/* a permutation of 0..n-1 */
	for (size_t i = 0; i < n; i++)
		v[i] = (i * 7919) % n;
	CHECK_EQ_INT(select_check(v, n, 0), 2);
	CHECK_EQ_INT(select_check(v, n, 1), 1);
	/* heavy clustering with far outliers: most values equal, the range 2^40 wide */
	for (size_t i = 0; i < n; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		v[i] = i % 100 ? 1000 + x % 3 : x % (UINT64_C(1) << 40);
	}
	CHECK(select_check(v, n, 0) <= 3);
	CHECK(select_check(v, n, 1) <= 2);
	/* wide spread over the whole 62-bit range */
	for (size_t i = 0; i < n; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		v[i] = x >> 2;
	}
	CHECK(select_check(v, n, 0) <= 3);
	CHECK_EQ_INT(select_check(v, n, 1), 1);
	/* more than TL_SELECT_COLLECT values in the median's log bucket: a counting pass first */
	for (size_t i = 0; i < n; i++)
		v[i] = 40000000 + (i * 7919) % 100000; /* all in the log bucket [39976960, 40108031] */
	CHECK_EQ_INT(select_check(v, n, 1), 2);
	/* one value only: no pass needed */
	{
		struct tl_select s;
		uint64_t r = 3;
		CHECK(tl_select_init(&s, &r, 1, 5, 42, 42) == 0);
		CHECK_EQ_INT(s.nranges, 0);
		CHECK(s.done[0] && s.value[0] == 42);
		tl_select_release(&s);
	}
	/* a pass that does not see the same values is an error, not a wrong answer */
	{
		struct tl_select s;
		uint64_t r = 3;
		CHECK(tl_select_init(&s, &r, 1, 5, 1, 9) == 0);
		for (uint64_t i = 1; i <= 4; i++)
			tl_select_add(&s, i);
		CHECK(tl_select_end_pass(&s) == -1);
		CHECK(strstr(tl_error_msg(), "changed") != NULL);
		tl_select_release(&s);
	}
	free(v);
}

/* ---- the bins file ---- */

TEST(bins_round_trip)
{
	struct tl_bins_file f, g;
	char *text;
	size_t len;

	tl_bins_init(&f);
	CHECK(tl_bins_set(&f, "decode", 128, 236, 89259) == 0);
	CHECK(tl_bins_set(&f, "a name with spaces, 100% #odd\t\x01\xc3\xa9", 64, 0, 5) == 0);
	CHECK(tl_bins_set(&f, "@burst", 3, 7, 7) == 0);
	CHECK(tl_bins_set(&f, "decode", 128, 200, 90000) == 0); /* replaces, keeps its place */
	CHECK_EQ_INT(f.n, 3);
	CHECK(tl_bins_format(&f, &text, &len) == 0);
	CHECK(strstr(text, "threadlens-bins 1\n") != NULL);
	CHECK(strstr(text, "\ndecode 128 200 90000 713\n") != NULL); /* ceil(89801 / 126) */
	CHECK(strstr(text, "a%20name%20with%20spaces,%20100%25%20%23odd%09%01\xc3\xa9 64 0 5 1\n") != NULL);
	tl_bins_init(&g);
	CHECK(tl_bins_parse(&g, text, len) == 0);
	CHECK_EQ_INT(g.n, 3);
	for (size_t i = 0; i < g.n && i < f.n; i++) {
		CHECK_EQ_STR(g.e[i].name, f.e[i].name);
		CHECK_EQ_INT(g.e[i].k, f.e[i].k);
		CHECK_EQ_INT(g.e[i].c_min, f.e[i].c_min);
		CHECK_EQ_INT(g.e[i].c_max, f.e[i].c_max);
	}
	CHECK(tl_bins_find(&g, "@burst") && tl_bins_find(&g, "@burst")->c_min == 7);
	CHECK(tl_bins_find(&g, "nope") == NULL);
	free(text);
	tl_bins_release(&f);
	tl_bins_release(&g);

	/* save and load through a file; a missing file says so */
	{
		char path[256];
		int missing = 0;
		snprintf(path, sizeof(path), "%s/bins.txt", tmpdir);
		tl_bins_init(&f);
		CHECK(tl_bins_load(&f, path, &missing) == -1);
		CHECK_EQ_INT(missing, 1);
		CHECK(tl_bins_set(&f, "x", 10, 1, 2) == 0);
		CHECK(tl_bins_save(&f, path) == 0);
		tl_bins_release(&f);
		CHECK(tl_bins_load(&f, path, &missing) == 0);
		CHECK_EQ_INT(missing, 0);
		CHECK(f.n == 1 && f.e[0].k == 10 && f.e[0].c_min == 1 && f.e[0].c_max == 2);
		tl_bins_release(&f);
	}
}

static void parse_fails(const char *text, const char *why)
{
	struct tl_bins_file f;
	int rc;

	tl_bins_init(&f);
	rc = tl_bins_parse(&f, text, strlen(text));
	CHECK_EQ_INT(rc, -1);
	if (rc == -1 && !strstr(tl_error_msg(), why)) {
		fprintf(stderr, "  '%s' not in '%s'\n", why, tl_error_msg());
		CHECK(0);
	}
	tl_bins_release(&f);
}

TEST(bins_parse_errors)
{
	struct tl_bins_file f;
	const char *ok = "# c\n\n  threadlens-bins   1 \r\n# NAME\nx 3 1 5 5\n";

	tl_bins_init(&f);
	CHECK(tl_bins_parse(&f, ok, strlen(ok)) == 0);
	CHECK(f.n == 1 && f.e[0].c_max == 5);
	tl_bins_release(&f);
	parse_fails("", "not a threadlens bins file");
	parse_fails("x 3 1 5 5\n", "line 1: not a threadlens bins file");
	parse_fails("threadlens-bins 2\n", "version '2'");
	parse_fails("threadlens-bins 1\nx 3 1 5\n", "line 2: 4 fields");
	parse_fails("threadlens-bins 1\nx 3 1 5 5 9\n", "6 fields");
	parse_fails("threadlens-bins 1\nx 3 1 5 3\n", "does not match Eq. 1");
	parse_fails("threadlens-bins 1\nx 2 1 5 4\n", "2 bins");
	parse_fails("threadlens-bins 1\nx 3 6 5 1\n", "minimum is above");
	parse_fails("threadlens-bins 1\nx 3 -1 5 4\n", "whole numbers");
	parse_fails("threadlens-bins 1\nx 3 1 99999999999999999999 4\n", "whole numbers");
	parse_fails("threadlens-bins 1\nx 3 1 5 5\nx 3 1 5 5\n", "line 3: a second line for span 'x'");
	parse_fails("threadlens-bins 1\nx%2 3 1 5 4\n", "two hex digits");
	parse_fails("threadlens-bins 1\nx%00 3 1 5 4\n", "NUL");
	parse_fails("threadlens-bins 1\nx\0 3 1 5 4\n", "line 2");
}

/* ---- whole runs over written traces ---- */

static struct tl_trace_writer *W;
static uint32_t NAME_DECODE, NAME_OTHER;

static void ev(uint64_t ts, unsigned type, int32_t tid, uint32_t name, int64_t a)
{
	struct tl_event e = { .ts = ts, .type = (uint16_t)type, .cpu = -1, .tid = tid, .name = name, .a = a };
	CHECK(tl_trace_writer_add(W, &e) == 0);
}

/* A trace of "decode" regions with the given durations, one after another on tid 10, plus noise. */
static void write_trace(const char *path, const uint64_t *d, size_t n, int extras)
{
	struct tl_trace_info info = { .clock = "monotonic", .source = "test", .ncpus = 1, .start_ns = 1000 };
	struct tl_trace_end end = { .ncpus = 1 };
	uint64_t ts = 2000;

	W = tl_trace_writer_create(path, &info);
	CHECK(W != NULL);
	NAME_DECODE = tl_trace_writer_intern(W, "decode");
	NAME_OTHER = tl_trace_writer_intern(W, "other");
	for (size_t i = 0; i < n; i++) {
		ev(ts, TL_EV_REGION_BEGIN, 10, NAME_DECODE, -1);
		ev(ts + d[i], TL_EV_REGION_END, 10, NAME_DECODE, 0);
		ts += d[i] + 100;
	}
	if (extras) {
		/* another thread's decode (the --tid filter), another name, and one never ended */
		ev(ts, TL_EV_REGION_BEGIN, 11, NAME_DECODE, -1);
		ev(ts + 5, TL_EV_REGION_END, 11, NAME_DECODE, 0);
		ev(ts + 10, TL_EV_REGION_BEGIN, 10, NAME_OTHER, -1);
		ev(ts + 20, TL_EV_REGION_END, 10, NAME_OTHER, 0);
		ev(ts + 30, TL_EV_REGION_BEGIN, 10, NAME_DECODE, -1);
		ts += 1000;
	}
	end.end_ns = ts;
	CHECK(tl_trace_writer_close(W, &end) == 0);
}

static const char *tpath(const char *name)
{
	static char buf[4][256];
	static int i;
	char *p = buf[i++ % 4];
	snprintf(p, 256, "%s/%s", tmpdir, name);
	return p;
}

/* The run of the analyses below: filters and window set by the test, then the summary. */
static struct tl_run run;

/* A fresh run over the whole trace, no filters. */
static void reset_run(void)
{
	tl_run_release(&run);
	run = (struct tl_run){ .to_ns = -1 };
}

static int hist_run(const char *path, const struct tl_hist_query *q, struct tl_hist_result *r)
{
	tl_run_release(&run); /* the last summary; the filters and window stay */
	run.path = path;
	return tl_hist_analyze(&run, q, r);
}

TEST(run_counts_and_filters)
{
	static const uint64_t d[] = { 100, 150, 120, 200, 110, 130, 170, 140, 160, 190 };
	struct tl_hist_query q = { .span = "decode", .mode = TL_HIST_ITERATIVE, .k = 5 };
	struct tl_hist_result r;
	const char *p = tpath("a.tl");
	int tids[1] = { 10 };

	reset_run();
	write_trace(p, d, 10, 1);
	CHECK(hist_run(p, &q, &r) == 0);
	/* tid 11's 5 ns decode counts too; the one never ended is left out */
	CHECK_EQ_INT(r.stats.count, 11);
	CHECK_EQ_INT(r.stats.min, 5);
	CHECK_EQ_INT(r.incomplete, 1);
	CHECK_EQ_INT(r.kinds, 1u << 1); /* region */
	tl_hist_result_release(&r);

	run.tids = tids;
	run.ntids = 1;
	CHECK(hist_run(p, &q, &r) == 0);
	CHECK_EQ_INT(r.stats.count, 10);
	CHECK_EQ_INT(r.filtered, 1);
	CHECK_EQ_INT(r.stats.min, 100);
	CHECK_EQ_INT(r.stats.max, 200);
	CHECK(tl_hist_stats_mean(&r.stats) == 147.0);
	/* nearest rank of 100 110 120 130 140 150 160 170 190 200 */
	CHECK_EQ_INT(r.pct[0], 140);
	CHECK_EQ_INT(r.pct[1], 190);
	CHECK_EQ_INT(r.pct[2], 200);
	CHECK_EQ_INT(r.pct[3], 200);
	CHECK_EQ_INT(r.passes, 2);
	/* k 5 over [100, 200]: step ceil(101 / 3) = 34; [0,99] [100,133] [134,167] [168,201] [202,inf] */
	CHECK_EQ_INT(r.hists[0].counts[0], 0);
	CHECK_EQ_INT(r.hists[0].counts[1], 4);
	CHECK_EQ_INT(r.hists[0].counts[2], 3);
	CHECK_EQ_INT(r.hists[0].counts[3], 3);
	CHECK_EQ_INT(r.hists[0].counts[4], 0);
	CHECK(r.values != NULL);
	CHECK(r.values && r.values[0] == 100 && r.values[9] == 200);
	tl_hist_result_release(&r);

	/* the window: the first region ends at 2100 (relative 1100 ns) */
	run.from_ns = 1150;
	CHECK(hist_run(p, &q, &r) == 0);
	CHECK_EQ_INT(r.stats.count, 9);
	tl_hist_result_release(&r);

	/* nothing of that name: the others are listed */
	run.from_ns = 0;
	q.span = "encode";
	CHECK(hist_run(p, &q, &r) == 0);
	CHECK_EQ_INT(r.stats.count, 0);
	CHECK(r.nnames == 2);
	tl_hist_result_release(&r);
	CHECK(hist_run("-", &q, &r) == -1);
	tl_hist_result_release(&r);
	CHECK(hist_run(tpath("missing.tl"), &q, &r) == -1);
	tl_hist_result_release(&r);
}

TEST(run_compare_grid)
{
	static const uint64_t d[] = { 100, 150, 120, 200, 110, 130, 170, 140, 160, 190 };
	struct tl_hist_query q = { .span = "decode", .compare = 1, .k = 5 };
	struct tl_hist_result r;
	const char *p = tpath("b.tl");

	reset_run();
	write_trace(p, d, 10, 0);
	CHECK(hist_run(p, &q, &r) == 0);
	CHECK_EQ_INT(r.nhists, 3);
	CHECK_EQ_INT(r.hists[TL_HIST_LINEAR].b.step, 51);   /* 200 / 4 + 1 */
	CHECK_EQ_INT(r.hists[TL_HIST_CENTERED].b.ref, 100); /* the first value */
	CHECK_EQ_INT(r.hists[TL_HIST_CENTERED].b.step, 20); /* floor(100 / 5) */
	CHECK_EQ_INT(r.hists[TL_HIST_CENTERED].b.below, 3); /* 5 * 100 / 128 */
	CHECK_EQ_INT(r.hists[TL_HIST_ITERATIVE].b.step, 34);
	/* every grid point's exact count is the number of values above it */
	for (size_t g = 0; g < r.ngrid; g++) {
		uint64_t above = 0;
		for (int i = 0; i < 10; i++)
			above += d[i] > r.grid[g];
		CHECK_EQ_INT(r.grid_above[g], above);
		/* the bins never say less than the truth */
		for (unsigned m = 0; m < 3; m++)
			CHECK(tl_hist_above_at(&r.hists[m], r.grid[g], 100, 200) >= above);
	}
	CHECK(r.ngrid > 3 && r.grid[0] == 99 && r.grid[r.ngrid - 1] == 200);
	tl_hist_result_release(&r);
}

TEST(run_iterative_widens_until_converged)
{
	static const uint64_t d1[] = { 100, 150, 200 };
	static const uint64_t d2[] = { 50, 120, 180, 300 };
	struct tl_hist_query q = { .span = "decode", .mode = TL_HIST_ITERATIVE };
	struct tl_hist_result r;
	struct tl_bins_file f;
	const char *p1 = tpath("run1.tl"), *p2 = tpath("run2.tl"), *bp = tpath("b.txt");

	reset_run();
	write_trace(p1, d1, 3, 0);
	write_trace(p2, d2, 4, 0);
	/* run 1: no saved range, so this run's own [100, 200] */
	CHECK(hist_run(p1, &q, &r) == 0);
	CHECK_EQ_INT(r.iter_saved, 0);
	CHECK_EQ_INT(r.hists[0].b.c_min, 100);
	CHECK_EQ_INT(r.hists[0].b.c_max, 200);
	CHECK_EQ_INT(tl_hist_outer_below(&r.hists[0]) + tl_hist_outer_above(&r.hists[0]), 0);
	tl_bins_init(&f);
	CHECK(tl_bins_set(&f, "decode", r.next_k, r.next_min, r.next_max) == 0);
	CHECK(tl_bins_save(&f, bp) == 0);
	tl_bins_release(&f);
	tl_hist_result_release(&r);

	/* run 2 bins with [100, 200]: 50 falls below, 300 above */
	CHECK(tl_bins_load(&f, bp, NULL) == 0);
	q.saved = tl_bins_find(&f, "decode");
	CHECK(q.saved != NULL);
	CHECK(hist_run(p2, &q, &r) == 0);
	CHECK_EQ_INT(r.iter_saved, 1);
	CHECK_EQ_INT(r.hists[0].b.c_min, 100);
	CHECK_EQ_INT(tl_hist_outer_below(&r.hists[0]), 1);
	CHECK_EQ_INT(tl_hist_outer_above(&r.hists[0]), 1);
	CHECK_EQ_INT(r.next_min, 50);  /* min of saved and observed */
	CHECK_EQ_INT(r.next_max, 300); /* max of saved and observed */
	CHECK(tl_bins_set(&f, "decode", r.next_k, r.next_min, r.next_max) == 0);
	q.saved = tl_bins_find(&f, "decode");
	tl_hist_result_release(&r);

	/* run 3 on the same data with the widened range: nothing in the outer bins */
	CHECK(hist_run(p2, &q, &r) == 0);
	CHECK_EQ_INT(tl_hist_outer_below(&r.hists[0]) + tl_hist_outer_above(&r.hists[0]), 0);
	CHECK(tl_binning_coverage(&r.hists[0].b, r.stats.min, r.stats.max) == 1.0);
	CHECK_EQ_INT(r.next_min, 50);
	CHECK_EQ_INT(r.next_max, 300);
	/* and run 1's data fit too: the range only widens */
	tl_hist_result_release(&r);
	CHECK(hist_run(p1, &q, &r) == 0);
	CHECK_EQ_INT(tl_hist_outer_below(&r.hists[0]) + tl_hist_outer_above(&r.hists[0]), 0);
	CHECK_EQ_INT(r.next_min, 50);
	tl_hist_result_release(&r);
	tl_bins_release(&f);
}

int main(void)
{
	int rc;

	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	rc = 0;
	{
		harness_fn fns_[] = { eq2_seed_table2,   eq2_handle_acquisition_by_hand,
			              eq2_small_cases,   linear_bounds,
			              centered_bounds,   coverage_seed_table3,
			              etp_values,        stats_and_ranks,
			              exact_percentiles, bins_round_trip,
			              bins_parse_errors, run_counts_and_filters,
			              run_compare_grid,  run_iterative_widens_until_converged };
		rc = harness_run("eq2_seed_table2, eq2_handle_acquisition_by_hand, eq2_small_cases, linear_bounds, "
		                 "centered_bounds, coverage_seed_table3, etp_values, stats_and_ranks, "
		                 "exact_percentiles, bins_round_trip, bins_parse_errors, run_counts_and_filters, "
		                 "run_compare_grid, run_iterative_widens_until_converged",
		                 fns_, (int)(sizeof(fns_) / sizeof(fns_[0])));
	}
	{
		char cmd[300];
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
		if (system(cmd))
			fprintf(stderr, "cannot remove %s\n", tmpdir);
	}
	return rc;
}
