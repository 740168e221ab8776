/*
 * cmd-util.c - `threadlens util`: the CPU time a processing module (a span)
 * really uses per period, its statistics and the RM / EDF admission test.
 *
 * Parses options into a tl_run and a tl_cpuuse_opts, runs tl_cpuuse_analyze()
 * and hands the result to the text or JSON writer; it measures and formats nothing
 * itself.  With --db the processing times come from a sweep's results
 * database instead of a trace (analysis/sweep/results.h: the admission test
 * alone).  Exit status: 0 when a report was printed, 1 when the trace or
 * database cannot be read, none of the spans asked for is in it, or the
 * output cannot be written, 2 for bad usage.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "base/errors.h"
#include "analysis/cpuuse/cpuuse.h"
#include "analysis/sweep/results.h"

struct util_args {
	struct tl_run run;
	const char *output;
	int json;
	uint64_t period_ns;
	struct tl_cpuuse_spec specs[TL_CPUUSE_MAX_SPANS];
	size_t nspecs;
	struct tl_cpuuse_opts o;
	const char *db; /* --db: the admission test from a results database */
	int admit_only; /* --admit: the admission test alone */
	int width;      /* --width, or 0: the terminal's */
	int64_t sweep;
	struct tl_results_at at[TL_RESULTS_MAX_AT];
	size_t nat;
};

enum {
	OPT_JSON = 256,
	OPT_SPAN,
	OPT_PERIOD,
	OPT_RATE,
	OPT_WORST,
	OPT_INSTANCES,
	OPT_FROM,
	OPT_TO,
	OPT_PREEMPT_WINDOW,
	OPT_DB,
	OPT_SWEEP,
	OPT_AT,
	OPT_ADMIT,
	OPT_WIDTH,
};

static const struct option long_options[] = {
	{ "help", no_argument, NULL, 'h' },
	{ "output", required_argument, NULL, 'o' },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "span", required_argument, NULL, OPT_SPAN },
	{ "period", required_argument, NULL, OPT_PERIOD },
	{ "rate", required_argument, NULL, OPT_RATE },
	{ "module", required_argument, NULL, OPT_RATE }, /* HeiPOET's word for it */
	{ "admit", no_argument, NULL, OPT_ADMIT },
	{ "width", required_argument, NULL, OPT_WIDTH },
	{ "worst", required_argument, NULL, OPT_WORST },
	{ "instances", no_argument, NULL, OPT_INSTANCES },
	{ "from", required_argument, NULL, OPT_FROM },
	{ "to", required_argument, NULL, OPT_TO },
	{ "preempt-window", required_argument, NULL, OPT_PREEMPT_WINDOW },
	{ "db", required_argument, NULL, OPT_DB },
	{ "sweep", required_argument, NULL, OPT_SWEEP },
	{ "at", required_argument, NULL, OPT_AT },
	{ NULL, 0, NULL, 0 },
};

static void usage(FILE *out)
{
	fputs("usage: threadlens util [options] --span NAME [--span NAME...] FILE\n"
	      "       threadlens util --db RESULTS.db [--at NAME=VALUE...] --rate NAME=HZ...\n"
	      "\n"
	      "The CPU time a processing module really uses per period (HeiPOET): for every\n"
	      "instance of a span (a region, task or probed function of one thread), the time\n"
	      "its thread was EXECUTING inside it, net of interrupts, of other threads and of\n"
	      "waits; per span the mean, deviation, extremes, the 95% confidence interval of\n"
	      "the mean and the central 95% of single values; the share of the period; and\n"
	      "the rate-monotonic and EDF admission test.  docs/UTIL.md explains it all.\n"
	      "\n"
	      "what to measure:\n"
	      "      --span NAME        a span by the name the program gave it; \"region:NAME\",\n"
	      "                         \"task:NAME\" or \"function:NAME\" restricts the kind\n"
	      "                         (repeat for several modules, up to 64)\n"
	      "      --rate NAME=HZ     module NAME runs HZ times a second: its period is 1/HZ\n"
	      "                         and it joins the admission test (adds --span NAME);\n"
	      "                         also --module NAME=HZ\n"
	      "      --admit            print the admission test alone (text output)\n"
	      "      --period DURATION  the period of the spans without a --rate (33ms, 0.5s)\n"
	      "      --worst P          the worst-case processing time of the admission test:\n"
	      "                         'max' or a percentile like p99 (default) or p99.9\n"
	      "      --from TIME        start of the window, from the trace start (1.5, 250ms):\n"
	      "                         only spans that begin inside the window count\n"
	      "      --to TIME          end of the window; spans still open then are incomplete\n"
	      "      --preempt-window DURATION\n"
	      "                         see 'threadlens report --help' (default 1ms)\n"
	      "\n"
	      "from a sweep's results database (threadlens sweep; docs/SWEEP.md):\n"
	      "      --db FILE          the admission test alone, each module's P from the runs\n"
	      "                         of the sweep: the mean over their instances, and the\n"
	      "                         largest of their p99 as the worst case\n"
	      "      --at NAME=VALUE    only runs with this parameter value (repeat: all hold)\n"
	      "      --sweep N          the sweep (default: the newest)\n"
	      "\n"
	      "output:\n"
	      "  -o, --output FILE      write to FILE instead of stdout\n"
	      "      --json             JSON (\"threadlens-util\", docs/JSON.md)\n"
	      "      --instances        also list every instance (JSON: an \"instances\" array)\n"
	      "      --width COLS       fit the text in COLS columns, 80 or more (default:\n"
	      "                         the terminal's, or 100)\n"
	      "\n"
	      "examples:\n"
	      "  threadlens util --span decode app.tl\n"
	      "  threadlens util --span decode --period 33.3ms --instances app.tl\n"
	      "  threadlens util --rate decode=30 --rate mix=100 --rate encode=30 app.tl\n"
	      "  threadlens util --rate function:compress=25 --worst max --json app.tl\n"
	      "  threadlens util --admit --db mcast.db --at outputs=4 --module send=200\n",
	      out);
}

/* The spec named exactly `name`, added if new; NULL (after the message) when there are too many. */
static struct tl_cpuuse_spec *spec_for(struct util_args *a, const char *name)
{
	for (size_t i = 0; i < a->nspecs; i++)
		if (!strcmp(a->specs[i].name, name))
			return &a->specs[i];
	if (a->nspecs == TL_CPUUSE_MAX_SPANS) {
		cli_error("too many spans: at most %d", TL_CPUUSE_MAX_SPANS);
		return NULL;
	}
	a->specs[a->nspecs] = (struct tl_cpuuse_spec){ .name = name };
	return &a->specs[a->nspecs++];
}

/* --rate NAME=HZ: the last '=' splits, so a name may hold one. */
static int parse_rate(struct util_args *a, char *arg)
{
	char *eq = strrchr(arg, '='), *end;
	struct tl_cpuuse_spec *s;
	double hz;

	if (!eq || eq == arg)
		return cli_bad_value("util", "--rate", arg, "NAME=HZ, like decode=30");
	errno = 0;
	hz = strtod(eq + 1, &end);
	if (errno || end == eq + 1 || *end || !(hz > 0) || isinf(hz) || hz > 1e9)
		return cli_bad_value("util", "--rate", arg, "NAME=HZ with a rate above 0, like decode=30");
	*eq = 0; /* the name is used in place: argv outlives the command */
	s = spec_for(a, arg);
	if (!s)
		return cli_usage_error("util");
	s->rate_hz = hz;
	return 0;
}

static int parse_worst(struct util_args *a, const char *arg)
{
	char *end;
	double p;

	if (!strcmp(arg, "max")) {
		a->o.worst_pct = 100;
		return 0;
	}
	if (arg[0] != 'p')
		return cli_bad_value("util", "--worst", arg, "'max' or a percentile like p99");
	errno = 0;
	p = strtod(arg + 1, &end);
	if (errno || end == arg + 1 || *end || !(p > 0) || p > 100)
		return cli_bad_value("util", "--worst", arg,
		                     "'max' or a percentile like p99, above p0 and at most p100");
	a->o.worst_pct = p;
	return 0;
}

/* --db: no trace, and a rate or period for every module.  0, or 2. */
static int db_args(int argc, char **argv, int first, struct util_args *a)
{
	if (first < argc) {
		cli_error("util --db reads a results database, not a trace: '%s' is one too many", argv[first]);
		return cli_usage_error("util");
	}
	if (!a->nspecs) {
		cli_error("util --db needs the modules: --rate NAME=HZ for each");
		return cli_usage_error("util");
	}
	for (size_t i = 0; i < a->nspecs; i++)
		if (!(a->specs[i].rate_hz > 0) && !a->period_ns) {
			cli_error("util --db: module '%s' has no --rate (or --period): the admission test needs it",
			          a->specs[i].name);
			return cli_usage_error("util");
		} else if (!(a->specs[i].rate_hz > 0)) {
			a->specs[i].period_ns = a->period_ns;
		}
	return 0;
}

/* The admission test from a results database. */
static int util_db(struct util_args *a)
{
	struct tl_results_admit_src src[TL_CPUUSE_MAX_SPANS];
	struct tl_cpuuse_result r;
	int64_t sweep = 0;
	FILE *out;
	int rc;

	if (tl_results_admission(a->db, a->sweep, a->at, a->nat, a->specs, a->nspecs, &r, src, &sweep) < 0) {
		tl_cpuuse_result_release(&r);
		return cli_lib_error();
	}
	if (!(out = cli_output_open(a->output))) {
		tl_cpuuse_result_release(&r);
		return 1;
	}
	rc = cli_output_close(out, a->output,
	                      a->json ? tl_results_admission_write_json(out, a->db, sweep, a->at, a->nat, &r, src)
	                              : tl_results_admission_write_text(out, a->db, sweep, a->at, a->nat, &r, src));
	tl_cpuuse_result_release(&r);
	return rc;
}

/* Returns 0 to go on, or the exit status (2 usage, -1 after --help). */
static int parse_args(int argc, char **argv, struct util_args *a)
{
	int64_t v;
	int c;

	a->run.to_ns = -1;
	optind = 1;
	while ((c = getopt_long(argc, argv, "ho:", long_options, NULL)) != -1) {
		switch (c) {
		case 'h': usage(stdout); return -1;
		case 'o': a->output = optarg; break;
		case OPT_JSON: a->json = 1; break;
		case OPT_SPAN:
			if (!*optarg)
				return cli_bad_value("util", "--span", optarg, "a span name");
			if (!spec_for(a, optarg))
				return cli_usage_error("util");
			break;
		case OPT_RATE:
			if (parse_rate(a, optarg))
				return 2;
			break;
		case OPT_PERIOD:
			v = cli_parse_duration_ns(optarg);
			if (v <= 0)
				return cli_bad_value("util", "--period", optarg,
				                     "a duration above 0, like 33ms or 0.5s");
			a->period_ns = (uint64_t)v;
			break;
		case OPT_WORST:
			if (parse_worst(a, optarg))
				return 2;
			break;
		case OPT_INSTANCES: a->o.keep_instances = 1; break;
		case OPT_FROM:
		case OPT_TO:
			if (cli_window_arg("util", c == OPT_TO, optarg, &a->run))
				return 2;
			break;
		case OPT_PREEMPT_WINDOW:
			if (cli_preempt_window_arg("util", optarg, &a->run))
				return 2;
			break;
		case OPT_DB: a->db = optarg; break;
		case OPT_ADMIT: a->admit_only = 1; break;
		case OPT_WIDTH:
			if (cli_width_arg("util", optarg, &a->width))
				return 2;
			break;
		case OPT_SWEEP: {
			char *end;
			a->sweep = strtoll(optarg, &end, 10);
			if (*end || end == optarg || a->sweep < 1)
				return cli_bad_value("util", "--sweep", optarg, "a sweep's id, from 1");
			break;
		}
		case OPT_AT: {
			char *eq = strchr(optarg, '=');
			if (!eq || eq == optarg || !eq[1])
				return cli_bad_value("util", "--at", optarg, "NAME=VALUE, like outputs=4");
			if (a->nat == TL_RESULTS_MAX_AT) {
				cli_error("at most %d --at", TL_RESULTS_MAX_AT);
				return cli_usage_error("util");
			}
			*eq = 0; /* in place: argv outlives the command */
			a->at[a->nat++] = (struct tl_results_at){ optarg, eq + 1 };
			break;
		}
		default: return cli_usage_error("util");
		}
	}
	if (a->db)
		return db_args(argc, argv, optind, a);
	if (a->sweep || a->nat) {
		cli_error("--sweep and --at choose runs in a results database: they need --db");
		return cli_usage_error("util");
	}
	if ((c = cli_trace_args("util", argc, argv, optind, a->run.from_ns, a->run.to_ns, &a->run.path)))
		return c;
	if (!a->nspecs) {
		cli_error("util needs a span to measure: --span NAME or --rate NAME=HZ");
		return cli_usage_error("util");
	}
	for (size_t i = 0; i < a->nspecs; i++)
		if (!(a->specs[i].rate_hz > 0))
			a->specs[i].period_ns = a->period_ns;
	a->o.specs = a->specs;
	a->o.nspecs = a->nspecs;
	return 0;
}

static int seen_nothing(const struct tl_cpuuse_span *s)
{
	return !s->cpu.count && !s->incomplete && !s->outside && !s->unmeasured;
}

/* The names of other spans in the trace, for a message: "decode, encode" or "none". */
static const char *other_names(const struct tl_cpuuse_result *r, char *buf, size_t len)
{
	size_t o = 0;

	snprintf(buf, len, "none");
	for (size_t i = 0; i < r->nseen && o + 1 < len; i++)
		o += (size_t)snprintf(buf + o, len - o, "%s'%s'", i ? ", " : "", r->seen[i]);
	if (o >= len && len > 4)
		memcpy(buf + len - 4, "...", 4);
	return buf;
}

/* Warn about spans that never occur; 1 when none of them does (nothing to report). */
static int check_found(const struct util_args *a, const struct tl_cpuuse_result *r)
{
	size_t missing = 0;
	char names[512];

	for (size_t i = 0; i < r->nspans; i++)
		missing += seen_nothing(&r->spans[i]);
	if (missing == r->nspans) {
		if (r->nspans == 1 && cli_inlined_calls(&a->run, a->specs[0].name, 0, 1))
			return 1; /* a function only ever inlined: said why */
		if (r->nspans == 1) {
			cli_error("no span '%s' in '%s' (region, task and function spans there: %s)", a->specs[0].name,
			          a->run.path, other_names(r, names, sizeof(names)));
			return 1;
		}
		for (size_t i = 0; i < r->nspans; i++)
			cli_inlined_calls(&a->run, a->specs[i].name, 0, 0);
		cli_error("none of the spans asked for is in '%s' (region, task and function spans there: %s)",
		          a->run.path, other_names(r, names, sizeof(names)));
		return 1;
	}
	for (size_t i = 0; i < r->nspans; i++)
		if (!seen_nothing(&r->spans[i]))
			cli_inlined_calls(&a->run, a->specs[i].name, 1, 0);
		else if (!cli_inlined_calls(&a->run, a->specs[i].name, 0, 0))
			cli_warn("no span '%s' in '%s'", a->specs[i].name, a->run.path);
	return 0;
}

int cmd_util(int argc, char **argv)
{
	struct util_args a = { 0 };
	struct cli_progress prog = { .what = "analysing", .last = -1 };
	struct tl_cpuuse_result r;
	FILE *out = stdout;
	int rc, width;

	rc = parse_args(argc, argv, &a);
	if (rc)
		return rc < 0 ? 0 : rc;
	if (a.db)
		return util_db(&a);
	cli_run_progress(&a.run, &prog);
	rc = tl_cpuuse_analyze(&a.run, &a.o, &r);
	cli_progress_end(&prog);
	tl_run_close(&a.run);
	if (rc) {
		rc = cli_lib_error();
		goto out;
	}
	cli_run_warnings(&a.run, a.json || a.output ? "times near the gaps are uncertain" : NULL);
	width = a.width ? a.width : cli_terminal_width(a.output);
	if (check_found(&a, &r)) {
		rc = 1;
		goto out;
	}
	out = cli_output_open(a.output);
	if (!out) {
		rc = 1;
		goto out;
	}
	rc = cli_output_close(out, a.output,
	                      a.json         ? tl_cpuuse_write_json(out, &r)
	                      : a.admit_only ? tl_cpuuse_write_admission_text(out, &r, width)
	                                     : tl_cpuuse_write_text(out, &r, width));
out:
	tl_cpuuse_result_release(&r);
	tl_run_release(&a.run);
	return rc;
}
