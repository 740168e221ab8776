/*
 * test_frames_width.c - `threadlens frames` text fits its width: every
 * line of a result with every part (marker trouble, unfinished frames, a
 * long step, threads in all six state groups, a frame in full) is at most
 * the width for any width from 80 up, and the narrowed tables are exactly
 * as frames_write.c's header says.  The result is built here field by
 * field, so the expectations follow from the fixture alone.
 */
#include <stdlib.h>
#include <string.h>

#include "analysis/frames/frames.h"
#include "base/errors.h"
#include "harness.h"

#define MS 1000000ull
#define T0 1000000000000ull

struct fixture {
	struct tl_run run;
	struct tl_frames_result r;
	struct tl_frames_step steps[2];
	struct tl_frames_thread threads[3];
	struct tl_frame worst[1];
	struct tl_frame_step fsteps[6];
	struct tl_frame_thread fthreads[3];
	uint64_t buckets[2];
};

/* One state per group: exec, ready, sync, sleep, io, other. */
static const unsigned group_state[6] = { TL_ST_EXECUTING, TL_ST_RUNNABLE, TL_ST_SYNC_WAIT,
	                                 TL_ST_SLEEPING,  TL_ST_IO_WAIT,  TL_ST_UNKNOWN };

/*
 * 150 frames begun in a 1.5 s trace, 148 complete; threads tid 1234567..9
 * ("decode-worker-N") in group g (exec, ready, sync, sleep, io) for (6 - g)
 * ms per frame over 148 frames and 0.5 ms in other, so io (2 ms a frame)
 * has the least time but other.  In the frame in full, (6 - g) ms in each.
 */
static void fixture_init(struct fixture *fx)
{
	struct tl_frames_result *r = &fx->r;

	memset(fx, 0, sizeof(*fx));
	fx->run.path = "/a/directory/with/a/rather/long/path/name/to/the/recording-of-the-pipeline.tl";
	fx->run.info.ncpus = 2;
	fx->run.read.complete = 1;
	fx->run.trace_start = fx->run.win_start = T0;
	fx->run.trace_end = fx->run.win_end = T0 + 1500 * MS;
	fx->run.spans.marks_lost = 1234567, fx->run.spans.unmatched_ends = 7654321;
	fx->run.spans.mismatched_ends = 42;
	r->run = &fx->run;
	r->begun = 150, r->completed = 148, r->unfinished = 2, r->ends_without_begin = 1;
	r->nunfinished_ids = 2, r->unfinished_ids[0] = 1234567890123, r->unfinished_ids[1] = 1234567890124;
	r->id_min = 1234567889975, r->id_max = 1234567890124, r->ids_consecutive = 1;
	r->fps = 98.765, r->fps_window = 98.667;
	r->interval_ns = 1000 * MS, r->nbuckets = 2, r->buckets = fx->buckets;
	fx->buckets[0] = 100, fx->buckets[1] = 48;
	tl_dist_add(&r->latency, 12345 * 1000);
	tl_dist_add(&r->latency, 23456 * 1000);

	fx->steps[0].name = "main._omp_fn.0_outlined_by_the_compiler";
	fx->steps[0].kind = TL_SPAN_REGION;
	fx->steps[0].frames = 148, fx->steps[0].count = 148 * 5;
	fx->steps[0].nthreads = 3, fx->steps[0].other_threads_count = 1;
	fx->steps[0].threads[0].row = 0;
	tl_dist_add(&fx->steps[0].per_frame, 10 * MS);
	fx->steps[1].name = "write";
	fx->steps[1].kind = TL_SPAN_TASK;
	fx->steps[1].frames = 148, fx->steps[1].count = 148;
	fx->steps[1].nthreads = 1;
	fx->steps[1].threads[0].row = 2;
	tl_dist_add(&fx->steps[1].per_frame, 7 * MS);
	r->steps = fx->steps, r->nsteps = 2;

	for (int i = 0; i < 3; i++) {
		struct tl_frames_thread *t = &fx->threads[i];

		t->tid = 1234567 + i, t->pid = 1234567;
		snprintf(t->name, sizeof(t->name), "decode-worker-%d", i + 1);
		t->frames = 148, t->stepped = 148;
		for (unsigned g = 0; g < 6; g++)
			t->state_ns[group_state[g]] = 148 * (g == 5 ? MS / 2 : (6 - g) * MS);
	}
	fx->threads[0].began = 148;
	fx->threads[2].ended = 148;
	r->threads = fx->threads, r->nthreads = 3;

	fx->worst[0] = (struct tl_frame){ .id = 1234567890000,
		                          .begin = T0 + 100 * MS,
		                          .end = T0 + 130 * MS,
		                          .began_by = 1234567,
		                          .ended_by = 1234569,
		                          .complete = 1,
		                          .nsteps = 6,
		                          .nthreads = 3,
		                          .steps = fx->fsteps,
		                          .threads = fx->fthreads };
	for (int i = 0; i < 6; i++)
		fx->fsteps[i] = (struct tl_frame_step){
			.name = i % 2 ? "write" : "main._omp_fn.0_outlined_by_the_compiler", .count = 5, .ns = 1234567
		};
	for (int i = 0; i < 3; i++) {
		struct tl_frame_thread *t = &fx->fthreads[i];

		t->tid = fx->threads[i].tid, t->row = (uint32_t)i;
		strcpy(t->name, fx->threads[i].name);
		t->roles = TL_FROLE_STEPS;
		for (unsigned g = 0; g < 6; g++)
			t->state_ns[group_state[g]] = (6 - g) * MS;
	}
	r->worst = fx->worst, r->nworst = 1;
}

static void fixture_release(struct fixture *fx)
{
	tl_dist_release(&fx->r.latency);
	for (int i = 0; i < 2; i++)
		tl_dist_release(&fx->steps[i].per_frame);
}

static char *render(const struct tl_frames_result *r, int width)
{
	struct tl_frames_text_opts o = { .width = width };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int rc;

	if (!f)
		return NULL;
	rc = tl_frames_write_text(f, r, &o);
	fclose(f);
	if (rc) {
		fprintf(stderr, "  writer failed: %s\n", tl_error_msg());
		free(buf);
		return NULL;
	}
	return buf;
}

TEST(every_line_fits)
{
	struct fixture fx;

	fixture_init(&fx);
	for (int w = 80; w <= 130; w++) {
		char *s = render(&fx.r, w);
		int most = s ? harness_widest(s) : -1;

		if (most < 0 || most > w) {
			fprintf(stderr, "  width %d: a line of %d columns\n", w, most);
			harness_failed = 1;
		}
		free(s);
	}
	fixture_release(&fx);
}

TEST(narrow_tables)
{
	struct fixture fx;
	char *s;

	fixture_init(&fx);
	s = render(&fx.r, 80);
	/* steps: durations in 8 columns, no p50; the thread's name cut to leave room for " +2+" (11 columns) */
	CHECK_HAS(s, "\nstep                 kind    frames n/frame    mean     p99     max  threads\n"
	             "main._omp_fn.0_outl~ region     148    5.00  10.0ms  10.0ms  10.0ms  decode~ +2+\n"
	             "write                task       148    1.00  7.00ms  7.00ms  7.00ms  decode-wo~\n");
	/* threads: columns of 8; io, the least time but other, goes into other+ (2 + 0.5 ms a frame) */
	CHECK_HAS(s, "\nthread               tid  frames roles    exec   ready    sync   sleep  other+\n"
	             "decode-worker-1  1234567     148   b-s  6.00ms  5.00ms  4.00ms  3.00ms  2.50ms\n");
	CHECK_HAS(s, "\nother+: also io (--width 86 shows each)\n");
	/* the frame in full: 32 + 6 columns of 8 fit in 80 */
	CHECK_HAS(s, "\n  thread               tid roles    exec   ready    sync   sleep      io   other\n"
	             "  decode-worker-1  1234567   --s  6.00ms  5.00ms  4.00ms  3.00ms  2.00ms  1.00ms\n");
	/* prose wrapped */
	CHECK_HAS(s, "\nmarkers  1234567 lost by the program, 7654321 ends without a begin, 42 ends out\n"
	             "         of order\n");
	CHECK_HAS(s, "\nframe 1234567890000: 30.0ms, 0.100s to 0.130s, began by decode-worker-1\n"
	             "                     (1234567), ended by decode-worker-3 (1234569)\n");
	free(s);
	/* 86 columns: every group, in columns of 8; 92: of 9 */
	s = render(&fx.r, 86);
	CHECK_HAS(s, "\nthread               tid  frames roles    exec   ready    sync   sleep      io   other\n");
	free(s);
	s = render(&fx.r, 92);
	CHECK_HAS(s,
	          "\nthread               tid  frames roles     exec    ready     sync    sleep       io    other\n");
	free(s);
	/* from 100 the steps table has every column; at 99 not */
	s = render(&fx.r, 99);
	CHECK_HAS(s, "\nstep                 kind    frames n/frame    mean     p99     max  threads\n");
	free(s);
	s = render(&fx.r, 100);
	CHECK_HAS(s, "\nstep                 kind    frames n/frame      mean       p50       p99       max  threads\n"
	             "main._omp_fn.0_outl~ region     148    5.00    10.0ms    10.0ms    10.0ms    10.0ms  "
	             "decode-wo~ +2+\n");
	free(s);
	fixture_release(&fx);
}

int main(void)
{
	RUN_TESTS(every_line_fits, narrow_tables);
}
