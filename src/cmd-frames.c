/*
 * cmd-frames.c - `threadlens frames`: throughput, latency, per-step times,
 * dropped frames and per-frame state splits from the program's markers.
 *
 * Parses options into a tl_run and a tl_frames_opts, opens the trace and runs
 * tl_frames_analyze().  With --json the document is written while the
 * trace is read (every finished frame goes out at once, so memory does not
 * grow with the number of frames); the text report is printed at the end.
 * Exit status: 0 when a report was printed (even from a damaged trace: the
 * reader's warnings go to stderr), 1 when the trace cannot be read or the
 * output cannot be written, 2 for bad usage.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "base/errors.h"
#include "analysis/frames/frames.h"

#define MAX_LIST 64
#define DEFAULT_WORST 5

struct frames_args {
	const char *output;
	int json;
	int width; /* --width, or 0: the terminal's */
	const char *steps[MAX_LIST];
	int64_t ids[MAX_LIST];
	struct tl_run run;
	struct tl_frames_opts fo;
};

enum {
	OPT_JSON = 256,
	OPT_FROM,
	OPT_TO,
	OPT_INTERVAL,
	OPT_WORST,
	OPT_FRAME,
	OPT_STEP,
	OPT_PREEMPT_WINDOW,
	OPT_WIDTH,
};

static const struct option long_options[] = {
	{ "help", no_argument, NULL, 'h' },
	{ "output", required_argument, NULL, 'o' },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "from", required_argument, NULL, OPT_FROM },
	{ "to", required_argument, NULL, OPT_TO },
	{ "interval", required_argument, NULL, OPT_INTERVAL },
	{ "worst", required_argument, NULL, OPT_WORST },
	{ "frame", required_argument, NULL, OPT_FRAME },
	{ "step", required_argument, NULL, OPT_STEP },
	{ "preempt-window", required_argument, NULL, OPT_PREEMPT_WINDOW },
	{ "width", required_argument, NULL, OPT_WIDTH },
	{ NULL, 0, NULL, 0 },
};

static void usage(FILE *out)
{
	fputs("usage: threadlens frames [options] FILE\n"
	      "\n"
	      "Frames and steps from the markers of a program instrumented with\n"
	      "<threadlens.h> (tl_frame_begin/end, tl_region_*, tl_task_*): frames\n"
	      "completed per second, latency per frame, the time of every step (region or\n"
	      "task) per frame, dropped or unfinished frames, and for each frame how the\n"
	      "threads that worked on it split their time across the thread states.\n"
	      "docs/FRAMES.md explains every number.\n"
	      "\n"
	      "output:\n"
	      "  -o, --output FILE      write to FILE instead of stdout\n"
	      "      --json             the JSON document of docs/JSON.md (every frame)\n"
	      "      --worst K          show the K longest frames in full (default 5; 0: none)\n"
	      "      --frame ID         show frame ID in full (repeatable)\n"
	      "      --width COLS       fit the text in COLS columns, 80 or more (default:\n"
	      "                         the terminal's, or 100)\n"
	      "\n"
	      "what to analyse:\n"
	      "      --from TIME        start of the window, from the trace start (1.5, 250ms);\n"
	      "                         frames that began before it are left out\n"
	      "      --to TIME          end of the window; frames open then are unfinished\n"
	      "      --step NAME        only this step (region or task name; repeatable)\n"
	      "      --interval DURATION\n"
	      "                         throughput per interval of this length (default 1s)\n"
	      "      --preempt-window DURATION\n"
	      "                         as in 'threadlens report' (default 1ms)\n"
	      "\n"
	      "examples:\n"
	      "  threadlens record -o app.tl -- ./app\n"
	      "  threadlens frames app.tl\n"
	      "  threadlens frames --worst 10 --step decode --step render app.tl\n"
	      "  threadlens frames --frame 120 --interval 250ms app.tl\n"
	      "  threadlens frames --json -o frames.json app.tl\n",
	      out);
}

/* Returns 0 to go on, -1 after --help, or the exit status (2 usage). */
static int parse_args(int argc, char **argv, struct frames_args *a)
{
	int c;
	int64_t v;
	char *end;

	a->run.to_ns = -1;
	a->fo.worst = DEFAULT_WORST;
	optind = 1;
	while ((c = getopt_long(argc, argv, "ho:", long_options, NULL)) != -1) {
		switch (c) {
		case 'h': usage(stdout); return -1;
		case 'o': a->output = optarg; break;
		case OPT_JSON: a->json = 1; break;
		case OPT_FROM:
		case OPT_TO:
			if (cli_window_arg("frames", c == OPT_TO, optarg, &a->run))
				return 2;
			break;
		case OPT_INTERVAL:
			v = cli_parse_duration_ns(optarg);
			if (v < 1000)
				return cli_bad_value("frames", "--interval", optarg,
				                     "a duration of at least 1us, like 1s or 100ms");
			a->fo.interval_ns = (uint64_t)v;
			break;
		case OPT_WORST:
			errno = 0;
			v = strtoll(optarg, &end, 10);
			if (!*optarg || *end || errno || v < 0 || v > 100000)
				return cli_bad_value("frames", "--worst", optarg, "a number of frames, 0 to 100000");
			a->fo.worst = (size_t)v;
			break;
		case OPT_FRAME:
			errno = 0;
			v = strtoll(optarg, &end, 10);
			if (!*optarg || *end || errno)
				return cli_bad_value("frames", "--frame", optarg, "a frame id");
			if (a->fo.nframe_ids == MAX_LIST)
				return cli_bad_value("frames", "--frame", optarg, "at most 64 frames");
			a->ids[a->fo.nframe_ids++] = v;
			a->fo.frame_ids = a->ids;
			break;
		case OPT_STEP:
			if (!*optarg)
				return cli_bad_value("frames", "--step", optarg, "a region or task name");
			if (a->fo.nsteps == MAX_LIST)
				return cli_bad_value("frames", "--step", optarg, "at most 64 steps");
			a->steps[a->fo.nsteps++] = optarg;
			a->fo.steps = a->steps;
			break;
		case OPT_PREEMPT_WINDOW:
			if (cli_preempt_window_arg("frames", optarg, &a->run))
				return 2;
			break;
		case OPT_WIDTH:
			if (cli_width_arg("frames", optarg, &a->width))
				return 2;
			break;
		default: return cli_usage_error("frames");
		}
	}
	if ((c = cli_trace_args("frames", argc, argv, optind, a->run.from_ns, a->run.to_ns, &a->run.path)))
		return c;
	return 0;
}

/* Warnings that belong on stderr whatever the output format. */
static void warn_after(const struct frames_args *a, const struct tl_frames_result *r)
{
	cli_run_warnings(r->run, "states near the gaps are uncertain");
	if (r->run->spans.marks_lost)
		cli_warn("the program dropped %" PRIu64
		         " markers (its buffer was full); frames and steps may be missing",
		         r->run->spans.marks_lost);
	if (!r->begun && !r->ends_without_begin && !r->nsteps)
		cli_warn("no frame markers in '%s' (is the program instrumented with threadlens.h?)", a->run.path);
	for (size_t i = 0; i < a->fo.nsteps; i++) {
		size_t k;
		for (k = 0; k < r->nsteps && strcmp(r->steps[k].name, a->steps[i]); k++)
			;
		if (k == r->nsteps)
			cli_warn("no step named '%s' in the window", a->steps[i]);
	}
	for (size_t i = 0; i < a->fo.nframe_ids; i++) {
		size_t k;
		for (k = 0; k < r->npicked && r->picked[k].id != a->ids[i]; k++)
			;
		if (k == r->npicked)
			cli_warn("no frame %" PRId64 " began in the window", a->ids[i]);
	}
}

int cmd_frames(int argc, char **argv)
{
	struct frames_args a = { 0 };
	struct cli_progress prog = { .what = "analysing", .last = -1 };
	struct tl_frames_result r;
	struct tl_frames_json_stream js;
	FILE *out = stdout;
	int rc;

	rc = parse_args(argc, argv, &a);
	if (rc)
		return rc < 0 ? 0 : rc;
	/* opened here: the JSON's frames need the trace's start before the walk */
	if (tl_run_open(&a.run) < 0)
		return cli_lib_error();
	if (!(out = cli_output_open(a.output))) {
		tl_run_release(&a.run);
		return 1;
	}
	if (a.json)
		tl_frames_write_json_stream(&js, out, &a.run, &a.fo);
	cli_run_progress(&a.run, &prog);
	rc = tl_frames_analyze(&a.run, &a.fo, &r);
	cli_progress_end(&prog);
	tl_run_close(&a.run);
	if (rc) {
		rc = cli_lib_error();
		goto fail;
	}
	warn_after(&a, &r);
	if (a.json) {
		rc = tl_frames_write_json_finish(&js, &r);
	} else {
		struct tl_frames_text_opts to = { .steps_filter = a.fo.nsteps > 0,
			                          .width = a.width ? a.width : cli_terminal_width(a.output) };
		rc = tl_frames_write_text(out, &r, &to);
	}
	tl_frames_release(&r);
	rc = cli_output_close(out, a.output, rc);
	tl_run_release(&a.run);
	return rc;
fail:
	cli_output_abandon(out, a.output);
	tl_run_release(&a.run);
	return rc;
}
