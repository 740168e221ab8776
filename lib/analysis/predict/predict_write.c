/*
 * predict_write.c - the prediction as a table and as JSON (predict.h,
 * docs/PREDICT.md): they print, never compute.
 */
#include "analysis/predict/predict.h"

#include <inttypes.h>

#include "output/fmt.h"
#include "output/json.h"
#include "output/trace_json.h"

static double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

/* The categories as % of cores x time, in columns of cw (8 or 9) with their spaces. */
static void stack_text(FILE *f, const uint64_t *core_ns, int cores, uint64_t time_ns, int cw)
{
	uint64_t all = (uint64_t)cores * time_ns;

	for (int c = 0; c < TL_PC__COUNT; c++)
		fprintf(f, " %*.1f%%", cw - 2, pct(core_ns[c], all));
	fputc('\n', f);
}

static void stack_head(FILE *f, const char *first, int cw)
{
	static const char *const shortname[2][TL_PC__COUNT] = {
		{ "seq.", "parallel", "imbal.", "limited", "overhead", "idle" },
		{ "seq.", "par.", "imbal.", "limit.", "overh.", "idle" }, /* columns of 8 */
	};

	fputs(first, f);
	for (int c = 0; c < TL_PC__COUNT; c++)
		fprintf(f, " %*s", cw - 1, shortname[cw < 9][c]);
	fputc('\n', f);
}

static void markers_text(FILE *f, const struct tl_predict_markers *m, int w)
{
	char b[32], c[32], v[256];

	if (m->ns_each)
		snprintf(v, sizeof(v), "%" PRIu64 " calls, %" PRIu64 " ns each taken out (%s): %s of the %s recorded",
		         m->calls, m->ns_each, m->estimated ? "the least gap between two; --marker-ns" : "--marker-ns",
		         tl_fmt_dur(m->removed_ns, b, sizeof(b)), tl_fmt_dur(m->recorded_ns, c, sizeof(c)));
	else if (m->untrusted)
		snprintf(v, sizeof(v),
		         "their cost is left in (too few calls back to back to estimate it; --marker-ns N sets it)");
	else
		snprintf(v, sizeof(v), "their cost is left in (--marker-ns 0)");
	tl_fmt_wrap(f, "markers: ", v, w);
}

int tl_predict_write_text(FILE *f, const struct tl_predict_result *r, int width)
{
	int w = width > 0 ? width : 100, narrow = w < 97, cw = narrow ? 8 : 9;
	char b[32], v[320];

	fprintf(f, "threadlens predict: %s, thread %d\n", r->run->path ? r->run->path : "", r->tid);
	fprintf(f, "%" PRIu64 " tasks, %s sequential, %.1f%% of it in parallel regions\n", r->tasks,
	        tl_fmt_dur(r->seq_ns, b, sizeof(b)), pct(r->par_ns, r->seq_ns));
	markers_text(f, &r->markers, w);
	if (!r->pf.measured) {
		tl_fmt_wrap(f, "runtime costs: ",
		            "none (no --platform file): fork, join, loop and lock overheads are left out", w);
	} else {
		snprintf(v, sizeof(v),
		         "par_open %" PRIu64 ", thr_launch %" PRIu64 ", barrier %" PRIu64 ", for_prologue %" PRIu64
		         ", next_chunk %" PRIu64 ", critical %" PRIu64,
		         r->pf.cost[TL_COST_PAR_OPEN], r->pf.cost[TL_COST_THR_LAUNCH], r->pf.cost[TL_COST_BARRIER],
		         r->pf.cost[TL_COST_FOR_PROLOGUE], r->pf.cost[TL_COST_NEXT_CHUNK],
		         r->pf.cost[TL_COST_CRITICAL]);
		tl_fmt_wrap(f, "runtime costs (ns): ", v, w);
	}
	if (r->unused)
		fprintf(f, "%" PRIu64 " directive%s name a task that never ran\n", r->unused,
		        r->unused == 1 ? "" : "s");
	fputc('\n', f);
	if (narrow)
		tl_fmt_wrap(f, "",
		            "core time by category, % of cores x time (seq.: sequential; par.: parallel; imbal.: load "
		            "imbalance; limit.: cores without work in a region; overh.: overhead; docs/PREDICT.md):",
		            w);
	else
		fputs("core time by category, % of cores x time (seq.: sequential; imbal.: load imbalance;\n"
		      "limited: cores without work in a region; docs/PREDICT.md):\n",
		      f);
	stack_head(f, narrow ? "cores      time  speedup  amdahl" : "cores       time  speedup  effic.  amdahl", cw);
	for (size_t i = 0; i < r->np; i++) {
		const struct tl_prediction *p = &r->p[i];
		fprintf(f, "%5d %*s %7.2fx", p->cores, narrow ? 9 : 10, tl_fmt_dur(p->time_ns, b, sizeof(b)),
		        p->speedup);
		if (!narrow)
			fprintf(f, " %6.1f%%", 100 * p->efficiency);
		fprintf(f, " %6.2fx", p->amdahl);
		stack_text(f, p->core_ns, p->cores, p->time_ns, cw);
	}
	for (size_t j = 0; j < r->nregions; j++) {
		const struct tl_predict_region *g = &r->regions[j];
		char task[4 * 64 + 8];

		/* a marker's name: the program's, cleaned */
		tl_fmt_clean_name(g->task, task, sizeof(task));
		fprintf(f, "\nregion %s: %" PRIu64 " instance%s, %s sequential\n", task, g->instances,
		        g->instances == 1 ? "" : "s", tl_fmt_dur(g->seq_ns, b, sizeof(b)));
		/* the same columns, blank where the whole run's efficiency and Amdahl's bound are */
		stack_head(f,
		           narrow ? "cores      time  speedup        " : "cores       time  speedup                 ",
		           cw);
		for (size_t i = 0; i < r->np; i++) {
			fprintf(f, "%5d %*s %7.2fx%*s", r->p[i].cores, narrow ? 9 : 10,
			        tl_fmt_dur(g->time_ns[i], b, sizeof(b)),
			        g->time_ns[i] ? (double)g->seq_ns / (double)g->time_ns[i] : 0.0, narrow ? 8 : 17, "");
			stack_text(f, g->core_ns[i], r->p[i].cores, g->time_ns[i], cw);
		}
	}
	fflush(f);
	return ferror(f) ? -1 : 0;
}

static void core_json(struct tl_json *j, const uint64_t *core_ns)
{
	tl_json_key(j, "core_ns");
	tl_json_begin_object(j, TL_JSON_INLINE);
	for (int c = 0; c < TL_PC__COUNT; c++)
		tl_json_kv_uint(j, tl_pcat_name((unsigned)c), core_ns[c]);
	tl_json_end_object(j);
}

int tl_predict_write_json(FILE *f, const struct tl_predict_result *r)
{
	struct tl_json j;

	tl_json_init(&j, f, TL_JSON_PRETTY);
	tl_json_begin_object(&j, TL_JSON_BLOCK);
	tl_json_kv_string(&j, "schema", "threadlens-predict");
	tl_json_kv_int(&j, "version", 1);
	tl_json_trace(&j, r->run);
	tl_json_kv_int(&j, "tid", r->tid);
	tl_json_kv_uint(&j, "tasks", r->tasks);
	tl_json_kv_uint(&j, "sequential_ns", r->seq_ns);
	tl_json_kv_uint(&j, "parallel_regions_ns", r->par_ns);
	tl_json_kv_uint(&j, "unused_directives", r->unused);
	tl_json_key(&j, "markers");
	tl_json_begin_object(&j, TL_JSON_INLINE);
	tl_json_kv_uint(&j, "calls", r->markers.calls);
	tl_json_kv_uint(&j, "ns_each", r->markers.ns_each);
	tl_json_kv_bool(&j, "estimated", r->markers.estimated);
	tl_json_kv_bool(&j, "trusted", !r->markers.untrusted);
	tl_json_kv_uint(&j, "removed_ns", r->markers.removed_ns);
	tl_json_kv_uint(&j, "recorded_ns", r->markers.recorded_ns);
	tl_json_end_object(&j);
	tl_json_key(&j, "platform");
	tl_json_begin_object(&j, TL_JSON_INLINE);
	tl_json_kv_bool(&j, "measured", r->pf.measured);
	for (unsigned c = 0; c < TL_COST__COUNT; c++)
		tl_json_kv_uint(&j, tl_cost_name(c), r->pf.cost[c]);
	tl_json_end_object(&j);
	tl_json_key(&j, "predictions");
	tl_json_begin_array(&j, TL_JSON_BLOCK);
	for (size_t i = 0; i < r->np; i++) {
		const struct tl_prediction *p = &r->p[i];
		tl_json_begin_object(&j, TL_JSON_INLINE);
		tl_json_kv_int(&j, "cores", p->cores);
		tl_json_kv_uint(&j, "time_ns", p->time_ns);
		tl_json_kv_double(&j, "speedup", p->speedup, 4);
		tl_json_kv_double(&j, "efficiency", p->efficiency, 4);
		tl_json_kv_double(&j, "amdahl", p->amdahl, 4);
		core_json(&j, p->core_ns);
		tl_json_end_object(&j);
	}
	tl_json_end_array(&j);
	tl_json_key(&j, "regions");
	tl_json_begin_array(&j, TL_JSON_BLOCK);
	for (size_t k = 0; k < r->nregions; k++) {
		const struct tl_predict_region *g = &r->regions[k];
		tl_json_begin_object(&j, TL_JSON_BLOCK);
		tl_json_kv_string(&j, "task", g->task);
		tl_json_kv_uint(&j, "instances", g->instances);
		tl_json_kv_uint(&j, "sequential_ns", g->seq_ns);
		tl_json_key(&j, "predictions");
		tl_json_begin_array(&j, TL_JSON_BLOCK);
		for (size_t i = 0; i < r->np; i++) {
			tl_json_begin_object(&j, TL_JSON_INLINE);
			tl_json_kv_int(&j, "cores", r->p[i].cores);
			tl_json_kv_uint(&j, "time_ns", g->time_ns[i]);
			core_json(&j, g->core_ns[i]);
			tl_json_end_object(&j);
		}
		tl_json_end_array(&j);
		tl_json_end_object(&j);
	}
	tl_json_end_array(&j);
	tl_json_end_object(&j);
	return tl_json_finish(&j);
}
