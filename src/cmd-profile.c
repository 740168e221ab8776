/*
 * cmd-profile.c - `threadlens profile`: where the sampled CPU time went
 * (record --sample): top functions self and total, threads, CPUs, seconds;
 * JSON; folded stacks for flame graphs.  Several traces (record --runs N):
 * how each function's share varies from run to run.
 *
 * Parses options into a tl_run and a tl_profile_opts, runs
 * tl_profile_analyze() and hands the result to a writer; it counts and
 * formats nothing itself.  Exit status: 0 when a profile was printed, 1
 * when the trace cannot be read, has no samples, or the output cannot be
 * written, 2 for bad usage.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "analysis/profile/profile.h"
#include "analysis/profile/profile_runs.h"

struct profile_args {
	struct tl_run run;
	struct tl_profile_opts o;
	const char *output;
	int json, folded;
	struct cli_ids ids;
	char **paths; /* several traces: runs of one command */
	int npaths;
};

enum { OPT_JSON = 256, OPT_FOLDED, OPT_TOP, OPT_CPU, OPT_EVENT, OPT_FROM, OPT_TO, OPT_PID, OPT_TID, OPT_COMM };

static const struct option long_options[] = {
	{ "help", no_argument, NULL, 'h' },
	{ "output", required_argument, NULL, 'o' },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "folded", no_argument, NULL, OPT_FOLDED },
	{ "top", required_argument, NULL, OPT_TOP },
	{ "cpu", required_argument, NULL, OPT_CPU },
	{ "event", required_argument, NULL, OPT_EVENT },
	{ "from", required_argument, NULL, OPT_FROM },
	{ "to", required_argument, NULL, OPT_TO },
	{ "pid", required_argument, NULL, OPT_PID },
	{ "tid", required_argument, NULL, OPT_TID },
	{ "comm", required_argument, NULL, OPT_COMM },
	{ NULL, 0, NULL, 0 },
};

static void usage(FILE *out)
{
	fputs("usage: threadlens profile [options] FILE [FILE...]\n"
	      "\n"
	      "Where the sampled CPU time went, from a trace recorded with --sample: the\n"
	      "functions that ran (self: the innermost frame; total: anywhere in the stack),\n"
	      "the threads and their hottest function, the samples per CPU and per second.\n"
	      "Addresses are resolved with the processes' code mappings and the files'\n"
	      "symbols; without a symbol, the file and the offset.  Several files (the runs\n"
	      "of record --runs N): each function's share in each, its mean and spread.\n"
	      "docs/PROFILE.md.\n"
	      "\n"
	      "what to count:\n"
	      "      --event NAME       the event counted (default: the first recorded; the\n"
	      "                         others give counts and ratios per function)\n"
	      "      --cpu N            only samples taken on CPU N\n"
	      "      --pid PID[,PID]    only these processes\n"
	      "      --tid TID[,TID]    only these threads\n"
	      "      --comm TEXT        only threads whose name or process name contains TEXT\n"
	      "      --from TIME        start of the window, from the trace start (1.5, 250ms)\n"
	      "      --to TIME          end of the window\n"
	      "\n"
	      "output:\n"
	      "  -o, --output FILE      write to FILE instead of stdout\n"
	      "      --top N            functions listed (default 20)\n"
	      "      --json             JSON (\"threadlens-profile\", docs/JSON.md)\n"
	      "      --folded           folded stacks, one \"thread;outer;...;inner COUNT\" per\n"
	      "                         line, for flamegraph.pl or speedscope\n"
	      "\n"
	      "examples:\n"
	      "  threadlens record --sample -o app.tl -- ./app\n"
	      "  threadlens profile app.tl\n"
	      "  threadlens profile --comm decoder --from 2s --to 3s app.tl\n"
	      "  threadlens profile --folded app.tl | flamegraph.pl > app.svg\n"
	      "  threadlens record --sample --runs 5 -o app.tl -- ./app\n"
	      "  threadlens profile app.?.tl\n",
	      out);
}

/* Returns 0 to go on, or the exit status (2 usage, -1 after --help). */
static int parse_args(int argc, char **argv, struct profile_args *a)
{
	char *end;
	long v;
	int c;

	a->run.to_ns = -1;
	a->o.cpu = -1;
	optind = 1;
	while ((c = getopt_long(argc, argv, "ho:", long_options, NULL)) != -1) {
		switch (c) {
		case 'h': usage(stdout); return -1;
		case 'o': a->output = optarg; break;
		case OPT_JSON: a->json = 1; break;
		case OPT_FOLDED: a->folded = 1; break;
		case OPT_TOP:
			v = strtol(optarg, &end, 10);
			if (*end || v < 1 || v > 100000)
				return cli_bad_value("profile", "--top", optarg, "a number of functions, 1 or more");
			a->o.top = (unsigned)v;
			break;
		case OPT_CPU:
			v = strtol(optarg, &end, 10);
			if (*end || v < 0 || v > 4095)
				return cli_bad_value("profile", "--cpu", optarg, "a CPU number");
			a->o.cpu = (int)v;
			break;
		case OPT_EVENT: a->o.event = optarg; break;
		case OPT_FROM:
		case OPT_TO:
			if (cli_window_arg("profile", c == OPT_TO, optarg, &a->run))
				return 2;
			break;
		case OPT_PID:
		case OPT_TID:
			if (cli_ids_arg("profile", c == OPT_TID, optarg, &a->run, &a->ids))
				return 2;
			break;
		case OPT_COMM: a->run.comm = optarg; break;
		default: return cli_usage_error("profile");
		}
	}
	if (a->json && a->folded) {
		cli_error("--json and --folded are two outputs: choose one");
		return cli_usage_error("profile");
	}
	a->run.all_threads = 1; /* samples are only recorded for what was asked for */
	if (argc - optind > 1) {
		if (argc - optind > TL_PROFILE_MAX_RUNS || a->folded) {
			cli_error(a->folded ? "--folded reads one trace file" : "at most %d trace files",
			          TL_PROFILE_MAX_RUNS);
			return cli_usage_error("profile");
		}
		a->paths = argv + optind;
		a->npaths = argc - optind;
		return cli_trace_args("profile", optind + 1, argv, optind, a->run.from_ns, a->run.to_ns, &a->run.path);
	}
	return cli_trace_args("profile", argc, argv, optind, a->run.from_ns, a->run.to_ns, &a->run.path);
}

/* Several runs: each analysed with the same options, then side by side. */
static int profile_runs(struct profile_args *a)
{
	struct tl_profile_runs R = { 0 };
	struct tl_profile_result r;
	FILE *out;
	int rc = 1;

	for (int i = 0; i < a->npaths; i++) {
		struct tl_run run = a->run;

		run.path = a->paths[i];
		if (tl_profile_analyze(&run, &a->o, &r) < 0) {
			tl_run_release(&run);
			rc = cli_lib_error();
			goto out;
		}
		cli_run_warnings(&run, "samples near the gaps are missing");
		if (!r.samples || (R.nruns && strcmp(r.event, R.event))) {
			if (r.samples)
				rc = cli_error("'%s' counts %s, the first run %s: give --event", run.path, r.event,
				               R.event);
			else
				rc = cli_error("no samples in '%s'", run.path);
			tl_profile_release(&r);
			tl_run_release(&run);
			goto out;
		}
		rc = tl_profile_runs_add(&R, a->paths[i], &r) < 0 ? cli_lib_error() : 0;
		tl_profile_release(&r);
		tl_run_release(&run);
		if (rc)
			goto out;
	}
	tl_profile_runs_finish(&R);
	if (!(out = cli_output_open(a->output))) {
		rc = 1;
		goto out;
	}
	rc = cli_output_close(out, a->output,
	                      a->json ? tl_profile_runs_write_json(out, &R)
	                              : tl_profile_runs_write_text(out, &R, a->o.top ? a->o.top : 20));
out:
	tl_profile_runs_release(&R);
	return rc;
}

int cmd_profile(int argc, char **argv)
{
	struct profile_args a = { 0 };
	struct cli_progress prog = { .what = "analysing", .last = -1 };
	struct tl_profile_result r;
	FILE *out;
	int rc;

	rc = parse_args(argc, argv, &a);
	if (rc)
		return rc < 0 ? 0 : rc;
	if (a.npaths > 1)
		return profile_runs(&a);
	cli_run_progress(&a.run, &prog);
	rc = tl_profile_analyze(&a.run, &a.o, &r);
	cli_progress_end(&prog);
	if (rc) {
		tl_run_close(&a.run);
		rc = cli_lib_error();
		goto out;
	}
	cli_run_warnings(&a.run, "samples near the gaps are missing");
	if (!r.samples) {
		tl_run_close(&a.run);
		rc = cli_error("no samples in '%s'%s", a.run.path,
		               a.o.event || a.o.cpu >= 0 || a.run.npids || a.run.ntids || a.run.comm || a.run.from_ns ||
		                               a.run.to_ns >= 0
		                       ? " that the filters keep"
		                       : ": record it with --sample");
		goto out;
	}
	out = cli_output_open(a.output);
	if (!out) {
		tl_run_close(&a.run);
		rc = 1;
		goto out;
	}
	/* the trace stays open while writing: function names come from its files */
	rc = cli_output_close(out, a.output,
	                      a.json     ? tl_profile_write_json(out, &r)
	                      : a.folded ? tl_profile_write_folded(out, &r)
	                                 : tl_profile_write_text(out, &r));
	tl_run_close(&a.run);
out:
	tl_profile_release(&r);
	tl_run_release(&a.run);
	return rc;
}
