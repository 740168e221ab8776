/*
 * cmd-report.c - `threadlens report`: where each thread's time went.
 *
 * Parses options into a tl_run (timeline/run.h) and a tl_report_opts, runs
 * tl_report_analyze() and hands the model to one writer (text, JSON or
 * CSV).  It analyses nothing itself and formats nothing itself.  Exit
 * status: 0 when a report was printed (even from a damaged trace: the
 * reader's warnings go to stderr), 1 when the trace cannot be read or the
 * output cannot be written, 2 for bad usage.  Nothing but warnings reaches
 * stderr on success, and the progress line only when stderr is a terminal.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "analysis/diagnose/diagnose.h"
#include "base/errors.h"
#include "analysis/report/report.h"
#include "export/export.h"

enum format { FMT_TEXT, FMT_JSON, FMT_CSV };

struct report_args {
	const char *output;
	int format;
	int csv_table;
	int intervals; /* --csv=intervals: every state interval, streamed (export/csv.c) */
	int width;
	struct cli_ids ids;
	struct tl_run run;
	struct tl_report_opts rep;
};

enum {
	OPT_JSON = 256,
	OPT_CSV,
	OPT_SORT,
	OPT_TOP,
	OPT_FROM,
	OPT_TO,
	OPT_PID,
	OPT_TID,
	OPT_COMM,
	OPT_ALL,
	OPT_PREEMPT_WINDOW,
	OPT_WIDTH,
};

static const struct option long_options[] = {
	{ "help", no_argument, NULL, 'h' },
	{ "output", required_argument, NULL, 'o' },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "csv", optional_argument, NULL, OPT_CSV },
	{ "sort", required_argument, NULL, OPT_SORT },
	{ "top", required_argument, NULL, OPT_TOP },
	{ "from", required_argument, NULL, OPT_FROM },
	{ "to", required_argument, NULL, OPT_TO },
	{ "pid", required_argument, NULL, OPT_PID },
	{ "tid", required_argument, NULL, OPT_TID },
	{ "comm", required_argument, NULL, OPT_COMM },
	{ "all", no_argument, NULL, OPT_ALL },
	{ "preempt-window", required_argument, NULL, OPT_PREEMPT_WINDOW },
	{ "width", required_argument, NULL, OPT_WIDTH },
	{ NULL, 0, NULL, 0 },
};

static void usage(FILE *out)
{
	fputs("usage: threadlens report [options] FILE\n"
	      "\n"
	      "Where each thread's time went: the share of its lifetime in every state\n"
	      "(executing, waiting for a CPU, lock wait, sleep, I/O...), its scheduling\n"
	      "(switches, latency, bursts, who woke it), per-CPU utilization and a\n"
	      "per-process summary.  docs/REPORT.md explains every column.  A trace that\n"
	      "threadlens recorded also holds the kernel's own accounting of each thread;\n"
	      "the report checks its state times against it and says how well they agree\n"
	      "(\"check\" in the header, loud when they do not; docs/REPORT.md, \"Self-check\").\n"
	      "\n"
	      "output:\n"
	      "  -o, --output FILE      write the report to FILE instead of stdout\n"
	      "      --json             the JSON document of docs/JSON.md (schema version 1)\n"
	      "      --csv[=TABLE]      one CSV table: threads (default), states, transitions,\n"
	      "                         cpus, processes, wakers, or intervals (every state\n"
	      "                         interval of every thread, with its waker:\n"
	      "                         docs/EXPORT.md)\n"
	      "      --sort KEY         order threads by time in a state (EXECUTING, SYNC_WAIT,\n"
	      "                         ... or the column labels EXEC, SYNC, ...; the default),\n"
	      "                         or by name, tid, pid, lifetime\n"
	      "      --top N|all        at most N threads and processes (30 in the text,\n"
	      "                         all in --json and --csv; a line says what is left out)\n"
	      "      --width COLS       fit the report in COLS columns, 80 or more (default:\n"
	      "                         the terminal's, or 100; under 80 the prose fits,\n"
	      "                         some tables do not)\n"
	      "\n"
	      "what to analyse:\n"
	      "      --from TIME        start of the window, from the trace start (1.5, 250ms)\n"
	      "      --to TIME          end of the window, from the trace start\n"
	      "      --pid LIST         only these processes (12,13)\n"
	      "      --tid LIST         only these threads\n"
	      "      --comm TEXT        only threads whose name or process name contains TEXT\n"
	      "      --all              include threads outside the recorded program\n"
	      "      --preempt-window DURATION\n"
	      "                         how recent a wakeup on the CPU must be to count a\n"
	      "                         switch-out as a preemption rather than an expired\n"
	      "                         quantum (default 1ms; see docs/STATES.md)\n"
	      "\n"
	      "examples:\n"
	      "  threadlens report app.tl\n"
	      "  threadlens report --sort SYNC_WAIT --top 10 app.tl\n"
	      "  threadlens report --from 2s --to 2.5s --comm worker app.tl\n"
	      "  threadlens report --json -o app.json app.tl\n"
	      "  threadlens report --csv=states app.tl > states.csv\n",
	      out);
}

/* Returns 0 to go on, or the exit status (2 usage, 0 after --help). */
static int parse_args(int argc, char **argv, struct report_args *a)
{
	int c;
	int64_t v;

	a->run.to_ns = -1;
	a->rep.sort = TL_REPORT_SORT_DEFAULT;
	optind = 1;
	while ((c = getopt_long(argc, argv, "ho:", long_options, NULL)) != -1) {
		switch (c) {
		case 'h': usage(stdout); return -1;
		case 'o': a->output = optarg; break;
		case OPT_JSON: a->format = FMT_JSON; break;
		case OPT_CSV:
			a->format = FMT_CSV;
			a->intervals = optarg && !strcasecmp(optarg, "intervals");
			a->csv_table = optarg ? tl_report_csv_table_parse(optarg) : TL_CSV_THREADS;
			if (a->csv_table < 0 && !a->intervals)
				return cli_bad_value(
				        "report", "--csv table", optarg,
				        "threads, states, transitions, cpus, processes, wakers or intervals");
			break;
		case OPT_SORT:
			a->rep.sort = tl_report_sort_parse(optarg);
			if (a->rep.sort == -2)
				return cli_bad_value("report", "--sort key", optarg,
				                     "a state name, name, tid, pid or lifetime");
			break;
		case OPT_TOP:
			if (!strcmp(optarg, "all")) {
				a->rep.top = -1;
				break;
			}
			v = strtoll(optarg, NULL, 10);
			if (!*optarg || strspn(optarg, "0123456789") != strlen(optarg) || v < 1 || v > 1000000000)
				return cli_bad_value("report", "--top", optarg, "a number of rows, at least 1, or all");
			a->rep.top = (int)v;
			break;
		case OPT_WIDTH:
			if (cli_width_arg("report", optarg, &a->width))
				return 2;
			break;
		case OPT_FROM:
		case OPT_TO:
			if (cli_window_arg("report", c == OPT_TO, optarg, &a->run))
				return 2;
			break;
		case OPT_PID:
		case OPT_TID:
			if (cli_ids_arg("report", c == OPT_TID, optarg, &a->run, &a->ids))
				return 2;
			break;
		case OPT_COMM: a->run.comm = optarg; break;
		case OPT_ALL: a->run.all_threads = 1; break;
		case OPT_PREEMPT_WINDOW:
			if (cli_preempt_window_arg("report", optarg, &a->run))
				return 2;
			break;
		default: return cli_usage_error("report");
		}
	}
	if ((c = cli_trace_args("report", argc, argv, optind, a->run.from_ns, a->run.to_ns, &a->run.path)))
		return c;
	return 0;
}

/* The text report ends with the diagnosis in brief (analysis/diagnose), from the same walk. */
static int write_text(FILE *out, const struct report_args *a, const struct tl_model *m)
{
	struct tl_findings f;
	int rc = tl_report_write_text(out, m, &a->rep);

	if (rc || tl_diagnose_model(m, NULL, &f))
		return -1;
	rc = tl_diagnose_write_brief(out, &f, a->rep.width);
	tl_findings_release(&f);
	return rc;
}

static int write_report(FILE *out, const struct report_args *a, const struct tl_model *m)
{
	switch (a->format) {
	case FMT_JSON: return tl_report_write_json(out, m, &a->rep);
	case FMT_CSV: return tl_report_write_csv(out, m, a->csv_table, &a->rep);
	default: return write_text(out, a, m);
	}
}

/*
 * --csv=intervals: every state interval (tid, pid, thread, state, start,
 * end, cpu, the waker or preemptor `by`), streamed as it is read: the
 * export module's intervals table (docs/EXPORT.md), to the output.
 */
static int report_intervals(struct report_args *a)
{
	struct cli_progress prog = { .what = "reading", .last = -1 };
	struct tl_export_opts o = { .format = TL_EXPORT_CSV, .intervals_only = 1 };
	struct tl_export_counts n;
	int rc;

	if (!(o.out = cli_output_open(a->output))) {
		tl_run_release(&a->run);
		return 1;
	}
	cli_run_progress(&a->run, &prog);
	rc = tl_export(&a->run, &o, &n);
	cli_progress_end(&prog);
	tl_run_close(&a->run);
	if (rc) {
		rc = cli_lib_error();
		cli_output_abandon(o.out, a->output);
	} else {
		cli_run_warnings(&a->run, "states near the gaps are uncertain");
		rc = cli_output_close(o.out, a->output, 0);
	}
	tl_run_release(&a->run);
	return rc;
}

int cmd_report(int argc, char **argv)
{
	struct report_args a = { 0 };
	struct cli_progress prog = { .what = "analysing", .last = -1 };
	struct tl_model m;
	FILE *out = stdout;
	int rc;

	rc = parse_args(argc, argv, &a);
	if (rc)
		return rc < 0 ? 0 : rc;
	if (a.intervals)
		return report_intervals(&a);

	cli_run_progress(&a.run, &prog);
	rc = tl_report_analyze(&a.run, &m);
	cli_progress_end(&prog);
	tl_run_close(&a.run);
	if (rc) {
		tl_run_release(&a.run);
		return cli_lib_error();
	}

	/* the text report shows lost events in its header; other outputs need a word here */
	cli_run_warnings(&a.run, a.format != FMT_TEXT || a.output ? "states near the gaps are uncertain" : NULL);
	if ((a.run.npids || a.run.ntids || a.run.comm) && !m.nthreads) {
		char what[64];

		if (a.run.ntids)
			snprintf(what, sizeof(what), "--tid %d%s", a.run.tids[0], a.run.ntids > 1 ? ",..." : "");
		else if (a.run.npids)
			snprintf(what, sizeof(what), "--pid %d%s", a.run.pids[0], a.run.npids > 1 ? ",..." : "");
		else
			snprintf(what, sizeof(what), "--comm '%.40s'", a.run.comm);
		cli_warn("no thread in the window matches %s: the tables are empty", what);
	}

	a.rep.width = a.width ? a.width : cli_terminal_width(a.output);
	out = cli_output_open(a.output);
	if (out)
		rc = cli_output_close(out, a.output, write_report(out, &a, &m));
	else
		rc = 1;
	tl_report_release(&m);
	tl_run_release(&a.run);
	return rc;
}
