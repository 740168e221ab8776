/*
 * trace_json.c - the "trace" and "window" objects of every JSON document
 * (see trace_json.h).
 */
#include "output/trace_json.h"

void tl_json_trace(struct tl_json *j, const struct tl_run *run)
{
	const struct tl_trace_info *in = &run->info;

	tl_json_key(j, "trace");
	tl_json_begin_object(j, TL_JSON_BLOCK);
	tl_json_kv_string(j, "path", run->path ? run->path : "");
	tl_json_kv_string(j, "source", in->source);
	tl_json_kv_string(j, "backend", in->backend);
	tl_json_kv_string(j, "filter", in->filter);
	tl_json_kv_string(j, "kernel", in->kernel);
	tl_json_kv_string(j, "hostname", in->hostname);
	tl_json_kv_string(j, "cpu_model", in->cpu_model);
	tl_json_kv_int(j, "ncpus", run->ncpus > 0 ? run->ncpus : in->ncpus);
	tl_json_kv_string(j, "command", in->command);
	tl_json_kv_string(j, "target_mode", tl_run_target_mode_name(in->target_mode));
	tl_json_key(j, "targets");
	tl_json_begin_array(j, TL_JSON_INLINE);
	for (int i = 0; i < in->ntargets && i < TL_TRACE_MAX_TARGETS; i++)
		tl_json_int(j, in->targets[i]);
	tl_json_end_array(j);
	tl_json_kv_uint(j, "start_ns", run->trace_start);
	tl_json_kv_uint(j, "duration_ns", tl_run_rel(run, run->trace_end));
	tl_json_kv_uint(j, "events", run->read.events);
	tl_json_kv_bool(j, "complete", run->read.complete);
	tl_json_kv_uint(j, "damaged_blocks", run->read.blocks_skipped);
	tl_json_kv_uint(j, "skipped_bytes", run->read.bytes_skipped);
	tl_json_key(j, "warnings");
	tl_json_begin_array(j, TL_JSON_BLOCK);
	for (int i = 0; i < run->read.nwarnings && i < TL_TRACE_MAX_WARNINGS; i++)
		tl_json_string(j, run->read.warnings[i]);
	tl_json_end_array(j);
	tl_json_kv_uint(j, "lost_events", run->lost_total);
	tl_json_end_object(j);
}

void tl_json_window(struct tl_json *j, const struct tl_run *run)
{
	tl_json_key(j, "window");
	tl_json_begin_object(j, TL_JSON_INLINE);
	tl_json_kv_uint(j, "from_ns", tl_run_rel(run, run->win_start));
	tl_json_kv_uint(j, "to_ns", tl_run_rel(run, run->win_end));
	tl_json_end_object(j);
}
