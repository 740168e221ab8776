/*
 * wl_mcast.c - a multicast module, like the stream handler of HeiPOET's
 * Fig. 7 (seed 003): each processing period it takes one input packet and
 * sends a copy to each of its output endpoints, so its CPU time per period
 * grows linearly with the number of outputs.  The campaign test
 * (tests/cli/test_sweep.sh) sweeps it over 2 to 10 outputs.
 *
 *   wl_mcast --outputs N [--size BYTES] [--periods P] [--rate HZ]
 *
 * Each period (P of them, default 100, at HZ, default 200, on a fixed
 * schedule) is a region "send": the packet (BYTES, default 64 KiB)
 * written to each output buffer scrambled for it (an FNV-1a chain: the
 * same work per output, in the caches); then the thread sleeps until the
 * next period.  It prints its truth as one JSON line: the mean CPU time of
 * a period by its own thread clock (CLOCK_THREAD_CPUTIME_ID around the
 * region), {"outputs": N, "periods": P, "cpu_mean_ns": ...}.  Exit status:
 * 0, 1 when out of memory, 2 for bad usage.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <threadlens.h>

#include "workload.h"

#define MAX_OUTPUTS 64

/* Each output gets its own copy, scrambled for it: a fixed amount of work per output. */
static uint32_t send(const uint8_t *in, uint8_t **out, int outputs, size_t size)
{
	uint32_t sum = 0;

	for (int o = 0; o < outputs; o++) {
		uint32_t h = 2166136261u ^ (uint32_t)o;
		for (size_t i = 0; i < size; i++) {
			h = (h ^ in[i]) * 16777619u;
			out[o][i] = (uint8_t)h;
		}
		sum += h;
	}
	return sum;
}

int main(int argc, char **argv)
{
	int outputs = 0, periods = 100;
	size_t size = 64 << 10;
	double rate = 200;
	uint8_t *in, *out[MAX_OUTPUTS];
	uint64_t cpu = 0, next;
	volatile uint32_t sink = 0;

	for (int i = 1; i < argc; i++) {
		if (i + 1 >= argc)
			goto usage;
		if (!strcmp(argv[i], "--outputs"))
			outputs = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--size"))
			size = (size_t)atol(argv[++i]);
		else if (!strcmp(argv[i], "--periods"))
			periods = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--rate"))
			rate = atof(argv[++i]);
		else
			goto usage;
	}
	if (outputs < 1 || outputs > MAX_OUTPUTS || size < 64 || size > (64 << 20) || periods < 1 ||
	    periods > 1000000 || !(rate > 0 && rate <= 100000))
		goto usage;
	if (!(in = malloc(size)))
		return 1;
	for (size_t i = 0; i < size; i++)
		in[i] = (uint8_t)(i * 31);
	for (int o = 0; o < outputs; o++)
		if (!(out[o] = malloc(size)) || !memset(out[o], 0, size))
			return 1;
	next = wl_now_ns();
	for (int p = 0; p < periods; p++) {
		uint64_t c0;
		tl_region_begin("send");
		c0 = wl_cpu_ns();
		sink += send(in, out, outputs, size);
		cpu += wl_cpu_ns() - c0;
		tl_region_end("send");
		next += (uint64_t)(1e9 / rate);
		{ /* sleep to the next period (late: go on at once) */
			struct timespec ts = { (time_t)(next / 1000000000u), (long)(next % 1000000000u) };
			while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
				;
		}
	}
	printf("{\"outputs\": %d, \"periods\": %d, \"cpu_mean_ns\": %llu}\n", outputs, periods,
	       (unsigned long long)(cpu / (uint64_t)periods));
	for (int o = 0; o < outputs; o++)
		free(out[o]);
	free(in);
	return 0;
usage:
	fprintf(stderr, "usage: wl_mcast --outputs N [--size BYTES] [--periods P] [--rate HZ]\n");
	return 2;
}
