/*
 * cmd-critical.c - `threadlens critical`: where a frame's latency went,
 * along its critical path (lib/analysis/critical/critical.h).
 *
 * Parses options into a tl_run and a tl_crit_opts, runs tl_crit_analyze()
 * and hands the paths to the text or JSON writer.  Exit status: 0 when
 * the paths were printed, 1 when the trace cannot be read, has no such
 * frame, or the output cannot be written, 2 for bad usage.
 */
#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "analysis/critical/critical.h"

struct crit_args {
	struct tl_run run;
	const char *output;
	int json;
	int width; /* --width, or 0: the terminal's */
	struct tl_crit_opts o;
};

enum { OPT_JSON = 256, OPT_FROM, OPT_TO, OPT_FRAME, OPT_WORST, OPT_TID, OPT_WIDTH };

static const struct option long_options[] = {
	{ "help", no_argument, NULL, 'h' },
	{ "output", required_argument, NULL, 'o' },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "from", required_argument, NULL, OPT_FROM },
	{ "to", required_argument, NULL, OPT_TO },
	{ "frame", required_argument, NULL, OPT_FRAME },
	{ "worst", required_argument, NULL, OPT_WORST },
	{ "tid", required_argument, NULL, OPT_TID },
	{ "width", required_argument, NULL, OPT_WIDTH },
	{ NULL, 0, NULL, 0 },
};

static void usage(FILE *out)
{
	fputs("usage: threadlens critical [options] FILE\n"
	      "\n"
	      "Where a frame's latency went: from the frame's end, on the thread that ended\n"
	      "it, back to its start; a wait another thread's wakeup ended is what that\n"
	      "thread did until the wakeup (the critical path).  Every nanosecond of the\n"
	      "frame goes to one thread and state; waits for a CPU name who had it.\n"
	      "Frames come from the markers (tl_frame_begin/tl_frame_end); a trace without\n"
	      "them gets the path of the recorded command's main thread over its life.\n"
	      "\n"
	      "which frames:\n"
	      "      --frame N            frame N\n"
	      "      --worst K            the K longest complete frames [3]\n"
	      "      --tid TID            thread TID's life in the window instead, back from\n"
	      "                           its exit (or the window's end)\n"
	      "      --from TIME, --to TIME\n"
	      "                           the window, from the trace start (1.5, 250ms)\n"
	      "\n"
	      "output:\n"
	      "  -o, --output FILE        write to FILE instead of stdout\n"
	      "      --json               JSON (\"threadlens-critical\", docs/JSON.md)\n"
	      "      --width COLS         fit the text in COLS columns, 80 or more (default:\n"
	      "                           the terminal's, or 100)\n"
	      "\n"
	      "examples:\n"
	      "  threadlens critical demo.tl\n"
	      "  threadlens critical --frame 812 app.tl\n"
	      "  threadlens critical --worst 10 --json app.tl\n"
	      "  threadlens critical --tid 4242 app.tl\n",
	      out);
}

/* Returns 0 to go on, or the exit status (2 usage, -1 after --help). */
static int parse_args(int argc, char **argv, struct crit_args *a)
{
	char *end;
	int c;

	a->run.to_ns = -1;
	a->o.frame = -1;
	optind = 1;
	while ((c = getopt_long(argc, argv, "ho:", long_options, NULL)) != -1) {
		switch (c) {
		case 'h': usage(stdout); return -1;
		case 'o': a->output = optarg; break;
		case OPT_JSON: a->json = 1; break;
		case OPT_FROM:
		case OPT_TO:
			if (cli_window_arg("critical", c == OPT_TO, optarg, &a->run))
				return 2;
			break;
		case OPT_FRAME:
			errno = 0;
			a->o.frame = strtoll(optarg, &end, 10);
			if (errno || end == optarg || *end || a->o.frame < 0)
				return cli_bad_value("critical", "--frame", optarg, "a frame id, 0 or more");
			break;
		case OPT_WORST: {
			unsigned long k;

			errno = 0;
			k = strtoul(optarg, &end, 10);
			if (errno || end == optarg || *end || k < 1 || k > 10000 || optarg[0] == '-')
				return cli_bad_value("critical", "--worst", optarg, "a count from 1 to 10000");
			a->o.worst = k;
			break;
		}
		case OPT_TID: {
			long t;

			errno = 0;
			t = strtol(optarg, &end, 10);
			if (errno || end == optarg || *end || t < 1 || t > INT32_MAX)
				return cli_bad_value("critical", "--tid", optarg, "a thread id, 1 or more");
			a->o.tid = (int32_t)t;
			break;
		}
		case OPT_WIDTH:
			if (cli_width_arg("critical", optarg, &a->width))
				return 2;
			break;
		default: return cli_usage_error("critical");
		}
	}
	return cli_trace_args("critical", argc, argv, optind, a->run.from_ns, a->run.to_ns, &a->run.path);
}

int cmd_critical(int argc, char **argv)
{
	struct crit_args a = { 0 };
	struct cli_progress prog = { .what = "analysing", .last = -1 };
	struct tl_crit_result r = { 0 };
	FILE *out;
	int rc;

	rc = parse_args(argc, argv, &a);
	if (rc)
		return rc < 0 ? 0 : rc;
	cli_run_progress(&a.run, &prog);
	rc = tl_crit_analyze(&a.run, &a.o, &r);
	cli_progress_end(&prog);
	tl_run_close(&a.run);
	if (rc) {
		rc = cli_lib_error();
		goto out;
	}
	cli_run_warnings(&a.run, a.json || a.output ? "paths across the gaps are in doubt" : NULL);
	out = cli_output_open(a.output);
	if (!out) {
		rc = 1;
		goto out;
	}
	rc = cli_output_close(out, a.output,
	                      a.json ? tl_crit_write_json(out, &r)
	                             : tl_crit_write_text(out, &r, a.width ? a.width : cli_terminal_width(a.output)));
out:
	tl_crit_release(&r);
	tl_run_release(&a.run);
	return rc;
}
