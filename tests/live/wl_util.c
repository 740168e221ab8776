/*
 * wl_util.c - a periodic processing module with a known CPU time per
 * period, for `threadlens util` (tests/cli/test_util.sh).
 *
 *   wl_util [--periods N] [--period-ms MS] [--spin-us US] [--cpu C] [--truth FILE]
 *
 * The module thread "wlu-module" runs N periods (20) of MS milliseconds
 * (30; US is 4000).  In
 * each it marks two regions:
 *   "spin"   busy for US microseconds of its own CPU time;
 *   "mixed"  busy US/2, asleep 2 ms, busy US/2 again.
 * A second thread, "wlu-noise", shares the module's CPU (both pinned to C,
 * default the contention CPU of workload.h) and spins all the time, so the
 * regions are preempted: their elapsed time is about twice their CPU time,
 * which is what util must see through.  It also keeps that CPU from going
 * idle: the kernel of the test VM does not report events of the idle task
 * (docs/STATES.md), so a module woken on an idle CPU would be seen running
 * only from its next event; with the CPU busy, its wakeups and switch-ins
 * are all reported.
 *
 * Truth (workload.h's document, thread "wlu-module"): spin_count,
 * spin_cpu_ns and spin_wall_ns, the same for mixed: the counts of regions,
 * and the sums of CLOCK_THREAD_CPUTIME_ID and CLOCK_MONOTONIC differences
 * taken just inside each region's markers.  Exit status: 0 ok, 1 failure,
 * 2 usage.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <threadlens.h>
#include <time.h>
#include <unistd.h>

#include "workload.h"

#define MS 1000000ull
#define US 1000ull

struct opts {
	int periods;
	uint64_t period_ns, spin_ns;
	int cpu;
	const char *truth;
};

struct sums {
	int count;
	uint64_t cpu_ns, wall_ns;
};

static atomic_int stop_noise;
static int noise_cpu;

static void sleep_ns(uint64_t ns)
{
	struct timespec ts = { .tv_sec = (time_t)(ns / 1000000000u), .tv_nsec = (long)(ns % 1000000000u) };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static void *noise(void *arg)
{
	(void)arg;
	wl_set_name("wlu-noise");
	wl_pin(noise_cpu);
	while (!atomic_load(&stop_noise))
		wl_spin_until(wl_now_ns() + 100 * US);
	return NULL;
}

/* One region: what happens inside is measured on both clocks, just inside the markers. */
static void region(const char *name, const struct opts *o, int mixed, struct sums *s)
{
	uint64_t c0, w0;

	tl_region_begin(name);
	c0 = wl_cpu_ns();
	w0 = wl_now_ns();
	if (mixed) {
		wl_spin_cpu(o->spin_ns / 2);
		sleep_ns(2 * MS);
		wl_spin_cpu(o->spin_ns / 2);
	} else {
		wl_spin_cpu(o->spin_ns);
	}
	s->cpu_ns += wl_cpu_ns() - c0;
	s->wall_ns += wl_now_ns() - w0;
	s->count++;
	tl_region_end(name);
}

static int parse(int argc, char **argv, struct opts *o)
{
	o->periods = 20;
	o->period_ns = 30 * MS;
	o->spin_ns = 4000 * US;
	o->cpu = wl_contention_cpu();
	for (int i = 1; i < argc; i += 2) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!v)
			return -1;
		if (!strcmp(a, "--periods"))
			o->periods = atoi(v);
		else if (!strcmp(a, "--period-ms"))
			o->period_ns = (uint64_t)atoi(v) * MS;
		else if (!strcmp(a, "--spin-us"))
			o->spin_ns = (uint64_t)atoi(v) * US;
		else if (!strcmp(a, "--cpu"))
			o->cpu = atoi(v);
		else if (!strcmp(a, "--truth"))
			o->truth = v;
		else
			return -1;
	}
	if (o->periods < 1 || o->periods > 100000 || !o->spin_ns || o->period_ns < o->spin_ns * 2 + 3 * MS)
		return -1;
	return 0;
}

int main(int argc, char **argv)
{
	struct opts o = { 0 };
	struct sums spin = { 0 }, mixed = { 0 };
	struct wl_truth truth = { 0 };
	struct wl_truth_thread *th;
	pthread_t nt;
	uint64_t next;

	if (parse(argc, argv, &o)) {
		fprintf(stderr,
		        "usage: wl_util [--periods N] [--period-ms MS] [--spin-us US] [--cpu C] [--truth FILE]\n"
		        "  (the period must hold both regions: MS >= 2 US/1000 + 3)\n");
		return 2;
	}
	noise_cpu = o.cpu;
	wl_set_name("wlu-module");
	if (wl_pin(o.cpu)) {
		fprintf(stderr, "wl_util: cannot pin to cpu %d\n", o.cpu);
		return 1;
	}
	if (pthread_create(&nt, NULL, noise, NULL)) {
		fprintf(stderr, "wl_util: cannot start the noise thread\n");
		return 1;
	}
	next = wl_now_ns();
	for (int p = 0; p < o.periods; p++) {
		region("spin", &o, 0, &spin);
		region("mixed", &o, 1, &mixed);
		next += o.period_ns;
		if (wl_now_ns() < next)
			sleep_ns(next - wl_now_ns());
	}
	atomic_store(&stop_noise, 1);
	pthread_join(nt, NULL);

	snprintf(truth.scenario, sizeof(truth.scenario), "util");
	truth.scale = 1;
	snprintf(truth.notes, sizeof(truth.notes),
	         "regions spin and mixed: counts and CPU/wall sums inside the markers");
	th = wl_truth_add(&truth, "wlu-module", wl_gettid());
	wl_truth_set(th, "spin_count", spin.count);
	wl_truth_set(th, "spin_cpu_ns", (int64_t)spin.cpu_ns);
	wl_truth_set(th, "spin_wall_ns", (int64_t)spin.wall_ns);
	wl_truth_set(th, "mixed_count", mixed.count);
	wl_truth_set(th, "mixed_cpu_ns", (int64_t)mixed.cpu_ns);
	wl_truth_set(th, "mixed_wall_ns", (int64_t)mixed.wall_ns);
	wl_truth_set(th, "recording", tl_recording());
	if (wl_truth_write(&truth, o.truth) < 0) {
		perror("wl_util: cannot write the truth");
		return 1;
	}
	return 0;
}
