/*
 * test_frames.c - tl_frames_analyze() on hand-written traces of scheduler
 * events and markers: frame counts, throughput, latency, per-step sums,
 * dropped frames, id gaps and the per-frame state split of every thread
 * that worked on a frame, all with exact expectations (in microseconds).
 *
 * The traces are written with the real writer and read back with the real
 * reader, so the test covers the path `threadlens frames` takes.  The JSON
 * writer runs on the same result and must produce a valid document.
 */
#include <stdlib.h>
#include <unistd.h>

#include "event_build.h"
#include "analysis/frames/frames.h"
#include "harness.h"
#include "output/json.h"

#define US 1000ull
#define T0 (1000 * US)
#define MAXF 512

static struct tl_trace_writer *W;
static char path[64];

static void ev(uint64_t ts_us, int cpu, unsigned type, int32_t tid, int32_t arg, int64_t a, int64_t b, int64_t c,
               const char *name)
{
	struct tl_event e = event_us(ts_us, cpu, type, tid, arg, a, b, c, 0);
	e.name = name ? tl_trace_writer_intern(W, name) : 0;
	CHECK(tl_trace_writer_add(W, &e) == 0);
}

static void sw(uint64_t t, int cpu, int32_t prev, int64_t state, int32_t next)
{
	ev(t, cpu, TL_EV_SWITCH, prev, next, state, 120, 120, NULL);
}

static void waking(uint64_t t, int cpu, int32_t woken, int32_t waker)
{
	ev(t, cpu, TL_EV_WAKING, woken, waker, cpu, 120, 0, NULL);
}

static void mark(uint64_t t, unsigned type, int32_t tid, int64_t a, const char *name)
{
	ev(t, -1, type, tid, 0, a, 0, 0, name);
}

static void open_trace(void)
{
	struct tl_trace_info info = { 0 };
	int fd;

	if (path[0])
		unlink(path); /* the previous test's */
	snprintf(path, sizeof(path), "/tmp/tl-test-frames-XXXXXX");
	fd = mkstemp(path);
	CHECK(fd >= 0);
	close(fd);
	snprintf(info.clock, sizeof(info.clock), "monotonic");
	snprintf(info.source, sizeof(info.source), "test");
	info.ncpus = 2;
	info.target_mode = TL_TARGET_COMMAND;
	info.ntargets = 1;
	info.targets[0] = 100;
	info.start_ns = T0;
	W = tl_trace_writer_create(path, &info);
	CHECK(W != NULL);
}

static void close_trace(uint64_t end_us)
{
	struct tl_trace_end end = { .end_ns = end_us * US, .ncpus = 2 };
	CHECK(tl_trace_writer_flush(W, end_us * US) == 0);
	CHECK(tl_trace_writer_close(W, &end) == 0);
}

/*
 * A pipeline in process 100: src (101) begins frames, sink (102) ends them,
 * helper (103) is forked during frame 2 and ends it.  other (300), another
 * process, preempts src once.  app (100) is alive but never works on a frame.
 *
 *  cpu0: 101 1000-1150 | 300 1150-1170 | 101 1170-1230 | idle | 101 1395-1470 | idle
 *  cpu1: 102 1000-1050 | idle | 102 1220-1330 | idle | 103 1450-1496 | idle
 *
 *  frame 1: 1100 (src) .. 1300 (sink); capture 1100-1200 (src), output 1250-1320 (sink)
 *  frame 2: 1400 (src) .. 1480 (helper); filter 1400-1420 and 1430-1460 (src),
 *           output 1460-1490 (helper, born 1440)
 *  frame 3: begun 1500, never ended
 *  frame 5: 1510 .. 1600 (both src); no id 4; an end of frame 9 that never began
 *  capture 1530-1540 in no frame
 */
static void write_pipeline(void)
{
	open_trace();
	ev(1000, -1, TL_EV_THREAD, 100, 100, 0, 0, 0, "app");
	ev(1000, -1, TL_EV_THREAD, 101, 100, 0, 0, 0, "src");
	ev(1000, -1, TL_EV_THREAD, 102, 100, 0, 0, 0, "sink");
	ev(1000, -1, TL_EV_THREAD, 300, 300, 0, 0, 0, "other");
	sw(1000, 0, 0, 0, 101);
	sw(1000, 1, 0, 0, 102);
	sw(1050, 1, 102, TL_PS_S, 0);
	mark(1100, TL_EV_FRAME_BEGIN, 101, 1, NULL);
	mark(1100, TL_EV_REGION_BEGIN, 101, 1, "capture");
	waking(1150, 0, 300, 0);
	sw(1150, 0, 101, 0, 300); /* preempted by the task woken just now */
	sw(1170, 0, 300, TL_PS_S, 101);
	mark(1200, TL_EV_REGION_END, 101, 0, "capture");
	ev(1210, 0, TL_EV_WAKING, 102, 101, 1, 120, 0, NULL);
	sw(1220, 1, 0, 0, 102);
	sw(1230, 0, 101, TL_PS_S, 0);
	mark(1250, TL_EV_REGION_BEGIN, 102, 1, "output");
	mark(1300, TL_EV_FRAME_END, 102, 1, NULL);
	mark(1320, TL_EV_REGION_END, 102, 0, "output"); /* the step outlasts the frame */
	sw(1330, 1, 102, TL_PS_S, 0);

	waking(1390, 0, 101, 0);
	sw(1395, 0, 0, 0, 101);
	mark(1400, TL_EV_FRAME_BEGIN, 101, 2, NULL);
	mark(1400, TL_EV_REGION_BEGIN, 101, 2, "filter");
	mark(1420, TL_EV_REGION_END, 101, 0, "filter");
	mark(1430, TL_EV_REGION_BEGIN, 101, 2, "filter");
	ev(1440, 0, TL_EV_FORK, 103, 101, 0, 0, 0, "helper");
	ev(1440, 0, TL_EV_WAKEUP_NEW, 103, 101, 1, 120, 0, NULL);
	sw(1450, 1, 0, 0, 103);
	mark(1460, TL_EV_REGION_END, 101, 0, "filter");
	mark(1460, TL_EV_REGION_BEGIN, 103, 2, "output");
	sw(1470, 0, 101, TL_PS_S, 0);
	mark(1480, TL_EV_FRAME_END, 103, 2, NULL);
	mark(1490, TL_EV_REGION_END, 103, 0, "output");
	ev(1495, 1, TL_EV_EXIT, 103, 0, 0, 0, 0, NULL);
	sw(1496, 1, 103, TL_PS_Z, 0);

	mark(1500, TL_EV_FRAME_BEGIN, 101, 3, NULL);
	mark(1510, TL_EV_FRAME_BEGIN, 101, 5, NULL);
	mark(1520, TL_EV_FRAME_END, 102, 9, NULL);
	mark(1530, TL_EV_REGION_BEGIN, 102, -1, "capture");
	mark(1540, TL_EV_REGION_END, 102, 0, "capture");
	mark(1600, TL_EV_FRAME_END, 101, 5, NULL);
	close_trace(2000);
}

/* Frames handed to on_frame, in order. */
static struct tl_frame got[MAXF];
static struct tl_frame_thread got_threads[MAXF][8];
static char got_steps[MAXF][4][32];
static int ngot;

static void on_frame(void *ctx, const struct tl_frame *f)
{
	if (ngot < MAXF) {
		got[ngot] = *f;
		for (size_t i = 0; i < f->nthreads && i < 8; i++)
			got_threads[ngot][i] = f->threads[i];
		for (size_t i = 0; i < f->nsteps && i < 4; i++)
			snprintf(got_steps[ngot][i], sizeof(got_steps[0][0]), "%s", f->steps[i].name);
		got[ngot].threads = got_threads[ngot];
		got[ngot].steps = NULL;
	}
	ngot++;
	(void)ctx;
}

/* The run of the last analysis: the window asked for, then the trace's summary. */
static struct tl_run run;

/* Analyse `path` in the window [from, to] from the trace start (to < 0: to the end). */
/* Every line of the text fits in 100 columns. */
static void check_fits_100(const char *buf)
{
	for (const char *l = buf; l && *l;) {
		const char *nl = strchr(l, '\n');
		size_t n = nl ? (size_t)(nl - l) : strlen(l);

		CHECK(n <= 100);
		l = nl ? nl + 1 : NULL;
	}
}

static int analyze_window(int64_t from, int64_t to, struct tl_frames_opts *o, struct tl_frames_result *r)
{
	int rc;

	tl_run_release(&run);
	run = (struct tl_run){ .path = path, .from_ns = from, .to_ns = to };
	ngot = 0;
	o->on_frame = on_frame;
	rc = tl_frames_analyze(&run, o, r);
	tl_run_close(&run);
	CHECK_EQ_INT(rc, 0);
	return rc;
}

static int analyze(struct tl_frames_opts *o, struct tl_frames_result *r)
{
	return analyze_window(0, -1, o, r);
}

static const struct tl_frame *frame_got(int64_t id)
{
	for (int i = 0; i < ngot && i < MAXF; i++)
		if (got[i].id == id)
			return &got[i];
	return NULL;
}

static const struct tl_frame_thread *fthread(const struct tl_frame *f, int32_t tid)
{
	for (size_t i = 0; f && i < f->nthreads; i++)
		if (f->threads[i].tid == tid)
			return &f->threads[i];
	return NULL;
}

static const struct tl_frames_step *step(const struct tl_frames_result *r, const char *name)
{
	for (size_t i = 0; i < r->nsteps; i++)
		if (!strcmp(r->steps[i].name, name))
			return &r->steps[i];
	return NULL;
}

static const struct tl_frames_thread *rthread(const struct tl_frames_result *r, int32_t tid)
{
	for (size_t i = 0; i < r->nthreads; i++)
		if (r->threads[i].tid == tid)
			return &r->threads[i];
	return NULL;
}

static uint64_t sum_states(const uint64_t *v)
{
	uint64_t s = 0;
	for (int i = 0; i < TL_ST__COUNT; i++)
		s += v[i];
	return s;
}

/*
 * A frame ended by two threads (two sinks): it ends at the last end.
 * src (101) begins frame 1 at 1000; sinkA (102) ends it at 1010, sinkB
 * (103) at 1020.  Frame 1 takes later ends for 1 ms after its last one
 * (its grace: its latency, at least 1 ms), so it is finished at the
 * trace's end, after frame 2 (1300 .. 1400).  Before, frame 1 read 10 us
 * and the second end counted as an end without a begin.
 */
TEST(ended_by_two_threads)
{
	struct tl_frames_opts o = { 0 };
	struct tl_frames_result r;
	const struct tl_frame *f;
	const struct tl_frame_thread *t;

	open_trace();
	ev(1000, -1, TL_EV_THREAD, 101, 100, 0, 0, 0, "src");
	ev(1000, -1, TL_EV_THREAD, 102, 100, 0, 0, 0, "sinkA");
	ev(1000, -1, TL_EV_THREAD, 103, 100, 0, 0, 0, "sinkB");
	sw(1000, 0, 0, 0, 101);
	sw(1000, 1, 0, 0, 102);
	mark(1000, TL_EV_FRAME_BEGIN, 101, 1, NULL);
	sw(1005, 0, 101, TL_PS_S, 103); /* src sleeps, sinkB runs on cpu0 */
	mark(1010, TL_EV_FRAME_END, 102, 1, NULL);
	sw(1012, 1, 102, TL_PS_S, 0);
	mark(1020, TL_EV_FRAME_END, 103, 1, NULL);
	sw(1025, 0, 103, TL_PS_S, 0);
	waking(1290, 0, 101, 0);
	sw(1295, 0, 0, 0, 101);
	mark(1300, TL_EV_FRAME_BEGIN, 101, 2, NULL);
	mark(1400, TL_EV_FRAME_END, 102, 2, NULL);
	sw(1450, 0, 101, TL_PS_S, 0);
	close_trace(1500);
	if (analyze(&o, &r))
		return;
	CHECK_EQ_INT(r.completed, 2);
	CHECK_EQ_INT(r.ends_without_begin, 0);
	f = frame_got(1);
	CHECK(f != NULL);
	if (f) {
		CHECK_EQ_INT(f->end, 1020 * US);
		CHECK_EQ_INT(f->ended_by, 103);
		CHECK_EQ_INT(f->nthreads, 3);
		t = fthread(f, 101);
		CHECK(t && t->to == 1020 * US);
		CHECK(t && t->state_ns[TL_ST_EXECUTING] == 5 * US && t->state_ns[TL_ST_SLEEPING] == 15 * US);
		t = fthread(f, 103); /* the last ender: on cpu0 from 1005 */
		CHECK(t && t->roles == TL_FROLE_ENDED && t->state_ns[TL_ST_EXECUTING] == 15 * US);
		t = fthread(f, 102);
		CHECK(t && t->state_ns[TL_ST_EXECUTING] == 12 * US && t->state_ns[TL_ST_SLEEPING] == 8 * US);
	}
	CHECK_EQ_INT(r.latency.max, 100 * US);
	CHECK_EQ_INT(r.latency.min, 20 * US);
	tl_frames_release(&r);
}

TEST(counts_throughput_latency)
{
	struct tl_frames_opts o = { .worst = 2 };
	struct tl_frames_result r;

	write_pipeline();
	if (analyze(&o, &r))
		return;
	CHECK_EQ_INT(r.begun, 4);
	CHECK_EQ_INT(r.completed, 3);
	CHECK_EQ_INT(r.unfinished, 1);
	CHECK_EQ_INT(r.nunfinished_ids, 1);
	CHECK_EQ_INT(r.unfinished_ids[0], 3);
	CHECK_EQ_INT(r.ends_without_begin, 1);
	CHECK_EQ_INT(r.id_min, 1);
	CHECK_EQ_INT(r.id_max, 5);
	CHECK_EQ_INT(r.ids_consecutive, 1);
	CHECK_EQ_INT(r.ids_skipped, 1);
	/* latencies 200, 80, 90 us */
	CHECK_EQ_INT(r.latency.count, 3);
	CHECK_EQ_INT(r.latency.min, 80 * US);
	CHECK_EQ_INT(r.latency.max, 200 * US);
	CHECK_EQ_INT(tl_dist_mean(&r.latency), 370 * US / 3);
	CHECK_EQ_INT(tl_dist_percentile(&r.latency, 50), 90 * US);
	/* 2 frames in the 300 us from the first end (1300) to the last (1600) */
	CHECK(r.fps > 6666.66 && r.fps < 6666.67);
	CHECK(r.fps_window > 2999.99 && r.fps_window < 3000.01); /* 3 in a 1 ms window */
	CHECK_EQ_INT(r.first_end, 1300 * US);
	CHECK_EQ_INT(r.last_end, 1600 * US);
	CHECK_EQ_INT(r.nbuckets, 1);
	CHECK_EQ_INT(r.buckets[0], 3);
	/* worst 2: frame 1 (200 us), then frame 5 (90 us) */
	CHECK_EQ_INT(r.nworst, 2);
	CHECK_EQ_INT(r.worst[0].id, 1);
	CHECK_EQ_INT(r.worst[1].id, 5);
	CHECK_EQ_INT(r.worst[0].nsteps, 2);
	/* every frame handed over once (they finish when their threads' intervals close) */
	CHECK_EQ_INT(ngot, 4);
	CHECK(frame_got(1) && frame_got(2) && frame_got(5) && frame_got(3));
	CHECK(frame_got(3) && frame_got(3)->complete == 0 && frame_got(3)->end == 2000 * US);
	CHECK_EQ_INT(run.spans.unmatched_ends, 1);
	tl_frames_release(&r);
}

TEST(steps_per_frame)
{
	struct tl_frames_opts o = { 0 };
	struct tl_frames_result r;
	const struct tl_frames_step *s;

	write_pipeline();
	if (analyze(&o, &r))
		return;
	CHECK_EQ_INT(r.nsteps, 3);
	s = step(&r, "capture");
	CHECK(s != NULL);
	if (s) {
		CHECK_EQ_INT(s->frames, 1);
		CHECK_EQ_INT(s->count, 1);
		CHECK_EQ_INT(s->ns, 100 * US);
		CHECK_EQ_INT(s->unframed, 1); /* the one outside any frame */
		CHECK_EQ_INT(s->nthreads, 2); /* src in frame 1, sink outside */
		CHECK_EQ_INT(s->kind, TL_SPAN_REGION);
	}
	s = step(&r, "filter");
	CHECK(s != NULL);
	if (s) {
		/* twice in frame 2: 20 + 30 us, summed per frame */
		CHECK_EQ_INT(s->frames, 1);
		CHECK_EQ_INT(s->count, 2);
		CHECK_EQ_INT(s->per_frame.count, 1);
		CHECK_EQ_INT(tl_dist_mean(&s->per_frame), 50 * US);
		CHECK_EQ_INT(s->nthreads, 1);
		CHECK_EQ_INT(s->threads[0].tid, 101);
		CHECK_EQ_INT(s->threads[0].count, 2);
	}
	s = step(&r, "output");
	CHECK(s != NULL);
	if (s) {
		/* 70 us in frame 1 (ends after the frame), 30 us in frame 2 */
		CHECK_EQ_INT(s->frames, 2);
		CHECK_EQ_INT(s->per_frame.min, 30 * US);
		CHECK_EQ_INT(s->per_frame.max, 70 * US);
		CHECK_EQ_INT(tl_dist_mean(&s->per_frame), 50 * US);
		CHECK_EQ_INT(s->nthreads, 2);
	}
	for (int i = 0; i < ngot && i < MAXF; i++)
		if (got[i].id == 2) {
			CHECK_EQ_INT(got[i].nsteps, 2);
			CHECK_EQ_STR(got_steps[i][0], "filter");
			CHECK_EQ_STR(got_steps[i][1], "output");
		}
	tl_frames_release(&r);
}

TEST(state_split_per_frame)
{
	struct tl_frames_opts o = { 0 };
	struct tl_frames_result r;
	const struct tl_frame *f;
	const struct tl_frame_thread *t;
	const struct tl_frames_thread *rt;

	write_pipeline();
	if (analyze(&o, &r))
		return;
	/* frame 1, 1100-1300: src and sink worked on it, app did not */
	f = frame_got(1);
	CHECK(f != NULL);
	CHECK_EQ_INT(f ? f->nthreads : 0, 2);
	CHECK(f && f->threads[0].tid == 101); /* the beginner first */
	t = fthread(f, 101);
	CHECK(t != NULL);
	if (t) {
		CHECK_EQ_INT(t->roles, TL_FROLE_BEGAN | TL_FROLE_STEPS);
		CHECK_EQ_INT(t->from, 1100 * US);
		CHECK_EQ_INT(t->to, 1300 * US);
		CHECK_EQ_INT(t->state_ns[TL_ST_EXECUTING], 110 * US);    /* 1100-1150, 1170-1230 */
		CHECK_EQ_INT(t->state_ns[TL_ST_READY_PREEMPT], 20 * US); /* 1150-1170 */
		CHECK_EQ_INT(t->state_ns[TL_ST_SLEEPING], 70 * US);      /* 1230-1300 */
		CHECK_EQ_INT(sum_states(t->state_ns), 200 * US);
		CHECK_EQ_STR(t->name, "src");
	}
	t = fthread(f, 102);
	CHECK(t != NULL);
	if (t) {
		CHECK_EQ_INT(t->roles, TL_FROLE_ENDED | TL_FROLE_STEPS);
		CHECK_EQ_INT(t->state_ns[TL_ST_SLEEPING], 110 * US); /* 1100-1210 */
		CHECK_EQ_INT(t->state_ns[TL_ST_RUNNABLE], 10 * US);  /* 1210-1220 */
		CHECK_EQ_INT(t->state_ns[TL_ST_EXECUTING], 80 * US); /* 1220-1300 */
	}
	CHECK(fthread(f, 100) == NULL);
	CHECK(fthread(f, 300) == NULL);

	/* frame 2, 1400-1480: helper was born at 1440 and counts from then */
	f = frame_got(2);
	t = fthread(f, 103);
	CHECK(t != NULL);
	if (t) {
		CHECK_EQ_INT(t->roles, TL_FROLE_ENDED | TL_FROLE_STEPS);
		CHECK_EQ_INT(t->from, 1440 * US);
		CHECK_EQ_INT(t->state_ns[TL_ST_RUNNABLE], 10 * US);  /* 1440-1450 */
		CHECK_EQ_INT(t->state_ns[TL_ST_EXECUTING], 30 * US); /* 1450-1480 */
		CHECK_EQ_INT(sum_states(t->state_ns), 40 * US);
	}
	t = fthread(f, 101);
	CHECK(t != NULL);
	if (t) {
		CHECK_EQ_INT(t->state_ns[TL_ST_EXECUTING], 70 * US);
		CHECK_EQ_INT(t->state_ns[TL_ST_SLEEPING], 10 * US);
	}
	CHECK(fthread(f, 102) == NULL);

	/* the unfinished frame 3 is cut at the trace end: src slept from 1470 */
	f = frame_got(3);
	t = fthread(f, 101);
	CHECK(t != NULL);
	if (t) {
		CHECK_EQ_INT(t->state_ns[TL_ST_SLEEPING], 500 * US);
		CHECK_EQ_INT(t->to, 2000 * US);
	}

	/* per thread, over complete frames 1, 2 and 5 */
	rt = rthread(&r, 101);
	CHECK(rt != NULL);
	if (rt) {
		CHECK_EQ_INT(rt->frames, 3);
		CHECK_EQ_INT(rt->began, 3);
		CHECK_EQ_INT(rt->ended, 1);
		CHECK_EQ_INT(rt->stepped, 2);
		CHECK_EQ_INT(rt->state_ns[TL_ST_EXECUTING], 180 * US);
		CHECK_EQ_INT(rt->state_ns[TL_ST_SLEEPING], 170 * US); /* 70 + 10 + 90 */
		CHECK_EQ_INT(rt->pid, 100);
	}
	rt = rthread(&r, 100);
	CHECK(rt != NULL && rt->frames == 0);
	tl_frames_release(&r);
}

TEST(window_and_intervals)
{
	struct tl_frames_opts o = { .interval_ns = 250 * US };
	struct tl_frames_result r;

	write_pipeline();
	/* from 1350: frame 1 began before the window and is left out, without an "end without begin" */
	if (analyze_window(350 * US, -1, &o, &r))
		return;
	CHECK_EQ_INT(r.begun, 3);
	CHECK_EQ_INT(r.completed, 2);
	CHECK_EQ_INT(r.ends_without_begin, 1);
	CHECK(step(&r, "capture") == NULL || step(&r, "capture")->frames == 0);
	/* 650 us from 1350: intervals 1350, 1600, 1850; frame 2 ends at 1480, frame 5 at 1600 */
	CHECK_EQ_INT(r.nbuckets, 3);
	CHECK_EQ_INT(r.buckets[0], 1);
	CHECK_EQ_INT(r.buckets[1], 1);
	CHECK_EQ_INT(r.buckets[2], 0);
	tl_frames_release(&r);

	/* to 1550: frame 5 is still open at the end of the window */
	o = (struct tl_frames_opts){ 0 };
	if (analyze_window(0, 550 * US, &o, &r))
		return;
	CHECK_EQ_INT(r.begun, 4);
	CHECK_EQ_INT(r.completed, 2);
	CHECK_EQ_INT(r.unfinished, 2);
	CHECK_EQ_INT(run.win_end, 1550 * US);
	tl_frames_release(&r);
}

TEST(step_filter)
{
	const char *only[] = { "output" };
	struct tl_frames_opts o = { .steps = only, .nsteps = 1 };
	struct tl_frames_result r;
	const struct tl_frame *f;

	write_pipeline();
	if (analyze(&o, &r))
		return;
	CHECK_EQ_INT(r.nsteps, 1);
	CHECK_EQ_STR(r.steps[0].name, "output");
	f = frame_got(2);
	CHECK(f && f->nsteps == 1);
	/* src's filter steps no longer make it a stepper of frame 2 */
	CHECK(fthread(f, 101) && fthread(f, 101)->roles == TL_FROLE_BEGAN);
	tl_frames_release(&r);
}

TEST(picked_frames_and_json)
{
	int64_t ids[] = { 2 };
	struct tl_frames_opts o = { .worst = 1, .frame_ids = ids, .nframe_ids = 1 };
	struct tl_frames_result r;
	struct tl_json j;
	char *buf = NULL;
	size_t len = 0;
	FILE *mem;

	write_pipeline();
	if (analyze(&o, &r))
		return;
	CHECK_EQ_INT(r.npicked, 1);
	CHECK_EQ_INT(r.picked[0].id, 2);
	CHECK_EQ_INT(r.picked[0].nthreads, 2);
	mem = open_memstream(&buf, &len);
	tl_json_init(&j, mem, TL_JSON_PRETTY);
	tl_frames_write_json_begin(&j);
	for (int i = 0; i < ngot && i < MAXF; i++) {
		struct tl_frame f = got[i];
		f.nsteps = 0; /* the step names were not kept */
		tl_frames_write_json_frame(&j, &f, T0);
	}
	tl_frames_write_json_end(&j, &r);
	CHECK_EQ_INT(tl_json_finish(&j), 0);
	fclose(mem);
	CHECK(tl_json_check(buf, len) == 0);
	CHECK(strstr(buf, "\"schema\": \"threadlens-frames\"") != NULL);
	CHECK(strstr(buf, "\"skipped\": 1") != NULL);
	free(buf);
	buf = NULL;
	mem = open_memstream(&buf, &len);
	CHECK_EQ_INT(tl_frames_write_text(mem, &r, NULL), 0);
	fclose(mem);
	CHECK(strstr(buf, "frame 2: 80.0us") != NULL);
	check_fits_100(buf); /* every line fits in 100 columns */
	free(buf);
	tl_frames_release(&r);
}

/* Frame ids that are not consecutive integers, and reused ones. */
TEST(id_gaps)
{
	struct tl_frames_opts o = { 0 };
	struct tl_frames_result r;
	int64_t sparse[] = { 10, 1000, 5000 };

	open_trace();
	ev(1000, -1, TL_EV_THREAD, 101, 100, 0, 0, 0, "src");
	for (int i = 0; i < 3; i++) {
		mark(1100 + 10 * (uint64_t)i, TL_EV_FRAME_BEGIN, 101, sparse[i], NULL);
		mark(1105 + 10 * (uint64_t)i, TL_EV_FRAME_END, 101, sparse[i], NULL);
	}
	close_trace(1200);
	if (analyze(&o, &r))
		return;
	CHECK_EQ_INT(r.completed, 3);
	CHECK_EQ_INT(r.ids_consecutive, 0);
	tl_frames_release(&r);

	open_trace();
	ev(1000, -1, TL_EV_THREAD, 101, 100, 0, 0, 0, "src");
	for (int i = 0; i < 4; i++) { /* ids 0, 1, 0, 1: reused */
		mark(1100 + 10 * (uint64_t)i, TL_EV_FRAME_BEGIN, 101, i % 2, NULL);
		mark(1105 + 10 * (uint64_t)i, TL_EV_FRAME_END, 101, i % 2, NULL);
	}
	close_trace(1200);
	if (analyze(&o, &r))
		return;
	CHECK_EQ_INT(r.completed, 4);
	CHECK_EQ_INT(r.ids_consecutive, 0);
	CHECK_EQ_INT(tl_dist_mean(&r.latency), 5 * US);
	tl_frames_release(&r);
}

/* Many frames, overlapping three at a time: exact counts, memory stays small. */
TEST(many_frames)
{
	struct tl_frames_opts o = { .worst = 3 };
	struct tl_frames_result r;
	const int n = 3000;

	open_trace();
	ev(1000, -1, TL_EV_THREAD, 101, 100, 0, 0, 0, "src");
	ev(1000, -1, TL_EV_THREAD, 102, 100, 0, 0, 0, "sink");
	sw(1000, 0, 0, 0, 101);
	for (int i = 0; i < n; i++) {
		uint64_t t = 1000 + 10 * (uint64_t)i;
		mark(t, TL_EV_FRAME_BEGIN, 101, i, NULL);
		if (i >= 2) { /* frame i-2 ends 20 us (+ i%7) after it began, in sink, inside a region */
			mark(t + 1, TL_EV_REGION_BEGIN, 102, i - 2, "sink");
			mark(t + 2 + (uint64_t)(i % 7), TL_EV_FRAME_END, 102, i - 2, NULL);
			mark(t + 9, TL_EV_REGION_END, 102, 0, "sink");
		}
	}
	close_trace(1000 + 10 * (uint64_t)n + 100);
	if (analyze(&o, &r))
		return;
	CHECK_EQ_INT(r.begun, n);
	CHECK_EQ_INT(r.completed, n - 2);
	CHECK_EQ_INT(r.unfinished, 2);
	CHECK_EQ_INT(r.ids_skipped, 0);
	CHECK_EQ_INT(r.latency.min, 22 * US);
	CHECK_EQ_INT(r.latency.max, 28 * US);
	CHECK_EQ_INT(r.nworst, 3);
	CHECK_EQ_INT(r.worst[0].end - r.worst[0].begin, 28 * US);
	CHECK_EQ_INT(r.steps[0].frames, n - 2);
	CHECK_EQ_INT(tl_dist_mean(&r.steps[0].per_frame), 8 * US);
	tl_frames_release(&r);
}

/*
 * The kernel dropped a switch-in: 101 is woken at 1100 and a RUNTIME event
 * at 1150 reveals that it has run since 1110, before the frame's begin at
 * 1120.  The frame's split must use the revised history: executing all
 * along (a difference of provisional totals would count 10 us twice).
 */
TEST(revised_state_at_begin)
{
	struct tl_frames_opts o = { 0 };
	struct tl_frames_result r;
	const struct tl_frame_thread *t;

	open_trace();
	ev(1000, -1, TL_EV_THREAD, 101, 100, 0, 0, 0, "src");
	sw(1000, 0, 101, TL_PS_S, 0);
	waking(1100, 0, 101, 0);
	mark(1120, TL_EV_FRAME_BEGIN, 101, 1, NULL);
	ev(1150, 0, TL_EV_RUNTIME, 101, 0, 40 * US, 0, 0, NULL);
	mark(1180, TL_EV_FRAME_END, 101, 1, NULL);
	sw(1200, 0, 101, TL_PS_S, 0);
	close_trace(1300);
	if (analyze(&o, &r))
		return;
	CHECK_EQ_INT(r.completed, 1);
	t = fthread(frame_got(1), 101);
	CHECK(t != NULL);
	if (t) {
		CHECK_EQ_INT(t->state_ns[TL_ST_EXECUTING], 60 * US);
		CHECK_EQ_INT(t->state_ns[TL_ST_RUNNABLE], 0);
		CHECK_EQ_INT(sum_states(t->state_ns), 60 * US);
	}
	tl_frames_release(&r);
}

/*
 * 400 frames, 10 ms apart, 3 s: sink ends them but the trace never shows it
 * change state, and app never does anything.  Frames stop waiting for
 * sink's interval 1 s after their end, and app does not hold them at all:
 * about 100 frames are held at once, not 400.
 */
TEST(memory_bounded)
{
	struct tl_frames_opts o = { 0 };
	struct tl_frames_result r;
	const int n = 400;

	open_trace();
	ev(1000, -1, TL_EV_THREAD, 100, 100, 0, 0, 0, "app");
	ev(1000, -1, TL_EV_THREAD, 101, 100, 0, 0, 0, "src");
	ev(1000, -1, TL_EV_THREAD, 102, 100, 0, 0, 0, "sink");
	sw(1000, 0, 0, 0, 101);
	for (int i = 0; i < n; i++) {
		uint64_t t = 2000 + 10000 * (uint64_t)i;
		mark(t, TL_EV_FRAME_BEGIN, 101, i, NULL);
		mark(t + 500, TL_EV_FRAME_END, 102, i, NULL);
	}
	close_trace(2000 + 10000 * (uint64_t)n);
	if (analyze(&o, &r))
		return;
	CHECK_EQ_INT(r.completed, n);
	CHECK(r.max_held >= 100 && r.max_held <= 102);
	CHECK(frame_got(0) && frame_got(0)->nthreads == 2);
	CHECK(frame_got(0) && sum_states(frame_got(0)->threads[1].state_ns) == 500 * US);
	tl_frames_release(&r);
}

TEST(no_markers)
{
	struct tl_frames_opts o = { 0 };
	struct tl_frames_result r;

	open_trace();
	sw(1000, 0, 0, 0, 101);
	sw(1100, 0, 101, TL_PS_S, 0);
	close_trace(1200);
	if (analyze(&o, &r))
		return;
	CHECK_EQ_INT(r.begun, 0);
	CHECK_EQ_INT(r.completed, 0);
	CHECK_EQ_INT(r.fps, 0);
	CHECK_EQ_INT(r.nsteps, 0);
	tl_frames_release(&r);
}

static void cleanup(void)
{
	if (path[0])
		unlink(path);
}

/* The stream a command uses: every frame in the document, then the rest, valid JSON. */
TEST(json_stream)
{
	struct tl_frames_opts o = { 0 };
	struct tl_frames_json_stream js;
	struct tl_frames_result r;
	struct tl_run rs = { .to_ns = -1 };
	char *buf = NULL, *at;
	size_t len = 0;
	int frames = 0;
	FILE *mem;

	write_pipeline();
	rs.path = path;
	mem = open_memstream(&buf, &len);
	tl_frames_write_json_stream(&js, mem, &rs, &o);
	CHECK(o.ctx == &js && o.on_frame != NULL);
	CHECK_EQ_INT(tl_frames_analyze(&rs, &o, &r), 0);
	CHECK_EQ_INT(tl_frames_write_json_finish(&js, &r), 0);
	fclose(mem);
	CHECK(tl_json_check(buf, len) == 0);
	for (at = buf; (at = strstr(at, "\"id\": ")) && at < strstr(buf, "\"trace\""); at++)
		frames++;
	CHECK_EQ_INT(frames, (int)r.begun); /* each frame once, before the summary */
	CHECK(strstr(buf, "\"path\": \"") != NULL);
	free(buf);
	tl_frames_release(&r);
	tl_run_release(&rs);
}

/*
 * The widest row of the steps table: a step name over STEP_W, run by
 * three threads in the frame, the first named with 15 characters: the name
 * is cut, the thread cut to 10 and "+2" follow, and the row fits 100
 * columns.
 */
TEST(wide_step_row)
{
	static const char *step_name = "a_step_name_much_longer_than_twenty";
	struct tl_frames_opts o = { 0 };
	struct tl_frames_result r;
	char *buf = NULL;
	size_t len = 0;
	FILE *mem;

	open_trace();
	ev(1000, -1, TL_EV_THREAD, 101, 100, 0, 0, 0, "fifteen-chars-x");
	ev(1000, -1, TL_EV_THREAD, 102, 100, 0, 0, 0, "w1");
	ev(1000, -1, TL_EV_THREAD, 103, 100, 0, 0, 0, "w2");
	mark(1100, TL_EV_FRAME_BEGIN, 101, 1, NULL);
	for (int32_t tid = 101; tid <= 103; tid++) {
		mark(1110, TL_EV_REGION_BEGIN, tid, 1, step_name);
		mark(1190, TL_EV_REGION_END, tid, 0, step_name);
	}
	mark(1200, TL_EV_FRAME_END, 101, 1, NULL);
	close_trace(1300);
	CHECK_EQ_INT(analyze(&o, &r), 0);
	mem = open_memstream(&buf, &len);
	CHECK(mem != NULL);
	if (!mem)
		return;
	CHECK_EQ_INT(tl_frames_write_text(mem, &r, NULL), 0);
	fclose(mem);
	CHECK(strstr(buf, "\na_step_name_much_lo~ region       1    3.00     240us") != NULL);
	CHECK(strstr(buf, "  fifteen-c~ +2\n") != NULL);
	check_fits_100(buf);
	free(buf);
	tl_frames_release(&r);
}

int main(void)
{
	atexit(cleanup);
	RUN_TESTS(wide_step_row, ended_by_two_threads, counts_throughput_latency, steps_per_frame,
	          state_split_per_frame, window_and_intervals, step_filter, picked_frames_and_json, json_stream,
	          id_gaps, many_frames, revised_state_at_begin, memory_bounded, no_markers);
}
