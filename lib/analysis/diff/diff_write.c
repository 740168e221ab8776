/*
 * diff_write.c - before and after as text and as JSON (the document
 * "threadlens-diff", docs/JSON.md).  They print, never compute.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analysis/diff/diff.h"
#include "base/errors.h"
#include "output/fmt.h"
#include "output/json.h"
#include "timeline/states.h"

static int is_ns(unsigned m)
{
	return m == TL_DM_LAT_P50 || m == TL_DM_LAT_P90 || m == TL_DM_LAT_P99 || m == TL_DM_DURATION;
}

static const char *value(unsigned m, double v, char *buf, size_t len)
{
	if (is_ns(m))
		return tl_fmt_dur_sig(v, 3, buf, len);
	snprintf(buf, len, m == TL_DM_CPU_PCT ? "%.1f%%" : m == TL_DM_FRAMES ? "%.0f" : "%.1f", v);
	return buf;
}

/* "  before  a1.tl a2.tl", wrapped to the width (the paths cleaned by the wrap). */
static void side(FILE *out, const char *what, const char *const *paths, size_t n, int width)
{
	char lead[16], text[4096];
	size_t len = 0;

	snprintf(lead, sizeof(lead), "  %-7s ", what);
	text[0] = 0;
	for (size_t i = 0; i < n && len + 1 < sizeof(text); i++)
		len += (size_t)snprintf(text + len, sizeof(text) - len, "%s%s", i ? " " : "", paths[i]);
	tl_fmt_wrap(out, lead, text, width);
}

/* "cpu-clock" and "task-clock" count ns; other events count themselves. */
static const char *event_amount(const char *event, double v, char *buf, size_t len)
{
	if (!strncmp(event, "cpu-clock", 9) || !strncmp(event, "task-clock", 10))
		return tl_fmt_dur_sig(v, 3, buf, len);
	snprintf(buf, len, "%.4g", v);
	return buf;
}

static void count_row(FILE *out, const char *what, const struct tl_diff_value *d)
{
	fprintf(out, "%-26s %10.0f %10.0f %+9.1f%%%s\n", what, d->a, d->b, 100 * d->change, d->flagged ? " *" : "");
}

/* The profiles (diff.h, tl_diff_profile): the event's total, the samples per CPU, the functions. */
static void profile_text(FILE *out, const struct tl_diff_profile *p, size_t max_rows, int width)
{
	char b[2][32];
	size_t shown = 0;

	fprintf(out, "\nPROFILE  (record --sample; * marks a change past the noise)\n");
	{
		char how[32] = "the same";
		if (p->period.change != 0)
			snprintf(how, sizeof(how), "%.1f%% %s", fabs(100 * p->period.change),
			         p->period.change < 0 ? "less" : "more");
		fprintf(out, "%s: %s after (%s -> %s)%s\n", p->event, how,
		        event_amount(p->event, p->period.a, b[0], sizeof(b[0])),
		        event_amount(p->event, p->period.b, b[1], sizeof(b[1])), p->period.flagged ? " *" : "");
	}
	fprintf(out, "%-26s %10s %10s %10s\n", "", "before", "after", "change");
	count_row(out, "samples", &p->samples);
	for (int c = 0; c < p->ncpus; c++) {
		char what[32];

		snprintf(what, sizeof(what), "  cpu%d", c);
		count_row(out, what, &p->cpus[c]);
	}
	fprintf(out, "%-26s %10s %10s %10s   %s\n", "functions (self samples)", "before", "after", "change",
	        width >= 83 ? "share before -> after" : "share");
	for (size_t i = 0; i < p->nfuncs && shown < max_rows; i++, shown++) {
		const struct tl_diff_func *f = &p->funcs[i];

		fputs("  ", out);
		tl_fmt_put_name(out, f->name, 24);
		fprintf(out, " %10.0f %10.0f %+9.1f%%%s %5.1f%% -> %.1f%%\n", f->self.a, f->self.b,
		        100 * f->self.change, f->self.flagged ? " *" : "  ", f->share.a, f->share.b);
	}
	if (p->nfuncs > shown)
		fprintf(out, "  ... %zu more functions (--json)\n", p->nfuncs - shown);
	for (int side = 0; side < 2; side++)
		if (p->unnamed[side] > 0)
			fprintf(out,
			        "note: %.0f samples %s have frames named by offset (a file rebuilt since the "
			        "recording,\n"
			        "  or unreadable: profile says which), which match no function %s: %s\n",
			        p->unnamed[side], side ? "after" : "before", side ? "before" : "after",
			        p->unnamed_file[side]);
	if (!p->nfuncs)
		fputs("  (no function has 0.5% of a side's samples)\n", out);
}

/* Append "sep s" to the list in buf (len bytes used); "..." once it is full. */
static void list_add(char *buf, size_t size, size_t *len, const char *sep, const char *s)
{
	int n;

	if (*len + 4 >= size)
		return;
	n = snprintf(buf + *len, size - *len, "%s%s", *len ? sep : "", s);
	if (n < 0 || *len + (size_t)n + 4 >= size) {
		snprintf(buf + *len, size - *len, "...");
		*len = size;
		return;
	}
	*len += (size_t)n;
}

int tl_diff_write_text(FILE *out, const struct tl_diff_result *r, size_t max_rows, int width)
{
	char b[3][32], text[4096];
	size_t shown = 0;

	if (width <= 0)
		width = 100;

	fprintf(out, "threadlens diff: before (%zu recording%s) -> after (%zu recording%s)\n", r->na,
	        r->na == 1 ? "" : "s", r->nb, r->nb == 1 ? "" : "s");
	side(out, "before", r->a, r->na, width);
	side(out, "after", r->b, r->nb, width);
	if (r->program_before[0]) { /* the names cleaned by the wrap */
		snprintf(text, sizeof(text), "%s -> %s: threads of its name matched (as %s)", r->program_before,
		         r->program_after, r->program_before);
		tl_fmt_wrap(out, "  program ", text, width);
	}
	tl_fmt_wrap(out, "  noise   ",
	            r->noise ? "from the repeated recordings: * marks a change over 3 standard errors"
	                     : "not known (one recording on a side): * marks a change over 10% (5 points for "
	                       "shares); give several recordings a side to measure it",
	            width);
	fprintf(out, "\n%-26s %10s %10s %10s\n", "", "before", "after", "change");
	for (unsigned m = 0; m < TL_DM__COUNT; m++) {
		const struct tl_diff_value *d = &r->m[m];

		if (!d->have)
			continue;
		fprintf(out, "%-26s %10s %10s ", tl_diff_metric_name(m), value(m, d->a, b[0], sizeof(b[0])),
		        value(m, d->b, b[1], sizeof(b[1])));
		if (m == TL_DM_CPU_PCT)
			fprintf(out, "%+6.1f pts", d->change);
		else
			fprintf(out, "%+9.1f%%", 100 * d->change);
		fputs(d->flagged ? " *\n" : "\n", out);
	}
	if (!r->m[TL_DM_FPS].have)
		fputs("(no frames: mark them with tl_frame_begin/end to compare frames/s and latency)\n", out);
	fputc('\n', out);
	tl_fmt_wrap(out, "THREADS  ",
	            "(% of each thread's life per state, matched by name; the most thread time moved first)", width);
	fprintf(out, "%-20s %-14s %7s %7s %9s\n", "thread", "state", "before", "after", "change");
	for (size_t i = 0; i < r->nrows && shown < max_rows; i++) {
		const struct tl_diff_state_row *row = &r->rows[i];

		if (fabs(row->v.change) < 1)
			continue;
		tl_fmt_put_name(out, row->thread, 20);
		fprintf(out, " %-14s %6.1f%% %6.1f%% %+5.1f pts%s\n", tl_state_name(row->state), row->v.a, row->v.b,
		        row->v.change, row->v.flagged ? " *" : "");
		shown++;
	}
	if (!shown)
		fputs("(no share moved by a point or more)\n", out);
	for (int before = 1; before >= 0; before--) {
		size_t from = before ? 0 : r->only_before, to = before ? r->only_before : r->nonly;

		if (from == to)
			continue;
		size_t len = 0;

		text[0] = 0;
		for (size_t i = from; i < to; i++) /* the names cleaned by the wrap */
			list_add(text, sizeof(text), &len, ", ", r->only[i]);
		tl_fmt_wrap(out, before ? "only before: " : "only after:  ", text, width);
	}
	fputc('\n', out);
	tl_fmt_wrap(out, "FINDINGS  ", "(threadlens diagnose; in most of a side's recordings, few of the other's)",
	            width);
	for (int gone = 1; gone >= 0; gone--) {
		size_t len = 0;

		text[0] = 0;
		for (size_t i = 0; i < r->nfindings; i++)
			if (r->findings[i].gone == gone) {
				char item[sizeof(r->findings[i].lock) + 64];

				if (r->findings[i].lock[0])
					snprintf(item, sizeof(item), "%s (lock %s)", r->findings[i].kind,
					         r->findings[i].lock);
				else if (r->findings[i].thread[0])
					snprintf(item, sizeof(item), "%s (%s)", r->findings[i].kind,
					         r->findings[i].thread);
				else
					snprintf(item, sizeof(item), "%s", r->findings[i].kind);
				list_add(text, sizeof(text), &len, ", ", item);
			}
		tl_fmt_wrap(out, gone ? "  gone: " : "  new:  ", len ? text : "none", width);
	}
	if (r->prof.have)
		profile_text(out, &r->prof, max_rows, width);
	if (ferror(out))
		return tl_error("cannot write the comparison");
	return 0;
}

static void json_value(struct tl_json *j, const char *key, const struct tl_diff_value *d)
{
	tl_json_key(j, key);
	tl_json_begin_object(j, TL_JSON_INLINE);
	tl_json_kv_double(j, "before", d->a, 3);
	tl_json_kv_double(j, "after", d->b, 3);
	tl_json_kv_double(j, "sd_before", d->sd_a, 3);
	tl_json_kv_double(j, "sd_after", d->sd_b, 3);
	tl_json_kv_double(j, "change", d->change, 4);
	tl_json_kv_bool(j, "flagged", d->flagged);
	tl_json_end_object(j);
}

static void profile_json(struct tl_json *j, const struct tl_diff_profile *p)
{
	tl_json_key(j, "profile");
	tl_json_begin_object(j, TL_JSON_BLOCK);
	tl_json_kv_string(j, "event", p->event);
	json_value(j, "samples", &p->samples);
	json_value(j, "period", &p->period);
	tl_json_key(j, "unnamed");
	tl_json_begin_object(j, TL_JSON_INLINE);
	tl_json_kv_double(j, "before", p->unnamed[0], 0);
	tl_json_kv_double(j, "after", p->unnamed[1], 0);
	tl_json_end_object(j);
	tl_json_key(j, "cpus");
	tl_json_begin_array(j, TL_JSON_BLOCK);
	for (int c = 0; c < p->ncpus; c++) {
		tl_json_begin_object(j, TL_JSON_INLINE);
		tl_json_kv_int(j, "cpu", c);
		json_value(j, "samples", &p->cpus[c]);
		tl_json_end_object(j);
	}
	tl_json_end_array(j);
	tl_json_key(j, "functions");
	tl_json_begin_array(j, TL_JSON_BLOCK);
	for (size_t i = 0; i < p->nfuncs; i++) {
		tl_json_begin_object(j, TL_JSON_INLINE);
		tl_json_kv_string(j, "name", p->funcs[i].name);
		tl_json_kv_string(j, "module", p->funcs[i].module);
		json_value(j, "self", &p->funcs[i].self);
		json_value(j, "share_pct", &p->funcs[i].share);
		tl_json_end_object(j);
	}
	tl_json_end_array(j);
	tl_json_end_object(j);
}

int tl_diff_write_json(FILE *out, const struct tl_diff_result *r)
{
	static const char *const keys[TL_DM__COUNT] = { "fps",    "latency_p50_ns", "latency_p90_ns", "latency_p99_ns",
		                                        "frames", "cpu_pct",        "duration_ns" };
	struct tl_json j;

	tl_json_init(&j, out, TL_JSON_PRETTY);
	tl_json_begin_object(&j, TL_JSON_BLOCK);
	tl_json_kv_string(&j, "schema", "threadlens-diff");
	tl_json_kv_int(&j, "version", 1);
	for (int s = 0; s < 2; s++) {
		tl_json_key(&j, s ? "after" : "before");
		tl_json_begin_array(&j, TL_JSON_INLINE);
		for (size_t i = 0; i < (s ? r->nb : r->na); i++)
			tl_json_string(&j, s ? r->b[i] : r->a[i]);
		tl_json_end_array(&j);
	}
	tl_json_kv_bool(&j, "noise_measured", r->noise);
	tl_json_key(&j, "program_renamed"); /* {"before", "after"}: threads of after's name compared as before's */
	if (r->program_before[0]) {
		tl_json_begin_object(&j, TL_JSON_INLINE);
		tl_json_kv_string(&j, "before", r->program_before);
		tl_json_kv_string(&j, "after", r->program_after);
		tl_json_end_object(&j);
	} else {
		tl_json_null(&j);
	}
	tl_json_key(&j, "metrics");
	tl_json_begin_object(&j, TL_JSON_BLOCK);
	for (unsigned m = 0; m < TL_DM__COUNT; m++)
		if (r->m[m].have)
			json_value(&j, keys[m], &r->m[m]);
	tl_json_end_object(&j);
	tl_json_key(&j, "states");
	tl_json_begin_array(&j, TL_JSON_BLOCK);
	for (size_t i = 0; i < r->nrows; i++) {
		tl_json_begin_object(&j, TL_JSON_INLINE);
		tl_json_kv_string(&j, "thread", r->rows[i].thread);
		tl_json_kv_string(&j, "state", tl_state_name(r->rows[i].state));
		json_value(&j, "pct", &r->rows[i].v);
		tl_json_end_object(&j);
	}
	tl_json_end_array(&j);
	for (int before = 1; before >= 0; before--) {
		tl_json_key(&j, before ? "threads_only_before" : "threads_only_after");
		tl_json_begin_array(&j, TL_JSON_INLINE);
		for (size_t i = before ? 0 : r->only_before; i < (before ? r->only_before : r->nonly); i++)
			tl_json_string(&j, r->only[i]);
		tl_json_end_array(&j);
	}
	tl_json_key(&j, "findings");
	tl_json_begin_array(&j, TL_JSON_BLOCK);
	for (size_t i = 0; i < r->nfindings; i++) {
		tl_json_begin_object(&j, TL_JSON_INLINE);
		tl_json_kv_string(&j, "kind", r->findings[i].kind);
		tl_json_kv_string(&j, "thread", r->findings[i].thread);
		tl_json_kv_string(&j, "lock", r->findings[i].lock);
		tl_json_kv_string(&j, "change", r->findings[i].gone ? "gone" : "new");
		tl_json_end_object(&j);
	}
	tl_json_end_array(&j);
	if (r->prof.have)
		profile_json(&j, &r->prof);
	tl_json_end_object(&j);
	return tl_json_finish(&j);
}
