/*
 * cmd-predict.c - `threadlens predict`: the speedup a sequential program
 * would get on 1..N cores if its marked tasks were parallelized as a
 * directives file says (docs/PREDICT.md).
 *
 * Parses options, loads the directives, runs tl_predict() and hands the
 * result to a writer.  Exit status: 0 when a prediction was printed, 1
 * when the trace or the directives cannot be read (or have no task), 2
 * for bad usage.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#include "analysis/predict/predict.h"

struct predict_args {
	struct tl_run run;
	const char *output, *directives, *platform;
	int json, cores, tid;
	int width;      /* --width, or 0: the terminal's */
	long marker_ns; /* -1: estimate */
};

enum { OPT_JSON = 256, OPT_DIRECTIVES, OPT_PLATFORM, OPT_CORES, OPT_TID, OPT_FROM, OPT_TO, OPT_MARKER_NS, OPT_WIDTH };

static const struct option long_options[] = {
	{ "help", no_argument, NULL, 'h' },
	{ "output", required_argument, NULL, 'o' },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "directives", required_argument, NULL, OPT_DIRECTIVES },
	{ "platform", required_argument, NULL, OPT_PLATFORM },
	{ "cores", required_argument, NULL, OPT_CORES },
	{ "tid", required_argument, NULL, OPT_TID },
	{ "from", required_argument, NULL, OPT_FROM },
	{ "to", required_argument, NULL, OPT_TO },
	{ "marker-ns", required_argument, NULL, OPT_MARKER_NS },
	{ "width", required_argument, NULL, OPT_WIDTH },
	{ NULL, 0, NULL, 0 },
};

static void usage(FILE *out)
{
	fputs("usage: threadlens predict --directives FILE [options] TRACE\n"
	      "\n"
	      "The parallel time, speedup and where the time would go, on 1..N cores, of a\n"
	      "sequential run whose tasks are marked (tl_task_begin/end), if the tasks the\n"
	      "directives file names were OpenMP parallel regions, loops, critical sections.\n"
	      "Each line of the file is TASK = DIRECTIVE:\n"
	      "  frame = parallel num_threads(4)\n"
	      "  rows  = for schedule(dynamic, 2)\n"
	      "  total = critical\n"
	      "(also: parallel for, barrier, single; schedule static, dynamic or guided).\n"
	      "docs/PREDICT.md.\n"
	      "\n"
	      "options:\n"
	      "      --directives FILE  the directives (required)\n"
	      "      --platform FILE    costs measured by threadlens calibrate (default: none)\n"
	      "      --cores N          1..N cores (also 1-N; default 1-8, at most 256)\n"
	      "      --tid TID          the thread whose tasks to read (if several made tasks)\n"
	      "      --marker-ns N      each marker call's cost, taken out of tasks (default:\n"
	      "                         the least gap between two marker calls; 0 keeps it)\n"
	      "      --from TIME        start of the window, from the trace start (1.5, 250ms)\n"
	      "      --to TIME          end of the window\n"
	      "  -o, --output FILE      write to FILE instead of stdout\n"
	      "      --json             JSON (\"threadlens-predict\", docs/JSON.md)\n"
	      "      --width COLS       fit the text in COLS columns, 80 or more (default:\n"
	      "                         the terminal's, or 100)\n"
	      "\n"
	      "examples:\n"
	      "  threadlens record -o seq.tl -- ./kernel-seq\n"
	      "  threadlens calibrate -o platform.json\n"
	      "  threadlens predict --platform platform.json --directives outer.omp \\\n"
	      "      --cores 1-16 seq.tl\n",
	      out);
}

/* Returns 0 to go on, or the exit status (2 usage, -1 after --help). */
static int parse_args(int argc, char **argv, struct predict_args *a)
{
	char *end;
	long v;
	int c;

	a->run.to_ns = -1;
	a->cores = 8;
	a->marker_ns = -1;
	optind = 1;
	while ((c = getopt_long(argc, argv, "ho:", long_options, NULL)) != -1) {
		switch (c) {
		case 'h': usage(stdout); return -1;
		case 'o': a->output = optarg; break;
		case OPT_JSON: a->json = 1; break;
		case OPT_WIDTH:
			if (cli_width_arg("predict", optarg, &a->width))
				return 2;
			break;
		case OPT_DIRECTIVES: a->directives = optarg; break;
		case OPT_PLATFORM: a->platform = optarg; break;
		case OPT_CORES:
			v = strtol(!strncmp(optarg, "1-", 2) ? optarg + 2 : optarg, &end, 10);
			if (*end || v < 1 || v > TL_PREDICT_MAX_CORES)
				return cli_bad_value("predict", "--cores", optarg, "N or 1-N, N from 1 to 256");
			a->cores = (int)v;
			break;
		case OPT_TID:
			v = strtol(optarg, &end, 10);
			if (*end || v < 1 || v > 0x7fffffff)
				return cli_bad_value("predict", "--tid", optarg, "a thread id");
			a->tid = (int)v;
			a->run.tids = &a->tid;
			a->run.ntids = 1;
			break;
		case OPT_MARKER_NS:
			v = strtol(optarg, &end, 10);
			if (*end || end == optarg || v < 0 || v > 1000000)
				return cli_bad_value("predict", "--marker-ns", optarg, "ns from 0 to 1000000");
			a->marker_ns = v;
			break;
		case OPT_FROM:
		case OPT_TO:
			if (cli_window_arg("predict", c == OPT_TO, optarg, &a->run))
				return 2;
			break;
		default: return cli_usage_error("predict");
		}
	}
	if (!a->directives) {
		cli_error("predict needs --directives FILE: which tasks are parallel, and how");
		return cli_usage_error("predict");
	}
	a->run.all_threads = 1;
	return cli_trace_args("predict", argc, argv, optind, a->run.from_ns, a->run.to_ns, &a->run.path);
}

int cmd_predict(int argc, char **argv)
{
	struct predict_args a = { 0 };
	struct tl_directives dirs;
	struct tl_predict_opts o = { 0 };
	struct tl_predict_result r = { 0 };
	struct tl_platform pf;
	FILE *out;
	int rc;

	rc = parse_args(argc, argv, &a);
	if (rc)
		return rc < 0 ? 0 : rc;
	if (tl_directives_load(a.directives, &dirs) < 0)
		return cli_lib_error();
	o.dirs = &dirs;
	if (a.platform) {
		if (tl_platform_load(a.platform, &pf) < 0) {
			tl_directives_release(&dirs);
			return cli_lib_error();
		}
		o.pf = &pf;
	}
	o.max_cores = a.cores;
	o.marker_ns = a.marker_ns;
	if (tl_predict(&a.run, &o, &r) < 0) {
		rc = cli_lib_error();
		goto out;
	}
	cli_run_warnings(&a.run, "tasks near the gaps are missing");
	if (!(out = cli_output_open(a.output))) {
		rc = 1;
		goto out;
	}
	rc = cli_output_close(
	        out, a.output,
	        a.json ? tl_predict_write_json(out, &r)
	               : tl_predict_write_text(out, &r, a.width ? a.width : cli_terminal_width(a.output)));
out:
	tl_predict_release(&r);
	tl_run_release(&a.run);
	tl_directives_release(&dirs);
	return rc;
}
