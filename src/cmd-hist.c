/*
 * cmd-hist.c - `threadlens hist`: execution-time histograms and profiles of
 * one kind of span (seed 002).
 *
 * Parses options into a tl_hist_query, loads the saved range (--bins),
 * runs tl_hist_analyze(), saves the widened range (--save-bins) and hands the
 * result to one writer (text, JSON or CSV).  It computes nothing itself.
 * Exit status: 0 when a histogram was printed, 1 when the trace or a bins
 * file cannot be used or no span counted, 2 for bad usage.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "base/errors.h"
#include "analysis/hist/hist.h"
#include "timeline/spans.h"

enum format { FMT_TEXT, FMT_JSON, FMT_CSV };

struct hist_args {
	struct tl_run run;
	const char *output;
	const char *bins_in, *bins_out;
	int format, csv_table, etp, mode_given;
	int width; /* --width, or 0: the terminal's */
	struct cli_ids ids;
	struct tl_hist_query q;
};

enum {
	OPT_JSON = 256,
	OPT_CSV,
	OPT_ETP,
	OPT_WIDTH,
	OPT_MODE,
	OPT_COMPARE,
	OPT_STEP,
	OPT_REF,
	OPT_BELOW,
	OPT_FACTOR,
	OPT_BINS,
	OPT_SAVE_BINS,
	OPT_FROM,
	OPT_TO,
	OPT_PID,
	OPT_TID,
	OPT_COMM,
	OPT_ALL,
	OPT_PREEMPT_WINDOW,
};

static const struct option long_options[] = {
	{ "help", no_argument, NULL, 'h' },
	{ "span", required_argument, NULL, 's' },
	{ "bins-count", required_argument, NULL, 'k' },
	{ "output", required_argument, NULL, 'o' },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "csv", optional_argument, NULL, OPT_CSV },
	{ "etp", no_argument, NULL, OPT_ETP },
	{ "width", required_argument, NULL, OPT_WIDTH },
	{ "mode", required_argument, NULL, OPT_MODE },
	{ "compare", no_argument, NULL, OPT_COMPARE },
	{ "step", required_argument, NULL, OPT_STEP },
	{ "ref", required_argument, NULL, OPT_REF },
	{ "below", required_argument, NULL, OPT_BELOW },
	{ "factor", required_argument, NULL, OPT_FACTOR },
	{ "bins", required_argument, NULL, OPT_BINS },
	{ "save-bins", required_argument, NULL, OPT_SAVE_BINS },
	{ "from", required_argument, NULL, OPT_FROM },
	{ "to", required_argument, NULL, OPT_TO },
	{ "pid", required_argument, NULL, OPT_PID },
	{ "tid", required_argument, NULL, OPT_TID },
	{ "comm", required_argument, NULL, OPT_COMM },
	{ "all", no_argument, NULL, OPT_ALL },
	{ "preempt-window", required_argument, NULL, OPT_PREEMPT_WINDOW },
	{ NULL, 0, NULL, 0 },
};

static void usage(FILE *out)
{
	fputs("usage: threadlens hist [options] --span NAME FILE\n"
	      "\n"
	      "Execution-time histogram and profile of one kind of span: exact count, min,\n"
	      "max, mean and percentiles, k bins, the execution time profile\n"
	      "ETP(t) = P(time > t), and how much of the observed range the bins cover.\n"
	      "Only complete spans inside the window count.  docs/HIST.md explains it all.\n"
	      "\n"
	      "what to measure:\n"
	      "  -s, --span NAME        a region, task or probed function name; 'frame' for\n"
	      "                         frames, '@burst' for on-CPU bursts, '@latency' for\n"
	      "                         scheduling latencies (wakeup to running)\n"
	      "      --from TIME        start of the window, from the trace start (1.5, 250ms)\n"
	      "      --to TIME          end of the window, from the trace start\n"
	      "      --tid LIST         only spans of these threads (12,13)\n"
	      "      --pid LIST         only spans of these processes\n"
	      "      --comm TEXT        only threads whose name or process name contains TEXT\n"
	      "      --all              @burst, @latency: also threads outside the program\n"
	      "      --preempt-window DURATION\n"
	      "                         passed to the state analysis (see 'threadlens report')\n"
	      "\n"
	      "bins (seed 002):\n"
	      "  -k, --bins-count K     bins, 3 to 1000000 (default 128, or the saved k)\n"
	      "      --mode MODE        iterative (default; Eq. 1-2: bins between the min and\n"
	      "                         max of earlier runs, or of this run), linear (k bins of\n"
	      "                         --step from 0) or centered (around --ref)\n"
	      "      --compare          all three modes side by side (the seed's Fig. 3)\n"
	      "      --step DURATION    linear: bin width, like 10us or 2ms (a bare number is\n"
	      "                         seconds; default: the smallest step whose k-1 inner\n"
	      "                         bins hold the maximum)\n"
	      "      --ref DURATION     centered: reference value r (default: the first span)\n"
	      "      --below N          centered: bins below r (default k*100/128)\n"
	      "      --factor F         centered: step = floor(r/k) * F (default 1)\n"
	      "      --bins FILE        iterative: bin with the range saved in FILE\n"
	      "      --save-bins FILE   save the range widened by this run to FILE, for the\n"
	      "                         next run's --bins (other spans' lines are kept)\n"
	      "\n"
	      "output:\n"
	      "  -o, --output FILE      write to FILE instead of stdout\n"
	      "      --etp              the ETP at every bin bound (and at every value, up to\n"
	      "                         1000 spans) instead of the bins\n"
	      "      --width COLS       fit the text in COLS columns, 80 or more (default:\n"
	      "                         the terminal's, or 100)\n"
	      "      --json             everything as JSON (docs/JSON.md, 'threadlens hist')\n"
	      "      --csv[=TABLE]      etp (default: t_ns,above,etp; with --compare one column\n"
	      "                         per mode) or bins (mode,bin,lower_ns,upper_ns,count)\n"
	      "\n"
	      "examples:\n"
	      "  threadlens hist --span decode app.tl\n"
	      "  threadlens hist --span frame --etp app.tl\n"
	      "  threadlens hist --span @latency --comm worker --json app.tl\n"
	      "  threadlens hist --span decode --compare --csv app.tl > etp.csv\n"
	      "  threadlens hist --span decode --save-bins bins.txt run1.tl\n"
	      "  threadlens hist --span decode --bins bins.txt --save-bins bins.txt run2.tl\n",
	      out);
}

static int usage_error(const char *msg)
{
	cli_error("%s", msg);
	return cli_usage_error("hist");
}

/* A whole number in [lo, hi], or -1. */
static int64_t parse_count(const char *s, int64_t lo, int64_t hi)
{
	char *end;
	long long v;

	if (!*s || strspn(s, "0123456789") != strlen(s) || strlen(s) > 18)
		return -1;
	errno = 0;
	v = strtoll(s, &end, 10);
	return errno || v < lo || v > hi ? -1 : v;
}

static int parse_option(int c, struct hist_args *a)
{
	struct tl_hist_query *q = &a->q;
	int64_t v;
	int n;

	switch (c) {
	case 's':
		if (!*optarg)
			return cli_bad_value("hist", "--span", optarg, "a span name");
		q->span = optarg;
		break;
	case 'k':
		v = parse_count(optarg, TL_HIST_K_MIN, TL_HIST_K_MAX);
		if (v < 0)
			return cli_bad_value("hist", "--bins-count", optarg, "a number of bins, 3 to 1000000");
		q->k = (uint32_t)v;
		break;
	case 'o': a->output = optarg; break;
	case OPT_JSON: a->format = FMT_JSON; break;
	case OPT_CSV:
		a->format = FMT_CSV;
		a->csv_table = optarg ? tl_hist_csv_parse(optarg) : TL_HIST_CSV_ETP;
		if (a->csv_table < 0)
			return cli_bad_value("hist", "--csv table", optarg, "etp or bins");
		break;
	case OPT_ETP: a->etp = 1; break;
	case OPT_WIDTH:
		if (cli_width_arg("hist", optarg, &a->width))
			return 2;
		break;
	case OPT_MODE:
		n = tl_hist_mode_parse(optarg);
		if (n < 0)
			return cli_bad_value("hist", "--mode", optarg, "linear, centered or iterative");
		q->mode = (unsigned)n;
		a->mode_given = 1;
		break;
	case OPT_COMPARE: q->compare = 1; break;
	case OPT_STEP:
		v = cli_parse_duration_ns(optarg);
		if (v <= 0 || (uint64_t)v > TL_HIST_MAX_NS)
			return cli_bad_value("hist", "--step", optarg, "a duration like 10us or 500ns");
		q->step = (uint64_t)v;
		break;
	case OPT_REF:
		v = cli_parse_duration_ns(optarg);
		if (v < 0 || (uint64_t)v > TL_HIST_MAX_NS)
			return cli_bad_value("hist", "--ref", optarg, "a duration like 1.5ms");
		q->ref = (uint64_t)v;
		q->has_ref = 1;
		break;
	case OPT_BELOW:
		v = parse_count(optarg, 0, TL_HIST_K_MAX);
		if (v < 0)
			return cli_bad_value("hist", "--below", optarg, "a number of bins");
		q->below = (uint32_t)v;
		q->has_below = 1;
		break;
	case OPT_FACTOR:
		v = parse_count(optarg, 1, INT64_C(1) << 40);
		if (v < 0)
			return cli_bad_value("hist", "--factor", optarg, "a whole number, at least 1");
		q->factor = (uint64_t)v;
		break;
	case OPT_BINS: a->bins_in = optarg; break;
	case OPT_SAVE_BINS: a->bins_out = optarg; break;
	case OPT_FROM:
	case OPT_TO:
		if (cli_window_arg("hist", c == OPT_TO, optarg, &a->run))
			return 2;
		break;
	case OPT_PID:
	case OPT_TID:
		if (cli_ids_arg("hist", c == OPT_TID, optarg, &a->run, &a->ids))
			return 2;
		break;
	case OPT_COMM: a->run.comm = optarg; break;
	case OPT_ALL: a->run.all_threads = 1; break;
	case OPT_PREEMPT_WINDOW:
		if (cli_preempt_window_arg("hist", optarg, &a->run))
			return 2;
		break;
	default: return cli_usage_error("hist");
	}
	return 0;
}

/* Options that only one mode reads must not be given to another. */
static int check_modes(const struct hist_args *a)
{
	const struct tl_hist_query *q = &a->q;
	unsigned m = q->mode;

	if (q->compare && a->mode_given)
		return usage_error("option --compare shows every mode; it does not go with --mode");
	if (q->compare)
		return 0;
	if (q->step && m == TL_HIST_ITERATIVE)
		return usage_error("option --step sets linear bins (and the centered fallback); add --mode linear");
	if ((q->has_ref || q->has_below || q->factor) && m != TL_HIST_CENTERED)
		return usage_error("options --ref, --below and --factor set centered bins; add --mode centered");
	if (a->bins_in && m != TL_HIST_ITERATIVE)
		return usage_error("option --bins gives the iterative mode its range; it does not go with this --mode");
	return 0;
}

/* Returns 0 to go on, or the exit status (2 usage, -1 after --help). */
static int parse_args(int argc, char **argv, struct hist_args *a)
{
	int c, rc;

	a->run.to_ns = -1;
	a->q.mode = TL_HIST_ITERATIVE;
	optind = 1;
	while ((c = getopt_long(argc, argv, "hs:k:o:", long_options, NULL)) != -1) {
		if (c == 'h') {
			usage(stdout);
			return -1;
		}
		rc = parse_option(c, a);
		if (rc)
			return rc;
	}
	if ((rc = cli_trace_args("hist", argc, argv, optind, a->run.from_ns, a->run.to_ns, &a->run.path)))
		return rc;
	if (!a->q.span)
		return usage_error(
		        "hist needs --span NAME (a region, task or function name, frame, @burst or @latency)");
	return check_modes(a);
}

/* "no span ..." with what the trace has instead.  Returns 1. */
static int nothing_counted(const struct hist_args *a, const struct tl_hist_result *r)
{
	char list[512];
	size_t n = 0;

	if (r->incomplete || r->filtered)
		return cli_error("no complete span '%s' in '%s' (%" PRIu64 " incomplete left out, %" PRIu64
		                 " of threads the filters leave out)",
		                 a->q.span, a->run.path, r->incomplete, r->filtered);
	list[0] = 0;
	if (r->other_kinds & (1u << TL_SPAN_FRAME))
		n += (size_t)snprintf(list + n, sizeof(list) - n, ", frame");
	for (unsigned i = 0; i < r->nnames && n < sizeof(list); i++)
		n += (size_t)snprintf(list + n, sizeof(list) - n, ", '%s'", r->names[i]);
	if (r->names_more && n < sizeof(list))
		n += (size_t)snprintf(list + n, sizeof(list) - n, " and %u more", r->names_more);
	return cli_error("no span '%s' in '%s'; it has %s%s", a->q.span, a->run.path,
	                 n ? "" : "no markers or probed functions", n ? list + 2 : "");
}

/*
 * Merge this run's range into the bins file (kept lines of other spans) and
 * write it.  The span's saved range only widens: a run without --bins that
 * saw [100, 200] leaves a saved [50, 300] as it is.  k stays the saved one
 * unless -k says otherwise.  r's next range becomes what was saved, for
 * the output to say.
 */
static int save_bins(const struct hist_args *a, struct tl_hist_result *r)
{
	struct tl_bins_file f;
	const struct tl_bins_entry *e;
	int missing, rc = 0;

	tl_bins_init(&f);
	if (tl_bins_load(&f, a->bins_out, &missing) && !missing) {
		rc = cli_lib_error();
		goto out;
	}
	if ((e = tl_bins_find(&f, a->q.span))) {
		if (e->c_min < r->next_min)
			r->next_min = e->c_min;
		if (e->c_max > r->next_max)
			r->next_max = e->c_max;
		if (!a->q.k)
			r->next_k = e->k;
	}
	if (tl_bins_set(&f, a->q.span, r->next_k, r->next_min, r->next_max) || tl_bins_save(&f, a->bins_out))
		rc = cli_lib_error();
out:
	tl_bins_release(&f);
	return rc;
}

static int write_result(FILE *out, const struct hist_args *a, const struct tl_hist_result *r)
{
	struct tl_hist_write_opts wo = {
		.span = a->q.span,
		.bins_in = a->bins_in,
		.bins_out = a->bins_out,
		.etp = a->etp,
		.width = a->width ? a->width : cli_terminal_width(a->output),
	};

	switch (a->format) {
	case FMT_JSON: return tl_hist_write_json(out, r, &wo);
	case FMT_CSV: return tl_hist_write_csv(out, r, a->csv_table);
	default: return tl_hist_write_text(out, r, &wo);
	}
}

/* Load --bins: the saved range of this span, if the file has one.  Returns 0 or the exit status. */
static int load_bins(struct hist_args *a, struct tl_bins_file *f)
{
	int missing;

	if (!a->bins_in)
		return 0;
	if (tl_bins_load(f, a->bins_in, &missing)) {
		/* --bins F --save-bins F in a loop: the first run finds no F yet */
		if (!missing || !a->bins_out || strcmp(a->bins_in, a->bins_out))
			return cli_lib_error();
	}
	a->q.saved = tl_bins_find(f, a->q.span);
	return 0;
}

int cmd_hist(int argc, char **argv)
{
	struct hist_args a = { 0 };
	struct cli_progress prog = { .what = "reading", .last = -1, .passes = 1 };
	struct tl_bins_file bins;
	struct tl_hist_result r;
	FILE *out = stdout;
	int rc;

	rc = parse_args(argc, argv, &a);
	if (rc)
		return rc < 0 ? 0 : rc;
	tl_bins_init(&bins);
	rc = load_bins(&a, &bins);
	if (rc) {
		tl_bins_release(&bins);
		return rc;
	}
	if (a.q.has_below && a.q.below > (a.q.k ? a.q.k : a.q.saved ? a.q.saved->k : TL_HIST_K_DEFAULT)) {
		tl_bins_release(&bins);
		return usage_error("option --below asks for more bins below r than there are bins");
	}
	cli_run_progress(&a.run, &prog);
	rc = tl_hist_analyze(&a.run, &a.q, &r);
	cli_progress_end(&prog);
	tl_bins_release(&bins); /* a.q.saved pointed into it; r holds copies of what it needs */
	a.q.saved = NULL;
	if (rc) {
		rc = cli_lib_error();
		goto out;
	}
	cli_run_warnings(&a.run, r.kinds & ((1u << TL_SPAN_BURST) | (1u << TL_SPAN_LATENCY))
	                                 ? "bursts and latencies near the gaps are uncertain"
	                                 : NULL);
	if (a.run.spans.marks_lost)
		cli_warn("the program dropped %" PRIu64 " markers; spans around them are missing",
		         a.run.spans.marks_lost);
	if (cli_inlined_calls(&a.run, a.q.span, r.stats.count > 0, 1)) {
		rc = 1;
		goto out;
	}
	if (!r.stats.count) {
		rc = nothing_counted(&a, &r);
		goto out;
	}
	/* the output first: a run that cannot show its result must not move the saved range */
	if (!(out = cli_output_open(a.output))) {
		rc = 1;
		goto out;
	}
	if (a.bins_out && (rc = save_bins(&a, &r))) {
		if (out != stdout)
			fclose(out);
		goto out;
	}
	rc = cli_output_close(out, a.output, write_result(out, &a, &r));
out:
	tl_hist_result_release(&r);
	tl_run_release(&a.run);
	return rc;
}
