/*
 * marks.c - the cost of one marker call (include/threadlens.h), recorded or
 * not.  bench/marks.sh runs it plain and under `threadlens record`.
 *
 *   marks [--bursts B] [--calls N] [--pause-us P] [--kind pair|dynamic|instant|frame|clock]
 *
 * Each of B bursts times N calls back to back with CLOCK_MONOTONIC and
 * divides; between bursts the program sleeps P microseconds, so that under
 * a recording the recorder empties the ring and no call hits a full ring
 * (the drop path is cheaper than a real marker and would flatter the
 * figure).  N stays below the ring's size for the same reason.  Kinds:
 * pair = tl_region_begin/end("bench") alternating (N calls), dynamic = the
 * same with the name in one of 4096 buffers in turn (a pointer the
 * thread's name cache has not seen: the interned-name lookup), dynamic2 =
 * dynamic while a second thread makes the same calls without pause (the
 * shared name table under contention; its ring fills, so it also drops),
 * instant =
 * tl_instant("bench", i), frame = tl_frame_begin/end(i) alternating, clock
 * = clock_gettime(CLOCK_MONOTONIC) alone (the floor of a recorded call).
 *
 * Prints one line: recording=0|1 kind=... calls=N bursts=B
 * ns_per_call_median=X ns_per_call_min=Y ns_per_call_p90=Z.  The first
 * burst also pays the first-touch page faults of the ring and the thread's
 * slot claim; it is left out of the statistics.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <threadlens.h>
#include <time.h>
#include <unistd.h>

#define MAX_BURSTS 100000

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

#define NDYN 4096
static char dyn[NDYN][16];
static volatile int stop;

/* dynamic2: a second thread making the same calls all along, as another worker of a pool would. */
static void *neighbour(void *arg)
{
	(void)arg;
	for (long i = 0; !stop; i += 2) {
		tl_region_begin(dyn[i & (NDYN - 1)]);
		tl_region_end(dyn[(i + 1) & (NDYN - 1)]);
	}
	return NULL;
}

static void burst(const char *kind, long calls)
{
	if (!strcmp(kind, "pair")) {
		for (long i = 0; i < calls; i += 2) {
			tl_region_begin("bench");
			tl_region_end("bench");
		}
	} else if (!strcmp(kind, "dynamic") || !strcmp(kind, "dynamic2")) {
		/*
		 * A name whose pointer changes from call to call (a std::string's
		 * c_str(), a name formatted into a fresh buffer): the same contents
		 * from 4096 buffers in turn, so the thread's pointer cache misses.
		 */
		for (long i = 0; i < calls; i += 2) {
			tl_region_begin(dyn[i & (NDYN - 1)]);
			tl_region_end(dyn[(i + 1) & (NDYN - 1)]);
		}
	} else if (!strcmp(kind, "instant")) {
		for (long i = 0; i < calls; i++)
			tl_instant("bench", i);
	} else if (!strcmp(kind, "frame")) {
		for (long i = 0; i < calls; i += 2) {
			tl_frame_begin((uint64_t)i);
			tl_frame_end((uint64_t)i);
		}
	} else {
		struct timespec ts;
		for (long i = 0; i < calls; i++)
			clock_gettime(CLOCK_MONOTONIC, &ts);
	}
}

int main(int argc, char **argv)
{
	long bursts = 200, calls = 1000, pause_us = 20000;
	const char *kind = "pair";
	double *ns;

	for (int i = 0; i < NDYN; i++)
		strcpy(dyn[i], "bench");

	for (int i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--bursts"))
			bursts = atol(argv[i + 1]);
		else if (!strcmp(argv[i], "--calls"))
			calls = atol(argv[i + 1]);
		else if (!strcmp(argv[i], "--pause-us"))
			pause_us = atol(argv[i + 1]);
		else if (!strcmp(argv[i], "--kind"))
			kind = argv[i + 1];
		else
			break;
	}
	if (bursts < 2 || bursts > MAX_BURSTS || calls < 2 || pause_us < 0 ||
	    (strcmp(kind, "pair") && strcmp(kind, "dynamic") && strcmp(kind, "dynamic2") && strcmp(kind, "instant") &&
	     strcmp(kind, "frame") && strcmp(kind, "clock"))) {
		fprintf(stderr,
		        "usage: marks [--bursts 2..%d] [--calls N>=2] [--pause-us P] [--kind "
		        "pair|dynamic|dynamic2|instant|frame|clock]\n",
		        MAX_BURSTS);
		return 2;
	}
	pthread_t nb;
	int with_nb = !strcmp(kind, "dynamic2");

	ns = calloc((size_t)bursts, sizeof(*ns));
	if (!ns || (with_nb && pthread_create(&nb, NULL, neighbour, NULL)))
		return 1;
	for (long b = 0; b < bursts; b++) {
		uint64_t t0 = now_ns(), t1;
		burst(kind, calls);
		t1 = now_ns();
		ns[b] = (double)(t1 - t0) / (double)calls;
		if (pause_us)
			usleep((useconds_t)pause_us);
	}
	if (with_nb) {
		stop = 1;
		pthread_join(nb, NULL);
	}
	qsort(ns + 1, (size_t)bursts - 1, sizeof(*ns), cmp_double);
	printf("recording=%d kind=%s calls=%ld bursts=%ld ns_per_call_median=%.2f ns_per_call_min=%.2f "
	       "ns_per_call_p90=%.2f\n",
	       tl_recording(), kind, calls, bursts, ns[1 + (bursts - 1) / 2], ns[1],
	       ns[1 + (size_t)((double)(bursts - 2) * 0.9)]);
	free(ns);
	return 0;
}
