/*
 * wl_rwlock.c - readers held up by a writer on a reader-writer lock
 * (diagnose's lock-contention on a pthread_rwlock_t).
 *
 *   wl_rwlock [--rounds R] [--readers N]
 *
 * 'writer' takes the lock for writing R times (default 100), computing
 * 2 ms of its CPU time inside and 0.5 ms outside; 'reader0'..'reader<N-1>'
 * (default 3) take it for reading, 100 us inside and 200 us outside, until
 * the writer is done.  glibc's readers and writers sleep in
 * FUTEX_WAIT_BITSET, as condition variables do, and only the expected
 * value tells the lock's waits apart (trace/event.h, tl_futex_wait_locks).
 * Then it prints one JSON line of truth:
 * {"lock": A, "threads": [{"name": "reader0", "tid": T, "calls": C,
 * "lock_ns": L, "lock_cpu_ns": P}, ...]}: A the lock's address (its
 * futex words lie at A + 8 and A + 12), C the thread's lock calls, L the
 * wall time in them (its clock before each call and after it), P its CPU
 * time in them (CLOCK_THREAD_CPUTIME_ID).  Exit status: 0, 1 if a thread
 * cannot start, or 2 for bad usage.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "workload.h"

#define US 1000ull
#define MAX_READERS 8

static pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
static atomic_int done;
static int rounds = 100, readers = 3;

struct truth {
	char name[16];
	int tid, index;
	uint64_t calls, lock_ns, lock_cpu_ns;
};

/* Takes the lock (for writing or reading) and adds the call's times to t. */
static void take(struct truth *t, int write)
{
	uint64_t w0 = wl_now_ns(), c0 = wl_cpu_ns();

	if (write)
		pthread_rwlock_wrlock(&rw);
	else
		pthread_rwlock_rdlock(&rw);
	t->lock_cpu_ns += wl_cpu_ns() - c0;
	t->lock_ns += wl_now_ns() - w0;
	t->calls++;
}

static void *writer(void *arg)
{
	struct truth *t = arg;

	wl_set_name(t->name);
	t->tid = wl_gettid();
	for (int r = 0; r < rounds; r++) {
		take(t, 1);
		wl_spin_cpu(2000 * US);
		pthread_rwlock_unlock(&rw);
		wl_spin_cpu(500 * US);
	}
	atomic_store(&done, 1);
	return NULL;
}

static void *reader(void *arg)
{
	struct truth *t = arg;

	wl_set_name(t->name);
	t->tid = wl_gettid();
	while (!atomic_load(&done)) {
		take(t, 0);
		wl_spin_cpu(100 * US);
		pthread_rwlock_unlock(&rw);
		wl_spin_cpu(200 * US);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	struct truth t[MAX_READERS + 1];
	pthread_t th[MAX_READERS + 1];
	int n;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--rounds") && i + 1 < argc)
			rounds = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--readers") && i + 1 < argc)
			readers = atoi(argv[++i]);
		else {
			fprintf(stderr, "usage: wl_rwlock [--rounds R] [--readers N]\n");
			return 2;
		}
	}
	if (rounds < 1 || readers < 1 || readers > MAX_READERS) {
		fprintf(stderr, "wl_rwlock: --rounds must be positive and --readers 1 to %d\n", MAX_READERS);
		return 2;
	}
	n = readers + 1;
	memset(t, 0, sizeof(t));
	snprintf(t[0].name, sizeof(t[0].name), "writer");
	for (int i = 1; i < n; i++)
		snprintf(t[i].name, sizeof(t[i].name), "reader%d", i - 1);
	for (int i = 0; i < n; i++) {
		if (pthread_create(&th[i], NULL, i ? reader : writer, &t[i])) {
			perror("wl_rwlock: pthread_create");
			return 1;
		}
	}
	for (int i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	printf("{\"lock\": %llu, \"threads\": [", (unsigned long long)(uintptr_t)&rw);
	for (int i = 0; i < n; i++)
		printf("%s{\"name\": \"%s\", \"tid\": %d, \"calls\": %llu, \"lock_ns\": %llu, \"lock_cpu_ns\": %llu}",
		       i ? ", " : "", t[i].name, t[i].tid, (unsigned long long)t[i].calls,
		       (unsigned long long)t[i].lock_ns, (unsigned long long)t[i].lock_cpu_ns);
	printf("]}\n");
	return 0;
}
