/*
 * test_predict.c - analysis/predict: directives parsing, and predictions
 * on hand-made task traces whose schedules are worked out by hand in the
 * comments: static, dynamic and guided loops, the runtime costs of a
 * region, critical sections, num_threads below the cores.  Every
 * prediction also checks the identity: the categories sum to cores x time.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "event_build.h"
#include "harness.h"

#include "analysis/predict/predict.h"
#include "base/errors.h"

#define PID 100
#define TID 101

static struct tl_trace_writer *W;

static void task(uint64_t us, unsigned type, const char *name)
{
	struct tl_event e = event_us(us, -1, type, TID, 0, -1, 0, 0, 0);

	e.name = tl_trace_writer_intern(W, name);
	tl_trace_writer_add(W, &e);
}

/* A task event at ns nanoseconds after 1000 us. */
static void task_ns(uint64_t ns, unsigned type, const char *name)
{
	struct tl_event e = event_us(1000, -1, type, TID, 0, -1, 0, 0, 0);

	e.ts += ns;
	e.name = tl_trace_writer_intern(W, name);
	tl_trace_writer_add(W, &e);
}

/* Predict the trace at path with directives text, for 1..n cores, with costs (NULL: none). */
static int run_predict(const char *path, const char *text, const struct tl_platform *pf, int n,
                       struct tl_predict_result *r)
{
	struct tl_directives d;
	struct tl_run run = { .path = path, .to_ns = -1, .all_threads = 1 };
	struct tl_predict_opts o = { .dirs = &d, .pf = pf, .max_cores = n };
	int rc;

	if (tl_directives_parse(text, "test", &d) < 0)
		return -1;
	rc = tl_predict(&run, &o, r);
	tl_run_release(&run);
	tl_directives_release(&d);
	if (rc == 0) /* the identity, for every core count */
		for (size_t i = 0; i < r->np; i++) {
			uint64_t sum = 0;
			for (int c = 0; c < TL_PC__COUNT; c++)
				sum += r->p[i].core_ns[c];
			CHECK_EQ_INT(sum, (uint64_t)r->p[i].cores * r->p[i].time_ns);
		}
	return rc;
}

/* A loop task "loop" from 1000 us with iterations "it" of the given lengths (us), back to back. */
static void loop_trace(char *path, const uint64_t *len, int m)
{
	uint64_t t = 1000;

	W = program_trace_open(path, PID, 900);
	task(t, TL_EV_TASK_BEGIN, "loop");
	for (int i = 0; i < m; i++) {
		task(t, TL_EV_TASK_BEGIN, "it");
		t += len[i];
		task(t, TL_EV_TASK_END, "it");
	}
	task(t, TL_EV_TASK_END, "loop");
	program_trace_close(W, t + 10);
}

TEST(directives)
{
	struct tl_directives d;

	CHECK_EQ_INT(tl_directives_parse("# a scenario\n"
	                                 "frame = parallel num_threads(4)\n"
	                                 "rows = #pragma omp for schedule(dynamic, 2)  # comment\n"
	                                 "\n"
	                                 "  both=parallel for schedule( guided )\n"
	                                 "total = critical\n"
	                                 "sync = barrier\n"
	                                 "once = single\n",
	                                 "s.omp", &d),
	             0);
	CHECK_EQ_INT(d.n, 6);
	if (d.n == 6) {
		CHECK(d.d[0].kinds == TL_DIR_PARALLEL && d.d[0].num_threads == 4 && d.d[0].line == 2);
		CHECK(d.d[1].kinds == TL_DIR_FOR && d.d[1].schedule == TL_SCHED_DYNAMIC && d.d[1].chunk == 2);
		CHECK(d.d[2].kinds == (TL_DIR_PARALLEL | TL_DIR_FOR) && d.d[2].schedule == TL_SCHED_GUIDED &&
		      d.d[2].chunk == 0 && d.d[2].line == 5);
		CHECK(d.d[3].kinds == TL_DIR_CRITICAL && d.d[4].kinds == TL_DIR_BARRIER &&
		      d.d[5].kinds == TL_DIR_SINGLE);
		CHECK(tl_directives_find(&d, "rows") == &d.d[1] && !tl_directives_find(&d, "nope"));
	}
	tl_directives_release(&d);
	/* errors name the line */
	CHECK_EQ_INT(tl_directives_parse("a = parallel\nb = paralel\n", "s.omp", &d), -1);
	CHECK_EQ_STR(
	        tl_error_msg(),
	        "directives s.omp, line 2: unknown directive (parallel, for, critical, barrier, single) 'paralel'");
	CHECK_EQ_INT(tl_directives_parse("a = for schedule(often)\n", "s.omp", &d), -1);
	CHECK_EQ_STR(tl_error_msg(), "directives s.omp, line 1: unknown schedule (static, dynamic or guided) 'often'");
	CHECK_EQ_INT(tl_directives_parse("a = parallel num_threads(0)\n", "s.omp", &d), -1);
	CHECK_EQ_STR(tl_error_msg(), "directives s.omp, line 1: a number from 1 expected in num_threads");
	CHECK_EQ_INT(tl_directives_parse("a = critical schedule(static)\n", "s.omp", &d), -1);
	CHECK_EQ_STR(tl_error_msg(), "directives s.omp, line 1: unknown or misplaced clause 'schedule'");
	CHECK_EQ_INT(tl_directives_parse("a parallel\n", "s.omp", &d), -1);
	CHECK_EQ_STR(tl_error_msg(), "directives s.omp, line 1: '=' expected in a directive line (TASK = DIRECTIVE)");
	CHECK_EQ_INT(tl_directives_parse("a = for\na = critical\n", "s.omp", &d), -1);
	CHECK_EQ_STR(tl_error_msg(), "directives s.omp, line 2: a second directive for task 'a'");
	CHECK_EQ_INT(tl_directives_parse("# nothing\n", "s.omp", &d), -1);
}

/*
 * Four iterations of 25 us, `parallel for` static, no costs: 100 us on 1
 * core, 50 on 2 (blocks of 2), 50 on 3 (blocks of 2: the third thread has
 * none, 50 us LIMITED), 25 on 4.
 */
TEST(static_blocks)
{
	char path[] = "/tmp/tl-test-predict-XXXXXX";
	const uint64_t len[4] = { 25, 25, 25, 25 };
	struct tl_predict_result r;

	loop_trace(path, len, 4);
	CHECK_EQ_INT(run_predict(path, "loop = parallel for\n", NULL, 4, &r), 0);
	CHECK_EQ_INT(r.seq_ns, 100000);
	CHECK_EQ_INT(r.tasks, 5);
	CHECK_EQ_INT(r.np, 4);
	if (r.np == 4) {
		CHECK_EQ_INT(r.p[0].time_ns, 100000);
		CHECK_EQ_INT(r.p[1].time_ns, 50000);
		CHECK_EQ_INT(r.p[2].time_ns, 50000);
		CHECK_EQ_INT(r.p[2].core_ns[TL_PC_LIMITED], 50000);
		CHECK_EQ_INT(r.p[2].core_ns[TL_PC_PARALLEL], 100000);
		CHECK_EQ_INT(r.p[3].time_ns, 25000);
		CHECK(r.p[3].speedup == 4.0 && r.p[3].amdahl == 4.0);
	}
	CHECK_EQ_INT(r.nregions, 1);
	if (r.nregions == 1) {
		CHECK_EQ_STR(r.regions[0].task, "loop");
		CHECK_EQ_INT(r.regions[0].instances, 1);
		CHECK_EQ_INT(r.regions[0].time_ns[1], 50000);
	}
	tl_predict_release(&r);
	unlink(path);
}

/*
 * Iterations of 10, 20, 30, 40 us on 2 cores, no costs:
 *   static:    [10 20] [30 40]: 30 and 70, time 70, imbalance 40;
 *   static,1:  [10 30] [20 40]: 40 and 60, time 60, imbalance 20;
 *   dynamic:   t0 10, t1 20, t0 takes 30 at 10 (to 40), t1 40 at 20 (to 60): time 60, imbalance 20;
 *   guided:    t0 takes 2 (10 20), t1 takes 1 (30), t0 at 30 the last (40, to 70): time 70, imbalance 40.
 */
TEST(schedules)
{
	char path[] = "/tmp/tl-test-predict-XXXXXX";
	const uint64_t len[4] = { 10, 20, 30, 40 };
	static const struct {
		const char *dir;
		uint64_t time, imb;
	} want[] = {
		{ "loop = parallel for schedule(static)\n", 70000, 40000 },
		{ "loop = parallel for schedule(static, 1)\n", 60000, 20000 },
		{ "loop = parallel for schedule(dynamic)\n", 60000, 20000 },
		{ "loop = parallel for schedule(guided)\n", 70000, 40000 },
	};
	struct tl_predict_result r;

	loop_trace(path, len, 4);
	for (size_t k = 0; k < sizeof(want) / sizeof(want[0]); k++) {
		CHECK_EQ_INT(run_predict(path, want[k].dir, NULL, 2, &r), 0);
		if (r.np == 2) {
			CHECK_EQ_INT(r.p[0].time_ns, 100000);
			CHECK_EQ_INT(r.p[1].time_ns, want[k].time);
			CHECK_EQ_INT(r.p[1].core_ns[TL_PC_IMBALANCE], want[k].imb);
			CHECK_EQ_INT(r.p[1].core_ns[TL_PC_PARALLEL], 100000);
		}
		tl_predict_release(&r);
	}
	unlink(path);
}

/*
 * The runtime costs (us): par_open 1, par_close 2, thr_create 3,
 * thr_launch 4, launch_master 5, prologue 6, epilogue 7, thr_free 8,
 * for_prologue 9, for_epilogue 10, next_chunk 11, barrier 12, critical 13.
 * Four iterations of 25 us, dynamic.  1 core: 100 + 1+5+6 + 9 + 4x11 +
 * 10+12 + 7 + 2 = 196 (the sequential time plus the modelled overhead).
 * 2 cores, step by step: T0 1 (open), T1 3 (create), T0 5 (launch), T1
 * waits to 5, T0 10 (launch master), prologues: 16, 11; loop prologues
 * 25, 20; T1 takes it0 (31, runs to 56), T0 it1 (36, to 61), T1 it2 (67,
 * to 92), T0 it3 (72, to 97); epilogues 102 and 107: T1 waits 5
 * (imbalance); barrier 119; thread epilogues 126; the master frees one
 * worker and closes: 136.  Overhead 2 x 136 - 100 - 5 = 167.
 */
TEST(runtime_costs)
{
	char path[] = "/tmp/tl-test-predict-XXXXXX";
	const uint64_t len[4] = { 25, 25, 25, 25 };
	struct tl_platform pf = { .measured = 1 };
	struct tl_predict_result r;

	for (unsigned c = 0; c < TL_COST__COUNT; c++)
		pf.cost[c] = 1000 * (c + 1);
	loop_trace(path, len, 4);
	CHECK_EQ_INT(run_predict(path, "loop = parallel for schedule(dynamic)\n", &pf, 2, &r), 0);
	if (r.np == 2) {
		CHECK_EQ_INT(r.p[0].time_ns, 196000);
		CHECK_EQ_INT(r.p[0].core_ns[TL_PC_OVERHEAD], 96000);
		CHECK_EQ_INT(r.p[1].time_ns, 136000);
		CHECK_EQ_INT(r.p[1].core_ns[TL_PC_PARALLEL], 100000);
		CHECK_EQ_INT(r.p[1].core_ns[TL_PC_IMBALANCE], 5000);
		CHECK_EQ_INT(r.p[1].core_ns[TL_PC_OVERHEAD], 167000);
	}
	tl_predict_release(&r);
	unlink(path);
}

/*
 * 50 us of sequential code, then a region "par" (num_threads(2), on 4
 * cores) of 20 us of its own code and a critical section "crit" of 10 us;
 * then "loop2" = for with two iterations of 50 us inside the same region.
 * On 4 cores, team of 2: both run the 20 us (replicated), t0 takes the
 * lock at 20 (to 30), t1 waits 10 (overhead) and runs it (to 40); the loop
 * (static): t0 50 (to 80), t1 50 (to 90): t0 waits 10 (imbalance); join
 * at 90.  Time 50 + 90 = 140; sequential 50, idle 3 x 50, limited 2 x 90.
 * Amdahl: sequential share 50 / 180.
 */
TEST(region_critical_limited)
{
	char path[] = "/tmp/tl-test-predict-XXXXXX";
	struct tl_predict_result r;

	W = program_trace_open(path, PID, 900);
	task(1000, TL_EV_TASK_BEGIN, "main");
	task(1050, TL_EV_TASK_BEGIN, "par");
	task(1070, TL_EV_TASK_BEGIN, "crit");
	task(1080, TL_EV_TASK_END, "crit");
	task(1080, TL_EV_TASK_BEGIN, "loop2");
	task(1080, TL_EV_TASK_BEGIN, "it");
	task(1130, TL_EV_TASK_END, "it");
	task(1130, TL_EV_TASK_BEGIN, "it");
	task(1180, TL_EV_TASK_END, "it");
	task(1180, TL_EV_TASK_END, "loop2");
	task(1180, TL_EV_TASK_END, "par");
	task(1180, TL_EV_TASK_END, "main");
	program_trace_close(W, 1200);
	CHECK_EQ_INT(run_predict(path, "par = parallel num_threads(2)\ncrit = critical\nloop2 = for\nunused = single\n",
	                         NULL, 4, &r),
	             0);
	CHECK_EQ_INT(r.unused, 1);
	CHECK_EQ_INT(r.seq_ns, 180000);
	CHECK_EQ_INT(r.par_ns, 130000);
	if (r.np == 4) {
		const struct tl_prediction *p = &r.p[3];
		CHECK_EQ_INT(r.p[0].time_ns, 180000);
		CHECK_EQ_INT(p->time_ns, 140000);
		CHECK_EQ_INT(p->core_ns[TL_PC_SEQUENTIAL], 50000);
		CHECK_EQ_INT(p->core_ns[TL_PC_IDLE], 150000);
		CHECK_EQ_INT(p->core_ns[TL_PC_LIMITED], 180000);
		CHECK_EQ_INT(p->core_ns[TL_PC_OVERHEAD], 10000);
		CHECK_EQ_INT(p->core_ns[TL_PC_IMBALANCE], 10000);
		CHECK_EQ_INT(p->core_ns[TL_PC_PARALLEL], 160000);
		CHECK(p->amdahl > 1.0 / (50.0 / 180 + 130.0 / 180 / 4) - 1e-9 &&
		      p->amdahl < 1.0 / (50.0 / 180 + 130.0 / 180 / 4) + 1e-9);
	}
	tl_predict_release(&r);
	unlink(path);
}

/* No task, or tasks on two threads: one clear error. */
TEST(errors)
{
	char path[] = "/tmp/tl-test-predict-XXXXXX";
	struct tl_predict_result r;
	struct tl_event e;

	W = program_trace_open(path, PID, 900);
	program_trace_close(W, 1000);
	CHECK_EQ_INT(run_predict(path, "a = parallel\n", NULL, 2, &r), -1);
	CHECK(strstr(tl_error_msg(), "no complete task in the trace") != NULL);
	unlink(path);
	strcpy(path, "/tmp/tl-test-predict-XXXXXX");
	W = program_trace_open(path, PID, 900);
	task(1000, TL_EV_TASK_BEGIN, "a");
	task(1010, TL_EV_TASK_END, "a");
	e = event_us(1020, -1, TL_EV_TASK_BEGIN, TID + 1, 0, -1, 0, 0, 0);
	e.name = tl_trace_writer_intern(W, "b");
	tl_trace_writer_add(W, &e);
	e = event_us(1030, -1, TL_EV_TASK_END, TID + 1, 0, 0, 0, 0, 0);
	e.name = tl_trace_writer_intern(W, "b");
	tl_trace_writer_add(W, &e);
	program_trace_close(W, 1100);
	CHECK_EQ_INT(run_predict(path, "a = parallel\n", NULL, 2, &r), -1);
	CHECK(strstr(tl_error_msg(), "tasks were marked on 2 threads") != NULL);
	unlink(path);
}

/* A calibration written and read back: the costs are the medians, rounded; damaged files are refused. */
TEST(platform_file)
{
	char path[] = "/tmp/tl-test-platform-XXXXXX";
	struct tl_calibration c = { .ncpus = 2, .reps = 3, .nregion = 2, .nmem = 1 };
	struct tl_platform pf;
	FILE *f;
	int fd;

	for (unsigned k = 0; k < TL_COST__COUNT; k++)
		c.figures[k] = (struct tl_figure){ 100.0 * k + 0.6, 1, 1000, 3 };
	c.mem[0].level = 1;
	CHECK((fd = mkstemp(path)) >= 0);
	f = fdopen(fd, "w");
	CHECK(f != NULL);
	if (!f)
		return;
	CHECK_EQ_INT(tl_calibration_write_json(f, &c, "cpu-clock, task-clock, cycles"), 0);
	fclose(f);
	CHECK_EQ_INT(tl_platform_load(path, &pf), 0);
	CHECK_EQ_INT(pf.measured, 1);
	for (unsigned k = 0; k < TL_COST__COUNT; k++)
		CHECK_EQ_INT(pf.cost[k], 100 * k + 1);
	/* damaged: not JSON, another version, a cost missing */
	f = fopen(path, "w");
	fputs("{\"version\": 1, \"costs_ns\": {", f);
	fclose(f);
	CHECK_EQ_INT(tl_platform_load(path, &pf), -1);
	CHECK(strstr(tl_error_msg(), "not JSON") != NULL);
	f = fopen(path, "w");
	fputs("{\"version\": 2}", f);
	fclose(f);
	CHECK_EQ_INT(tl_platform_load(path, &pf), -1);
	CHECK(strstr(tl_error_msg(), "not a threadlens platform file of version 1") != NULL);
	f = fopen(path, "w");
	fputs("{\"version\": 1, \"costs_ns\": {\"par_open\": {\"median\": 5}}}", f);
	fclose(f);
	CHECK_EQ_INT(tl_platform_load(path, &pf), -1);
	CHECK(strstr(tl_error_msg(), "no cost costs_ns.par_close.median") != NULL);
	unlink(path);
	CHECK_EQ_INT(tl_platform_load(path, &pf), -1);
}

/*
 * The markers' cost: a loop of 200 iterations of 1000 ns, 30 ns between
 * one's end and the next's begin (two marker calls back to back), its
 * first iteration 40 ns after the loop's begin, its last ending with it.
 * Recorded: 40 + 200 x 1000 + 199 x 30 = 206,010 ns.  The least gap is 30
 * and 199 of the 400 positive gaps are at it: trusted.  Each positive gap
 * loses min(gap, 30): 400 x 30 = 12,000 ns, leaving 194,010, the 1-core
 * prediction without costs.  Given 1000 ns a call, each gap shrinks to 0
 * but the work: the iterations lose it all.
 */
TEST(markers)
{
	char path[] = "/tmp/tl-test-predict-XXXXXX";
	struct tl_directives d;
	struct tl_run run = { .path = path, .to_ns = -1, .all_threads = 1 };
	struct tl_predict_opts o = { .dirs = &d, .max_cores = 2, .marker_ns = -1 };
	struct tl_predict_result r;
	uint64_t t = 40;

	W = program_trace_open(path, PID, 900);
	task_ns(0, TL_EV_TASK_BEGIN, "loop");
	for (int i = 0; i < 200; i++) {
		task_ns(t, TL_EV_TASK_BEGIN, "it");
		t += 1000;
		task_ns(t, TL_EV_TASK_END, "it");
		t += i < 199 ? 30 : 0;
	}
	task_ns(t, TL_EV_TASK_END, "loop");
	program_trace_close(W, 2000);
	CHECK_EQ_INT(tl_directives_parse("loop = parallel for\n", "test", &d), 0);
	CHECK_EQ_INT(tl_predict(&run, &o, &r), 0);
	CHECK_EQ_INT(r.markers.calls, 402);
	CHECK_EQ_INT(r.markers.ns_each, 30);
	CHECK(r.markers.estimated && !r.markers.untrusted);
	CHECK_EQ_INT(r.markers.recorded_ns, 206010);
	CHECK_EQ_INT(r.markers.removed_ns, 12000);
	CHECK_EQ_INT(r.seq_ns, 194010);
	CHECK_EQ_INT(r.p[0].time_ns, 194010);
	/* 2 cores, static: 100 iterations each of 970 + 30 (the loop's code before each) ... the first has 10 before */
	CHECK_EQ_INT(r.p[1].time_ns, 10 + 100 * 970 + 99 * 0);
	tl_predict_release(&r);
	tl_run_release(&run);
	/* given: 1000 ns a call */
	o.marker_ns = 1000;
	CHECK_EQ_INT(tl_predict(&run, &o, &r), 0);
	CHECK(!r.markers.estimated && r.markers.ns_each == 1000);
	CHECK_EQ_INT(r.seq_ns, 0);
	tl_predict_release(&r);
	tl_run_release(&run);
	/* none: the times as recorded */
	o.marker_ns = 0;
	CHECK_EQ_INT(tl_predict(&run, &o, &r), 0);
	CHECK_EQ_INT(r.markers.ns_each, 0);
	CHECK_EQ_INT(r.seq_ns, 206010);
	tl_predict_release(&r);
	tl_run_release(&run);
	tl_directives_release(&d);
	unlink(path);
}

/* Too few back-to-back calls: the estimate is not trusted, nothing is taken out. */
TEST(markers_untrusted)
{
	char path[] = "/tmp/tl-test-predict-XXXXXX";
	uint64_t len[3] = { 100, 300, 200 };
	struct tl_predict_result r;

	loop_trace(path, len, 3);
	{
		struct tl_directives d;
		struct tl_run run = { .path = path, .to_ns = -1, .all_threads = 1 };
		struct tl_predict_opts o = { .dirs = &d, .max_cores = 1, .marker_ns = -1 };
		CHECK_EQ_INT(tl_directives_parse("loop = parallel for\n", "test", &d), 0);
		CHECK_EQ_INT(tl_predict(&run, &o, &r), 0);
		CHECK(r.markers.estimated && r.markers.untrusted);
		CHECK_EQ_INT(r.markers.ns_each, 0);
		CHECK_EQ_INT(r.seq_ns, 600000);
		tl_predict_release(&r);
		tl_run_release(&run);
		tl_directives_release(&d);
	}
	unlink(path);
}

int main(void)
{
	RUN_TESTS(directives, static_blocks, schedules, runtime_costs, region_critical_limited, errors, platform_file,
	          markers, markers_untrusted);
}
