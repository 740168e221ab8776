/*
 * wl_filter.c - a 3x3 filter chain for edge detection on a synthetic
 * image (a blur, a Sobel gradient, a threshold), in a sequential version
 * with marked tasks and in a real OpenMP version, for validating
 * `threadlens predict` (issue "Predict before you parallelize", section
 * 3; bench/validate.sh).
 *
 *   wl_filter --seq rows|blocks [--size N] [--frames F]
 *   wl_filter --omp THREADS outer|inner static|dynamic [--size N] [--frames F]
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
 * The image is N x N (default 1024) doubles, the same every run.  It prints
 * the time of the frames as JSON ({"ns": ...}), by its own monotonic
 * clock.  Exit status: 0, or 2 for bad usage.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <threadlens.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "workload.h"

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

static const char *const names[3] = { "blur", "sobel", "threshold" };

static void run_seq(int frames, int blocks)
{
	tl_task_begin("main");
	for (int fr = 0; fr < frames; fr++) {
		tl_task_begin("frame");
		for (int f = 0; f < 3; f++) {
			tl_task_begin(names[f]);
			for (int r = 0; r < N; r++) {
				tl_task_begin("row");
				for (int b = 0; b < BLOCKS; b++) {
					if (blocks)
						tl_task_begin("cols");
					filter(f, r, b * N / BLOCKS, (b + 1) * N / BLOCKS);
					if (blocks)
						tl_task_end("cols");
				}
				tl_task_end("row");
			}
			tl_task_end(names[f]);
		}
		tl_task_end("frame");
	}
	tl_task_end("main");
}

#ifdef _OPENMP
static void run_omp(int frames, int threads, int inner)
{
	for (int fr = 0; fr < frames; fr++)
		for (int f = 0; f < 3; f++) {
			if (!inner) {
#pragma omp parallel for schedule(runtime) num_threads(threads)
				for (int r = 0; r < N; r++)
					for (int b = 0; b < BLOCKS; b++)
						filter(f, r, b * N / BLOCKS, (b + 1) * N / BLOCKS);
			} else {
				for (int r = 0; r < N; r++) {
#pragma omp parallel for schedule(runtime) num_threads(threads)
					for (int b = 0; b < BLOCKS; b++)
						filter(f, r, b * N / BLOCKS, (b + 1) * N / BLOCKS);
				}
			}
		}
}
#endif

static int usage(void)
{
	fprintf(stderr, "usage: wl_filter --seq rows|blocks [--size N] [--frames F]\n"
	                "       wl_filter --omp THREADS outer|inner static|dynamic [--size N] [--frames F]\n");
	return 2;
}

int main(int argc, char **argv)
{
	int frames = 5, seq = -1, threads = 0, inner = 0, dynamic = 0, i = 1;
	uint64_t t0;

	if (argc > 2 && !strcmp(argv[1], "--seq")) {
		seq = !strcmp(argv[2], "blocks");
		if (!seq && strcmp(argv[2], "rows"))
			return usage();
		i = 3;
	} else if (argc > 4 && !strcmp(argv[1], "--omp")) {
		threads = atoi(argv[2]);
		inner = !strcmp(argv[3], "inner");
		dynamic = !strcmp(argv[4], "dynamic");
		if (threads < 1 || (!inner && strcmp(argv[3], "outer")) || (!dynamic && strcmp(argv[4], "static")))
			return usage();
		i = 5;
	} else {
		return usage();
	}
	for (; i < argc; i++) {
		if (!strcmp(argv[i], "--size") && i + 1 < argc)
			N = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--frames") && i + 1 < argc)
			frames = atoi(argv[++i]);
		else
			return usage();
	}
	if (N < 16 || N > 8192 || frames < 1 || frames > 1000)
		return usage();
	img = malloc((size_t)N * (size_t)N * sizeof(double));
	tmp = malloc((size_t)N * (size_t)N * sizeof(double));
	grad = malloc((size_t)N * (size_t)N * sizeof(double));
	out = malloc((size_t)N * (size_t)N * sizeof(double));
	if (!img || !tmp || !grad || !out)
		return 1;
	for (int r = 0; r < N; r++) /* rings and noise: edges everywhere, the same every run */
		for (int c = 0; c < N; c++)
			img[(size_t)r * (size_t)N + (size_t)c] =
			        0.5 + 0.5 * sin((r - N / 2) * (r - N / 2) * 0.001 + (c - N / 3) * (c - N / 3) * 0.002) +
			        0.05 * (double)((r * 7919 + c * 104729) % 97) / 97.0;
	memset(tmp, 0, (size_t)N * (size_t)N * sizeof(double));
	t0 = wl_now_ns();
	if (seq >= 0) {
		run_seq(frames, seq);
	} else {
#ifdef _OPENMP
		omp_set_schedule(dynamic ? omp_sched_dynamic : omp_sched_static, dynamic ? 1 : 0);
		run_omp(frames, threads, inner);
#else
		fprintf(stderr, "wl_filter: built without OpenMP\n");
		return 1;
#endif
	}
	printf("{\"ns\": %llu}\n", (unsigned long long)(wl_now_ns() - t0));
	free(img);
	free(tmp);
	free(grad);
	free(out);
	return 0;
}
