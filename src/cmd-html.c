/*
 * cmd-html.c - `threadlens html`: the whole analysis of a trace as one
 * self-contained HTML file (lib/export/html.h).
 *
 * Exit status: 0 when the page was written, 1 when the trace cannot be
 * read or the page cannot be written (a half-written page is removed),
 * 2 for bad usage.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "analysis/predict/predict.h"
#include "export/html.h"

struct html_args {
	struct tl_run run;
	struct tl_run after; /* before/after: the second trace (path NULL otherwise) */
	const char *output, *directives, *platform;
	int cores;
};

enum { OPT_FROM = 256, OPT_TO, OPT_DIRECTIVES, OPT_PLATFORM, OPT_CORES };

static const struct option long_options[] = {
	{ "help", no_argument, NULL, 'h' },
	{ "output", required_argument, NULL, 'o' },
	{ "from", required_argument, NULL, OPT_FROM },
	{ "to", required_argument, NULL, OPT_TO },
	{ "directives", required_argument, NULL, OPT_DIRECTIVES },
	{ "platform", required_argument, NULL, OPT_PLATFORM },
	{ "cores", required_argument, NULL, OPT_CORES },
	{ NULL, 0, NULL, 0 },
};

static void usage(FILE *out)
{
	fputs("usage: threadlens html [options] FILE\n"
	      "       threadlens html [options] BEFORE AFTER\n"
	      "\n"
	      "Write the analysis of a trace as one HTML file that any current browser opens\n"
	      "from disk, offline: the findings, a timeline of every thread's states (zoom\n"
	      "into any millisecond for the exact intervals; hover for the state, its length,\n"
	      "CPU and waker; click a thread to select it everywhere), what each CPU ran,\n"
	      "the CPU utilization, a bar per thread of where its time went and, when the\n"
	      "program marked frames, throughput, latency, steps, their distributions and\n"
	      "the critical paths of the longest frames.  With two traces: before and after\n"
	      "a change, the comparison of `threadlens diff` first, then both in full.\n"
	      "\n"
	      "options:\n"
	      "  -o, --output FILE        the page [FILE without .tl, plus .html; two traces:\n"
	      "                           BEFORE without .tl, plus -diff.html]\n"
	      "      --from TIME, --to TIME\n"
	      "                           only this window, from the trace start (1.5, 250ms)\n"
	      "      --directives FILE    also predict the speedup on 1..N cores of the marked\n"
	      "                           tasks under these directives (threadlens predict)\n"
	      "      --platform FILE      with the runtime costs of threadlens calibrate\n"
	      "      --cores N            predict for 1..N cores (default 8)\n"
	      "  -h, --help               this help\n"
	      "\n"
	      "examples:\n"
	      "  threadlens html demo.tl                 # writes demo.html\n"
	      "  threadlens html -o /tmp/app.html --from 2s --to 2.5s app.tl\n"
	      "  threadlens html before.tl after.tl      # writes before-diff.html\n",
	      out);
}

/* Returns 0 to go on, or the exit status (2 usage, -1 after --help). */
static int parse_args(int argc, char **argv, struct html_args *a)
{
	int c;

	a->run.to_ns = -1;
	optind = 1;
	while ((c = getopt_long(argc, argv, "ho:", long_options, NULL)) != -1) {
		switch (c) {
		case 'h': usage(stdout); return -1;
		case 'o': a->output = optarg; break;
		case OPT_FROM:
		case OPT_TO:
			if (cli_window_arg("html", c == OPT_TO, optarg, &a->run))
				return 2;
			break;
		case OPT_DIRECTIVES: a->directives = optarg; break;
		case OPT_PLATFORM: a->platform = optarg; break;
		case OPT_CORES: {
			char *end;
			long v = strtol(!strncmp(optarg, "1-", 2) ? optarg + 2 : optarg, &end, 10);
			if (*end || v < 1 || v > TL_PREDICT_MAX_CORES)
				return cli_bad_value("html", "--cores", optarg, "N or 1-N, N from 1 to 256");
			a->cores = (int)v;
			break;
		}
		default: return cli_usage_error("html");
		}
	}
	if ((a->platform || a->cores) && !a->directives) {
		cli_error("--platform and --cores are for the prediction: give --directives FILE");
		return cli_usage_error("html");
	}
	/* two traces: before and after; the window applies to both */
	if (argc - optind == 2) {
		a->after = a->run;
		a->after.path = argv[optind + 1];
		return cli_trace_args("html", argc - 1, argv, optind, a->run.from_ns, a->run.to_ns, &a->run.path);
	}
	return cli_trace_args("html", argc, argv, optind, a->run.from_ns, a->run.to_ns, &a->run.path);
}

int cmd_html(int argc, char **argv)
{
	struct html_args a = { 0 };
	struct cli_progress prog = { .what = "analysing", .last = -1 };
	struct tl_html_opts o = { 0 };
	struct tl_html_counts n;
	struct tl_directives dirs = { 0 };
	struct tl_platform pf;
	char *made = NULL;
	const char *out_path;
	struct stat st;
	int rc;

	rc = parse_args(argc, argv, &a);
	if (rc)
		return rc < 0 ? 0 : rc;
	if (a.directives) { /* read before anything is written: a bad file is one line */
		if (tl_directives_load(a.directives, &dirs) < 0 ||
		    (a.platform && tl_platform_load(a.platform, &pf) < 0)) {
			rc = cli_lib_error();
			goto out;
		}
		o.dirs = &dirs;
		o.pf = a.platform ? &pf : NULL;
		o.cores = a.cores;
	}
	if (!(out_path = a.output) &&
	    !(out_path = made = cli_output_beside("html", a.run.path, a.after.path ? "-diff.html" : ".html"))) {
		rc = 1;
		goto out;
	}
	if (!(o.out = cli_output_open(out_path))) {
		rc = 1;
		goto out;
	}
	o.title = a.run.path;
	a.run.passes = 0;
	prog.passes = 1;
	cli_run_progress(&a.run, &prog);
	if (a.after.path) {
		char *title = malloc(strlen(a.run.path) + strlen(a.after.path) + 8);

		if (title)
			sprintf(title, "%s -> %s", a.run.path, a.after.path);
		o.title = title ? title : "before and after";
		rc = tl_html_compare(&a.run, &a.after, &o, &n);
		free(title);
	} else {
		rc = tl_html(&a.run, &o, &n);
	}
	cli_progress_end(&prog);
	tl_run_close(&a.run);
	tl_run_close(&a.after);
	if (rc) {
		rc = cli_lib_error();
		cli_output_abandon(o.out, out_path);
		goto out;
	}
	cli_run_warnings(&a.run, "states near the gaps are uncertain");
	if (a.after.path)
		cli_run_warnings(&a.after, "states near the gaps are uncertain");
	if (cli_output_close(o.out, out_path, 0)) {
		rc = 1;
		goto out;
	}
	fprintf(stderr, "threadlens: wrote %s (%.1f MB): %llu threads, %llu intervals, %llu findings%s%s\n", out_path,
	        stat(out_path, &st) == 0 ? (double)st.st_size / 1e6 : 0.0, (unsigned long long)n.threads,
	        (unsigned long long)n.intervals, (unsigned long long)n.findings,
	        n.samples ? (o.dirs ? ", a profile, a prediction" : ", a profile") : (o.dirs ? ", a prediction" : ""),
	        n.truncated ? "; too large for every interval: exact detail stops early (use --from/--to)" : "");
out:
	free(made);
	tl_directives_release(&dirs);
	tl_run_release(&a.run);
	tl_run_release(&a.after);
	return rc;
}
