/*
 * main.c - the `threadlens` entry point: dispatch to a subcommand.
 *
 * To add a command: write src/cmd-NAME.c with `int cmd_NAME(int argc, char
 * **argv)` that handles its own options (including --help with an example),
 * declare it in cli.h, and add a line to the table below.  Nothing else in
 * this file needs to change.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"

static const struct cli_command commands[] = {
	{ "record", cmd_record, "record a program's (or the system's) scheduling into a trace file" },
	{ "report", cmd_report, "where each thread's time went: states, CPUs, processes" },
	{ "import", cmd_import, "convert a perf.data ('perf sched record') into a threadlens trace" },
	{ "dump", cmd_dump, "print a trace's events as text, one per line" },
	{ "hist", cmd_hist, "execution-time histogram, percentiles and profile (ETP) of a span" },
	{ "frames", cmd_frames, "frames/s, latency per frame, steps and dropped frames (markers)" },
	{ "profile", cmd_profile, "where sampled CPU time went: functions, threads (record --sample)" },
	{ "calibrate", cmd_calibrate, "measure this machine's costs for predict (OpenMP, switches)" },
	{ "sweep", cmd_sweep, "measure a program under every combination of its parameters" },
	{ "sql", cmd_sql, "SQL over a trace's states, CPUs and markers, or sweep results" },
	{ "results", cmd_results, "a sweep's metric against a parameter: error bars, a linear fit" },
	{ "predict", cmd_predict, "speedup on 1..N cores of a sequential run's tasks (OpenMP-like)" },
	{ "util", cmd_util, "CPU a module (span) uses per period, net of interrupts; RM/EDF test" },
	{ "diagnose", cmd_diagnose, "threading problems ranked by cost, with evidence, cause and fix" },
	{ "critical", cmd_critical, "where a frame's latency went, along its critical path" },
	{ "diff", cmd_diff, "two recordings side by side: before and after a change" },
	{ "html", cmd_html, "the whole analysis as one interactive HTML page, offline" },
	{ "export", cmd_export, "the trace for Perfetto, Chrome tracing or a spreadsheet (CSV)" },
	{ "archive", cmd_archive, "the files a sampled trace needs, by build ID, to read it elsewhere" },
};
#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

static void usage(FILE *out)
{
	fprintf(out, "usage: threadlens <command> [options] [args]\n\n"
	             "Shows where every thread of a multi-threaded program spends its time.\n\n"
	             "commands:\n");
	for (size_t i = 0; i < NCOMMANDS; i++)
		fprintf(out, "  %-9s %s\n", commands[i].name, commands[i].summary);
	fprintf(out, "\nexample:\n"
	             "  threadlens record -o app.tl -- ./app --frames 100\n"
	             "  threadlens report app.tl\n\n"
	             "'threadlens <command> --help' describes a command's options.\n");
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
		printf("threadlens %s\n", TL_VERSION);
		return 0;
	}
	for (size_t i = 0; i < NCOMMANDS; i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].fn(argc - 1, argv + 1);
	fprintf(stderr, "threadlens: '%s' is not a threadlens command; see 'threadlens --help'\n", argv[1]);
	return 2;
}
