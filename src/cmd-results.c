/*
 * cmd-results.c - `threadlens results DB`: the sweeps a results database
 * holds, or one metric against one parameter with the spread of each
 * point and a least-squares line (docs/SWEEP.md, "Reading the results").
 *
 * Exit status: 0 when the table was printed, 1 when the database cannot
 * be read or has no such sweep, parameter or metric, 2 for bad usage.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#include "analysis/sweep/results.h"

enum { OPT_JSON = 256, OPT_CSV, OPT_SWEEP, OPT_PARAM, OPT_METRIC, OPT_SPAN };

static const struct option long_options[] = {
	{ "help", no_argument, NULL, 'h' },
	{ "output", required_argument, NULL, 'o' },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "csv", no_argument, NULL, OPT_CSV },
	{ "sweep", required_argument, NULL, OPT_SWEEP },
	{ "param", required_argument, NULL, OPT_PARAM },
	{ "metric", required_argument, NULL, OPT_METRIC },
	{ "span", required_argument, NULL, OPT_SPAN },
	{ NULL, 0, NULL, 0 },
};

static void usage(FILE *out)
{
	fprintf(out,
	        "usage: threadlens results [options] DB\n"
	        "\n"
	        "What a sweep's results database says: without --param, the sweeps it holds;\n"
	        "with it, one metric against that parameter, each value's runs as mean, sd,\n"
	        "the 95%% confidence interval of the mean, min and max, and the least-squares\n"
	        "line through every run, called linear at R^2 >= %.2f. docs/SWEEP.md.\n"
	        "\n"
	        "options:\n"
	        "      --param NAME     the parameter (an attribute of the specification)\n"
	        "      --metric NAME    the metric (default cpu_mean_ns; utilization, len_p99_ns,\n"
	        "                       fps...: the list in docs/SWEEP.md)\n"
	        "      --span NAME      the MODULE span (default: the sweep's only one)\n"
	        "      --sweep N        the sweep (default: the newest)\n"
	        "      --json           the JSON document of docs/JSON.md (\"threadlens-results\")\n"
	        "      --csv            one row per value\n"
	        "  -o, --output FILE    write to FILE instead of stdout\n"
	        "\n"
	        "examples:\n"
	        "  threadlens results mcast.db\n"
	        "  threadlens results --param outputs mcast.db\n"
	        "  threadlens results --param outputs --metric len_p99_ns --csv mcast.db\n",
	        TL_RESULTS_LINEAR_R2);
}

int cmd_results(int argc, char **argv)
{
	struct tl_results_opts o = { 0 };
	struct tl_results r;
	const char *output = NULL;
	int c, json = 0, csv = 0, rc;
	char *end;
	FILE *out;

	optind = 1;
	while ((c = getopt_long(argc, argv, "ho:", long_options, NULL)) != -1) {
		switch (c) {
		case 'h': usage(stdout); return 0;
		case 'o': output = optarg; break;
		case OPT_JSON: json = 1; break;
		case OPT_CSV: csv = 1; break;
		case OPT_PARAM: o.param = optarg; break;
		case OPT_METRIC: o.metric = optarg; break;
		case OPT_SPAN: o.span = optarg; break;
		case OPT_SWEEP:
			o.sweep = strtoll(optarg, &end, 10);
			if (*end || end == optarg || o.sweep < 1)
				return cli_bad_value("results", "--sweep", optarg, "a sweep's id, from 1");
			break;
		default: return cli_usage_error("results");
		}
	}
	if (json && csv) {
		cli_error("--json and --csv: one or the other");
		return cli_usage_error("results");
	}
	if (optind != argc - 1) {
		cli_error(optind == argc ? "results needs a results database" : "results takes one results database");
		return cli_usage_error("results");
	}
	if (tl_results_read(argv[optind], &o, &r) < 0)
		return cli_lib_error();
	if (!(out = cli_output_open(output))) {
		tl_results_release(&r);
		return 1;
	}
	rc = cli_output_close(out, output,
	                      json  ? tl_results_write_json(out, &r)
	                      : csv ? tl_results_write_csv(out, &r)
	                            : tl_results_write_text(out, &r));
	tl_results_release(&r);
	return rc;
}
