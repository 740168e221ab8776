/*
 * profile_runs.c - several runs' profiles side by side (profile_runs.h).
 *
 * Invariant: every function in funcs has nruns-wide share[] storage of
 * TL_PROFILE_MAX_RUNS entries, zero where a run lacked it; index interns
 * a function (tl_profile_key) to its position + 1.
 */
#include "analysis/profile/profile_runs.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/dist.h"
#include "base/errors.h"
#include "base/grow.h"
#include "base/strtab.h"
#include "output/fmt.h"
#include "output/json.h"

int tl_profile_runs_add(struct tl_profile_runs *R, const char *path, const struct tl_profile_result *r)
{
	struct tl_strtab *ix = R->index;
	size_t k = R->nruns;

	if (k == TL_PROFILE_MAX_RUNS)
		return tl_error("at most %d runs", TL_PROFILE_MAX_RUNS);
	if (!ix) {
		if (!(ix = R->index = calloc(1, sizeof(*ix))))
			return tl_error("out of memory");
		tl_strtab_init(ix);
		snprintf(R->event, sizeof(R->event), "%s", r->event);
	}
	R->runs[k] = (struct tl_profile_run){ path, r->samples, r->period };
	R->nruns++;
	for (size_t i = 0; i < r->nfuncs; i++) {
		uint32_t id;
		struct tl_profile_run_func *f;

		if (!r->funcs[i].self)
			continue; /* sampled by another event only */
		if (!(id = tl_profile_key(ix, r->funcs[i].name, r->funcs[i].module)))
			return -1;
		if (id > R->nfuncs) { /* new: ids are dense, so it is the next */
			if (TL_GROW_ZERO(R->funcs, R->cap, R->nfuncs + 1) < 0)
				return tl_error("out of memory");
			f = &R->funcs[R->nfuncs++];
			snprintf(f->name, sizeof(f->name), "%s", r->funcs[i].name);
			snprintf(f->module, sizeof(f->module), "%s", r->funcs[i].module);
			if (!(f->share = calloc(TL_PROFILE_MAX_RUNS, sizeof(*f->share))))
				return tl_error("out of memory");
		}
		f = &R->funcs[id - 1];
		f->share[k] = r->samples ? 100.0 * (double)r->funcs[i].self / (double)r->samples : 0;
	}
	return 0;
}

static int cmp_mean(const void *a, const void *b)
{
	const struct tl_profile_run_func *x = a, *y = b;

	if (x->mean != y->mean)
		return x->mean < y->mean ? 1 : -1;
	return strcmp(x->name, y->name);
}

void tl_profile_runs_finish(struct tl_profile_runs *R)
{
	double v[TL_PROFILE_MAX_RUNS];

	for (size_t k = 0; k < R->nruns; k++)
		v[k] = (double)R->runs[k].samples;
	tl_mean_sd(v, R->nruns, &R->samples_mean, &R->samples_sd);
	for (size_t i = 0; i < R->nfuncs; i++) {
		struct tl_profile_run_func *f = &R->funcs[i];

		tl_mean_sd(f->share, R->nruns, &f->mean, &f->sd);
		f->min = f->max = f->share[0];
		for (size_t k = 1; k < R->nruns; k++) {
			f->min = f->share[k] < f->min ? f->share[k] : f->min;
			f->max = f->share[k] > f->max ? f->share[k] : f->max;
		}
	}
	if (R->nfuncs)
		qsort(R->funcs, R->nfuncs, sizeof(*R->funcs), cmp_mean);
}

int tl_profile_runs_write_text(FILE *f, const struct tl_profile_runs *R, unsigned top)
{
	size_t shown = R->nfuncs < top ? R->nfuncs : top;

	fprintf(f, "threadlens profile: %zu runs, %s\n", R->nruns, R->event);
	for (size_t k = 0; k < R->nruns; k++)
		fprintf(f, "  run %-3zu %8" PRIu64 " samples  %10.1f ms of periods  %s\n", k + 1, R->runs[k].samples,
		        (double)R->runs[k].period / 1e6, R->runs[k].path);
	fprintf(f, "samples per run: mean %.1f, standard deviation %.1f (%.1f%%)\n\n", R->samples_mean, R->samples_sd,
	        R->samples_mean > 0 ? 100 * R->samples_sd / R->samples_mean : 0.0);
	fprintf(f, "%-40s %7s %6s %7s %7s  %s\n", "functions (self share of each run)", "mean", "sd", "min", "max",
	        "module");
	for (size_t i = 0; i < shown; i++) {
		const struct tl_profile_run_func *fn = &R->funcs[i];
		char module[4 * 20 + 8];

		/* the names of the traced program's files: cleaned, cut with '~' */
		fputs("  ", f);
		tl_fmt_put_name(f, fn->name, 38);
		fprintf(f, " %6.1f%% %6.2f %6.1f%% %6.1f%%  %s\n", fn->mean, fn->sd, fn->min, fn->max,
		        (tl_fmt_name_cut(fn->module, 20, module, sizeof(module)), module));
	}
	if (R->nfuncs > shown)
		fprintf(f, "  ... %zu more functions (--top N, --json)\n", R->nfuncs - shown);
	fflush(f);
	return ferror(f) ? -1 : 0;
}

int tl_profile_runs_write_json(FILE *f, const struct tl_profile_runs *R)
{
	struct tl_json j;

	tl_json_init(&j, f, TL_JSON_PRETTY);
	tl_json_begin_object(&j, TL_JSON_BLOCK);
	tl_json_kv_string(&j, "schema", "threadlens-profile-runs");
	tl_json_kv_int(&j, "version", 1);
	tl_json_kv_string(&j, "event", R->event);
	tl_json_key(&j, "runs");
	tl_json_begin_array(&j, TL_JSON_BLOCK);
	for (size_t k = 0; k < R->nruns; k++) {
		tl_json_begin_object(&j, TL_JSON_INLINE);
		tl_json_kv_string(&j, "path", R->runs[k].path);
		tl_json_kv_uint(&j, "samples", R->runs[k].samples);
		tl_json_kv_uint(&j, "period", R->runs[k].period);
		tl_json_end_object(&j);
	}
	tl_json_end_array(&j);
	tl_json_kv_double(&j, "samples_mean", R->samples_mean, 3);
	tl_json_kv_double(&j, "samples_sd", R->samples_sd, 3);
	tl_json_key(&j, "functions");
	tl_json_begin_array(&j, TL_JSON_BLOCK);
	for (size_t i = 0; i < R->nfuncs; i++) {
		const struct tl_profile_run_func *fn = &R->funcs[i];
		tl_json_begin_object(&j, TL_JSON_INLINE);
		tl_json_kv_string(&j, "name", fn->name);
		tl_json_kv_string(&j, "module", fn->module);
		tl_json_key(&j, "self_pct");
		tl_json_begin_array(&j, TL_JSON_INLINE);
		for (size_t k = 0; k < R->nruns; k++)
			tl_json_double(&j, fn->share[k], 3);
		tl_json_end_array(&j);
		tl_json_kv_double(&j, "mean", fn->mean, 3);
		tl_json_kv_double(&j, "sd", fn->sd, 3);
		tl_json_kv_double(&j, "min", fn->min, 3);
		tl_json_kv_double(&j, "max", fn->max, 3);
		tl_json_end_object(&j);
	}
	tl_json_end_array(&j);
	tl_json_end_object(&j);
	return tl_json_finish(&j);
}

void tl_profile_runs_release(struct tl_profile_runs *R)
{
	for (size_t i = 0; i < R->nfuncs; i++)
		free(R->funcs[i].share);
	free(R->funcs);
	if (R->index) {
		tl_strtab_release(R->index);
		free(R->index);
	}
	memset(R, 0, sizeof(*R));
}
