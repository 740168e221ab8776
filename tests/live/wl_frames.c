/*
 * wl_frames.c - an instrumented three-stage pipeline with a known frame
 * rate and known step durations, for the live test of `threadlens frames`
 * (tests/live/frames.sh).  It writes the ground truth it measured itself.
 *
 *   wl_frames [--frames N] [--fps F] [--truth FILE] [--kill-after K]
 *
 * source paces frame begins at F frames/s with clock_nanosleep(TIMER_
 * ABSTIME) from one start time (no drift), calls tl_frame_begin(i) and
 * spins "capture" (2 ms of its CPU time); worker joins the frame and runs
 * "filter" twice (1 ms of CPU each) and "encode" (a 2 ms sleep); sink joins
 * it and runs "output" (a 3 ms sleep) and ends the frame inside that
 * region, so the step outlasts the frame.  Frames go from stage to stage
 * through two mutex + condition variable queues, so each frame crosses
 * three threads: begun by source, ended by sink.
 *
 * Truth: each step's wall time measured around its marker calls, per frame
 * (summed over its occurrences), each frame's latency from just before
 * tl_frame_begin to just after tl_frame_end (and each frame's two times,
 * "frame_ns"), and the rate between the first and the last completion.
 * Times are CLOCK_MONOTONIC, the recorder's clock.
 * --kill-after K: once sink has completed K frames and source has begun
 * frame K (so that one frame is in flight), sink writes the truth and kills
 * the whole process with SIGKILL, to show that the markers of a killed
 * program still reach the trace.
 *
 * Invariants: one process, thread names unique; only sink ends frames, in
 * order, so the completed count at the kill is exact.  Exit status 0 ok,
 * 1 failure, 2 usage.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <threadlens.h>
#include <time.h>
#include <unistd.h>

#include "workload.h"

#define MS 1000000ull
#define MAX_FRAMES 100000
#define QCAP 64

enum { ST_CAPTURE, ST_FILTER, ST_ENCODE, ST_OUTPUT, NSTEPS };
static const char *const step_names[NSTEPS] = { "capture", "filter", "encode", "output" };
static const char *const step_threads[NSTEPS] = { "source", "worker", "worker", "sink" };
static const int step_count[NSTEPS] = { 1, 2, 1, 1 };

struct queue {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int64_t items[QCAP];
	unsigned head, tail;
};

struct frame_truth {
	uint64_t begin, end;      /* around tl_frame_begin / tl_frame_end */
	uint64_t step_ns[NSTEPS]; /* summed per frame */
};

struct run {
	int nframes;
	double fps;
	int kill_after; /* 0: run to the end */
	const char *truth_path;
	struct queue q1, q2;
	struct frame_truth *f;
	int tids[3];
	uint64_t start;
	atomic_int begun; /* frames source has begun */
};

static void q_init(struct queue *q)
{
	pthread_mutex_init(&q->mu, NULL);
	pthread_cond_init(&q->cv, NULL);
	q->head = q->tail = 0;
}

static void q_push(struct queue *q, int64_t v)
{
	pthread_mutex_lock(&q->mu);
	while (q->tail - q->head == QCAP)
		pthread_cond_wait(&q->cv, &q->mu);
	q->items[q->tail++ % QCAP] = v;
	pthread_cond_broadcast(&q->cv);
	pthread_mutex_unlock(&q->mu);
}

static int64_t q_pop(struct queue *q)
{
	int64_t v;

	pthread_mutex_lock(&q->mu);
	while (q->tail == q->head)
		pthread_cond_wait(&q->cv, &q->mu);
	v = q->items[q->head++ % QCAP];
	pthread_cond_broadcast(&q->cv);
	pthread_mutex_unlock(&q->mu);
	return v;
}

static void sleep_ns(uint64_t ns)
{
	struct timespec ts = { .tv_sec = (time_t)(ns / 1000000000u), .tv_nsec = (long)(ns % 1000000000u) };
	while (clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &ts) == EINTR)
		;
}

static void sleep_until(uint64_t t)
{
	struct timespec ts = { .tv_sec = (time_t)(t / 1000000000u), .tv_nsec = (long)(t % 1000000000u) };
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

/* A step: its wall time around the marker calls is added to the frame's truth. */
static void step(struct frame_truth *f, int s, int spin, uint64_t ns)
{
	uint64_t t0 = wl_now_ns();

	tl_region_begin(step_names[s]);
	if (spin)
		wl_spin_cpu(ns);
	else
		sleep_ns(ns);
	tl_region_end(step_names[s]);
	f->step_ns[s] += wl_now_ns() - t0;
}

static int write_truth(struct run *r, int completed);

static void *source(void *arg)
{
	struct run *r = arg;
	uint64_t period = (uint64_t)(1e9 / r->fps);

	wl_set_name("source");
	r->tids[0] = wl_gettid();
	for (int i = 0; i < r->nframes; i++) {
		struct frame_truth *f = &r->f[i];
		sleep_until(r->start + (uint64_t)i * period);
		f->begin = wl_now_ns();
		tl_frame_begin((uint64_t)i);
		atomic_fetch_add(&r->begun, 1);
		step(f, ST_CAPTURE, 1, 2 * MS);
		q_push(&r->q1, i);
	}
	q_push(&r->q1, -1);
	return NULL;
}

static void *worker(void *arg)
{
	struct run *r = arg;
	int64_t i;

	wl_set_name("worker");
	r->tids[1] = wl_gettid();
	while ((i = q_pop(&r->q1)) >= 0) {
		struct frame_truth *f = &r->f[i];
		tl_frame_join((uint64_t)i);
		step(f, ST_FILTER, 1, 1 * MS);
		step(f, ST_FILTER, 1, 1 * MS);
		step(f, ST_ENCODE, 0, 2 * MS);
		q_push(&r->q2, i);
	}
	q_push(&r->q2, -1);
	return NULL;
}

static void *sink(void *arg)
{
	struct run *r = arg;
	int64_t i;

	wl_set_name("sink");
	r->tids[2] = wl_gettid();
	while ((i = q_pop(&r->q2)) >= 0) {
		struct frame_truth *f = &r->f[i];
		uint64_t t0;
		tl_frame_join((uint64_t)i);
		t0 = wl_now_ns();
		tl_region_begin(step_names[ST_OUTPUT]);
		sleep_ns(3 * MS);
		tl_frame_end((uint64_t)i); /* inside the region: the step outlasts the frame */
		f->end = wl_now_ns();
		tl_region_end(step_names[ST_OUTPUT]);
		f->step_ns[ST_OUTPUT] += wl_now_ns() - t0;
		if (r->kill_after && i + 1 == r->kill_after) {
			/* a frame in flight when it dies: wait for the next begin (one period at most) */
			while (r->kill_after < r->nframes && atomic_load(&r->begun) <= r->kill_after)
				sleep_ns(MS / 4);
			write_truth(r, r->kill_after);
			kill(getpid(), SIGKILL);
		}
	}
	return NULL;
}

static int write_truth(struct run *r, int completed)
{
	FILE *out = r->truth_path ? fopen(r->truth_path, "w") : stdout;
	uint64_t lat = 0, first = r->f[0].end, last = r->f[completed - 1].end;
	int err;

	if (!out)
		return -1;
	for (int i = 0; i < completed; i++)
		lat += r->f[i].end - r->f[i].begin;
	/* our names are plain ASCII: no JSON escaping needed */
	fprintf(out,
	        "{\"scenario\": \"frames\", \"pid\": %d, \"frames\": %d, \"begun\": %d, \"completed\": %d, \"killed\": "
	        "%s,\n",
	        (int)getpid(), r->nframes, atomic_load(&r->begun), completed, r->kill_after ? "true" : "false");
	fprintf(out, " \"fps_nominal\": %.3f, \"fps\": %.3f, \"latency_mean_ns\": %llu,\n", r->fps,
	        completed > 1 && last > first ? (completed - 1) * 1e9 / (double)(last - first) : 0.0,
	        (unsigned long long)(lat / (uint64_t)completed));
	fprintf(out, " \"threads\": {\"source\": %d, \"worker\": %d, \"sink\": %d},\n \"steps\": {", r->tids[0],
	        r->tids[1], r->tids[2]);
	for (int s = 0; s < NSTEPS; s++) {
		uint64_t sum = 0;
		for (int i = 0; i < completed; i++)
			sum += r->f[i].step_ns[s];
		fprintf(out, "%s\n  \"%s\": {\"mean_ns\": %llu, \"count_per_frame\": %d, \"thread\": \"%s\"}",
		        s ? "," : "", step_names[s], (unsigned long long)(sum / (uint64_t)completed), step_count[s],
		        step_threads[s]);
	}
	/* each completed frame's [begin, end] (CLOCK_MONOTONIC ns), by id: for a recording of part of the run (-p) */
	fputs("\n },\n \"frame_ns\": [", out);
	for (int i = 0; i < completed; i++)
		fprintf(out, "%s[%llu, %llu]", i ? ", " : "", (unsigned long long)r->f[i].begin,
		        (unsigned long long)r->f[i].end);
	fputs("]\n}\n", out);
	err = ferror(out);
	err |= out == stdout ? fflush(out) : fclose(out);
	return err ? -1 : 0;
}

static int usage(void)
{
	fputs("usage: wl_frames [--frames N] [--fps F] [--truth FILE] [--kill-after K]\n", stderr);
	return 2;
}

int main(int argc, char **argv)
{
	struct run r = { .nframes = 50, .fps = 50 };
	pthread_t th[3];
	void *(*fn[3])(void *) = { source, worker, sink };

	for (int i = 1; i < argc; i += 2) {
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(argv[i], "--frames") && v)
			r.nframes = atoi(v);
		else if (!strcmp(argv[i], "--fps") && v)
			r.fps = atof(v);
		else if (!strcmp(argv[i], "--truth") && v)
			r.truth_path = v;
		else if (!strcmp(argv[i], "--kill-after") && v)
			r.kill_after = atoi(v);
		else
			return usage();
	}
	if (r.nframes < 2 || r.nframes > MAX_FRAMES || r.fps <= 0 || r.fps > 10000 || r.kill_after < 0 ||
	    r.kill_after > r.nframes)
		return usage();
	r.f = calloc((size_t)r.nframes, sizeof(*r.f));
	if (!r.f)
		return 1;
	q_init(&r.q1);
	q_init(&r.q2);
	/* the first frame a little later, so that every thread is up and named */
	r.start = wl_now_ns() + 20 * MS;
	for (int i = 0; i < 3; i++)
		if (pthread_create(&th[i], NULL, fn[i], &r)) {
			perror("wl_frames: pthread_create");
			return 1;
		}
	for (int i = 0; i < 3; i++)
		pthread_join(th[i], NULL);
	if (write_truth(&r, r.nframes)) {
		perror("wl_frames: cannot write the truth");
		return 1;
	}
	free(r.f);
	return 0;
}
