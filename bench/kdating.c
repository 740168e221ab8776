/*
 * kdating.c - loads kdating.bpf.c for a thread name and prints, when
 * interrupted, the per-sleep difference between the trace's dating and the
 * kernel's accounting (bench/kdating.sh).
 *
 *   kdating NAME      (SIGINT or SIGTERM to print and exit)
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "kdating.skel.h"

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

int main(int argc, char **argv)
{
	static const char *const next[2] = { "another task next", "CPU went idle" };
	struct kdating_bpf *s;

	if (argc != 2) {
		fprintf(stderr, "usage: kdating THREAD_NAME\n");
		return 2;
	}
	if (!(s = kdating_bpf__open())) {
		fprintf(stderr, "kdating: cannot open the BPF object\n");
		return 1;
	}
	strncpy((char *)s->rodata->want, argv[1], 15);
	if (kdating_bpf__load(s) || kdating_bpf__attach(s)) {
		fprintf(stderr, "kdating: cannot load or attach the BPF programs\n");
		return 1;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	fprintf(stderr, "kdating: ready\n");
	while (!stop)
		usleep(10000);
	for (int i = 1; i >= 0; i--) {
		struct kdating_bpf__bss *b = s->bss;

		printf("%-18s %6llu sleeps, trace - kernel %7.3f ms, mean %5.0f ns", next[i],
		       (unsigned long long)b->n[i], b->sum[i] / 1e6,
		       b->n[i] ? (double)b->sum[i] / (double)b->n[i] : 0.0);
		for (int q = 0, k = 0; q < 3; q++) {
			static const double at[3] = { 0.5, 0.9, 0.99 };
			unsigned long long seen = 0;

			for (k = 0; k < 64 && (double)(seen + b->hist[i][k]) < at[q] * (double)b->n[i]; k++)
				seen += b->hist[i][k];
			printf(", p%.0f < %d ns", at[q] * 100, (k + 1) * 250 - 5000);
		}
		printf("\n");
	}
	for (int r = 0; r < 2; r++) {
		struct kdating_bpf__bss *b = s->bss;

		if (b->enq_n[r])
			printf("%-18s %6llu wakeups, enqueue dated %5.0f ns before the WAKEUP on average\n",
			       r ? "by another CPU" : "by the target CPU", (unsigned long long)b->enq_n[r],
			       (double)b->enq_sum[r] / (double)b->enq_n[r] - (double)s->data->clock_min);
	}
	kdating_bpf__destroy(s);
	return 0;
}
