/*
 * cmd-archive.c - `threadlens archive`: the files a trace's samples need,
 * by build ID, in one tar archive to take along with the trace
 * (lib/export/archive.h), as `perf archive` makes one.
 *
 * Exit status: 0 when the archive was written (files left out are
 * warnings), 1 when the trace cannot be read, has no samples, no file
 * could be taken, or the archive cannot be written (a half-written one is
 * removed), 2 for bad usage.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "export/archive.h"

static void usage(FILE *out)
{
	fputs("usage: threadlens archive [-o FILE] TRACE\n"
	      "\n"
	      "Puts the files that a sampled trace's (record --sample) frames lie in, keyed\n"
	      "by build ID, into one tar archive: a trace read on another machine, or after\n"
	      "its programs were rebuilt or upgraded, is named from them.  On the machine\n"
	      "that reads the trace:\n"
	      "  mkdir -p ~/.debug && tar -xf FILE -C ~/.debug\n"
	      "then profile (and perf report) finds each file by the build ID the trace\n"
	      "keeps.  A file the trace has no build ID for (a trace of format 1.13 or\n"
	      "older), or whose build is neither at its path nor in ~/.debug, is left\n"
	      "out with a warning.\n"
	      "\n"
	      "options:\n"
	      "  -o, --output FILE  the archive [TRACE without .tl, plus .buildids.tar]\n"
	      "  -h, --help         this help\n"
	      "\n"
	      "examples:\n"
	      "  threadlens record --sample -o app.tl -- ./app\n"
	      "  threadlens archive app.tl                     # writes app.buildids.tar\n"
	      "  # elsewhere: mkdir -p ~/.debug && tar -xf app.buildids.tar -C ~/.debug\n"
	      "  threadlens profile app.tl\n",
	      out);
}

/* Warn of the files left out: a list, cut after five. */
static void left_out(const struct tl_profile_files *l, const char *why)
{
	if (!l->n)
		return;
	cli_warn("%zu file%s left out (%s): %s%s%s", l->n, l->n > 1 ? "s" : "", why, l->paths[0], l->n > 1 ? ", " : "",
	         l->n > 1 ? l->paths[1] : "");
	for (size_t i = 2; i < l->n && i < 5; i++)
		fprintf(stderr, "  %s\n", l->paths[i]);
	if (l->n > 5)
		fprintf(stderr, "  ... %zu more\n", l->n - 5);
}

int cmd_archive(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct tl_run run = { .to_ns = -1 };
	struct tl_archive_result r = { 0 };
	const char *output = NULL;
	char *made = NULL;
	FILE *out = NULL;
	int c, rc;

	optind = 1;
	while ((c = getopt_long(argc, argv, "ho:", longopts, NULL)) != -1) {
		switch (c) {
		case 'h': usage(stdout); return 0;
		case 'o': output = optarg; break;
		default: return cli_usage_error("archive");
		}
	}
	if ((rc = cli_trace_args("archive", argc, argv, optind, 0, -1, &run.path)))
		return rc;
	if (!output && !(output = made = cli_output_beside("archive", run.path, ".buildids.tar"))) {
		rc = 1;
		goto out;
	}
	if (!(out = cli_output_open(output))) {
		rc = 1;
		goto out;
	}
	rc = tl_archive(&run, out, &r);
	tl_run_close(&run);
	if (!rc && !r.prof.samples) {
		cli_output_abandon(out, output);
		rc = cli_error("no samples in '%s': record it with --sample", run.path);
		goto out;
	}
	if (rc) { /* the trace, a file or the archive: tl_error says which */
		cli_output_abandon(out, output);
		rc = cli_lib_error();
		goto out;
	}
	cli_run_warnings(&run, NULL);
	if (r.no_id)
		cli_warn("%zu file%s left out: the trace has no build ID for %s (recorded before format 1.14)", r.no_id,
		         r.no_id > 1 ? "s" : "", r.no_id > 1 ? "them" : "it");
	left_out(&r.prof.rebuilt, "rebuilt since the recording, and no copy in ~/.debug");
	left_out(&r.prof.unreadable, "gone, or not readable");
	if (!r.files) {
		cli_output_abandon(out, output);
		rc = cli_error("nothing to archive for '%s': no file its samples lie in could be taken", run.path);
		goto out;
	}
	if ((rc = cli_output_close(out, output, 0)))
		goto out;
	fprintf(stderr,
	        "threadlens: wrote %s (%.1f MB): %zu file%s by build ID; where the trace is read:\n"
	        "  mkdir -p ~/.debug && tar -xf %s -C ~/.debug\n",
	        output, (double)r.bytes / 1e6, r.files, r.files == 1 ? "" : "s", output);
out:
	tl_archive_release(&r);
	tl_run_release(&run);
	free(made);
	return rc;
}
