/*
 * test_results.c - analysis/sweep/results: the least-squares line that
 * `threadlens results` draws through a sweep's runs, on points worked out
 * by hand.
 */
#include <math.h>

#include "harness.h"

#include "analysis/sweep/results.h"

TEST(exact_line)
{
	double x[] = { 2, 4, 6, 8, 10 }, y[] = { 8, 14, 20, 26, 32 }; /* y = 3x + 2 */
	struct tl_results_fit f;

	tl_results_fit(x, y, 5, &f);
	CHECK(f.valid && f.n == 5 && f.linear);
	CHECK(fabs(f.slope - 3) < 1e-12 && fabs(f.intercept - 2) < 1e-12 && fabs(f.r2 - 1) < 1e-12);
}

/*
 * x 0, 1, 2, 3 and y 1, 3, 2, 4: mean x 1.5, mean y 2.5; sxx = 5, sxy = 4
 * (-1.5 x -1.5 + -0.5 x 0.5 + 0.5 x -0.5 + 1.5 x 1.5), syy = 5: slope 0.8,
 * intercept 2.5 - 1.2 = 1.3, R^2 = 16 / 25 = 0.64, not linear.
 */
TEST(noisy)
{
	double x[] = { 0, 1, 2, 3 }, y[] = { 1, 3, 2, 4 };
	struct tl_results_fit f;

	tl_results_fit(x, y, 4, &f);
	CHECK(f.valid && !f.linear);
	CHECK(fabs(f.slope - 0.8) < 1e-12 && fabs(f.intercept - 1.3) < 1e-12 && fabs(f.r2 - 0.64) < 1e-12);
}

/* One x value, or one point: no line.  Every y equal: a flat line that fits. */
TEST(degenerate)
{
	double x[] = { 5, 5, 5 }, y[] = { 1, 2, 3 }, x2[] = { 1, 2, 3 }, y2[] = { 7, 7, 7 };
	struct tl_results_fit f;

	tl_results_fit(x, y, 3, &f);
	CHECK(!f.valid && f.n == 3);
	tl_results_fit(x, y, 1, &f);
	CHECK(!f.valid);
	tl_results_fit(x2, y2, 3, &f);
	CHECK(f.valid && f.slope == 0 && f.intercept == 7 && f.r2 == 1 && f.linear);
}

int main(void)
{
	RUN_TESTS(exact_line, noisy, degenerate);
}
