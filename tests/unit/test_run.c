/*
 * test_run.c - the shared run (timeline/run.h) and the "trace"/"window"
 * objects every JSON document shares (output/trace_json.h): the summary
 * kept after a walk owns its data, the thread filters, reopening, and the
 * exact JSON.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/errors.h"
#include "harness.h"
#include "output/json.h"
#include "output/trace_json.h"
#include "timeline/run.h"

#define T0 5000000000ull

TEST(test_keep_owns_its_copy)
{
	struct tl_run run = { 0 };
	uint64_t reader_lost[3] = { 1, 2, 3 };
	struct tl_walk_result r = { 0 };

	run.info.ncpus = 2; /* the walk saw 3 CPUs: only the trace's 2 are kept */
	r.trace_start = T0, r.trace_end = T0 + 900;
	r.win_start = T0 + 100, r.win_end = T0 + 800;
	r.lost_total = 6;
	r.lost_per_cpu = reader_lost;
	r.ncpus = 3;
	r.read.events = 42;
	r.read.complete = 1;
	r.read.end.ncpus = 3;
	r.read.end.lost_per_cpu = reader_lost;
	r.sched.anomalies = 4;
	r.spans.marks_lost = 5;
	CHECK_EQ_INT(tl_run_keep(&run, &r), 0);
	reader_lost[0] = 99; /* the reader goes away: the run must not see it */
	CHECK_EQ_INT(run.ncpus, 2);
	CHECK(run.lost_per_cpu != NULL && run.lost_per_cpu != reader_lost);
	if (run.lost_per_cpu) {
		CHECK_EQ_INT(run.lost_per_cpu[0], 1);
		CHECK_EQ_INT(run.lost_per_cpu[1], 2);
	}
	CHECK(run.read.end.lost_per_cpu == run.lost_per_cpu);
	CHECK_EQ_INT(run.read.end.ncpus, 2);
	CHECK_EQ_INT(run.read.events, 42);
	CHECK_EQ_INT(run.lost_total, 6);
	CHECK_EQ_INT(run.sched.anomalies, 4);
	CHECK_EQ_INT(run.spans.marks_lost, 5);
	CHECK_EQ_INT(tl_run_rel(&run, T0 + 800), 800);
	CHECK_EQ_INT(tl_run_rel(&run, T0 - 1), 0);
	tl_run_release(&run);
	CHECK(run.lost_per_cpu == NULL && run.read.end.lost_per_cpu == NULL);
	tl_run_release(&run); /* twice is fine */
}

TEST(test_filters)
{
	int pids[] = { 10 }, tids[] = { 11, 12 };
	struct tl_run run = { 0 };

	/* no filter: the recorded program's threads only */
	CHECK_EQ_INT(tl_run_keeps_thread(&run, 1, 11, 10, "w", "app"), 1);
	CHECK_EQ_INT(tl_run_keeps_thread(&run, 0, 21, 20, "w", "sshd"), 0);
	run.all_threads = 1;
	CHECK_EQ_INT(tl_run_keeps_thread(&run, 0, 21, 20, "w", "sshd"), 1);
	/* --pid or --tid alone also reach outside the program */
	run = (struct tl_run){ .pids = pids, .npids = 1 };
	CHECK_EQ_INT(tl_run_keeps_thread(&run, 0, 11, 10, "w", "x"), 1);
	CHECK_EQ_INT(tl_run_keeps_thread(&run, 1, 21, 20, "w", "x"), 0);
	run = (struct tl_run){ .tids = tids, .ntids = 2 };
	CHECK_EQ_INT(tl_run_keeps_thread(&run, 0, 12, 10, "w", "x"), 1);
	CHECK_EQ_INT(tl_run_keeps_thread(&run, 1, 13, 10, "w", "x"), 0);
	/* --comm: thread name or process name; a NULL name never matches */
	run = (struct tl_run){ .comm = "enc" };
	CHECK_EQ_INT(tl_run_keeps_thread(&run, 1, 11, 10, "encoder", "app"), 1);
	CHECK_EQ_INT(tl_run_keeps_thread(&run, 1, 11, 10, "w", "x264enc"), 1);
	CHECK_EQ_INT(tl_run_keeps_thread(&run, 1, 11, 10, "w", "app"), 0);
	CHECK_EQ_INT(tl_run_keeps_thread(&run, 1, 11, 10, NULL, NULL), 0);
	run.comm = "";
	CHECK_EQ_INT(tl_run_keeps_thread(&run, 1, 11, 10, NULL, NULL), 1);
}

TEST(test_open_errors)
{
	struct tl_run run = { .path = "/nonexistent/x.tl" };

	CHECK_EQ_INT(tl_run_start(&run), -1);
	CHECK(strstr(tl_error_msg(), "x.tl") != NULL);
	CHECK(run.trace == NULL);
	run.path = "-";
	CHECK_EQ_INT(tl_run_reopen(&run), -1);
	CHECK(strstr(tl_error_msg(), "standard input") != NULL);
	tl_run_release(&run);
}

static char *render(const struct tl_run *run)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct tl_json j;

	tl_json_init(&j, f, TL_JSON_PRETTY);
	tl_json_begin_object(&j, 0);
	tl_json_trace(&j, run);
	tl_json_window(&j, run);
	tl_json_end_object(&j);
	CHECK_EQ_INT(tl_json_finish(&j), 0);
	fclose(f);
	return buf;
}

TEST(test_trace_json)
{
	struct tl_run run = { .path = "app.tl" };
	char *s;

	strcpy(run.info.source, "record");
	strcpy(run.info.backend, "bpf");
	strcpy(run.info.kernel, "6.18.0");
	strcpy(run.info.hostname, "box");
	strcpy(run.info.cpu_model, "cpu");
	strcpy(run.info.command, "./app");
	run.info.ncpus = 2;
	run.info.target_mode = TL_TARGET_PIDS;
	run.info.ntargets = 2;
	run.info.targets[0] = 7, run.info.targets[1] = 8;
	run.ncpus = 2;
	run.trace_start = T0, run.trace_end = T0 + 900;
	run.win_start = T0 + 100, run.win_end = T0 + 800;
	run.read.events = 42;
	run.read.complete = 0;
	run.read.blocks_skipped = 2;
	run.read.bytes_skipped = 1234;
	run.read.nwarnings = 1;
	strcpy(run.read.warnings[0], "truncated");
	run.lost_total = 3;
	s = render(&run);
	CHECK(s != NULL);
	CHECK_EQ_STR(s, "{\n"
	                "  \"trace\": {\n"
	                "    \"path\": \"app.tl\",\n"
	                "    \"source\": \"record\",\n"
	                "    \"backend\": \"bpf\",\n"
	                "    \"filter\": \"\",\n"
	                "    \"kernel\": \"6.18.0\",\n"
	                "    \"hostname\": \"box\",\n"
	                "    \"cpu_model\": \"cpu\",\n"
	                "    \"ncpus\": 2,\n"
	                "    \"command\": \"./app\",\n"
	                "    \"target_mode\": \"pids\",\n"
	                "    \"targets\": [7, 8],\n"
	                "    \"start_ns\": 5000000000,\n"
	                "    \"duration_ns\": 900,\n"
	                "    \"events\": 42,\n"
	                "    \"complete\": false,\n"
	                "    \"damaged_blocks\": 2,\n"
	                "    \"skipped_bytes\": 1234,\n"
	                "    \"warnings\": [\n"
	                "      \"truncated\"\n"
	                "    ],\n"
	                "    \"lost_events\": 3\n"
	                "  },\n"
	                "  \"window\": {\"from_ns\": 100, \"to_ns\": 800}\n"
	                "}\n");
	free(s);
	CHECK_EQ_STR(tl_run_target_mode_name(TL_TARGET_COMMAND), "command");
	CHECK_EQ_STR(tl_run_target_mode_name(TL_TARGET_SYSTEM), "system");
	CHECK_EQ_STR(tl_run_target_mode_name(99), "unknown");
}

int main(void)
{
	RUN_TESTS(test_keep_owns_its_copy, test_filters, test_open_errors, test_trace_json);
}
