/*
 * cmd-export.c - `threadlens export`: a trace in Perfetto, Chrome JSON or
 * CSV form (lib/export/export.h).
 *
 * Parses options into a tl_run and a tl_export_opts, opens the output and
 * runs tl_export(), which streams as it reads.  Exit status: 0 when the
 * output was written, 1 when the trace cannot be read or the output cannot
 * be written (a half-written output is removed), 2 for bad usage.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "export/export.h"

struct export_args {
	struct tl_run run;
	const char *output;
	int format;
};

enum { OPT_FROM = 256, OPT_TO };

static const struct option long_options[] = {
	{ "help", no_argument, NULL, 'h' },         { "output", required_argument, NULL, 'o' },
	{ "format", required_argument, NULL, 'f' }, { "from", required_argument, NULL, OPT_FROM },
	{ "to", required_argument, NULL, OPT_TO },  { NULL, 0, NULL, 0 },
};

static const char *const extension[] = { ".pftrace", ".json", "", ".db" };

static void usage(FILE *out)
{
	fputs("usage: threadlens export [options] FILE\n"
	      "\n"
	      "Write a trace in another tool's format, to look at it there:\n"
	      "  perfetto  a Perfetto trace for ui.perfetto.dev: CPU tracks and thread states\n"
	      "            from the scheduler events, a \"states\" track per thread with\n"
	      "            threadlens's states, and the markers as slices\n"
	      "  chrome    Chrome trace-event JSON (chrome://tracing, Perfetto): states and\n"
	      "            markers per thread, frames as async events, a row per CPU\n"
	      "  csv       three tables: PREFIX-intervals.csv (every state interval),\n"
	      "            PREFIX-spans.csv (markers) and PREFIX-threads.csv (time per state)\n"
	      "  sqlite    an SQLite database of the states, CPUs, markers and threads, as\n"
	      "            threadlens sql queries it (docs/SQL.md)\n"
	      "Every thread in the trace is written.\n"
	      "\n"
	      "options:\n"
	      "  -f, --format FORMAT      perfetto, chrome, csv or sqlite [perfetto]\n"
	      "  -o, --output FILE        where to write; csv: the tables' prefix\n"
	      "                           [FILE without .tl, plus .pftrace, .json, .db;\n"
	      "                           csv: FILE without .tl]\n"
	      "      --from TIME, --to TIME\n"
	      "                           only this window, from the trace start (1.5, 250ms)\n"
	      "  -h, --help               this help\n"
	      "\n"
	      "examples:\n"
	      "  threadlens export demo.tl                    # writes demo.pftrace\n"
	      "  threadlens export -f chrome -o app.json app.tl\n"
	      "  threadlens export -f csv -o /tmp/app app.tl  # /tmp/app-intervals.csv, ...\n",
	      out);
}

/* Returns 0 to go on, or the exit status (2 usage, -1 after --help). */
static int parse_args(int argc, char **argv, struct export_args *a)
{
	int c;

	a->run.to_ns = -1;
	optind = 1;
	while ((c = getopt_long(argc, argv, "ho:f:", long_options, NULL)) != -1) {
		switch (c) {
		case 'h': usage(stdout); return -1;
		case 'o': a->output = optarg; break;
		case 'f':
			if ((a->format = tl_export_format_from_name(optarg)) < 0)
				return cli_bad_value("export", "--format", optarg, "perfetto, chrome, csv or sqlite");
			break;
		case OPT_FROM:
		case OPT_TO:
			if (cli_window_arg("export", c == OPT_TO, optarg, &a->run))
				return 2;
			break;
		default: return cli_usage_error("export");
		}
	}
	return cli_trace_args("export", argc, argv, optind, a->run.from_ns, a->run.to_ns, &a->run.path);
}

int cmd_export(int argc, char **argv)
{
	struct export_args a = { 0 };
	struct cli_progress prog = { .what = "exporting", .last = -1 };
	struct tl_export_opts o = { 0 };
	struct tl_export_counts n;
	char *made = NULL;
	const char *out_path;
	struct stat st;
	int rc;

	rc = parse_args(argc, argv, &a);
	if (rc)
		return rc < 0 ? 0 : rc;
	out_path = a.output;
	if (!out_path && !(out_path = made = cli_output_beside("export", a.run.path, extension[a.format]))) {
		rc = 1;
		goto out;
	}
	o.format = a.format;
	if (a.format == TL_EXPORT_CSV) {
		o.prefix = out_path;
	} else if (a.format == TL_EXPORT_SQLITE) {
		o.db_path = out_path;
		o.db_indexes = 1;
	} else if (!(o.out = cli_output_open(out_path))) {
		rc = 1;
		goto out;
	}
	cli_run_progress(&a.run, &prog);
	rc = tl_export(&a.run, &o, &n);
	cli_progress_end(&prog);
	tl_run_close(&a.run);
	if (rc) {
		rc = cli_lib_error();
		if (o.out)
			cli_output_abandon(o.out, out_path);
		goto out;
	}
	cli_run_warnings(&a.run, "states near the gaps are uncertain");
	if (o.out && cli_output_close(o.out, out_path, 0)) {
		rc = 1;
		goto out;
	}
	if (a.format == TL_EXPORT_CSV)
		fprintf(stderr, "threadlens: wrote %s-intervals.csv, -spans.csv, -threads.csv: ", out_path);
	else
		fprintf(stderr, "threadlens: wrote %s (%.1f MB): ", out_path,
		        stat(out_path, &st) == 0 ? (double)st.st_size / 1e6 : 0.0);
	fprintf(stderr, "%llu threads, %llu state intervals, %llu markers", (unsigned long long)n.threads,
	        (unsigned long long)n.intervals, (unsigned long long)n.spans);
	if (a.format == TL_EXPORT_PERFETTO)
		fprintf(stderr, ", %llu scheduler events", (unsigned long long)n.sched_events);
	if (n.samples)
		fprintf(stderr, ", %llu CPU samples", (unsigned long long)n.samples);
	fputc('\n', stderr);
out:
	free(made);
	tl_run_release(&a.run);
	return rc;
}
