/*
 * wl_pool.c - a thread pool fed through a queue and a condition variable,
 * woken per item with a broadcast (a thundering herd) or a signal.
 *
 *   wl_pool herd|signal [--workers N] [--items N]
 *
 * 'producer' (the main thread) puts an item in the queue every 200 us (N
 * items, default 4000) and wakes the pool: herd with pthread_cond_broadcast
 * (every waiting worker wakes; one takes the item, the others find the
 * queue empty and wait again), signal with pthread_cond_signal (one wakes).
 * The workers 'worker0'.. (default 6) take an item each and compute 50 us
 * on it.  Then the producer tells the workers to stop, joins them, and
 * prints one JSON line of truth: {"items": N, "done": N, "wakeups": W,
 * "empty": E}, W the workers' returns from pthread_cond_wait and E of
 * those that found the queue empty (a broadcast's futile wakeups).  Exit
 * status: 0, or 2 for bad usage.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "workload.h"

#define US 1000ull

struct pool {
	pthread_mutex_t m;
	pthread_cond_t c;
	int items, stop;
	uint64_t done, wakeups, empty;
};

static void *worker(void *arg)
{
	struct pool *p = arg;
	char name[WL_NAME_MAX];
	static int next;

	pthread_mutex_lock(&p->m);
	snprintf(name, sizeof(name), "worker%d", next++);
	pthread_mutex_unlock(&p->m);
	wl_set_name(name);
	for (;;) {
		pthread_mutex_lock(&p->m);
		while (!p->items && !p->stop) {
			pthread_cond_wait(&p->c, &p->m);
			p->wakeups++;
			if (!p->items && !p->stop)
				p->empty++;
		}
		if (!p->items) {
			pthread_mutex_unlock(&p->m);
			return NULL;
		}
		p->items--;
		pthread_mutex_unlock(&p->m);
		wl_spin_cpu(50 * US);
		pthread_mutex_lock(&p->m);
		p->done++;
		pthread_mutex_unlock(&p->m);
	}
}

int main(int argc, char **argv)
{
	struct pool p = { .m = PTHREAD_MUTEX_INITIALIZER, .c = PTHREAD_COND_INITIALIZER };
	pthread_t t[WL_MAX_THREADS];
	int herd, workers = 6, items = 4000;
	struct timespec gap = { 0, 200 * US };

	if (argc < 2 || (strcmp(argv[1], "herd") && strcmp(argv[1], "signal")))
		goto usage;
	herd = !strcmp(argv[1], "herd");
	for (int i = 2; i < argc; i++) {
		if (i + 1 >= argc)
			goto usage;
		if (!strcmp(argv[i], "--workers"))
			workers = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--items"))
			items = atoi(argv[++i]);
		else
			goto usage;
	}
	if (workers < 1 || workers > WL_MAX_THREADS || items < 1 || items > 10000000)
		goto usage;
	wl_set_name("producer");
	for (int i = 0; i < workers; i++)
		if (pthread_create(&t[i], NULL, worker, &p)) {
			fprintf(stderr, "wl_pool: cannot create a thread\n");
			return 1;
		}
	for (int i = 0; i < items; i++) {
		nanosleep(&gap, NULL);
		pthread_mutex_lock(&p.m);
		p.items++;
		if (herd)
			pthread_cond_broadcast(&p.c);
		else
			pthread_cond_signal(&p.c);
		pthread_mutex_unlock(&p.m);
	}
	pthread_mutex_lock(&p.m);
	p.stop = 1;
	pthread_cond_broadcast(&p.c);
	pthread_mutex_unlock(&p.m);
	for (int i = 0; i < workers; i++)
		pthread_join(t[i], NULL);
	printf("{\"items\": %d, \"done\": %llu, \"wakeups\": %llu, \"empty\": %llu}\n", items,
	       (unsigned long long)p.done, (unsigned long long)p.wakeups, (unsigned long long)p.empty);
	return 0;
usage:
	fprintf(stderr, "usage: wl_pool herd|signal [--workers N] [--items N]\n");
	return 2;
}
