/*
 * wl_sort.c - an integer sort with a sequential part, in a sequential
 * version with marked tasks and in a real OpenMP version, for validating
 * `threadlens predict` (issue "Predict before you parallelize", section 3;
 * bench/validate.sh).
 *
 *   wl_sort --seq rows|blocks | --omp THREADS outer|inner static|dynamic
 *           [--size K] [--frames F]     (wl_omp.h)
 *
 * Each frame (default 20) sorts K x 1024 keys (default K 256: 1 MB, in the
 * caches, as memory bandwidth is not in the model):
 *  - "fill": a xorshift chain makes the keys, each from the one before: a
 *    sequential part that no directive can share;
 *  - "sort": 16 blocks of unequal sizes (in the proportions 1, 2, 3, 4,
 *    1, 2...), each a task "block" that sorts its 4 runs (task "runs"
 *    holding a task "run" each, a radix sort of 11-bit digits) and then
 *    merges them;
 *  - "merge": the blocks merged in pairs, 4 rounds: sequential again.
 * --seq rows marks "main" > "frame" > "fill", "sort", "merge", and a
 * "block" per block; `blocks` adds "runs" and "run".  Outer directives
 * make `sort` a parallel loop over its blocks (unequal: static is
 * unbalanced); inner ones make `runs` a parallel loop over its 4 runs.
 * --omp runs the same code.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <threadlens.h>

#include "wl_omp.h"

#define NBLOCKS 16
#define NRUNS 4
#define DIGIT 11

static size_t N;
static uint32_t *keys, *tmp;
static size_t bstart[NBLOCKS + 1];

/* LSD radix sort of a[0..n) by 11-bit digits, with t as scratch; the result in a. */
static void radix(uint32_t *a, uint32_t *t, size_t n)
{
	for (int shift = 0; shift < 32; shift += DIGIT) {
		size_t cnt[1 << DIGIT] = { 0 }, sum = 0;
		for (size_t i = 0; i < n; i++)
			cnt[(a[i] >> shift) & ((1 << DIGIT) - 1)]++;
		for (size_t d = 0; d < (1 << DIGIT); d++) {
			size_t c = cnt[d];
			cnt[d] = sum;
			sum += c;
		}
		for (size_t i = 0; i < n; i++)
			t[cnt[(a[i] >> shift) & ((1 << DIGIT) - 1)]++] = a[i];
		memcpy(a, t, n * sizeof(*a));
	}
}

/* Merge the sorted a[lo..mid) and a[mid..hi) into t[lo..hi), then back. */
static void merge(uint32_t *a, uint32_t *t, size_t lo, size_t mid, size_t hi)
{
	size_t i = lo, j = mid, k = lo;

	while (i < mid && j < hi)
		t[k++] = a[i] <= a[j] ? a[i++] : a[j++];
	while (i < mid)
		t[k++] = a[i++];
	while (j < hi)
		t[k++] = a[j++];
	memcpy(a + lo, t + lo, (hi - lo) * sizeof(*a));
}

static size_t run_at(int b, int r)
{
	return bstart[b] + (bstart[b + 1] - bstart[b]) * (size_t)r / NRUNS;
}

static void sort_run(int b, int r)
{
	radix(keys + run_at(b, r), tmp + run_at(b, r), run_at(b, r + 1) - run_at(b, r));
}

static void merge_runs(int b)
{
	merge(keys, tmp, run_at(b, 0), run_at(b, 1), run_at(b, 2));
	merge(keys, tmp, run_at(b, 2), run_at(b, 3), run_at(b, 4));
	merge(keys, tmp, run_at(b, 0), run_at(b, 2), run_at(b, 4));
}

static void fill(int frame)
{
	uint32_t x = 2463534242u + (uint32_t)frame;

	for (size_t i = 0; i < N; i++) {
		x ^= x << 13, x ^= x >> 17, x ^= x << 5;
		keys[i] = x;
	}
}

static void merge_blocks(void)
{
	for (int w = 1; w < NBLOCKS; w *= 2)
		for (int b = 0; b + w < NBLOCKS; b += 2 * w)
			merge(keys, tmp, bstart[b], bstart[b + w], bstart[b + 2 * w < NBLOCKS ? b + 2 * w : NBLOCKS]);
}

static void run_seq(int frames, int blocks)
{
	tl_task_begin("main");
	for (int fr = 0; fr < frames; fr++) {
		tl_task_begin("frame");
		tl_task_begin("fill");
		fill(fr);
		tl_task_end("fill");
		tl_task_begin("sort");
		for (int b = 0; b < NBLOCKS; b++) {
			tl_task_begin("block");
			if (blocks)
				tl_task_begin("runs");
			for (int r = 0; r < NRUNS; r++) {
				if (blocks)
					tl_task_begin("run");
				sort_run(b, r);
				if (blocks)
					tl_task_end("run");
			}
			if (blocks)
				tl_task_end("runs");
			merge_runs(b);
			tl_task_end("block");
		}
		tl_task_end("sort");
		tl_task_begin("merge");
		merge_blocks();
		tl_task_end("merge");
		tl_task_end("frame");
	}
	tl_task_end("main");
}

static void run_omp(int frames, int threads, int inner)
{
	for (int fr = 0; fr < frames; fr++) {
		fill(fr);
		if (!inner) {
#pragma omp parallel for schedule(runtime) num_threads(threads)
			for (int b = 0; b < NBLOCKS; b++) {
				for (int r = 0; r < NRUNS; r++)
					sort_run(b, r);
				merge_runs(b);
			}
		} else {
			for (int b = 0; b < NBLOCKS; b++) {
#pragma omp parallel for schedule(runtime) num_threads(threads)
				for (int r = 0; r < NRUNS; r++)
					sort_run(b, r);
				merge_runs(b);
			}
		}
		merge_blocks();
	}
}

static int setup(int size)
{
	size_t weight = 0, at = 0;

	N = (size_t)size * 1024;
	keys = malloc(N * sizeof(*keys));
	tmp = malloc(N * sizeof(*tmp));
	if (!keys || !tmp)
		return -1;
	memset(keys, 0, N * sizeof(*keys)); /* no page faults in the timed part */
	memset(tmp, 0, N * sizeof(*tmp));
	for (int b = 0; b < NBLOCKS; b++)
		weight += (size_t)(b % 4 + 1);
	for (int b = 0; b < NBLOCKS; b++) {
		bstart[b] = N * at / weight;
		at += (size_t)(b % 4 + 1);
	}
	bstart[NBLOCKS] = N;
	return 0;
}

int main(int argc, char **argv)
{
	static const struct wl_kernel k = { "wl_sort", 256, 20, setup, run_seq, run_omp };
	int rc = wl_omp_main(&k, argc, argv);

	for (size_t i = 1; !rc && i < N; i++) /* the keys are sorted */
		if (keys[i - 1] > keys[i]) {
			fprintf(stderr, "wl_sort: not sorted at %zu\n", i);
			return 1;
		}
	return rc;
}
