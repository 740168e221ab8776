/*
 * cmd-diff.c - `threadlens diff`: two recordings (or two sets of repeated
 * recordings) of one program, before and after a change, side by side
 * (lib/analysis/diff/diff.h).
 *
 * Exit status: 0 when the comparison was printed, 1 when a recording
 * cannot be read or the output cannot be written, 2 for bad usage.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "analysis/diff/diff.h"

enum { OPT_JSON = 256, OPT_ROWS, OPT_WIDTH };

static const struct option long_options[] = {
	{ "help", no_argument, NULL, 'h' },
	{ "output", required_argument, NULL, 'o' },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "rows", required_argument, NULL, OPT_ROWS },
	{ "width", required_argument, NULL, OPT_WIDTH },
	{ NULL, 0, NULL, 0 },
};

static void usage(FILE *out)
{
	fputs("usage: threadlens diff [options] BEFORE AFTER\n"
	      "\n"
	      "Two recordings of one program, before and after a change: frames/s, frame\n"
	      "latency, CPU use and duration; each thread's time per state (threads matched\n"
	      "by name); the diagnose findings that went away or appeared.  BEFORE and AFTER\n"
	      "may each be several recordings of the same run, separated by commas: then the\n"
	      "numbers are means, and a change is marked when it passes the run-to-run noise.\n"
	      "\n"
	      "options:\n"
	      "      --rows N             (thread, state) rows, largest changes first [12]\n"
	      "  -o, --output FILE        write to FILE instead of stdout\n"
	      "      --json               JSON (\"threadlens-diff\", docs/JSON.md)\n"
	      "      --width COLS         fit the text in COLS columns, 80 or more (default:\n"
	      "                           the terminal's, or 100)\n"
	      "\n"
	      "examples:\n"
	      "  threadlens diff before.tl after.tl\n"
	      "  threadlens diff a1.tl,a2.tl,a3.tl b1.tl,b2.tl,b3.tl\n",
	      out);
}

/* Split a comma-separated list in place into at most max paths.  The count, or -1. */
static int split(char *s, const char **paths, int max)
{
	int n = 0;

	for (char *tok = strtok(s, ","); tok; tok = strtok(NULL, ",")) {
		if (n == max)
			return -1;
		paths[n++] = tok;
	}
	return n;
}

int cmd_diff(int argc, char **argv)
{
	const char *a[TL_DIFF_MAX_RUNS], *b[TL_DIFF_MAX_RUNS], *output = NULL;
	struct tl_diff_result r;
	unsigned long rows = 12;
	int json = 0, width = 0, na, nb, c, rc;
	char *end, *sa, *sb;
	FILE *out;

	optind = 1;
	while ((c = getopt_long(argc, argv, "ho:", long_options, NULL)) != -1) {
		switch (c) {
		case 'h': usage(stdout); return 0;
		case 'o': output = optarg; break;
		case OPT_JSON: json = 1; break;
		case OPT_ROWS:
			errno = 0;
			rows = strtoul(optarg, &end, 10);
			if (errno || end == optarg || *end || optarg[0] == '-' || rows > 100000)
				return cli_bad_value("diff", "--rows", optarg, "a count, 0 or more");
			break;
		case OPT_WIDTH:
			if (cli_width_arg("diff", optarg, &width))
				return 2;
			break;
		default: return cli_usage_error("diff");
		}
	}
	if (argc - optind != 2) {
		cli_error("diff: give the recordings before and after the change (see 'threadlens diff --help')");
		return 2;
	}
	sa = strdup(argv[optind]);
	sb = strdup(argv[optind + 1]);
	if (!sa || !sb) {
		free(sa);
		free(sb);
		return cli_error("diff: out of memory"), 1;
	}
	na = split(sa, a, TL_DIFF_MAX_RUNS);
	nb = split(sb, b, TL_DIFF_MAX_RUNS);
	if (na < 1 || nb < 1) {
		cli_error("diff: each side takes 1 to %d recordings, separated by commas", TL_DIFF_MAX_RUNS);
		free(sa);
		free(sb);
		return 2;
	}
	rc = tl_diff_analyze(a, (size_t)na, b, (size_t)nb, &r);
	if (rc) {
		rc = cli_lib_error();
		goto done;
	}
	out = cli_output_open(output);
	if (!out) {
		rc = 1;
		tl_diff_release(&r);
		goto done;
	}
	rc = cli_output_close(out, output,
	                      json ? tl_diff_write_json(out, &r)
	                           : tl_diff_write_text(out, &r, rows, width ? width : cli_terminal_width(output)));
	tl_diff_release(&r);
done:
	free(sa);
	free(sb);
	return rc;
}
