/*
 * cmd-calibrate.c - `threadlens calibrate`: measure this machine's OpenMP
 * runtime costs, context switch, minor fault and memory latencies into
 * the platform file that `predict --platform` reads (docs/PREDICT.md).
 *
 * Exit status: 0 when the file (or stdout) was written, 1 when a
 * measurement or the output failed, 2 for bad usage.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#include "analysis/predict/predict.h"
#include "capture/sample_events.h"

static void usage(FILE *out)
{
	fputs("usage: threadlens calibrate [-o FILE] [--reps N]\n"
	      "\n"
	      "Measure what predict's model needs, with microbenchmarks in the style of\n"
	      "EPCC's syncbench and schedbench and the installed libgomp: the cost of a\n"
	      "parallel region for 1..CPUs threads, a barrier, a loop's prologue and\n"
	      "epilogue, a dynamic chunk, a critical section; and a context switch, a minor\n"
	      "page fault, the latency of each cache level and of memory (pointer chasing).\n"
	      "Each figure: the median of N measurements, with their minimum and maximum.\n"
	      "Run it on an idle machine (about 10 s with 21 measurements).  docs/PREDICT.md.\n"
	      "\n"
	      "options:\n"
	      "  -o, --output FILE      write the platform file there (default: stdout)\n"
	      "      --reps N           measurements of each figure (3-101, default 21)\n"
	      "\n"
	      "examples:\n"
	      "  threadlens calibrate -o platform.json\n"
	      "  threadlens predict --platform platform.json --directives loop.omp seq.tl\n",
	      out);
}

int cmd_calibrate(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "output", required_argument, NULL, 'o' },
		{ "reps", required_argument, NULL, 'r' },
		{ NULL, 0, NULL, 0 },
	};
	struct tl_calibration *c;
	const char *output = NULL;
	char counters[512], *end;
	int reps = 21, opt, rc;
	FILE *out;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "ho:", opts, NULL)) != -1) {
		switch (opt) {
		case 'h': usage(stdout); return 0;
		case 'o': output = optarg; break;
		case 'r':
			reps = (int)strtol(optarg, &end, 10);
			if (*end || reps < 3 || reps > TL_CALIBRATE_MAX_REPS)
				return cli_bad_value("calibrate", "--reps", optarg, "3 to 101");
			break;
		default: return cli_usage_error("calibrate");
		}
	}
	if (optind < argc) {
		cli_error("calibrate takes no file: '%s' (-o FILE names the output)", argv[optind]);
		return cli_usage_error("calibrate");
	}
	if (!(c = malloc(sizeof(*c))))
		return cli_error("out of memory");
	if (cli_stderr_is_tty())
		fprintf(stderr, "threadlens: measuring (%d times each)...\n", reps);
	if (tl_calibrate(c, reps) < 0) {
		free(c);
		return cli_lib_error();
	}
	tl_sample_events_available(counters, sizeof(counters));
	if (!(out = cli_output_open(output))) {
		free(c);
		return 1;
	}
	rc = cli_output_close(out, output, tl_calibration_write_json(out, c, counters));
	if (!rc && output)
		fprintf(stderr,
		        "threadlens: wrote %s: a region of %d threads costs %.1f us, a barrier %.1f us, a context "
		        "switch %.1f us\n",
		        output, c->nregion, c->nregion ? c->region[c->nregion - 1].median / 1e3 : 0.0,
		        c->figures[TL_COST_BARRIER].median / 1e3, c->context_switch.median / 1e3);
	free(c);
	return rc;
}
