/*
 * regions_write.c - the parallel regions as JSON (`regions` of the report's
 * document, docs/JSON.md).  It prints, never computes.
 */
#include "analysis/regions/regions.h"

/* Only the states with time: a region's split is mostly zeros. */
static void states(struct tl_json *j, const char *key, const uint64_t st[TL_ST__COUNT])
{
	tl_json_key(j, key);
	tl_json_begin_object(j, TL_JSON_INLINE);
	for (unsigned s = 0; s < TL_ST__COUNT; s++)
		if (st[s])
			tl_json_kv_uint(j, tl_state_name(s), st[s]);
	tl_json_end_object(j);
}

void tl_regions_write_json(struct tl_json *j, const struct tl_regions_result *res, uint64_t trace_start)
{
	tl_json_begin_array(j, TL_JSON_BLOCK);
	for (size_t i = 0; i < res->n; i++) {
		const struct tl_region_stats *g = &res->regions[i];

		tl_json_begin_object(j, TL_JSON_BLOCK);
		tl_json_kv_int(j, "pid", g->pid);
		tl_json_kv_string(j, "name", g->name);
		tl_json_kv_uint(j, "instances", g->instances);
		tl_json_kv_uint(j, "barriers", g->barriers);
		tl_json_key(j, "rounds");
		tl_json_begin_object(j, TL_JSON_INLINE);
		tl_json_kv_uint(j, "parallel", g->rounds_parallel);
		tl_json_kv_uint(j, "serial", g->rounds_serial);
		tl_json_kv_uint(j, "dynamic", g->rounds_dynamic);
		tl_json_kv_uint(j, "compared", g->rounds_compared);
		tl_json_end_object(j);
		tl_json_kv_uint(j, "wall_ns", g->wall_ns);
		tl_json_kv_uint(j, "lost_ns", g->lost_ns);
		tl_json_kv_uint(j, "work_lost_ns", g->work_lost_ns);
		tl_json_kv_uint(j, "work_max_ns", g->work_max_ns);
		tl_json_kv_uint(j, "idle_ns", g->idle_ns);
		tl_json_key(j, "worst_round");
		tl_json_begin_object(j, TL_JSON_INLINE);
		tl_json_kv_uint(j, "from_ns", g->worst[0] > trace_start ? g->worst[0] - trace_start : 0);
		tl_json_kv_uint(j, "to_ns", g->worst[1] > trace_start ? g->worst[1] - trace_start : 0);
		tl_json_kv_uint(j, "lost_ns", g->worst_lost_ns);
		tl_json_end_object(j);
		states(j, "before_ns", g->before);
		states(j, "inside_ns", g->inside);
		states(j, "after_ns", g->after);
		tl_json_kv_uint(j, "threads_over", g->threads_over);
		tl_json_key(j, "threads");
		tl_json_begin_array(j, TL_JSON_BLOCK);
		for (size_t t = 0; t < g->nthreads; t++) {
			const struct tl_region_thread *th = &g->threads[t];

			tl_json_begin_object(j, TL_JSON_INLINE);
			tl_json_kv_int(j, "tid", th->tid);
			tl_json_kv_string(j, "name", th->name);
			tl_json_kv_uint(j, "instances", th->instances);
			tl_json_kv_uint(j, "last", th->last);
			tl_json_kv_uint(j, "late_ns", th->late_ns);
			tl_json_kv_uint(j, "nested", th->nested);
			states(j, "before_ns", th->before);
			states(j, "inside_ns", th->inside);
			states(j, "after_ns", th->after);
			tl_json_end_object(j);
		}
		tl_json_end_array(j);
		tl_json_end_object(j);
	}
	tl_json_end_array(j);
}
