/*
 * wl_omp.h - the command line and timing shared by the validation kernels
 * of `threadlens predict` (wl_filter.c, wl_fast.c, wl_sort.c; issue
 * "Predict before you parallelize", section 3; bench/validate.sh).
 *
 *   KERNEL --seq rows|blocks [--size N] [--frames F]
 *   KERNEL --omp THREADS outer|inner static|dynamic [--size N] [--frames F]
 *
 * Each kernel has a sequential version with marked tasks (rows: the outer
 * loops' iterations as tasks; blocks: also the inner loops') and an OpenMP
 * version of the same code, outer or inner loops parallel, schedule(static)
 * or schedule(dynamic) (chunk 1) through schedule(runtime).  The kernel's
 * run prints its time as JSON ({"ns": ...}) by its own monotonic clock,
 * setup and checking left out.  Exit status: 0; 1 if the setup fails; 2
 * for bad usage.
 *
 * Include it once, from the kernel's one .c file, built with -fopenmp.
 */
#ifndef WL_OMP_H
#define WL_OMP_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <omp.h>
#include <threadlens.h>

#include "workload.h"

struct wl_kernel {
	const char *name;
	int size, frames; /* the defaults */
	int (*setup)(int size);
	void (*seq)(int frames, int blocks);
	void (*omp)(int frames, int threads, int inner);
};

/*
 * Kernels made of passes over image rows (wl_filter, wl_fast): per frame,
 * each pass a task named names[f] holding a task "row" per row (with
 * `blocks`, each row a task "cols" per column block); under OpenMP, outer:
 * one region per pass over the rows, inner: one per row over its blocks.
 */
struct wl_rows {
	const char *const *names; /* the passes' task names */
	int npasses, blocks;      /* passes; column blocks a row */
	int *n;                   /* rows and columns (set by the setup) */
	void (*pass)(int f, int r, int c0, int c1);
};

static const struct wl_rows *wl_rows_k; /* the kernel's, set before wl_omp_main */

static inline void wl_rows_seq(int frames, int blocks)
{
	const struct wl_rows *k = wl_rows_k;
	int n = *k->n;

	tl_task_begin("main");
	for (int fr = 0; fr < frames; fr++) {
		tl_task_begin("frame");
		for (int f = 0; f < k->npasses; f++) {
			tl_task_begin(k->names[f]);
			for (int r = 0; r < n; r++) {
				tl_task_begin("row");
				for (int b = 0; b < k->blocks; b++) {
					if (blocks)
						tl_task_begin("cols");
					k->pass(f, r, b * n / k->blocks, (b + 1) * n / k->blocks);
					if (blocks)
						tl_task_end("cols");
				}
				tl_task_end("row");
			}
			tl_task_end(k->names[f]);
		}
		tl_task_end("frame");
	}
	tl_task_end("main");
}

static inline void wl_rows_omp(int frames, int threads, int inner)
{
	const struct wl_rows *k = wl_rows_k;
	int n = *k->n, nb = k->blocks;

	for (int fr = 0; fr < frames; fr++)
		for (int f = 0; f < k->npasses; f++) {
			if (!inner) {
#pragma omp parallel for schedule(runtime) num_threads(threads)
				for (int r = 0; r < n; r++)
					for (int b = 0; b < nb; b++)
						k->pass(f, r, b * n / nb, (b + 1) * n / nb);
			} else {
				for (int r = 0; r < n; r++) {
#pragma omp parallel for schedule(runtime) num_threads(threads)
					for (int b = 0; b < nb; b++)
						k->pass(f, r, b * n / nb, (b + 1) * n / nb);
				}
			}
		}
}

static int wl_omp_usage(const char *name)
{
	fprintf(stderr,
	        "usage: %s --seq rows|blocks [--size N] [--frames F]\n"
	        "       %s --omp THREADS outer|inner static|dynamic [--size N] [--frames F]\n",
	        name, name);
	return 2;
}

static int wl_omp_main(const struct wl_kernel *k, int argc, char **argv)
{
	int frames = k->frames, size = k->size, seq = -1, threads = 0, inner = 0, dynamic = 0, i = 1;
	uint64_t t0;

	if (argc > 2 && !strcmp(argv[1], "--seq")) {
		seq = !strcmp(argv[2], "blocks");
		if (!seq && strcmp(argv[2], "rows"))
			return wl_omp_usage(k->name);
		i = 3;
	} else if (argc > 4 && !strcmp(argv[1], "--omp")) {
		threads = atoi(argv[2]);
		inner = !strcmp(argv[3], "inner");
		dynamic = !strcmp(argv[4], "dynamic");
		if (threads < 1 || (!inner && strcmp(argv[3], "outer")) || (!dynamic && strcmp(argv[4], "static")))
			return wl_omp_usage(k->name);
		i = 5;
	} else {
		return wl_omp_usage(k->name);
	}
	for (; i < argc; i++) {
		if (!strcmp(argv[i], "--size") && i + 1 < argc)
			size = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--frames") && i + 1 < argc)
			frames = atoi(argv[++i]);
		else
			return wl_omp_usage(k->name);
	}
	if (size < 16 || size > (1 << 24) || frames < 1 || frames > 1000)
		return wl_omp_usage(k->name);
	if (k->setup(size) < 0) {
		fprintf(stderr, "%s: out of memory\n", k->name);
		return 1;
	}
	omp_set_schedule(dynamic ? omp_sched_dynamic : omp_sched_static, dynamic ? 1 : 0);
	t0 = wl_now_ns();
	if (seq >= 0)
		k->seq(frames, seq);
	else
		k->omp(frames, threads, inner);
	printf("{\"ns\": %llu}\n", (unsigned long long)(wl_now_ns() - t0));
	return 0;
}

#endif
