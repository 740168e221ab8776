/*
 * wl_filter.c - a 3x3 filter chain for edge detection on a synthetic
 * image (a blur, a Sobel gradient, a threshold), in a sequential version
 * with marked tasks and in a real OpenMP version, for validating
 * `threadlens predict` (issue "Predict before you parallelize", section
 * 3; bench/validate.sh).
 *
 *   wl_filter --seq rows|blocks | --omp THREADS outer|inner static|dynamic
 *             [--size N] [--frames F]     (wl_omp.h)
 *
 * --seq runs sequentially with tasks (threadlens.h): "main" holding a
 * "frame" per frame, each holding "blur", "sobel" and "threshold", each a
 * task "row" per image row; with `blocks` each row also holds a task
 * "cols" per half row.  The directives of bench/validate.sh make the
 * filters' row loops parallel (outer: `blur = parallel for`...) or each
 * row's half-row blocks (inner: `row = parallel for`).
 * --omp runs the same row and block code under OpenMP: outer, one region
 * per filter over the rows; inner, one region per row over its blocks;
 * schedule(static) or schedule(dynamic) (chunk 1), THREADS threads.
 * The image is N x N doubles (default 512: its four arrays, 8 MB, fit in
 * the last-level cache, as memory bandwidth is not in predict's model; at
 * most 8192), the same every run; frames default to 20.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <threadlens.h>

#include "wl_omp.h"

#define BLOCKS 2 /* column blocks a row */

static int N = 1024;
static double *img, *tmp, *grad, *out;

static double px(const double *a, int r, int c)
{
	r = r < 0 ? 0 : r >= N ? N - 1 : r;
	c = c < 0 ? 0 : c >= N ? N - 1 : c;
	return a[(size_t)r * (size_t)N + (size_t)c];
}

/* Filter f (0 blur, 1 Sobel, 2 threshold) on row r, columns [c0, c1). */
static void filter(int f, int r, int c0, int c1)
{
	for (int c = c0; c < c1; c++) {
		size_t i = (size_t)r * (size_t)N + (size_t)c;
		if (f == 0) {
			double s = 0;
			for (int dr = -1; dr <= 1; dr++)
				for (int dc = -1; dc <= 1; dc++)
					s += px(img, r + dr, c + dc);
			tmp[i] = s / 9;
		} else if (f == 1) {
			double gx = px(tmp, r - 1, c + 1) + 2 * px(tmp, r, c + 1) + px(tmp, r + 1, c + 1) -
			            px(tmp, r - 1, c - 1) - 2 * px(tmp, r, c - 1) - px(tmp, r + 1, c - 1);
			double gy = px(tmp, r + 1, c - 1) + 2 * px(tmp, r + 1, c) + px(tmp, r + 1, c + 1) -
			            px(tmp, r - 1, c - 1) - 2 * px(tmp, r - 1, c) - px(tmp, r - 1, c + 1);
			grad[i] = sqrt(gx * gx + gy * gy);
		} else {
			out[i] = grad[i] > 0.25 ? 1.0 : 0.0;
		}
	}
}

static int setup(int size)
{
	size_t n;

	if (size > 8192)
		return -1;
	N = size;
	n = (size_t)N * (size_t)N;
	img = malloc(n * sizeof(double));
	tmp = calloc(n, sizeof(double));
	grad = malloc(n * sizeof(double));
	out = malloc(n * sizeof(double));
	if (!img || !tmp || !grad || !out)
		return -1;
	for (int r = 0; r < N; r++) /* rings and noise: edges everywhere, the same every run */
		for (int c = 0; c < N; c++)
			img[(size_t)r * (size_t)N + (size_t)c] =
			        0.5 + 0.5 * sin((r - N / 2) * (r - N / 2) * 0.001 + (c - N / 3) * (c - N / 3) * 0.002) +
			        0.05 * (double)((r * 7919 + c * 104729) % 97) / 97.0;
	return 0;
}

int main(int argc, char **argv)
{
	static const char *const names[] = { "blur", "sobel", "threshold" };
	static const struct wl_rows rows = { names, 3, BLOCKS, &N, filter };
	static const struct wl_kernel k = { "wl_filter", 512, 20, setup, wl_rows_seq, wl_rows_omp };

	wl_rows_k = &rows;
	return wl_omp_main(&k, argc, argv);
}
