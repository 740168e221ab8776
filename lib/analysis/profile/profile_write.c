/*
 * profile_write.c - the profile as text, JSON and folded stacks (see
 * profile.h; docs/PROFILE.md).
 */
#include "analysis/profile/profile.h"

#include <inttypes.h>
#include <string.h>

#include "output/fmt.h"
#include "output/json.h"
#include "output/trace_json.h"

/* A row's last cell: the name cleaned for the terminal, cut to w characters, then the line's end. */
static void put_tail(FILE *f, const char *name, size_t w)
{
	char b[4 * 256 + 8];

	tl_fmt_name_cut(name, w, b, sizeof(b));
	fprintf(f, "%s\n", b);
}

static double pct(uint64_t n, uint64_t of)
{
	return of ? 100.0 * (double)n / (double)of : 0.0;
}

/* "N samples (P%) <what>:" and the first five files. */
static void put_files(FILE *f, const struct tl_profile_files *l, uint64_t samples, const char *what)
{
	fprintf(f, "%" PRIu64 " samples (%.1f%%) %s:\n", l->samples, pct(l->samples, samples), what);
	for (size_t i = 0; i < l->n && i < 5; i++) {
		fputs("  ", f);
		put_tail(f, l->paths[i], 96);
	}
	if (l->n > 5)
		fprintf(f, "  ... %zu more (--json)\n", l->n - 5);
	fputc('\n', f);
}

static double rel_s(const struct tl_run *run, uint64_t ts)
{
	return ts > run->trace_start ? (double)(ts - run->trace_start) / 1e9 : 0.0;
}

static int event_at(const struct tl_profile_result *r, const char *name)
{
	for (size_t e = 0; e < r->nevents; e++)
		if (!strcmp(r->events[e].name, name))
			return (int)e;
	return -1;
}

/* Ratio q of function fn (an index in funcs; SIZE_MAX: in all) into *v: 0, or -1 if an event is missing or has 0. */
static int ratio_of(const struct tl_profile_result *r, const struct tl_profile_ratio *q, size_t fn, double *v)
{
	int a = event_at(r, q->num), b = event_at(r, q->den);
	uint64_t num, den;

	if (a < 0 || b < 0)
		return -1;
	num = fn == SIZE_MAX ? r->events[a].period : r->fperiod[fn * r->nevents + (size_t)a];
	den = fn == SIZE_MAX ? r->events[b].period : r->fperiod[fn * r->nevents + (size_t)b];
	if (!den)
		return -1;
	*v = q->scale * (double)num / (double)den;
	return 0;
}

/* The other events and the ratios, in all and for the functions listed. */
static void events_text(FILE *f, const struct tl_profile_result *r, size_t shown)
{
	size_t nq;
	const struct tl_profile_ratio *q = tl_profile_ratios(&nq);
	double v;

	if (r->nevents < 2)
		return;
	fprintf(f, "other events:");
	for (size_t e = 1; e < r->nevents; e++)
		fprintf(f, "%s %s %" PRIu64 " samples (count %" PRIu64 ")", e > 1 ? "," : "", r->events[e].name,
		        r->events[e].samples, r->events[e].period);
	fprintf(f, "; --event NAME counts another\n");
	for (size_t k = 0; k < nq; k++) {
		if (ratio_of(r, &q[k], SIZE_MAX, &v) < 0)
			continue;
		fprintf(f, "\n%s: %.3g in all; per function (self):\n", q[k].name, v);
		for (size_t i = 0; i < shown; i++)
			if (ratio_of(r, &q[k], i, &v) == 0) {
				fputs("  ", f);
				tl_fmt_put_name(f, r->funcs[i].name, 38);
				fprintf(f, " %10.3g\n", v);
			}
	}
}

int tl_profile_write_text(FILE *f, const struct tl_profile_result *r)
{
	const struct tl_run *run = r->run;
	size_t shown = r->nfuncs < r->top ? r->nfuncs : r->top;

	fprintf(f, "threadlens profile: %s, window %.3fs .. %.3fs, %d CPUs\n", run->path ? run->path : "",
	        rel_s(run, run->win_start), rel_s(run, run->win_end), run->ncpus);
	if (!r->samples) {
		fprintf(f, "no samples (record with --sample)\n");
		return ferror(f) ? -1 : 0;
	}
	fprintf(f, "%s: %" PRIu64 " samples, %.1f ms of periods\n", r->event, r->samples, (double)r->period / 1e6);
	fprintf(f, "%" PRIu64 " in the kernel, %" PRIu64 " in no mapping, %" PRIu64 " without a stack%s\n\n", r->kernel,
	        r->unresolved, r->no_stack, r->no_stack == r->samples ? " (total = self)" : "");
	if (r->no_stack * 2 > r->samples)
		fprintf(f,
		        "most samples have no call stack beyond their function: record's frame-pointer walk stops at\n"
		        "code built without frame pointers (Debian's libraries); record --sample --stack dwarf\n"
		        "unwinds it (or the recording was made with --no-stack)\n\n");
	if (r->stacks_cut)
		fprintf(f,
		        "%" PRIu64 " stacks (%.1f%%) were cut at a caller that is no return address (in no code\n"
		        "mapping, in the kernel's half, or after no call instruction): the frame-pointer walk went\n"
		        "through code built without frame pointers and read noise as the next frames (record\n"
		        "--sample --stack dwarf unwinds such code)\n\n",
		        r->stacks_cut, pct(r->stacks_cut, r->samples));
	if (r->no_maps && r->unresolved)
		fprintf(f,
		        "the trace has no code mappings (recorded before they were: format 1.5 MAP events), so user\n"
		        "code reads [unknown]; record it again to name it\n\n");
	else if (r->unresolved * 20 >= r->samples && r->unresolved)
		fprintf(f,
		        "%.1f%% of the samples are in no file's mapping: JIT code, or code mapped after the recorder\n"
		        "read the maps. profile names JIT code from the process's /tmp/perf-PID.map: run it with\n"
		        "--perf-basic-prof (Node.js, V8), -X perf (Python 3.12) or a perf map agent (Java)\n\n",
		        pct(r->unresolved, r->samples));
	if (r->rebuilt.n)
		put_files(f, &r->rebuilt, r->samples,
		          "have frames in files rebuilt since the recording (the build ID\n"
		          "differs), named by offset: no copy of the build that ran was found. Keep one by its build\n"
		          "ID (`threadlens record` and `perf buildid-cache -a FILE` put it in ~/.debug, where profile "
		          "looks)");
	if (r->unreadable.n)
		put_files(f, &r->unreadable, r->samples,
		          "have frames in files profile cannot read (gone, moved, or\n"
		          "another machine's), named by offset");
	fprintf(f, "%-40s %8s %7s %8s %7s  %s\n", "functions (by self)", "self", "self%", "total", "total%", "module");
	/* names come from the traced program's files and threads: cleaned, cut with '~' */
	for (size_t i = 0; i < shown; i++) {
		fputs("  ", f);
		tl_fmt_put_name(f, r->funcs[i].name, 38);
		fprintf(f, " %8" PRIu64 " %6.1f%% %8" PRIu64 " %6.1f%%  ", r->funcs[i].self,
		        pct(r->funcs[i].self, r->samples), r->funcs[i].total, pct(r->funcs[i].total, r->samples));
		put_tail(f, r->funcs[i].module, 40);
	}
	if (r->nfuncs > shown)
		fprintf(f, "  ... %zu more functions (--top N, --json)\n", r->nfuncs - shown);
	events_text(f, r, shown);
	fprintf(f, "\n%-28s %8s %7s  %s\n", "threads", "samples", "share", "hottest function (self)");
	for (size_t i = 0; i < r->nthreads; i++) {
		char who[96];
		snprintf(who, sizeof(who), "%s (%d)", r->threads[i].name[0] ? r->threads[i].name : "?",
		         r->threads[i].tid);
		fputs("  ", f);
		tl_fmt_put_name(f, who, 26);
		fprintf(f, " %8" PRIu64 " %6.1f%%  ", r->threads[i].samples, pct(r->threads[i].samples, r->samples));
		put_tail(f, r->threads[i].top < r->nfuncs ? r->funcs[r->threads[i].top].name : "-", 50);
	}
	fprintf(f, "\nCPUs:");
	for (int c = 0; c < run->ncpus; c++)
		fprintf(f, "  cpu%d %" PRIu64 " (%.1f%%)", c, r->per_cpu[c], pct(r->per_cpu[c], r->samples));
	fprintf(f, "\nper second (from the window's start):");
	for (size_t s = 0; s < r->nseconds; s++)
		fprintf(f, "%s%zu: %" PRIu64, s ? ", " : " ", s, r->per_second[s]);
	fputc('\n', f);
	fflush(f);
	return ferror(f) ? -1 : 0;
}

/* With several events: "counts" (each event's, self; in all: absent) and the "ratios" both events give. */
static void events_json(struct tl_json *j, const struct tl_profile_result *r, size_t fn)
{
	size_t nq;
	const struct tl_profile_ratio *q = tl_profile_ratios(&nq);
	double v;

	if (fn != SIZE_MAX) {
		tl_json_key(j, "counts");
		tl_json_begin_array(j, TL_JSON_INLINE);
		for (size_t e = 0; e < r->nevents; e++)
			tl_json_uint(j, r->fperiod[fn * r->nevents + e]);
		tl_json_end_array(j);
	}
	tl_json_key(j, "ratios");
	tl_json_begin_object(j, TL_JSON_INLINE);
	for (size_t k = 0; k < nq; k++)
		if (ratio_of(r, &q[k], fn, &v) == 0)
			tl_json_kv_double(j, q[k].name, v, 4);
	tl_json_end_object(j);
}

/* opts.cells: "event_bins", per event its periods by (bin, CPU), flat; "ratio_defs", the ratios known. */
static void event_bins_json(struct tl_json *j, const struct tl_profile_result *r)
{
	size_t ncpus = (size_t)(r->run->ncpus > 0 ? r->run->ncpus : 1), per = r->nbins * ncpus, nq;
	const struct tl_profile_ratio *q = tl_profile_ratios(&nq);

	tl_json_key(j, "event_bins");
	tl_json_begin_array(j, TL_JSON_BLOCK);
	for (size_t e = 0; e < r->nevents; e++) {
		tl_json_begin_array(j, TL_JSON_INLINE);
		for (size_t k = 0; k < per; k++)
			tl_json_uint(j, r->ebins[e * per + k]);
		tl_json_end_array(j);
	}
	tl_json_end_array(j);
	tl_json_key(j, "ratio_defs");
	tl_json_begin_array(j, TL_JSON_BLOCK);
	for (size_t k = 0; k < nq; k++) {
		tl_json_begin_object(j, TL_JSON_INLINE);
		tl_json_kv_string(j, "name", q[k].name);
		tl_json_kv_string(j, "num", q[k].num);
		tl_json_kv_string(j, "den", q[k].den);
		tl_json_kv_double(j, "scale", q[k].scale, 0);
		tl_json_end_object(j);
	}
	tl_json_end_array(j);
}

/* opts.cells: "bins", "stacks" (function indices, outermost first) and "cells", flat (stack, bin, cpu, tid, count) */
static void write_cells(struct tl_json *j, const struct tl_profile_result *r)
{
	tl_json_key(j, "bins");
	tl_json_begin_object(j, TL_JSON_INLINE);
	tl_json_kv_uint(j, "from_ns", tl_run_rel(r->run, r->run->win_start));
	tl_json_kv_uint(j, "bin_ns", r->bin_ns);
	tl_json_kv_uint(j, "n", r->nbins);
	tl_json_end_object(j);
	tl_json_key(j, "stacks");
	tl_json_begin_array(j, TL_JSON_BLOCK);
	for (size_t i = 0; i < r->nstacks; i++) {
		tl_json_begin_array(j, TL_JSON_INLINE);
		for (uint32_t k = 0; k < r->stacks[i].n; k++)
			tl_json_uint(j, r->stacks[i].frames[k]);
		tl_json_end_array(j);
	}
	tl_json_end_array(j);
	tl_json_key(j, "cells");
	tl_json_begin_array(j, TL_JSON_INLINE);
	for (size_t i = 0; i < r->ncells; i++) {
		const struct tl_profile_cell *c = &r->cells[i];
		tl_json_uint(j, c->stack);
		tl_json_uint(j, c->bin);
		tl_json_int(j, c->cpu);
		tl_json_int(j, c->tid);
		tl_json_uint(j, c->count);
	}
	tl_json_end_array(j);
	event_bins_json(j, r);
}

/* "<key>": samples, "<key>_files": [paths]. */
static void json_files(struct tl_json *j, const char *key, const struct tl_profile_files *l)
{
	char k[32];

	tl_json_kv_uint(j, key, l->samples);
	snprintf(k, sizeof(k), "%s_files", key);
	tl_json_key(j, k);
	tl_json_begin_array(j, TL_JSON_INLINE);
	for (size_t i = 0; i < l->n; i++)
		tl_json_string(j, l->paths[i]);
	tl_json_end_array(j);
}

int tl_profile_write_json(FILE *f, const struct tl_profile_result *r)
{
	struct tl_json j;

	tl_json_init(&j, f, TL_JSON_PRETTY);
	tl_json_begin_object(&j, TL_JSON_BLOCK);
	tl_json_kv_string(&j, "schema", "threadlens-profile");
	tl_json_kv_int(&j, "version", 1);
	tl_json_trace(&j, r->run);
	tl_json_window(&j, r->run);
	tl_json_kv_string(&j, "event", r->event);
	tl_json_kv_uint(&j, "samples", r->samples);
	tl_json_kv_uint(&j, "period", r->period);
	tl_json_kv_uint(&j, "kernel", r->kernel);
	tl_json_kv_uint(&j, "unresolved", r->unresolved);
	tl_json_kv_uint(&j, "no_stack", r->no_stack);
	tl_json_kv_uint(&j, "stacks_cut", r->stacks_cut);
	json_files(&j, "rebuilt", &r->rebuilt);
	json_files(&j, "unreadable", &r->unreadable);
	tl_json_kv_bool(&j, "mappings", !r->no_maps);
	tl_json_key(&j, "events");
	tl_json_begin_array(&j, TL_JSON_INLINE);
	for (size_t e = 0; e < r->nevents; e++) {
		tl_json_begin_object(&j, TL_JSON_INLINE);
		tl_json_kv_string(&j, "name", r->events[e].name);
		tl_json_kv_uint(&j, "samples", r->events[e].samples);
		tl_json_kv_uint(&j, "count", r->events[e].period);
		tl_json_end_object(&j);
	}
	tl_json_end_array(&j);
	if (r->nevents > 1)
		events_json(&j, r, SIZE_MAX);
	tl_json_key(&j, "functions");
	tl_json_begin_array(&j, TL_JSON_BLOCK);
	for (size_t i = 0; i < r->nfuncs; i++) {
		tl_json_begin_object(&j, TL_JSON_INLINE);
		tl_json_kv_string(&j, "name", r->funcs[i].name);
		tl_json_kv_string(&j, "module", r->funcs[i].module);
		tl_json_kv_uint(&j, "self", r->funcs[i].self);
		tl_json_kv_uint(&j, "total", r->funcs[i].total);
		tl_json_kv_double(&j, "self_pct", pct(r->funcs[i].self, r->samples), 3);
		tl_json_kv_double(&j, "total_pct", pct(r->funcs[i].total, r->samples), 3);
		if (r->nevents > 1)
			events_json(&j, r, i);
		tl_json_end_object(&j);
	}
	tl_json_end_array(&j);
	tl_json_key(&j, "threads");
	tl_json_begin_array(&j, TL_JSON_BLOCK);
	for (size_t i = 0; i < r->nthreads; i++) {
		tl_json_begin_object(&j, TL_JSON_INLINE);
		tl_json_kv_int(&j, "tid", r->threads[i].tid);
		tl_json_kv_int(&j, "pid", r->threads[i].pid);
		tl_json_kv_string(&j, "name", r->threads[i].name);
		tl_json_kv_uint(&j, "samples", r->threads[i].samples);
		tl_json_kv_string(&j, "top_function",
		                  r->threads[i].top < r->nfuncs ? r->funcs[r->threads[i].top].name : "");
		tl_json_end_object(&j);
	}
	tl_json_end_array(&j);
	tl_json_key(&j, "per_cpu");
	tl_json_begin_array(&j, TL_JSON_INLINE);
	for (int c = 0; c < r->run->ncpus; c++)
		tl_json_uint(&j, r->per_cpu[c]);
	tl_json_end_array(&j);
	tl_json_key(&j, "per_second");
	tl_json_begin_array(&j, TL_JSON_INLINE);
	for (size_t s = 0; s < r->nseconds; s++)
		tl_json_uint(&j, r->per_second[s]);
	tl_json_end_array(&j);
	if (r->cells)
		write_cells(&j, r);
	tl_json_end_object(&j);
	return tl_json_finish(&j);
}

int tl_profile_write_folded(FILE *f, const struct tl_profile_result *r)
{
	for (size_t i = 0; i < r->nfolded; i++)
		fprintf(f, "%s %" PRIu64 "\n", r->folded[i].stack, r->folded[i].count);
	fflush(f);
	return ferror(f) ? -1 : 0;
}
