/*
 * wl_funcs.c - a workload for `threadlens record --func`: functions that
 * cannot be inlined, called a known number of times for a known time.
 *
 *   wl_funcs [--threads T] [--iterations N] [--truth FILE]
 *   wl_funcs --bench N
 *
 * T threads ("wlf-0", ...) each run N iterations of:
 *   wlf_spin       once, busy for 200 us
 *   wlf_outer      once: calls wlf_inner 3 times (busy 50 us each), then
 *                  usleep(500) (libc: the `libc.so.6:usleep` probe)
 *   wlf_recurse(4) once: 5 nested calls of itself, the innermost busy 20 us
 *   wlf_inlined    once: always inlined, no symbol of its own (record
 *                  --func probes its copy's entry, from DWARF)
 *   wlf_both       twice: once inlined, once through a pointer to its
 *                  out-of-line copy
 * wlf_never exists but is never called.  The main thread calls none of
 * them.  So per thread: wlf_spin N, wlf_outer N, wlf_inner 3N,
 * wlf_recurse 5N, usleep N, wlf_never 0, wlf_inlined N, wlf_both 2N (N
 * of them inlined: calls_inlined_wlf_both).
 *
 * --bench N calls the empty function wlf_empty N times in one thread and
 * prints the mean wall time per call in ns: run it with and without
 * `--func wlf_empty` to see what a probe costs.
 *
 * The truth document (workload.h) has, per thread, "calls_<function>" and,
 * for wlf_spin and wlf_outer, "total_ns_<function>": wall time measured
 * around the calls by the caller, which includes the probes' own cost.
 *
 * Invariants: the probed functions (but wlf_inlined and wlf_both) have
 * external linkage, are never inlined, cloned or merged (gcc's noipa; clang does none of that to a
 * noinline function), and the recursion is not turned into a loop (its
 * result passes through an empty asm), so every call in the source is one
 * entry and one return in the binary.  Exit status: 0 ok, 1 failure, 2
 * usage.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "workload.h"

#if defined(__clang__)
#define PROBED __attribute__((noinline, used))
#else
#define PROBED __attribute__((noipa, used))
#endif

#define US 1000ull
#define MAX_THREADS 8
#define INNER_PER_OUTER 3
#define RECURSE_DEPTH 4 /* wlf_recurse(4): 5 calls */

/* External linkage on purpose: these are the symbols the tests probe. */
void wlf_spin(uint64_t ns);
void wlf_inner(uint64_t ns);
void wlf_outer(uint64_t inner_ns, unsigned sleep_us);
int wlf_recurse(int n, uint64_t ns);
void wlf_never(void);
void wlf_empty(void);
uint64_t wlf_both(uint64_t x);

PROBED void wlf_spin(uint64_t ns)
{
	wl_spin_until(wl_now_ns() + ns);
}

PROBED void wlf_inner(uint64_t ns)
{
	volatile uint64_t x = ns ^ 0x5a5a; /* a body unlike wlf_spin's */

	(void)x;
	wl_spin_until(wl_now_ns() + ns);
}

PROBED void wlf_outer(uint64_t inner_ns, unsigned sleep_us)
{
	for (int i = 0; i < INNER_PER_OUTER; i++)
		wlf_inner(inner_ns);
	usleep(sleep_us);
}

PROBED int wlf_recurse(int n, uint64_t ns)
{
	int r;

	if (n <= 0) {
		wl_spin_until(wl_now_ns() + ns);
		return 0;
	}
	r = wlf_recurse(n - 1, ns);
	__asm__ volatile("" : "+r"(r)); /* not a tail call: no loop instead of calls */
	return r + 1;
}

PROBED void wlf_never(void)
{
	fprintf(stderr, "wl_funcs: wlf_never was called\n");
	abort();
}

PROBED void wlf_empty(void)
{
	__asm__ volatile("" ::: "memory");
}

/* Inlined wherever it is called (even at -O0): one copy in worker_main, which DWARF lists. */
static inline __attribute__((always_inline)) uint64_t wlf_inlined(uint64_t x)
{
	__asm__ volatile("" : "+r"(x)); /* kept once per call: not merged, not hoisted */
	return x + 1;
}

/* Inlined where called directly; the prototype above makes this the external, out-of-line copy too. */
inline __attribute__((always_inline)) uint64_t wlf_both(uint64_t x)
{
	__asm__ volatile("" : "+r"(x));
	return x + 2;
}

static uint64_t (*volatile wlf_both_ptr)(uint64_t) = wlf_both;

static int bench(long n)
{
	uint64_t t0 = wl_now_ns();

	for (long i = 0; i < n; i++)
		wlf_empty();
	printf("wlf_empty: %ld calls, %.1f ns per call\n", n, n ? (double)(wl_now_ns() - t0) / (double)n : 0.0);
	return 0;
}

struct worker {
	char name[WL_NAME_MAX];
	int iterations;
	int tid;
	pthread_t pt;
	uint64_t spin_ns, outer_ns; /* wall time around the calls */
	uint64_t sum;               /* of the inlined functions' results: they cannot be left out */
	pthread_barrier_t *start;
};

static void *worker_main(void *arg)
{
	struct worker *w = arg;

	wl_set_name(w->name);
	w->tid = wl_gettid();
	pthread_barrier_wait(w->start);
	for (int i = 0; i < w->iterations; i++) {
		uint64_t t0 = wl_now_ns(), t1, t2;

		wlf_spin(200 * US);
		t1 = wl_now_ns();
		wlf_outer(50 * US, 500);
		t2 = wl_now_ns();
		if (wlf_recurse(RECURSE_DEPTH, 20 * US) != RECURSE_DEPTH)
			abort();
		w->sum += wlf_inlined((uint64_t)i);  /* the copy of wlf_inlined */
		w->sum += wlf_both((uint64_t)i);     /* the inlined copy of wlf_both */
		w->sum += wlf_both_ptr((uint64_t)i); /* its out-of-line copy */
		w->spin_ns += t1 - t0;
		w->outer_ns += t2 - t1;
	}
	return NULL;
}

static int usage(void)
{
	fprintf(stderr, "usage: wl_funcs [--threads T] [--iterations N] [--truth FILE]\n"
	                "       wl_funcs --bench N\n");
	return 2;
}

int main(int argc, char **argv)
{
	struct worker w[MAX_THREADS];
	struct wl_truth truth;
	pthread_barrier_t start;
	const char *truth_path = NULL;
	int nthreads = 2, iterations = 50;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--threads") && i + 1 < argc)
			nthreads = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--iterations") && i + 1 < argc)
			iterations = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--truth") && i + 1 < argc)
			truth_path = argv[++i];
		else if (!strcmp(argv[i], "--bench") && i + 1 < argc)
			return bench(atol(argv[++i]));
		else
			return usage();
	}
	if (nthreads < 1 || nthreads > MAX_THREADS || iterations < 0)
		return usage();
	if (argc > 1000)
		wlf_never(); /* keeps the compiler from proving it unused */

	memset(&truth, 0, sizeof(truth));
	snprintf(truth.scenario, sizeof(truth.scenario), "funcs");
	truth.scale = 1;
	snprintf(truth.notes, sizeof(truth.notes),
	         "calls_F: exact call counts; total_ns_F: wall time around the calls");
	pthread_barrier_init(&start, NULL, (unsigned)nthreads + 1);
	for (int i = 0; i < nthreads; i++) {
		memset(&w[i], 0, sizeof(w[i]));
		snprintf(w[i].name, sizeof(w[i].name), "wlf-%d", i);
		w[i].iterations = iterations;
		w[i].start = &start;
		if (pthread_create(&w[i].pt, NULL, worker_main, &w[i])) {
			fprintf(stderr, "wl_funcs: cannot create a thread\n");
			return 1;
		}
	}
	pthread_barrier_wait(&start);
	for (int i = 0; i < nthreads; i++) {
		struct wl_truth_thread *th;
		int64_t n = iterations;
		char name[WL_NAME_MAX];

		pthread_join(w[i].pt, NULL);
		snprintf(name, sizeof(name), "wlf-%d", i % MAX_THREADS); /* gcc cannot bound w[i].name */
		th = wl_truth_add(&truth, name, w[i].tid);
		wl_truth_set(th, "calls_wlf_spin", n);
		wl_truth_set(th, "calls_wlf_outer", n);
		wl_truth_set(th, "calls_wlf_inner", INNER_PER_OUTER * n);
		wl_truth_set(th, "calls_wlf_recurse", (RECURSE_DEPTH + 1) * n);
		wl_truth_set(th, "calls_usleep", n);
		wl_truth_set(th, "calls_wlf_never", 0);
		wl_truth_set(th, "calls_wlf_inlined", n);
		wl_truth_set(th, "calls_wlf_both", 2 * n);
		wl_truth_set(th, "calls_inlined_wlf_both", n);
		wl_truth_set(th, "total_ns_wlf_spin", (int64_t)w[i].spin_ns);
		wl_truth_set(th, "total_ns_wlf_outer", (int64_t)w[i].outer_ns);
	}
	pthread_barrier_destroy(&start);
	if (truth_path && wl_truth_write(&truth, truth_path)) {
		perror("wl_funcs: cannot write the truth");
		return 1;
	}
	return 0;
}
