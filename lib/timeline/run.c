/*
 * run.c - one analysis run over one trace (see run.h): opening and
 * reopening the trace, the walk's options, the summary kept after a walk,
 * and the thread filters every analysis shares.
 */
#include "timeline/run.h"

#include <stdlib.h>
#include <string.h>

#include "base/errors.h"

int tl_run_open(struct tl_run *run)
{
	if (run->trace)
		tl_trace_close(run->trace);
	run->trace = tl_trace_open(run->path);
	if (!run->trace)
		return -1;
	run->info = *tl_trace_info(run->trace);
	run->passes++;
	return 0;
}

void tl_run_attach(struct tl_run *run, struct tl_trace *t)
{
	if (run->trace)
		tl_trace_close(run->trace);
	run->trace = t;
	run->info = *tl_trace_info(t);
	run->passes++;
}

int tl_run_start(struct tl_run *run)
{
	return run->trace ? 0 : tl_run_open(run);
}

int tl_run_reopen(struct tl_run *run)
{
	if (!strcmp(run->path, "-"))
		return tl_error("%s: a trace on standard input can be read only once; give a file", "-");
	return tl_run_open(run);
}

void tl_run_walk_opts(const struct tl_run *run, struct tl_walk_opts *wo)
{
	wo->from_ns = run->from_ns;
	wo->to_ns = run->to_ns;
	wo->preempt_window_ns = run->preempt_window_ns;
	wo->progress = run->progress;
	wo->progress_ctx = run->progress_ctx;
}

int tl_run_keep(struct tl_run *run, const struct tl_walk_result *r)
{
	int ncpus = run->info.ncpus > 0 ? run->info.ncpus : 1;
	uint64_t *lost = calloc((size_t)ncpus, sizeof(*lost));

	if (!lost)
		return tl_error("out of memory");
	/* a window that starts after the trace ends would show nothing, silently */
	if (run->from_ns > 0 && r->trace_start + (uint64_t)run->from_ns > r->trace_end) {
		free(lost);
		return tl_error("the window starts at %.3f s, after the trace's end (%.3f s)",
		                (double)run->from_ns / 1e9, (double)(r->trace_end - r->trace_start) / 1e9);
	}
	if (r->lost_per_cpu)
		memcpy(lost, r->lost_per_cpu, (size_t)(r->ncpus < ncpus ? r->ncpus : ncpus) * sizeof(*lost));
	free(run->lost_per_cpu);
	run->lost_per_cpu = lost;
	run->ncpus = ncpus;
	run->trace_start = r->trace_start;
	run->trace_end = r->trace_end;
	run->win_start = r->win_start;
	run->win_end = r->win_end;
	run->lost_total = r->lost_total;
	run->read = r->read;
	/* the reader's own array dies with the reader: point at the copy */
	run->read.end.lost_per_cpu = r->read.end.lost_per_cpu ? lost : NULL;
	if (run->read.end.ncpus > ncpus)
		run->read.end.ncpus = ncpus;
	run->sched = r->sched;
	run->spans = r->spans;
	return 0;
}

static int in_list(const int *list, int n, int v)
{
	for (int i = 0; i < n; i++)
		if (list[i] == v)
			return 1;
	return 0;
}

int tl_run_keeps_thread(const struct tl_run *run, int is_target, int32_t tid, int32_t pid, const char *name,
                        const char *process)
{
	if (!is_target && !run->all_threads && !run->npids && !run->ntids)
		return 0;
	if (run->npids && !in_list(run->pids, run->npids, pid))
		return 0;
	if (run->ntids && !in_list(run->tids, run->ntids, tid))
		return 0;
	if (run->comm && *run->comm && !(name && strstr(name, run->comm)) && !(process && strstr(process, run->comm)))
		return 0;
	return 1;
}

uint64_t tl_run_rel(const struct tl_run *run, uint64_t t)
{
	return t > run->trace_start ? t - run->trace_start : 0;
}

const char *tl_run_target_mode_name(int mode)
{
	switch (mode) {
	case TL_TARGET_COMMAND: return "command";
	case TL_TARGET_PIDS: return "pids";
	case TL_TARGET_SYSTEM: return "system";
	default: return "unknown";
	}
}

void tl_run_close(struct tl_run *run)
{
	if (run->trace)
		tl_trace_close(run->trace);
	run->trace = NULL;
}

void tl_run_release(struct tl_run *run)
{
	tl_run_close(run);
	free(run->lost_per_cpu);
	run->lost_per_cpu = NULL;
	run->read.end.lost_per_cpu = NULL;
}
