/*
 * wl_tasks.c - a sequential program with marked tasks, for `threadlens
 * predict`: 5 ms of setup (task "setup"), then a loop (task "loop") of
 * iterations (task "it"), each spinning a set CPU time, then 5 ms of
 * finishing ("finish"); the whole in a task "main".
 *
 *   wl_tasks [--iterations N] [--ms MS] [--skew]
 *
 * N iterations (default 8) of MS ms each (default 4); --skew makes
 * iteration i cost MS * (i + 1) / N * 2 (a triangle: the last costs twice
 * the mean), so static blocks are unbalanced and dynamic chunks are not.
 * It prints its truth as one JSON line: each iteration's CPU time and the
 * setup's and finish's, and the same by the wall clock (CLOCK_MONOTONIC,
 * the trace's: longer when the thread was preempted).  Exit status: 0, or
 * 2 for bad usage.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <threadlens.h>

#include "workload.h"

int main(int argc, char **argv)
{
	int n = 8, skew = 0;
	double ms = 4;
	uint64_t t0, w0, setup, finish, setup_w, finish_w, *it, *it_w;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--iterations") && i + 1 < argc)
			n = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--ms") && i + 1 < argc)
			ms = atof(argv[++i]);
		else if (!strcmp(argv[i], "--skew"))
			skew = 1;
		else {
			fprintf(stderr, "usage: wl_tasks [--iterations N] [--ms MS] [--skew]\n");
			return 2;
		}
	}
	if (n < 1 || n > 100000 || ms <= 0 || ms > 1000 || !(it = calloc((size_t)n, sizeof(*it))) ||
	    !(it_w = calloc((size_t)n, sizeof(*it_w)))) {
		fprintf(stderr, "wl_tasks: bad --iterations or --ms\n");
		return 2;
	}
	tl_task_begin("main");
	tl_task_begin("setup");
	w0 = wl_now_ns();
	t0 = wl_cpu_ns();
	wl_spin_cpu(5000000);
	setup = wl_cpu_ns() - t0;
	setup_w = wl_now_ns() - w0;
	tl_task_end("setup");
	tl_task_begin("loop");
	for (int i = 0; i < n; i++) {
		uint64_t want = (uint64_t)(ms * 1e6 * (skew ? 2.0 * (i + 1) / n : 1.0));
		tl_task_begin("it");
		w0 = wl_now_ns();
		t0 = wl_cpu_ns();
		wl_spin_cpu(want);
		it[i] = wl_cpu_ns() - t0;
		it_w[i] = wl_now_ns() - w0;
		tl_task_end("it");
	}
	tl_task_end("loop");
	tl_task_begin("finish");
	w0 = wl_now_ns();
	t0 = wl_cpu_ns();
	wl_spin_cpu(5000000);
	finish = wl_cpu_ns() - t0;
	finish_w = wl_now_ns() - w0;
	tl_task_end("finish");
	tl_task_end("main");
	printf("{\"setup_ns\": %llu, \"finish_ns\": %llu, \"iterations_ns\": [", (unsigned long long)setup,
	       (unsigned long long)finish);
	for (int i = 0; i < n; i++)
		printf("%s%llu", i ? ", " : "", (unsigned long long)it[i]);
	printf("], \"setup_wall_ns\": %llu, \"finish_wall_ns\": %llu, \"iterations_wall_ns\": [",
	       (unsigned long long)setup_w, (unsigned long long)finish_w);
	for (int i = 0; i < n; i++)
		printf("%s%llu", i ? ", " : "", (unsigned long long)it_w[i]);
	printf("]}\n");
	free(it);
	free(it_w);
	return 0;
}
