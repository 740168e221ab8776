/*
 * hist_write.c - the writers of `threadlens hist`: terminal text, JSON
 * (schema in docs/JSON.md, "threadlens hist --json") and CSV.
 *
 * They only format a tl_hist_result; every number comes from hist.c.
 * Probabilities are values-above / count, printed with 6 (text) or 9
 * (JSON, CSV) decimals; the JSON also carries the integer counts, which is
 * what tests compare.  Durations in JSON and CSV are integer nanoseconds;
 * the text shows them in a unit chosen once per table, with as many
 * decimals as make them exact.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "base/errors.h"
#include "analysis/hist/hist.h"
#include "output/fmt.h"
#include "output/json.h"
#include "output/trace_json.h"
#include "timeline/spans.h"

static const char *const pct_names[TL_HIST_NPCT] = { "p50", "p90", "p99", "p99.9" };
static const char *const pct_keys[TL_HIST_NPCT] = { "p50_ns", "p90_ns", "p99_ns", "p99_9_ns" };

int tl_hist_csv_parse(const char *s)
{
	if (!strcmp(s, "etp"))
		return TL_HIST_CSV_ETP;
	if (!strcmp(s, "bins"))
		return TL_HIST_CSV_BINS;
	return -1;
}

static double prob(uint64_t above, uint64_t n)
{
	return n ? (double)above / (double)n : 0;
}

/* A duration for reading: "850 ns", "12.345 us", "1.234 ms", "2.500 s". */
/* A duration in the style of every writer, with five significant digits (exact values deserve them). */
static const char *human(char *buf, size_t len, uint64_t ns)
{
	return tl_fmt_dur_sig((double)ns, 5, buf, len);
}

/* The unit of a table: the largest that still shows values up to max with few digits before the point. */
struct unit {
	const char *name;
	uint64_t div;
	int decimals;
};

static struct unit unit_for(uint64_t max)
{
	if (max < 10000)
		return (struct unit){ "ns", 1, 0 };
	if (max < 10000000)
		return (struct unit){ "us", 1000, 3 };
	if (max < UINT64_C(10000000000))
		return (struct unit){ "ms", 1000000, 6 };
	return (struct unit){ "s", 1000000000, 9 };
}

/* Exact: integer part, point, the remainder with the unit's decimals. */
static const char *exact(char *buf, size_t len, uint64_t ns, struct unit u)
{
	if (ns == TL_HIST_INF)
		snprintf(buf, len, "inf");
	else if (u.div == 1)
		snprintf(buf, len, "%" PRIu64, ns);
	else
		snprintf(buf, len, "%" PRIu64 ".%0*" PRIu64, ns / u.div, u.decimals, ns % u.div);
	return buf;
}

static const char *kinds_text(unsigned kinds, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = 0;
	for (unsigned k = 0; k < TL_SPAN__COUNT && n < len; k++)
		if (kinds & (1u << k))
			n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? ", " : "", tl_span_kind_name(k));
	return buf;
}

/* The iterative histogram of the result, or NULL. */
static const struct tl_hist *iterative(const struct tl_hist_result *r)
{
	for (unsigned m = 0; m < r->nhists; m++)
		if (r->hists[m].b.mode == TL_HIST_ITERATIVE)
			return &r->hists[m];
	return NULL;
}

/* ---- text ---- */

static void text_header(FILE *out, const struct tl_hist_result *r, const struct tl_hist_write_opts *o, int w)
{
	const struct tl_hist_stats *s = &r->stats;
	char a[32], b[32], c[32], kinds[96], v[1024];
	int n;

	/* the span name and the path cleaned by the wrap */
	snprintf(v, sizeof(v), "'%s' (%s) in '%s'", o->span, kinds_text(r->kinds, kinds, sizeof(kinds)),
	         r->run->path ? r->run->path : "");
	tl_fmt_wrap(out, "span ", v, w);
	n = snprintf(v, sizeof(v),
	             "%" PRIu64 " complete; %" PRIu64
	             " left out as incomplete (open at the end, or begun before --from)",
	             s->count, r->incomplete);
	if (r->filtered)
		n += snprintf(v + n, sizeof(v) - (size_t)n, "; %" PRIu64 " of other threads", r->filtered);
	if (r->run->spans.latencies_inferred && !strcmp(o->span, "@latency"))
		snprintf(v + n, sizeof(v) - (size_t)n, "; %" PRIu64 " left out as inferred (switch-in not reported)",
		         r->run->spans.latencies_inferred);
	tl_fmt_wrap(out, "  spans        ", v, w);
	fprintf(out, "  window       %s .. %s of the trace\n",
	        human(a, sizeof(a), tl_run_rel(r->run, r->run->win_start)),
	        human(b, sizeof(b), tl_run_rel(r->run, r->run->win_end)));
	n = snprintf(v, sizeof(v), "min %s  mean %s  max %s", human(a, sizeof(a), s->min),
	             human(b, sizeof(b), (uint64_t)(tl_hist_stats_mean(s) + 0.5)), human(c, sizeof(c), s->max));
	if (s->count) /* "max at", as perf sched latency gives it */
		snprintf(v + n, sizeof(v) - (size_t)n, " at %.6fs (tid %d)", tl_run_rel(r->run, r->max_at) / 1e9,
		         (int)r->max_tid);
	tl_fmt_wrap(out, "  time         ", v, w);
	n = 0;
	for (int i = 0; i < TL_HIST_NPCT; i++)
		n += snprintf(v + n, sizeof(v) - (size_t)n, "%s%s %s", i ? " " : "", pct_names[i],
		              human(a, sizeof(a), r->pct[i]));
	snprintf(v + n, sizeof(v) - (size_t)n, "  (exact, nearest rank)");
	tl_fmt_wrap(out, "  percentiles  ", v, w);
}

static void text_params(FILE *out, const struct tl_hist_result *r, const struct tl_hist *h, int w)
{
	const struct tl_binning *b = &h->b;
	char a[32], c[32], d[32], v[320];

	switch (b->mode) {
	case TL_HIST_LINEAR:
		snprintf(v, sizeof(v), "linear bins (seed 002 mode 1): k %u, step %s%s", (unsigned)b->k,
		         human(a, sizeof(a), b->step),
		         r->step_given ? "" : " (default: the smallest step whose k-1 inner bins hold the maximum)");
		tl_fmt_wrap(out, "", v, w);
		break;
	case TL_HIST_CENTERED:
		snprintf(v, sizeof(v),
		         "centered bins (seed 002 mode 2): k %u = %u below + %u above r = %s%s, factor %" PRIu64,
		         (unsigned)b->k, (unsigned)b->below, (unsigned)b->above, human(a, sizeof(a), b->ref),
		         r->ref_given ? "" : " (the first value, as the seed)", b->factor);
		tl_fmt_wrap(out, "", v, w);
		if (b->fallback) {
			snprintf(v, sizeof(v),
			         "step floor(r/k) * f is 0: linear bins of step %s instead (the seed's fallback)",
			         human(a, sizeof(a), b->step));
			tl_fmt_wrap(out, "  ", v, w);
		} else {
			fprintf(out, "  step floor(r/k) * f = %s\n", human(a, sizeof(a), b->step));
		}
		if (b->below < b->below_asked) {
			snprintf(v, sizeof(v), "%u bins below r asked for, %u used: the others would lie below 0 ns",
			         (unsigned)b->below_asked, (unsigned)b->below);
			tl_fmt_wrap(out, "  ", v, w);
		}
		break;
	default:
		snprintf(v, sizeof(v), "iterative bins (seed 002 Eq. 1-2): k %u, step %s over [%s, %s]%s",
		         (unsigned)b->k, human(a, sizeof(a), b->step), human(c, sizeof(c), b->c_min),
		         human(d, sizeof(d), b->c_max),
		         r->iter_saved ? " (the saved range)" : " (this run's min and max: no saved bins)");
		tl_fmt_wrap(out, "", v, w);
		break;
	}
}

static void text_coverage(FILE *out, const struct tl_hist_result *r, const struct tl_hist *h)
{
	uint64_t lo, hi;
	char a[32], b[32];

	tl_binning_inner(&h->b, &lo, &hi);
	fprintf(out, "  inner bins %u..%u cover [%s, %s]: %.1f%% of [min, max]\n", (unsigned)h->b.first_inner,
	        (unsigned)h->b.k - 2, human(a, sizeof(a), lo), human(b, sizeof(b), hi),
	        100 * tl_binning_coverage(&h->b, r->stats.min, r->stats.max));
	fprintf(out, "  outer bins hold %" PRIu64 " values below and %" PRIu64 " above\n", tl_hist_outer_below(h),
	        tl_hist_outer_above(h));
}

/* What --save-bins wrote (the saved range widened by this run), in every mode; the path cleaned by the wrap. */
static void text_saved(FILE *out, const struct tl_hist_result *r, const struct tl_hist_write_opts *o, int w)
{
	char a[32], b[32], v[4200];

	if (!o->bins_out)
		return;
	snprintf(v, sizeof(v), "saved k %u over [%s, %s] to '%s'", (unsigned)r->next_k,
	         human(a, sizeof(a), r->next_min), human(b, sizeof(b), r->next_max), o->bins_out);
	tl_fmt_wrap(out, "  ", v, w);
}

static void text_iteration(FILE *out, const struct tl_hist_result *r, const struct tl_hist_write_opts *o, int w)
{
	const struct tl_hist *h = iterative(r);
	uint64_t outside, lo, hi;
	char a[32], b[32], v[4200];

	if (!h) {
		text_saved(out, r, o,
		           w); /* linear or centered bins: the iterative mode's range is saved all the same */
		return;
	}
	outside = tl_hist_outer_below(h) + tl_hist_outer_above(h);
	tl_binning_inner(&h->b, &lo, &hi);
	if (!r->iter_saved && o->bins_in)
		snprintf(v, sizeof(v),
		         "'%s' has no range for this span yet: this first run bins with its own min and max",
		         o->bins_in);
	else if (!r->iter_saved)
		snprintf(v, sizeof(v),
		         "first run: the bins span this run's own min and max, so no value is outside them");
	else if (!outside)
		snprintf(v, sizeof(v), "converged: no value outside the inner bins");
	else if (o->bins_out)
		snprintf(v, sizeof(v), "%" PRIu64 " values outside [%s, %s]: run again with --bins %s to widen",
		         outside, human(a, sizeof(a), lo), human(b, sizeof(b), hi), o->bins_out);
	else
		snprintf(v, sizeof(v),
		         "%" PRIu64 " values outside [%s, %s]: save the widened range with --save-bins FILE, "
		         "then run again with --bins FILE",
		         outside, human(a, sizeof(a), lo), human(b, sizeof(b), hi));
	tl_fmt_wrap(out, "  ", v, w);
	text_saved(out, r, o, w);
}

/*
 * One row per bin that holds values, with a bar of up to 20 '#' for its
 * count; narrower than 96 columns the bar shortens, and under 86 the
 * P(>upper) column goes (--etp, --json and --csv have it).
 */
static void text_bins(FILE *out, const struct tl_hist_result *r, const struct tl_hist *h, int w)
{
	struct unit u = unit_for(r->stats.max);
	uint64_t peak = 0, empty = 0;
	int tail = w < 86, barmax = (tail ? w - 65 : w - 76) < 20 ? (tail ? w - 65 : w - 76) : 20;
	char a[40], b[40];

	for (uint32_t j = 0; j < h->b.k; j++)
		if (h->counts[j] > peak)
			peak = h->counts[j];
	fprintf(out, "\n  %7s %16s %16s %10s %7s%s\n", "bin", "lower/", "upper/", "count", "share",
	        tail ? "" : "  P(>upper)");
	fprintf(out, "  %7s %16s %16s\n", "", u.name, u.name);
	for (uint32_t j = 0; j < h->b.k; j++) {
		int bar;
		if (!h->counts[j]) {
			empty++;
			continue;
		}
		bar = barmax > 0 ? (int)((h->counts[j] * (uint64_t)barmax + peak - 1) / peak) : 0;
		fprintf(out, "  %7u %16s %16s %10" PRIu64 " %6.1f%%", (unsigned)j,
		        exact(a, sizeof(a), tl_binning_lower(&h->b, j), u),
		        exact(b, sizeof(b), tl_binning_upper(&h->b, j), u), h->counts[j],
		        100.0 * prob(h->counts[j], h->n));
		if (!tail)
			fprintf(out, " %10.6f", prob(h->above[j], h->n));
		fprintf(out, "  %.*s\n", bar, "####################");
	}
	if (empty)
		fprintf(out, "  (%" PRIu64 " empty bin%s not shown; --json and --csv=bins list every bin)\n", empty,
		        empty == 1 ? "" : "s");
}

static void text_etp(FILE *out, const struct tl_hist_result *r, const struct tl_hist *h)
{
	struct unit u = unit_for(r->stats.max);
	char a[40];

	fprintf(out, "\n  execution time profile at the bin bounds: P(time > t), exact\n");
	fprintf(out, "  %16s %10s %10s\n", "t/", "above", "P(>t)");
	fprintf(out, "  %16s\n", u.name);
	for (uint32_t j = 0; j + 1 < h->b.k; j++)
		fprintf(out, "  %16s %10" PRIu64 " %10.6f\n", exact(a, sizeof(a), tl_binning_upper(&h->b, j), u),
		        h->above[j], prob(h->above[j], h->n));
	if (!r->values)
		return;
	fprintf(out, "\n  at the observed values (%" PRIu64 " span%s)\n", r->stats.count,
	        r->stats.count == 1 ? "" : "s");
	for (size_t i = 0; i < r->stats.count; i++) {
		if (i + 1 < r->stats.count && r->values[i + 1] == r->values[i])
			continue; /* the last of equal values: the ones above it all differ */
		fprintf(out, "  %16s %10" PRIu64 " %10.6f\n", exact(a, sizeof(a), r->values[i], u),
		        (uint64_t)(r->stats.count - i - 1), prob(r->stats.count - i - 1, r->stats.count));
	}
}

/*
 * The rows of the text comparison: where the exact ETP first drops to each
 * of these levels (an ETP is read on a log scale: the tail matters as much
 * as the body), plus the first and last thresholds.
 */
static const double compare_levels[] = { 0.99, 0.9, 0.75, 0.5, 0.25, 0.1, 0.05, 0.01, 1e-3, 1e-4, 1e-5, 1e-6, 1e-7 };
#define NLEVELS (sizeof(compare_levels) / sizeof(compare_levels[0]))

static size_t compare_rows(const struct tl_hist_result *r, size_t *rows)
{
	size_t n = 0, g = 0;

	rows[n++] = 0;
	for (size_t l = 0; l < NLEVELS && r->ngrid; l++) {
		while (g < r->ngrid && prob(r->grid_above[g], r->stats.count) > compare_levels[l])
			g++;
		if (g < r->ngrid && rows[n - 1] != g)
			rows[n++] = g;
	}
	if (r->ngrid && rows[n - 1] != r->ngrid - 1)
		rows[n++] = r->ngrid - 1;
	return n;
}

/* The modes side by side; under 88 columns the inner range's columns take 12, not 16. */
static void text_compare(FILE *out, const struct tl_hist_result *r, int w)
{
	struct unit u = unit_for(r->stats.max);
	size_t rows[NLEVELS + 2], nrows = compare_rows(r, rows);
	int iw = w < 88 ? 12 : 16;
	char a[40], b[40], c[40], v[320];

	fprintf(out, "\nbinnings compared (seed 002 Fig. 3 and Tables II-III), k %u\n", (unsigned)r->hists[0].b.k);
	fprintf(out, "  %-10s %12s %*s %*s %9s %18s\n", "mode", "step", iw, "inner from", iw, "inner to", "coverage",
	        "outer below/above");
	for (unsigned m = 0; m < r->nhists; m++) {
		const struct tl_hist *h = &r->hists[m];
		uint64_t lo, hi;
		char ob[48];
		tl_binning_inner(&h->b, &lo, &hi);
		snprintf(ob, sizeof(ob), "%" PRIu64 " / %" PRIu64, tl_hist_outer_below(h), tl_hist_outer_above(h));
		fprintf(out, "  %-10s %12s %*s %*s %8.1f%% %18s\n", tl_hist_mode_name(h->b.mode),
		        human(a, sizeof(a), h->b.step), iw, human(b, sizeof(b), lo), iw, human(c, sizeof(c), hi),
		        100 * tl_binning_coverage(&h->b, r->stats.min, r->stats.max), ob);
	}
	fputc('\n', out);
	for (unsigned m = 0; m < r->nhists; m++)
		text_params(out, r, &r->hists[m], w);
	snprintf(v, sizeof(v),
	         "ETP side by side, P(time > t): 'exact' from the values; each mode as its bins show it (exact at "
	         "its own bin bounds, the largest value its bins allow in between), where the exact ETP first drops "
	         "to 0.99, 0.9, 0.75, 0.5 ... 1e-7; --csv has all %zu thresholds",
	         r->ngrid);
	fputc('\n', out);
	tl_fmt_wrap(out, "  ", v, w);
	fprintf(out, "  %16s %10s %10s %10s %10s\n", "t/", "exact", "linear", "centered", "iterative");
	fprintf(out, "  %16s\n", u.name);
	for (size_t i = 0; i < nrows; i++) {
		size_t g = rows[i];
		uint64_t t = r->grid[g];
		fprintf(out, "  %16s %10.6f", exact(a, sizeof(a), t, u), prob(r->grid_above[g], r->stats.count));
		for (unsigned m = 0; m < r->nhists; m++)
			fprintf(out, " %10.6f",
			        prob(tl_hist_above_at(&r->hists[m], t, r->stats.min, r->stats.max), r->stats.count));
		fputc('\n', out);
	}
}

int tl_hist_write_text(FILE *out, const struct tl_hist_result *r, const struct tl_hist_write_opts *o)
{
	int w = o->width > 0 ? o->width : 100;

	text_header(out, r, o, w);
	if (r->nhists > 1) {
		text_compare(out, r, w);
		if (iterative(r)) {
			fputc('\n', out);
			text_iteration(out, r, o, w);
		}
	} else {
		const struct tl_hist *h = &r->hists[0];
		fputc('\n', out);
		text_params(out, r, h, w);
		text_coverage(out, r, h);
		text_iteration(out, r, o, w);
		if (o->etp)
			text_etp(out, r, h);
		else
			text_bins(out, r, h, w);
	}
	if (fflush(out) || ferror(out))
		return tl_error("write error");
	return 0;
}

/* ---- JSON ---- */

static void json_params(struct tl_json *j, const struct tl_hist_result *r, const struct tl_binning *b)
{
	tl_json_key(j, "params");
	tl_json_begin_object(j, TL_JSON_INLINE);
	switch (b->mode) {
	case TL_HIST_LINEAR:
		tl_json_kv_uint(j, "step_ns", b->step);
		tl_json_kv_string(j, "step_from", r->step_given ? "given" : "default");
		break;
	case TL_HIST_CENTERED:
		tl_json_kv_uint(j, "ref_ns", b->ref);
		tl_json_kv_string(j, "ref_from", r->ref_given ? "given" : "first value");
		tl_json_kv_uint(j, "below", b->below);
		tl_json_kv_uint(j, "below_asked", b->below_asked);
		tl_json_kv_uint(j, "above", b->above);
		tl_json_kv_uint(j, "factor", b->factor);
		tl_json_kv_bool(j, "fallback", b->fallback);
		break;
	default:
		tl_json_kv_uint(j, "c_min_ns", b->c_min);
		tl_json_kv_uint(j, "c_max_ns", b->c_max);
		tl_json_kv_string(j, "range_from", r->iter_saved ? "saved" : "this run");
		break;
	}
	tl_json_end_object(j);
}

static void json_upper(struct tl_json *j, const char *key, uint64_t v)
{
	tl_json_key(j, key);
	if (v == TL_HIST_INF)
		tl_json_null(j);
	else
		tl_json_uint(j, v);
}

static void json_hist(struct tl_json *j, const struct tl_hist_result *r, const struct tl_hist *h)
{
	const struct tl_binning *b = &h->b;
	uint64_t lo, hi;

	tl_binning_inner(b, &lo, &hi);
	tl_json_begin_object(j, TL_JSON_BLOCK);
	tl_json_kv_string(j, "mode", tl_hist_mode_name(b->mode));
	tl_json_kv_uint(j, "k", b->k);
	tl_json_kv_uint(j, "step_ns", b->step);
	json_params(j, r, b);
	tl_json_key(j, "inner");
	tl_json_begin_object(j, TL_JSON_INLINE);
	tl_json_kv_uint(j, "first_bin", b->first_inner);
	tl_json_kv_uint(j, "last_bin", b->k - 2);
	tl_json_kv_uint(j, "lower_ns", lo);
	tl_json_kv_uint(j, "upper_ns", hi);
	tl_json_end_object(j);
	tl_json_kv_double(j, "coverage_pct", 100 * tl_binning_coverage(b, r->stats.min, r->stats.max), 3);
	tl_json_key(j, "outer");
	tl_json_begin_object(j, TL_JSON_INLINE);
	tl_json_kv_uint(j, "below", tl_hist_outer_below(h));
	tl_json_kv_uint(j, "above", tl_hist_outer_above(h));
	tl_json_end_object(j);
	tl_json_key(j, "bins");
	tl_json_begin_array(j, TL_JSON_BLOCK);
	for (uint32_t i = 0; i < b->k; i++) {
		tl_json_begin_object(j, TL_JSON_INLINE);
		tl_json_kv_uint(j, "lower_ns", tl_binning_lower(b, i));
		json_upper(j, "upper_ns", tl_binning_upper(b, i));
		tl_json_kv_uint(j, "count", h->counts[i]);
		tl_json_end_object(j);
	}
	tl_json_end_array(j);
	tl_json_key(j, "etp");
	tl_json_begin_array(j, TL_JSON_BLOCK);
	for (uint32_t i = 0; i + 1 < b->k; i++) {
		tl_json_begin_object(j, TL_JSON_INLINE);
		tl_json_kv_uint(j, "t_ns", tl_binning_upper(b, i));
		tl_json_kv_uint(j, "above", h->above[i]);
		tl_json_kv_double(j, "p", prob(h->above[i], h->n), 9);
		tl_json_end_object(j);
	}
	tl_json_end_array(j);
	tl_json_end_object(j);
}

/* The range the next iterative run bins with (saved with --save-bins). */
static void json_next(struct tl_json *j, const struct tl_hist_result *r)
{
	tl_json_key(j, "next");
	tl_json_begin_object(j, TL_JSON_INLINE);
	tl_json_kv_uint(j, "k", r->next_k);
	tl_json_kv_uint(j, "c_min_ns", r->next_min);
	tl_json_kv_uint(j, "c_max_ns", r->next_max);
	tl_json_kv_uint(j, "step_ns", tl_hist_eq1_step(r->next_k, r->next_min, r->next_max));
	tl_json_end_object(j);
}

static void json_iteration(struct tl_json *j, const struct tl_hist_result *r, const struct tl_hist_write_opts *o)
{
	const struct tl_hist *h = iterative(r);
	uint64_t lo, hi;

	tl_json_key(j, "iteration");
	if (!h && !o->bins_out) {
		tl_json_null(j);
		return;
	}
	if (!h) {
		/* linear or centered bins with --save-bins: what was saved */
		tl_json_begin_object(j, TL_JSON_BLOCK);
		json_next(j, r);
		tl_json_kv_string(j, "saved_to", o->bins_out);
		tl_json_end_object(j);
		return;
	}
	tl_binning_inner(&h->b, &lo, &hi);
	tl_json_begin_object(j, TL_JSON_BLOCK);
	tl_json_kv_string(j, "range_from", r->iter_saved ? "saved" : "this run");
	tl_json_kv_string(j, "loaded_from", o->bins_in);
	tl_json_kv_uint(j, "c_min_ns", h->b.c_min);
	tl_json_kv_uint(j, "c_max_ns", h->b.c_max);
	tl_json_kv_uint(j, "outside_below", tl_hist_outer_below(h));
	tl_json_kv_uint(j, "outside_above", tl_hist_outer_above(h));
	tl_json_kv_bool(j, "converged", !tl_hist_outer_below(h) && !tl_hist_outer_above(h));
	json_next(j, r);
	tl_json_kv_string(j, "saved_to", o->bins_out);
	tl_json_end_object(j);
}

static void json_compare(struct tl_json *j, const struct tl_hist_result *r)
{
	tl_json_key(j, "compare");
	if (r->nhists < 2) {
		tl_json_null(j);
		return;
	}
	tl_json_begin_array(j, TL_JSON_BLOCK);
	for (size_t g = 0; g < r->ngrid; g++) {
		uint64_t t = r->grid[g];
		tl_json_begin_object(j, TL_JSON_INLINE);
		tl_json_kv_uint(j, "t_ns", t);
		tl_json_key(j, "above");
		tl_json_begin_object(j, TL_JSON_INLINE);
		tl_json_kv_uint(j, "exact", r->grid_above[g]);
		for (unsigned m = 0; m < r->nhists; m++)
			tl_json_kv_uint(j, tl_hist_mode_name(r->hists[m].b.mode),
			                tl_hist_above_at(&r->hists[m], t, r->stats.min, r->stats.max));
		tl_json_end_object(j);
		tl_json_key(j, "p");
		tl_json_begin_object(j, TL_JSON_INLINE);
		tl_json_kv_double(j, "exact", prob(r->grid_above[g], r->stats.count), 9);
		for (unsigned m = 0; m < r->nhists; m++)
			tl_json_kv_double(
			        j, tl_hist_mode_name(r->hists[m].b.mode),
			        prob(tl_hist_above_at(&r->hists[m], t, r->stats.min, r->stats.max), r->stats.count), 9);
		tl_json_end_object(j);
		tl_json_end_object(j);
	}
	tl_json_end_array(j);
}

int tl_hist_write_json(FILE *out, const struct tl_hist_result *r, const struct tl_hist_write_opts *o)
{
	const struct tl_hist_stats *s = &r->stats;
	struct tl_json j;

	tl_json_init(&j, out, TL_JSON_PRETTY);
	tl_json_begin_object(&j, TL_JSON_BLOCK);
	tl_json_kv_string(&j, "schema", "threadlens-hist");
	tl_json_kv_int(&j, "version", 1);
	tl_json_trace(&j, r->run);
	tl_json_window(&j, r->run);
	tl_json_key(&j, "span");
	tl_json_begin_object(&j, TL_JSON_INLINE);
	tl_json_kv_string(&j, "name", o->span);
	tl_json_key(&j, "kinds");
	tl_json_begin_array(&j, TL_JSON_INLINE);
	for (unsigned k = 0; k < TL_SPAN__COUNT; k++)
		if (r->kinds & (1u << k))
			tl_json_string(&j, tl_span_kind_name(k));
	tl_json_end_array(&j);
	tl_json_kv_uint(&j, "counted", s->count);
	tl_json_kv_uint(&j, "incomplete", r->incomplete);
	tl_json_kv_uint(&j, "filtered_out", r->filtered);
	tl_json_end_object(&j);
	tl_json_kv_uint(&j, "passes", r->passes);
	tl_json_key(&j, "stats");
	tl_json_begin_object(&j, TL_JSON_INLINE);
	tl_json_kv_uint(&j, "count", s->count);
	tl_json_kv_uint(&j, "min_ns", s->min);
	tl_json_kv_uint(&j, "max_ns", s->max);
	tl_json_kv_uint(&j, "max_at_ns", s->count ? tl_run_rel(r->run, r->max_at) : 0);
	tl_json_kv_int(&j, "max_tid", s->count ? r->max_tid : 0);
	tl_json_kv_double(&j, "mean_ns", tl_hist_stats_mean(s), 3);
	tl_json_kv_uint(&j, "first_ns", s->first);
	for (int i = 0; i < TL_HIST_NPCT; i++)
		tl_json_kv_uint(&j, pct_keys[i], r->pct[i]);
	tl_json_end_object(&j);
	tl_json_key(&j, "histograms");
	tl_json_begin_array(&j, TL_JSON_BLOCK);
	for (unsigned m = 0; m < r->nhists; m++)
		json_hist(&j, r, &r->hists[m]);
	tl_json_end_array(&j);
	tl_json_key(&j, "etp_values");
	if (r->values) {
		tl_json_begin_array(&j, TL_JSON_BLOCK);
		for (size_t i = 0; i < s->count; i++) {
			if (i + 1 < s->count && r->values[i + 1] == r->values[i])
				continue;
			tl_json_begin_object(&j, TL_JSON_INLINE);
			tl_json_kv_uint(&j, "t_ns", r->values[i]);
			tl_json_kv_uint(&j, "above", s->count - i - 1);
			tl_json_kv_double(&j, "p", prob(s->count - i - 1, s->count), 9);
			tl_json_end_object(&j);
		}
		tl_json_end_array(&j);
	} else {
		tl_json_null(&j);
	}
	json_iteration(&j, r, o);
	json_compare(&j, r);
	tl_json_end_object(&j);
	return tl_json_finish(&j);
}

/* ---- CSV ---- */

/* The single-mode ETP: bin bounds and, for small counts, the observed values, merged in order. */
static void csv_etp(FILE *out, const struct tl_hist_result *r)
{
	const struct tl_hist *h = &r->hists[0];
	uint64_t n = r->stats.count;
	uint32_t j = 0;
	size_t i = 0, nv = r->values ? n : 0;

	fprintf(out, "t_ns,above,etp\n");
	for (;;) {
		uint64_t t, above;
		int have_b = j + 1 < h->b.k, have_v = i < nv;
		if (!have_b && !have_v)
			break;
		if (have_v && i + 1 < nv && r->values[i + 1] == r->values[i]) {
			i++;
			continue;
		}
		if (have_b && (!have_v || tl_binning_upper(&h->b, j) <= r->values[i])) {
			t = tl_binning_upper(&h->b, j);
			above = h->above[j];
			if (have_v && t == r->values[i])
				i++;
			j++;
		} else {
			t = r->values[i];
			above = n - i - 1;
			i++;
		}
		fprintf(out, "%" PRIu64 ",%" PRIu64 ",%.9f\n", t, above, prob(above, n));
	}
}

static void csv_compare(FILE *out, const struct tl_hist_result *r)
{
	fprintf(out, "t_ns,exact_above,exact");
	for (unsigned m = 0; m < r->nhists; m++)
		fprintf(out, ",%s", tl_hist_mode_name(r->hists[m].b.mode));
	fputc('\n', out);
	for (size_t g = 0; g < r->ngrid; g++) {
		uint64_t t = r->grid[g];
		fprintf(out, "%" PRIu64 ",%" PRIu64 ",%.9f", t, r->grid_above[g],
		        prob(r->grid_above[g], r->stats.count));
		for (unsigned m = 0; m < r->nhists; m++)
			fprintf(out, ",%.9f",
			        prob(tl_hist_above_at(&r->hists[m], t, r->stats.min, r->stats.max), r->stats.count));
		fputc('\n', out);
	}
}

static void csv_bins(FILE *out, const struct tl_hist_result *r)
{
	fprintf(out, "mode,bin,lower_ns,upper_ns,count\n");
	for (unsigned m = 0; m < r->nhists; m++) {
		const struct tl_hist *h = &r->hists[m];
		for (uint32_t j = 0; j < h->b.k; j++) {
			uint64_t up = tl_binning_upper(&h->b, j);
			fprintf(out, "%s,%u,%" PRIu64 ",", tl_hist_mode_name(h->b.mode), (unsigned)j,
			        tl_binning_lower(&h->b, j));
			if (up != TL_HIST_INF)
				fprintf(out, "%" PRIu64, up);
			fprintf(out, ",%" PRIu64 "\n", h->counts[j]);
		}
	}
}

int tl_hist_write_csv(FILE *out, const struct tl_hist_result *r, int table)
{
	if (table == TL_HIST_CSV_BINS)
		csv_bins(out, r);
	else if (r->nhists > 1)
		csv_compare(out, r);
	else
		csv_etp(out, r);
	if (fflush(out) || ferror(out))
		return tl_error("write error");
	return 0;
}
