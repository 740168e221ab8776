/*
 * cmd-import.c - `threadlens import`: a `perf sched record` recording
 * (perf.data, or `perf script` text) into a threadlens trace.
 *
 * All the work is in lib/import/import_perf.c; this file parses options, picks the
 * output name and reports what was imported and what was left out (on
 * stderr, so that `-o -` can stream the trace to stdout).
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "base/errors.h"
#include "import/import.h"

static void usage(FILE *out)
{
	fprintf(out, "usage: threadlens import [-o OUT.tl] INPUT\n"
	             "\n"
	             "Convert a 'perf sched record' recording into a threadlens trace.  INPUT is a\n"
	             "perf.data file (perf script is run on it) or a text file holding the output of\n"
	             "  perf script --ns -F comm,tid,pid,cpu,time,event,trace [--header]\n"
	             "Timestamps stay on perf's clock unless the recording used 'perf record -k mono'.\n"
	             "\n"
	             "options:\n"
	             "  -o, --output FILE  the trace to write ('-' for stdout; default: INPUT with\n"
	             "                     its extension replaced by .tl)\n"
	             "      --perf PATH    the perf program to run (default: perf)\n"
	             "  -q, --quiet        no summary\n"
	             "  -h, --help         this help\n"
	             "\n"
	             "example:\n"
	             "  perf sched record -k mono -- ./app\n"
	             "  threadlens import -o app.tl perf.data\n"
	             "  threadlens report app.tl\n");
}

/* "dir/perf.data" -> "dir/perf.tl"; the caller frees. */
static char *default_output(const char *input)
{
	const char *slash = strrchr(input, '/');
	const char *dot = strrchr(slash ? slash + 1 : input, '.');
	size_t stem = dot && dot != (slash ? slash + 1 : input) ? (size_t)(dot - input) : strlen(input);
	char *out = malloc(stem + 4);

	if (out) {
		memcpy(out, input, stem);
		memcpy(out + stem, ".tl", 4);
	}
	return out;
}

static void summary(const struct tl_import_opts *o, const struct tl_import_result *r)
{
	fprintf(stderr, "imported '%s' into '%s': %" PRIu64 " events, %" PRIu64 " threads, %d cpus, clock %s\n",
	        o->input, o->output, r->events, r->threads, r->ncpus, r->clock);
	if (r->skipped) {
		fprintf(stderr, "skipped %" PRIu64 " events of kinds that are not imported:", r->skipped);
		for (int i = 0; i < r->nkinds; i++)
			fprintf(stderr, "%s %s (%" PRIu64 ")", i ? "," : "", r->kinds[i].name, r->kinds[i].count);
		fputc('\n', stderr);
	}
}

int cmd_import(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "perf", required_argument, NULL, 'P' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct tl_import_opts opts = { 0 };
	struct tl_import_result res;
	char *owned = NULL;
	int quiet = 0, c, ret;

	optind = 1;
	while ((c = getopt_long(argc, argv, "o:qh", longopts, NULL)) != -1) {
		switch (c) {
		case 'o': opts.output = optarg; break;
		case 'P': opts.perf = optarg; break;
		case 'q': quiet = 1; break;
		case 'h': usage(stdout); return 0;
		default: return cli_usage_error("import");
		}
	}
	if (optind != argc - 1) {
		cli_error(optind == argc ? "import needs an input file" : "import takes one input file");
		return cli_usage_error("import");
	}
	opts.input = argv[optind];
	if (!opts.output) {
		if (!strcmp(opts.input, "-")) {
			cli_error("reading stdin needs -o FILE");
			return cli_usage_error("import");
		}
		opts.output = owned = default_output(opts.input);
		if (!owned)
			return cli_error("out of memory");
	}
	if (strcmp(opts.input, "-") && !strcmp(opts.input, opts.output)) {
		free(owned);
		return cli_error("cannot import '%s' into itself; choose another name with -o", opts.input);
	}

	ret = tl_import_perf(&opts, &res);
	if (ret < 0) {
		cli_lib_error();
	} else if (!quiet) {
		summary(&opts, &res);
	}
	if (ret == 0 && res.malformed)
		cli_warn("skipped %" PRIu64 " malformed line%s of '%s', first at line %" PRIu64, res.malformed,
		         res.malformed == 1 ? "" : "s", opts.input, res.first_malformed);
	free(owned);
	return ret < 0 ? 1 : 0;
}
