/*
 * wl_hot.c - a workload for `threadlens profile`: one thread ("wlh-hot")
 * that spends a set share of its CPU time in each of two functions.
 *
 *   wl_hot [--ms N]
 *
 * For N ms of CPU time (default 600) the thread alternates wlh_three (3 ms
 * of its own CPU time) and wlh_one (1 ms), measured with
 * CLOCK_THREAD_CPUTIME_ID, so about 75% and 25% of its samples fall in
 * their own code (the clock reads, system calls, are about 1%).
 * It prints its truth as one JSON line: the CPU time measured inside each.
 * Both functions have external linkage and default visibility (the build
 * links with -rdynamic, so a stripped copy still names them in .dynsym)
 * and are never inlined.  Exit status: 0, or 2 for bad usage.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "workload.h"

#define HOT __attribute__((noinline, used, visibility("default")))

HOT uint64_t wlh_three(void);
HOT uint64_t wlh_one(void);

/*
 * Spin until this thread has used ns more CPU time; returns what it used.
 * The clock is read every 20000 rounds of the loop (about 20 us): its
 * reads (a system call) are a small part, so nearly every sample lands in
 * the caller's own code, where this is inlined.
 */
static inline __attribute__((always_inline)) uint64_t burn(uint64_t ns)
{
	uint64_t t0 = wl_cpu_ns(), t;
	unsigned x = 1;

	do {
		for (int i = 0; i < 20000; i++) {
			x = x * 1103515245u + 12345u;
			__asm__ volatile("" : "+r"(x));
		}
	} while ((t = wl_cpu_ns()) - t0 < ns);
	return t - t0 + (x & 0); /* x keeps the loop */
}

HOT uint64_t wlh_three(void)
{
	return burn(3000000);
}

HOT uint64_t wlh_one(void)
{
	uint64_t r = burn(1000000);
	__asm__ volatile("" : "+r"(r)); /* a body unlike wlh_three's: not merged */
	return r;
}

struct hot {
	uint64_t ms, three_ns, one_ns;
};

static void *run(void *arg)
{
	struct hot *h = arg;

	wl_set_name("wlh-hot");
	while (h->three_ns + h->one_ns < h->ms * 1000000) {
		h->three_ns += wlh_three();
		h->one_ns += wlh_one();
	}
	return NULL;
}

int main(int argc, char **argv)
{
	struct hot h = { 600, 0, 0 };
	pthread_t t;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--ms") && i + 1 < argc && atoi(argv[i + 1]) > 0)
			h.ms = (uint64_t)atoi(argv[++i]);
		else
			return fprintf(stderr, "usage: wl_hot [--ms N]\n"), 2;
	}
	if (pthread_create(&t, NULL, run, &h))
		return 1;
	pthread_join(t, NULL);
	printf("{\"wlh_three_ns\": %llu, \"wlh_one_ns\": %llu}\n", (unsigned long long)h.three_ns,
	       (unsigned long long)h.one_ns);
	return 0;
}
