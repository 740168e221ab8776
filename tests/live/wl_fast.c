/*
 * wl_fast.c - a FAST-like corner detector on a synthetic image, whose cost
 * varies with the data, in a sequential version with marked tasks and in a
 * real OpenMP version, for validating `threadlens predict` (issue "Predict
 * before you parallelize", section 3; bench/validate.sh).
 *
 *   wl_fast --seq rows|blocks | --omp THREADS outer|inner static|dynamic
 *           [--size N] [--frames F]     (wl_omp.h)
 *
 * Each frame runs two passes over the image rows: "detect", FAST's segment
 * test (a pixel is a corner when 9 contiguous pixels of the 16 on a circle
 * of radius 3 are all brighter or all darker than it by more than a
 * threshold; the four compass pixels reject most pixels early), which
 * stores a score per corner; then "nms", a 3x3 non-maximum suppression of
 * the scores that counts the corners of each row.  The image (N x N bytes,
 * default 1024) is smooth but for a textured patch in its top-left corner
 * (the top 40% of the rows, the left 40% of the columns), so rows and
 * half rows there cost several times the others: static schedules are
 * unbalanced, dynamic ones less.
 * --seq: tasks "main" > "frame" > "detect", "nms" > "row" per row; with
 * `blocks` each row also holds a "cols" per half row.  Outer directives
 * make `detect` and `nms` parallel loops over their rows; inner ones make
 * `row` a parallel loop over its half rows.  --omp runs the same code.
 */
#include <stdint.h>
#include <stdlib.h>

#include <threadlens.h>

#include "wl_omp.h"

#define BLOCKS 2
#define THRESH 20

static int N;
static uint8_t *img;
static int *score;
static int *count; /* corners per row, of the last frame */

static const int circle[16][2] = { { 0, -3 }, { 1, -3 },  { 2, -2 },  { 3, -1 }, { 3, 0 },  { 3, 1 },
	                           { 2, 2 },  { 1, 3 },   { 0, 3 },   { -1, 3 }, { -2, 2 }, { -3, 1 },
	                           { -3, 0 }, { -3, -1 }, { -2, -2 }, { -1, -3 } };

static int at(int r, int c)
{
	return img[(size_t)r * (size_t)N + (size_t)c];
}

/* The segment test's score at (r, c): the sum of the differences, 0 when not a corner. */
static int corner(int r, int c)
{
	int p = at(r, c), sign[16], run = 0, best = 0, sum = 0, compass = 0;

	for (int k = 0; k < 16; k += 4) {
		int d = at(r + circle[k][1], c + circle[k][0]) - p;
		compass += d > THRESH || d < -THRESH;
	}
	if (compass < 2)
		return 0;
	for (int k = 0; k < 16; k++) {
		int d = at(r + circle[k][1], c + circle[k][0]) - p;
		sign[k] = d > THRESH ? 1 : d < -THRESH ? -1 : 0;
		sum += d < 0 ? -d : d;
	}
	for (int k = 0; k < 32; k++) { /* the longest run of one sign, around the circle */
		int s = sign[k % 16];
		run = s && k && s == sign[(k - 1) % 16] ? run + 1 : s != 0;
		best = run > best ? run : best;
	}
	return best >= 9 ? sum : 0;
}

/* Pass f (0 detect, 1 nms) on row r, columns [c0, c1). */
static void pass(int f, int r, int c0, int c1)
{
	size_t row = (size_t)r * (size_t)N;
	int n = 0;

	if (r < 3 || r >= N - 3)
		return;
	for (int c = c0 < 3 ? 3 : c0; c < c1 && c < N - 3; c++) {
		if (f == 0) {
			score[row + (size_t)c] = corner(r, c);
		} else {
			int s = score[row + (size_t)c], keep = s > 0;
			for (int dr = -1; dr <= 1 && keep; dr++)
				for (int dc = -1; dc <= 1; dc++)
					if ((dr || dc) && score[row + (size_t)(dr * N + c + dc)] >= s)
						keep = 0;
			n += keep;
		}
	}
	if (f == 1)
		__atomic_add_fetch(&count[r], n, __ATOMIC_RELAXED); /* two half rows may add at once */
}

static int setup(int size)
{
	uint32_t x = 12345;

	if (size > 8192)
		return -1;
	N = size;
	img = malloc((size_t)N * (size_t)N);
	score = calloc((size_t)N * (size_t)N, sizeof(*score));
	count = calloc((size_t)N, sizeof(*count));
	if (!img || !score || !count)
		return -1;
	for (int r = 0; r < N; r++)
		for (int c = 0; c < N; c++) {
			int v = 64 + (r + c) * 64 / N; /* a smooth ramp */
			x ^= x << 13, x ^= x >> 17, x ^= x << 5;
			if (r < N * 2 / 5 && c < N * 2 / 5) /* the textured patch: 6-pixel squares, noisy */
				v = ((r / 6 + c / 6) % 2 ? 200 : 40) + (int)(x % 31) - 15;
			img[(size_t)r * (size_t)N + (size_t)c] = (uint8_t)v;
		}
	return 0;
}

int main(int argc, char **argv)
{
	static const char *const names[] = { "detect", "nms" };
	static const struct wl_rows rows = { names, 2, BLOCKS, &N, pass };
	static const struct wl_kernel k = { "wl_fast", 1024, 5, setup, wl_rows_seq, wl_rows_omp };

	wl_rows_k = &rows;
	return wl_omp_main(&k, argc, argv);
}
