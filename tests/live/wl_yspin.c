/*
 * wl_yspin.c - a thread that waits for another by calling sched_yield in
 * a loop (diagnose's yield-spinning), or, with --block, on a condition
 * variable (the healthy way).
 *
 *   wl_yspin [--rounds R] [--work MS] [--block]
 *
 * Each round (default 8) the main thread 'yspin' computes MS ms of its own
 * CPU time (default 40) and then releases 'waiter', which waited for it
 * the whole time: `while (released <= round) sched_yield();`, or on a
 * condition variable.  Then it prints one JSON line of truth:
 * {"waiter": TID, "rounds": R, "calls": C, "loop_ns": L, "loop_cpu_ns": P,
 * "gap_ns": G}: C the sched_yield calls the waiter made, L the wall time of
 * its waiting loops (its own clock before each loop and after it), P its
 * CPU time in them (CLOCK_THREAD_CPUTIME_ID, the kernel's count), G the
 * part of P between two calls (or the loop's start and a call) more than
 * 1 ms apart by the wall clock: no spinning run spans such a gap
 * (trace/event.h, TL_YIELD_SPIN_GAP_NS), and a CPU the VM's host held
 * meanwhile is counted there.  With --block, C and G are 0.  Exit status:
 * 0, or 2 for bad usage.
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "workload.h"

#define MS 1000000ull

static int rounds = 8, block;
static uint64_t work_ns = 40 * MS;
static atomic_int released;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;

struct truth {
	int tid;
	uint64_t calls, loop_ns, loop_cpu_ns, gap_ns;
};

#define GAP_NS 1000000ull /* TL_YIELD_SPIN_GAP_NS: calls further apart are not one run */

static void *waiter(void *arg)
{
	struct truth *t = arg;

	wl_set_name("waiter");
	t->tid = wl_gettid();
	for (int r = 0; r < rounds; r++) {
		uint64_t w0 = wl_now_ns(), c0 = wl_cpu_ns();

		if (block) {
			pthread_mutex_lock(&mu);
			while (atomic_load(&released) <= r)
				pthread_cond_wait(&cv, &mu);
			pthread_mutex_unlock(&mu);
		} else {
			uint64_t prev = w0, cprev = c0, now, cnow;

			while (atomic_load(&released) <= r) {
				sched_yield();
				t->calls++;
				now = wl_now_ns();
				cnow = wl_cpu_ns();
				if (now - prev > GAP_NS)
					t->gap_ns += cnow - cprev;
				prev = now;
				cprev = cnow;
			}
		}
		t->loop_cpu_ns += wl_cpu_ns() - c0;
		t->loop_ns += wl_now_ns() - w0;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	struct truth t = { 0 };
	pthread_t th;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--rounds") && i + 1 < argc)
			rounds = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--work") && i + 1 < argc)
			work_ns = strtoull(argv[++i], NULL, 10) * MS;
		else if (!strcmp(argv[i], "--block"))
			block = 1;
		else {
			fprintf(stderr, "usage: wl_yspin [--rounds R] [--work MS] [--block]\n");
			return 2;
		}
	}
	if (rounds < 1 || !work_ns) {
		fprintf(stderr, "wl_yspin: --rounds and --work must be positive\n");
		return 2;
	}
	wl_set_name("yspin");
	if (pthread_create(&th, NULL, waiter, &t)) {
		perror("wl_yspin: pthread_create");
		return 1;
	}
	for (int r = 0; r < rounds; r++) {
		wl_spin_cpu(work_ns);
		pthread_mutex_lock(&mu);
		atomic_fetch_add(&released, 1);
		pthread_cond_signal(&cv);
		pthread_mutex_unlock(&mu);
	}
	pthread_join(th, NULL);
	printf("{\"waiter\": %d, \"rounds\": %d, \"calls\": %llu, \"loop_ns\": %llu, \"loop_cpu_ns\": %llu, "
	       "\"gap_ns\": %llu}\n",
	       t.tid, rounds, (unsigned long long)t.calls, (unsigned long long)t.loop_ns,
	       (unsigned long long)t.loop_cpu_ns, (unsigned long long)t.gap_ns);
	return 0;
}
