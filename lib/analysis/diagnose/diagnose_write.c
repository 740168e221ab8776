/*
 * diagnose_write.c - the writers of `threadlens diagnose`: the findings as
 * text for a terminal and as the JSON document "threadlens-diagnose"
 * (docs/JSON.md).  They print; every number comes from the findings.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analysis/diagnose/diagnose.h"
#include "base/errors.h"
#include "output/fmt.h"
#include "output/json.h"
#include "output/trace_json.h"

/* One evidence value in its unit: durations as durations. */
static const char *value_str(double v, const char *unit, char *buf, size_t len)
{
	if (!strcmp(unit, "ns"))
		return tl_fmt_dur_sig(v, 3, buf, len);
	snprintf(buf, len, fabs(v) >= 1000 ? "%.0f%s" : "%.3g%s", v, unit);
	return buf;
}

/* The detectors that judge a process, not a thread. */
static int per_process(unsigned kind)
{
	return kind == TL_FIND_OVERSUBSCRIPTION || kind == TL_FIND_SERIALIZED || kind == TL_FIND_SPIN_WAITING ||
	       kind == TL_FIND_CPU_THROTTLED || kind == TL_FIND_THUNDERING_HERD || kind == TL_FIND_CPU_SATURATION ||
	       kind == TL_FIND_AFFINITY_BOUND || kind == TL_FIND_WORKER_IMBALANCE || kind == TL_FIND_THREAD_CHURN;
}

/* What a detector examines, one of them ("thread", "process", ...): its checked[] counts these. */
static const char *examined_unit(unsigned k)
{
	if (k == TL_FIND_BARRIER_IMBALANCE || k == TL_FIND_POINTLESS_PARALLEL)
		return "region";
	if (k == TL_FIND_THUNDERING_HERD)
		return "waker";
	if (k == TL_FIND_CPU_SATURATION)
		return "program";
	return per_process(k) ? "process" : "thread";
}

/* What a finding's severity is a share of: "the " and this. */
static const char *share_of(const struct tl_finding *f)
{
	return f->region[0]                                  ? "region's time"
	       : f->kind == TL_FIND_SPIN_WAITING             ? "workers' CPU time"
	       : f->kind == TL_FIND_CPU_THROTTLED            ? "time its threads wanted a CPU"
	       : f->kind == TL_FIND_AFFINITY_BOUND           ? "time its threads wanted a CPU"
	       : f->kind == TL_FIND_WORKER_IMBALANCE         ? "teams' time"
	       : f->kind == TL_FIND_THREAD_CHURN             ? "short threads' lifetimes"
	       : f->kind == TL_FIND_THUNDERING_HERD          ? "woken threads' time running or queued"
	       : f->kind == TL_FIND_CPU_SATURATION           ? "program's wall time"
	       : f->kind == TL_FIND_SINGLE_THREAD_BOTTLENECK ? "waiting threads' lives"
	       : f->kind == TL_FIND_LOCK_CONTENTION && f->nthreads > 1 && !strcmp(f->threads[1].role, "waiter")
	               ? "waiters' time"
	       : per_process(f->kind) ? "process's time"
	                              : "thread's time";
}

/* Where a finding is: its process, region, lock and threads, as one text. */
static void where_text(const struct tl_finding *f, char *w, size_t len)
{
	size_t n;

	if (f->kind == TL_FIND_CPU_SATURATION && !f->pid)
		n = (size_t)snprintf(w, len, "the machine;");
	else
		n = (size_t)snprintf(w, len, "process %s (%d)%s;", f->process, (int)f->pid,
		                     f->kind == TL_FIND_CPU_SATURATION ? " and its children" : "");
	if (f->region[0] && n < len)
		n += (size_t)snprintf(w + n, len - n, " region %s;", f->region);
	if (f->lock[0] && n < len)
		n += (size_t)snprintf(w + n, len - n, " lock %s;", f->lock);
	if (n < len)
		n += (size_t)snprintf(w + n, len - n, f->kind == TL_FIND_CPU_SATURATION ? " processes:" : " threads:");
	for (size_t t = 0; t < f->nthreads && n < len; t++)
		n += (size_t)snprintf(w + n, len - n, "%s %s %d (%s)", t ? "," : "", f->threads[t].name,
		                      (int)f->threads[t].tid, f->threads[t].role);
}

/* One finding; its prose (title, where, cause, fix) wrapped to `width` columns under its label. */
static void text_finding(FILE *out, size_t i, const struct tl_finding *f, int width)
{
	char b[3][32], w[2048], n[24];

	snprintf(n, sizeof(n), "%zu. ", i + 1);
	snprintf(w, sizeof(w), "%s  cost %s (%.0f%% of the %s)", tl_finding_kind_name(f->kind),
	         tl_fmt_dur(f->cost_ns, b[0], sizeof(b[0])), 100 * f->severity, share_of(f));
	putc('\n', out);
	tl_fmt_wrap(out, n, w, width);
	tl_fmt_wrap(out, "   ", f->title, width);
	where_text(f, w, sizeof(w));
	tl_fmt_wrap(out, "   where:    ", w, width);
	fputs("   evidence:\n", out);
	for (size_t e = 0; e < f->nevidence; e++) {
		const struct tl_evidence *ev = &f->evidence[e];

		/* 80 columns with the threshold, for a `what` of up to 46 */
		fprintf(out, "     %-46s %9s", ev->what, value_str(ev->value, ev->unit, b[1], sizeof(b[1])));
		if (!isnan(ev->threshold))
			fprintf(out, "  (at %s %s)", ev->above ? "least" : "most",
			        value_str(ev->threshold, ev->unit, b[2], sizeof(b[2])));
		fputc('\n', out);
	}
	tl_fmt_wrap(out, "   cause:    ", f->cause, width);
	tl_fmt_wrap(out, "   fix:      ", f->fix, width);
	if (f->doubt[0])
		tl_fmt_wrap(out, "   !! in doubt: ", f->doubt, width);
}

/* What each detector examined ("wake-storm (5 threads)"), and why the others examined nothing. */
static void examined_text(FILE *out, const struct tl_findings *f, int cols)
{
	size_t n = 0, len = 0;
	char w[4096], kinds[TL_FIND__COUNT][80];
	const char *items[TL_FIND__COUNT];

	for (unsigned k = 0; k < TL_FIND__COUNT; k++) {
		const char *unit = examined_unit(k);

		if (f->skipped[k][0])
			continue;
		snprintf(kinds[n], sizeof(kinds[n]), "%s (%" PRIu64 " %s%s)", tl_finding_kind_name(k), f->checked[k],
		         unit,
		         f->checked[k] == 1         ? ""
		         : !strcmp(unit, "process") ? "es"
		                                    : "s");
		items[n] = kinds[n];
		n++;
	}
	putc('\n', out);
	tl_fmt_wrap_items(out, "examined: ", items, n, cols);
	for (unsigned k = 0; k < TL_FIND__COUNT; k++)
		if (f->skipped[k][0] && strcmp(f->skipped[k], TL_DIAGNOSE_NOT_YET)) {
			snprintf(w, sizeof(w), "%s: %s", tl_finding_kind_name(k), f->skipped[k]);
			tl_fmt_wrap(out, "not examined: ", w, cols);
		}
	w[0] = 0;
	for (unsigned k = 0; k < TL_FIND__COUNT && len < sizeof(w); k++)
		if (!strcmp(f->skipped[k], TL_DIAGNOSE_NOT_YET))
			len += (size_t)snprintf(w + len, sizeof(w) - len, "%s%s", len ? ", " : "",
			                        tl_finding_kind_name(k));
	if (len)
		tl_fmt_wrap(out, "not examined yet: ", w, cols);
}

int tl_diagnose_write_text(FILE *out, const struct tl_findings *f, int width)
{
	int cols = width > 0 ? width : TL_DIAGNOSE_WIDTH;

	fprintf(out, "threadlens diagnose: %s\n", f->run && f->run->path ? f->run->path : "");
	if (!f->n)
		fputs("no findings: no detector's threshold was crossed (docs/DIAGNOSE.md)\n", out);
	else
		fprintf(out, "%zu finding%s, ranked by what they cost:\n", f->n, f->n == 1 ? "" : "s");
	for (size_t i = 0; i < f->n; i++)
		text_finding(out, i, &f->items[i], cols);
	examined_text(out, f, cols);
	if (ferror(out))
		return tl_error("cannot write the diagnosis");
	return 0;
}

int tl_diagnose_write_brief(FILE *out, const struct tl_findings *f, int width)
{
	int cols = width > 0 ? width : TL_DIAGNOSE_WIDTH;
	char b[32], lead[64], v[4200];

	fputc('\n', out);
	tl_fmt_wrap(out, "DIAGNOSIS  ", "(threadlens diagnose: problems ranked by what they cost; docs/DIAGNOSE.md)",
	            cols);
	if (!f->n)
		fputs("  no findings\n", out);
	for (size_t i = 0; i < f->n; i++) {
		const struct tl_finding *x = &f->items[i];

		snprintf(lead, sizeof(lead), "  %zu. %-24s %7s  ", i + 1, tl_finding_kind_name(x->kind),
		         tl_fmt_dur(x->cost_ns, b, sizeof(b)));
		tl_fmt_wrap(out, lead, x->title, cols);
		if (x->doubt[0])
			tl_fmt_wrap(out, "     !! in doubt: ", x->doubt, cols);
	}
	if (f->n) { /* the path cleaned by the wrap */
		snprintf(v, sizeof(v), "threadlens diagnose %s", f->run && f->run->path ? f->run->path : "FILE");
		tl_fmt_wrap(out, "  evidence, causes and fixes: ", v, cols);
	}
	if (ferror(out))
		return tl_error("cannot write the diagnosis");
	return 0;
}

static void json_finding(struct tl_json *j, const struct tl_finding *f)
{
	tl_json_begin_object(j, TL_JSON_BLOCK);
	tl_json_kv_string(j, "kind", tl_finding_kind_name(f->kind));
	tl_json_kv_string(j, "title", f->title);
	tl_json_kv_uint(j, "cost_ns", f->cost_ns);
	tl_json_kv_double(j, "severity", f->severity, 3);
	tl_json_kv_string(j, "severity_of", share_of(f));
	tl_json_kv_int(j, "pid", f->pid);
	tl_json_kv_string(j, "process", f->process);
	tl_json_kv_string(j, "region", f->region);
	tl_json_kv_string(j, "lock", f->lock);
	tl_json_key(j, "threads");
	tl_json_begin_array(j, TL_JSON_BLOCK);
	for (size_t t = 0; t < f->nthreads; t++) {
		tl_json_begin_object(j, TL_JSON_INLINE);
		tl_json_kv_int(j, "tid", f->threads[t].tid);
		tl_json_kv_int(j, "pid", f->threads[t].pid);
		tl_json_kv_string(j, "name", f->threads[t].name);
		tl_json_kv_string(j, "role", f->threads[t].role);
		tl_json_end_object(j);
	}
	tl_json_end_array(j);
	tl_json_key(j, "windows");
	tl_json_begin_array(j, TL_JSON_INLINE);
	for (size_t w = 0; w < f->nwindows; w++) {
		tl_json_begin_object(j, TL_JSON_INLINE);
		tl_json_kv_uint(j, "from_ns", f->windows[w][0]);
		tl_json_kv_uint(j, "to_ns", f->windows[w][1]);
		tl_json_end_object(j);
	}
	tl_json_end_array(j);
	tl_json_key(j, "evidence");
	tl_json_begin_array(j, TL_JSON_BLOCK);
	for (size_t e = 0; e < f->nevidence; e++) {
		const struct tl_evidence *ev = &f->evidence[e];

		tl_json_begin_object(j, TL_JSON_INLINE);
		tl_json_kv_string(j, "what", ev->what);
		tl_json_kv_double(j, "value", ev->value, 3);
		tl_json_key(j, "threshold");
		if (isnan(ev->threshold))
			tl_json_null(j);
		else
			tl_json_double(j, ev->threshold, 3);
		tl_json_kv_string(j, "unit", ev->unit);
		tl_json_kv_string(j, "test", isnan(ev->threshold) ? "" : ev->above ? ">=" : "<=");
		tl_json_end_object(j);
	}
	tl_json_end_array(j);
	tl_json_kv_string(j, "cause", f->cause);
	tl_json_kv_string(j, "fix", f->fix);
	tl_json_kv_string(j, "doubt", f->doubt);
	tl_json_end_object(j);
}

int tl_diagnose_write_json(FILE *out, const struct tl_findings *f)
{
	struct tl_json j;

	tl_json_init(&j, out, TL_JSON_PRETTY);
	tl_json_begin_object(&j, TL_JSON_BLOCK);
	tl_json_kv_string(&j, "schema", "threadlens-diagnose");
	tl_json_kv_int(&j, "version", 1);
	tl_json_trace(&j, f->run);
	tl_json_window(&j, f->run);
	tl_json_key(&j, "findings");
	tl_json_begin_array(&j, TL_JSON_BLOCK);
	for (size_t i = 0; i < f->n; i++)
		json_finding(&j, &f->items[i]);
	tl_json_end_array(&j);
	tl_json_key(&j, "detectors");
	tl_json_begin_array(&j, TL_JSON_BLOCK);
	for (unsigned k = 0; k < TL_FIND__COUNT; k++) {
		tl_json_begin_object(&j, TL_JSON_INLINE);
		tl_json_kv_string(&j, "kind", tl_finding_kind_name(k));
		tl_json_kv_uint(&j, "checked", f->checked[k]);
		tl_json_kv_string(&j, "skipped", f->skipped[k]);
		tl_json_end_object(&j);
	}
	tl_json_end_array(&j);
	tl_json_end_object(&j);
	return tl_json_finish(&j);
}
