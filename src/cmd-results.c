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

enum { OPT_JSON = 256, OPT_CSV, OPT_SWEEP, OPT_PARAM, OPT_METRIC, OPT_SPAN, OPT_COMPARE, OPT_WIDTH };

static const struct option long_options[] = {
	{ "help", no_argument, NULL, 'h' },
	{ "output", required_argument, NULL, 'o' },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "width", required_argument, NULL, OPT_WIDTH },
	{ "csv", no_argument, NULL, OPT_CSV },
	{ "sweep", required_argument, NULL, OPT_SWEEP },
	{ "param", required_argument, NULL, OPT_PARAM },
	{ "metric", required_argument, NULL, OPT_METRIC },
	{ "span", required_argument, NULL, OPT_SPAN },
	{ "compare", required_argument, NULL, OPT_COMPARE },
	{ NULL, 0, NULL, 0 },
};

static void usage(FILE *out)
{
	fprintf(out,
	        "usage: threadlens results [options] DB\n"
	        "       threadlens results --param NAME [options] BEFORE.db AFTER.db\n"
	        "\n"
	        "What a sweep's results database says: without --param, the sweeps it holds;\n"
	        "with it, one metric against that parameter, each value's runs as mean, sd,\n"
	        "the 95%% confidence interval of the mean, min and max, and the least-squares\n"
	        "line through every run, called linear at R^2 >= %.2f. With two databases\n"
	        "(a sweep before and after a change), or --compare A,B, each difference\n"
	        "against the runs' noise (three standard errors). docs/SWEEP.md.\n"
	        "\n"
	        "options:\n"
	        "      --param NAME     the parameter (an attribute of the specification)\n"
	        "      --metric NAME    the metric (default cpu_mean_ns; utilization, len_p99_ns,\n"
	        "                       fps...: the list in docs/SWEEP.md)\n"
	        "      --span NAME      the MODULE span (default: the sweep's only one)\n"
	        "      --sweep N        the sweep (default: the newest)\n"
	        "      --compare A,B    the metric at value A of the parameter against value B\n"
	        "      --json           JSON (\"threadlens-results\", docs/JSON.md)\n"
	        "      --width COLS     fit the text in COLS columns, 80 or more (default: the\n"
	        "                       terminal's, or 100)\n"
	        "      --csv            one row per value\n"
	        "  -o, --output FILE    write to FILE instead of stdout\n"
	        "\n"
	        "examples:\n"
	        "  threadlens results mcast.db\n"
	        "  threadlens results --param outputs mcast.db\n"
	        "  threadlens results --param outputs --metric len_p99_ns --csv mcast.db\n"
	        "  threadlens results --param outputs before.db after.db\n"
	        "  threadlens results --param outputs --compare 2,10 mcast.db\n",
	        TL_RESULTS_LINEAR_R2);
}

/* Two databases, or two values of one: the comparison. */
static int compare(const struct tl_results_opts *o, const char *path_a, const char *path_b, const char *values,
                   const char *output, int json, int width)
{
	struct tl_results a, b;
	struct tl_results_cmp c = { 0 };
	char va[64], *vb;
	FILE *out;
	int rc = 1;

	if (tl_results_read(path_a, o, &a) < 0)
		return cli_lib_error();
	if (path_b && tl_results_read(path_b, o, &b) < 0) {
		tl_results_release(&a);
		return cli_lib_error();
	}
	if (values) {
		snprintf(va, sizeof(va), "%s", values);
		vb = strchr(va, ',');
		*vb++ = 0;
	}
	if ((values ? tl_results_compare_values(&a, va, vb, &c) : tl_results_compare_dbs(&a, &b, &c)) < 0) {
		rc = cli_lib_error();
	} else if ((out = cli_output_open(output))) {
		rc = cli_output_close(out, output,
		                      json ? tl_results_cmp_write_json(out, &a, path_b ? &b : NULL, &c)
		                           : tl_results_cmp_write_text(out, &a, path_b ? &b : NULL, &c,
		                                                       width ? width : cli_terminal_width(output)));
	}
	tl_results_cmp_release(&c);
	tl_results_release(&a);
	if (path_b)
		tl_results_release(&b);
	return rc;
}

int cmd_results(int argc, char **argv)
{
	struct tl_results_opts o = { 0 };
	struct tl_results r;
	const char *output = NULL, *values = NULL;
	int c, json = 0, csv = 0, width = 0, rc;
	char *end;
	FILE *out;

	optind = 1;
	while ((c = getopt_long(argc, argv, "ho:", long_options, NULL)) != -1) {
		switch (c) {
		case 'h': usage(stdout); return 0;
		case 'o': output = optarg; break;
		case OPT_JSON: json = 1; break;
		case OPT_CSV: csv = 1; break;
		case OPT_WIDTH:
			if (cli_width_arg("results", optarg, &width))
				return 2;
			break;
		case OPT_PARAM: o.param = optarg; break;
		case OPT_METRIC: o.metric = optarg; break;
		case OPT_SPAN: o.span = optarg; break;
		case OPT_COMPARE:
			if (!strchr(optarg, ',') || strchr(optarg, ',') == optarg || !strchr(optarg, ',')[1] ||
			    strlen(optarg) >= 64)
				return cli_bad_value("results", "--compare", optarg, "two values A,B, like 2,10");
			values = optarg;
			break;
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
	if (optind == argc || argc - optind > 2) {
		cli_error(optind == argc ? "results needs a results database" : "results takes one or two databases");
		return cli_usage_error("results");
	}
	if ((argc - optind == 2 || values) && !o.param) {
		cli_error("comparing needs the parameter: --param NAME");
		return cli_usage_error("results");
	}
	if (argc - optind == 2 && values) {
		cli_error("--compare compares two values of one database: give one");
		return cli_usage_error("results");
	}
	if ((argc - optind == 2 || values) && csv) {
		cli_error("a comparison is a table or --json, not --csv");
		return cli_usage_error("results");
	}
	if (argc - optind == 2 || values)
		return compare(&o, argv[optind], argc - optind == 2 ? argv[optind + 1] : NULL, values, output, json,
		               width);
	if (tl_results_read(argv[optind], &o, &r) < 0)
		return cli_lib_error();
	if (!(out = cli_output_open(output))) {
		tl_results_release(&r);
		return 1;
	}
	rc = cli_output_close(out, output,
	                      json  ? tl_results_write_json(out, &r)
	                      : csv ? tl_results_write_csv(out, &r)
	                            : tl_results_write_text(out, &r, width ? width : cli_terminal_width(output)));
	tl_results_release(&r);
	return rc;
}
