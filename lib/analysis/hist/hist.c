/*
 * hist.c - the passes of `threadlens hist` over a trace (see hist.h).
 *
 * Every pass is a walk (walk.h) with one on_span callback that decides
 * whether a span counts and hands its duration to the pass: pass 1 to the
 * statistics and the percentile prepass, pass 2 to the histograms, the percentile search, the compare
 * grid and (for small counts) the list of values, later passes to the
 * percentile search alone.  A pass that does not see exactly as many values
 * as pass 1 stops the run with an error, so a trace rewritten between passes
 * cannot give numbers that do not belong together.
 *
 * Threads are identified for the filters (--comm, --pid, the recorded
 * program) by the state machine's live thread, or, once it has gone, by a
 * copy kept from the on_name and on_thread_end callbacks: one small record
 * per thread ever seen, nothing per span.
 */
#include "analysis/hist/hist.h"

#include <stdlib.h>
#include <string.h>

#include "base/errors.h"
#include "base/grow.h"
#include "timeline/spans.h"
#include "base/tidmap.h"
#include "timeline/walk.h"

const unsigned tl_hist_pct_per_mille[TL_HIST_NPCT] = { 500, 900, 990, 999 };

/* What the filters need to know about a thread, kept after it is gone. */
struct ident {
	int32_t tid; /* tidmap key */
	int32_t tgid;
	int32_t parent;
	char name[TL_NAME_MAX];
};

struct run {
	struct tl_run *run;
	const struct tl_hist_query *q;
	struct tl_hist_result *r;
	unsigned pass;
	int want_kind; /* TL_SPAN_FRAME/BURST/LATENCY, or -1: a named region, task or function */
	int need_ids;  /* a filter needs thread identities */
	uint64_t win_start;
	struct tl_walk *w;
	struct tl_tidmap ids;
	unsigned char *name_match; /* by string id: 0 not seen yet, 1 matches, 2 does not */
	size_t name_cap;
	struct tl_select_prepass pre; /* pass 1: where the percentiles lie, roughly */
	struct tl_select sel;
	int sel_done;
	uint64_t *grid_hits; /* ngrid + 1 counters: values above exactly i grid points */
	size_t nvalues;
	uint64_t seen; /* values of this pass */
	int oom;
};

static void keep_ident(void *ctx, struct tl_thread *th)
{
	struct run *u = ctx;
	struct ident *id;

	if (th->tid <= 0)
		return;
	id = tl_tidmap_put(&u->ids, th->tid, NULL);
	if (!id) {
		u->oom = 1;
		return;
	}
	id->tgid = th->tgid;
	id->parent = th->parent;
	memcpy(id->name, th->name, sizeof(id->name));
}

/* The thread's identity: live from the state machine, else the kept copy.  0 if unknown. */
static int ident_of(struct run *u, int32_t tid, struct ident *out)
{
	struct tl_thread *th = tid > 0 ? tl_sched_thread(tl_walk_sched(u->w), tid) : NULL;
	const struct ident *id;

	if (th) {
		out->tid = th->tid;
		out->tgid = th->tgid;
		out->parent = th->parent;
		memcpy(out->name, th->name, sizeof(out->name));
		return 1;
	}
	id = tid > 0 ? tl_tidmap_get(&u->ids, tid) : NULL;
	if (!id)
		return 0;
	*out = *id;
	return 1;
}

static int in_list(const int *v, int n, int x)
{
	for (int i = 0; i < n; i++)
		if (v[i] == x)
			return 1;
	return 0;
}

/* Does process pid belong to the recorded program (a target or a descendant of one)? */
static int process_is_target(struct run *u, int32_t pid)
{
	const struct tl_trace_info *info = &u->run->info;
	struct ident id;

	if (info->target_mode == TL_TARGET_SYSTEM || info->ntargets == 0)
		return 1;
	/* the depth bound guards against cycles from pid reuse */
	for (int depth = 0; pid > 0 && depth < 64; depth++) {
		if (in_list(info->targets, info->ntargets, pid))
			return 1;
		if (!ident_of(u, pid, &id) || !id.parent || !ident_of(u, id.parent, &id) || id.tgid == pid)
			return 0;
		pid = id.tgid;
	}
	return 0;
}

static int keep_thread(struct run *u, const struct tl_span *sp)
{
	struct ident id, leader;
	int known = 0, leader_known = 0, target = 1;

	if (u->need_ids) {
		known = ident_of(u, sp->tid, &id);
		leader_known = known && id.tgid > 0 && ident_of(u, id.tgid, &leader);
	}
	/* markers come from the program itself; the state machine's spans exist for every thread */
	if (sp->kind == TL_SPAN_BURST || sp->kind == TL_SPAN_LATENCY)
		target = known && process_is_target(u, id.tgid);
	return tl_run_keeps_thread(u->run, target, sp->tid, known ? id.tgid : -1, known ? id.name : NULL,
	                           leader_known ? leader.name : NULL);
}

static void remember_name(struct run *u, const char *name)
{
	struct tl_hist_result *r = u->r;

	if (r->nnames == TL_HIST_MAX_NAMES) {
		r->names_more++;
		return;
	}
	r->names[r->nnames] = strdup(name);
	if (r->names[r->nnames])
		r->nnames++;
	else
		u->oom = 1;
}

/* Is this the span asked for?  Named spans are compared once per string id. */
static int matches(struct run *u, const struct tl_span *sp, const char *name)
{
	if (sp->kind != TL_SPAN_REGION && sp->kind != TL_SPAN_TASK && sp->kind != TL_SPAN_FUNC) {
		if (u->pass == 1 && sp->kind != u->want_kind)
			u->r->other_kinds |= 1u << sp->kind;
		return sp->kind == u->want_kind;
	}
	if (TL_GROW_ZERO(u->name_match, u->name_cap, (size_t)sp->name + 1) < 0) {
		u->oom = 1;
		return 0;
	}
	if (!u->name_match[sp->name]) {
		/* "frame", "@burst" and "@latency" name those kinds, never a region of that name */
		int m = u->want_kind < 0 && !strcmp(name, u->q->span);
		u->name_match[sp->name] = m ? 1 : 2;
		if (!m && u->pass == 1)
			remember_name(u, name);
	}
	return u->name_match[sp->name] == 1;
}

static void add_to_pass(struct run *u, uint64_t v)
{
	struct tl_hist_result *r = u->r;

	u->seen++;
	if (u->pass == 1) {
		tl_hist_stats_add(&r->stats, v);
		tl_select_prepass_add(&u->pre, v);
		return;
	}
	if (!u->sel_done)
		tl_select_add(&u->sel, v);
	if (u->pass > 2)
		return;
	for (unsigned m = 0; m < r->nhists; m++)
		tl_hist_add(&r->hists[m], v);
	if (r->values && u->nvalues < r->stats.count)
		r->values[u->nvalues++] = v;
	if (u->grid_hits) {
		/* how many thresholds lie below v: v is above exactly those */
		size_t lo = 0, hi = r->ngrid;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (r->grid[mid] < v)
				lo = mid + 1;
			else
				hi = mid;
		}
		u->grid_hits[lo]++;
	}
}

static void on_span(void *ctx, const struct tl_span *sp, const char *name)
{
	struct run *u = ctx;

	if (!matches(u, sp, name))
		return;
	if (!sp->complete || sp->begin < u->win_start) {
		if (u->pass == 1)
			u->r->incomplete++;
		return;
	}
	if (!keep_thread(u, sp)) {
		if (u->pass == 1)
			u->r->filtered++;
		return;
	}
	if (u->pass == 1) {
		u->r->kinds |= 1u << sp->kind;
		if (!u->r->stats.count || sp->end - sp->begin > u->r->stats.max) {
			u->r->max_at = sp->begin; /* "max at", as perf sched latency gives it */
			u->r->max_tid = sp->tid;
		}
	}
	add_to_pass(u, sp->end - sp->begin);
}

/* One pass over the whole trace: the first from tl_run_start(), the others reopen the file. */
static int run_pass(struct run *u)
{
	struct tl_run *run = u->run;
	struct tl_walk_opts wo = {
		.want_bursts = u->want_kind == TL_SPAN_BURST,
		.want_latencies = u->want_kind == TL_SPAN_LATENCY,
		.ctx = u,
		.on_span = on_span,
		.on_name = u->need_ids ? keep_ident : NULL,
		.on_thread_end = u->need_ids ? keep_ident : NULL,
	};
	int rc;

	/* run->passes counts the opens: the progress callback can say which pass it is */
	if ((u->pass ? tl_run_reopen(run) : tl_run_start(run)) < 0)
		return -1;
	u->pass++;
	u->seen = 0;
	tl_run_walk_opts(run, &wo);
	u->w = tl_walk_new(&wo, &run->info);
	if (!u->w) {
		tl_run_close(run);
		return -1;
	}
	u->win_start = run->info.start_ns + (uint64_t)(run->from_ns > 0 ? run->from_ns : 0);
	rc = tl_walk_run(u->w, run->trace);
	if (!rc && u->pass == 1)
		rc = tl_run_keep(run, tl_walk_result(u->w));
	tl_walk_free(u->w);
	u->w = NULL;
	tl_run_close(run);
	if (rc)
		return -1; /* the reader's message names the file */
	if (u->oom)
		return tl_error("out of memory");
	if (u->pass > 1 && u->seen != u->r->stats.count)
		return tl_error("'%s' changed while it was read: %llu spans, then %llu", run->path,
		                (unsigned long long)u->r->stats.count, (unsigned long long)u->seen);
	u->r->passes = u->pass;
	return 0;
}

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
	return a < b ? -1 : a > b;
}

/* The binning of one mode for this run's values. */
static int make_binning(const struct tl_hist_query *q, const struct tl_hist_result *r, unsigned mode, uint32_t k,
                        struct tl_binning *b)
{
	const struct tl_hist_stats *s = &r->stats;
	uint64_t step = q->step ? q->step : tl_hist_linear_step(k, s->max);

	switch (mode) {
	case TL_HIST_LINEAR: return tl_binning_linear(b, k, step);
	case TL_HIST_CENTERED:
		return tl_binning_centered(b, k, q->has_ref ? q->ref : s->first,
		                           q->has_below ? q->below : (uint32_t)((uint64_t)k * 100 / 128),
		                           q->factor ? q->factor : 1, step);
	default:
		if (q->saved)
			return tl_binning_iterative(b, k, q->saved->c_min, q->saved->c_max);
		return tl_binning_iterative(b, k, s->min, s->max);
	}
}

/* compare: every mode's inner upper bounds inside [min - 1, max], plus min - 1 and max. */
static int make_grid(struct tl_hist_result *r)
{
	const struct tl_hist_stats *s = &r->stats;
	size_t cap = 2, n = 0;

	for (unsigned m = 0; m < r->nhists; m++)
		cap += r->hists[m].b.k;
	r->grid = malloc(cap * sizeof(*r->grid));
	r->grid_above = calloc(cap, sizeof(*r->grid_above));
	if (!r->grid || !r->grid_above)
		return tl_error("out of memory");
	if (s->min > 0)
		r->grid[n++] = s->min - 1;
	r->grid[n++] = s->max;
	for (unsigned m = 0; m < r->nhists; m++)
		for (uint32_t j = 0; j + 1 < r->hists[m].b.k; j++) {
			uint64_t t = tl_binning_upper(&r->hists[m].b, j);
			if (t + 1 >= s->min && t <= s->max)
				r->grid[n++] = t;
		}
	qsort(r->grid, n, sizeof(*r->grid), cmp_u64);
	r->ngrid = 0;
	for (size_t i = 0; i < n; i++)
		if (!r->ngrid || r->grid[r->ngrid - 1] != r->grid[i])
			r->grid[r->ngrid++] = r->grid[i];
	return 0;
}

/* After pass 1: the bins, the percentile search, the grid and the value list. */
static int prepare(struct run *u)
{
	const struct tl_hist_query *q = u->q;
	struct tl_hist_result *r = u->r;
	const struct tl_hist_stats *s = &r->stats;
	uint64_t ranks[TL_HIST_NPCT];
	uint32_t k = q->k ? q->k : q->saved ? q->saved->k : TL_HIST_K_DEFAULT;

	r->nhists = q->compare ? TL_HIST__MODES : 1;
	for (unsigned i = 0; i < r->nhists; i++) {
		struct tl_binning b;
		unsigned mode = q->compare ? i : q->mode;
		if (make_binning(q, r, mode, k, &b))
			return tl_error_prefix("%s bins", tl_hist_mode_name(mode));
		if (tl_hist_init(&r->hists[i], &b))
			return -1;
	}
	r->step_given = q->step != 0;
	r->ref_given = q->has_ref;
	r->below_given = q->has_below;
	r->iter_saved = q->saved != NULL;
	r->next_k = k;
	r->next_min = q->saved && q->saved->c_min < s->min ? q->saved->c_min : s->min;
	r->next_max = q->saved && q->saved->c_max > s->max ? q->saved->c_max : s->max;
	for (unsigned i = 0; i < TL_HIST_NPCT; i++)
		ranks[i] = tl_hist_rank(s->count, tl_hist_pct_per_mille[i]);
	if (tl_select_init_prepass(&u->sel, ranks, TL_HIST_NPCT, &u->pre))
		return -1;
	u->sel_done = u->sel.nranges == 0;
	if (s->count <= TL_HIST_SMALL && !(r->values = malloc(s->count * sizeof(*r->values))))
		return tl_error("out of memory");
	if (q->compare) {
		if (make_grid(r))
			return -1;
		u->grid_hits = calloc(r->ngrid + 1, sizeof(*u->grid_hits));
		if (!u->grid_hits)
			return tl_error("out of memory");
	}
	return 0;
}

static void finish_bins(struct run *u)
{
	struct tl_hist_result *r = u->r;

	for (unsigned m = 0; m < r->nhists; m++)
		tl_hist_finish(&r->hists[m]);
	if (r->values)
		qsort(r->values, u->nvalues, sizeof(*r->values), cmp_u64);
	if (u->grid_hits) {
		/* grid_hits[i]: values above exactly the first i thresholds; above(t_i) sums the rest */
		uint64_t sum = 0;
		for (size_t i = r->ngrid; i-- > 0;) {
			sum += u->grid_hits[i + 1];
			r->grid_above[i] = sum;
		}
	}
}

int tl_hist_analyze(struct tl_run *run, const struct tl_hist_query *q, struct tl_hist_result *r)
{
	struct run u = { .run = run, .q = q, .r = r, .want_kind = -1 };
	int rc = -1;

	memset(r, 0, sizeof(*r));
	r->run = run;
	tl_hist_stats_init(&r->stats);
	if (run->path && !strcmp(run->path, "-"))
		return tl_error("hist reads the trace more than once, so it needs a file, not standard input");
	if (!strcmp(q->span, "frame"))
		u.want_kind = TL_SPAN_FRAME;
	else if (!strcmp(q->span, "@burst"))
		u.want_kind = TL_SPAN_BURST;
	else if (!strcmp(q->span, "@latency"))
		u.want_kind = TL_SPAN_LATENCY;
	u.need_ids =
	        (run->comm && *run->comm) || run->npids ||
	        ((u.want_kind == TL_SPAN_BURST || u.want_kind == TL_SPAN_LATENCY) && !run->all_threads && !run->ntids);
	if (tl_select_prepass_init(&u.pre))
		return -1;
	if (tl_tidmap_init(&u.ids, sizeof(struct ident))) {
		tl_select_prepass_release(&u.pre);
		return -1;
	}
	if (run_pass(&u))
		goto out;
	if (r->stats.count == 0) {
		rc = 0;
		goto out;
	}
	if (prepare(&u) || run_pass(&u))
		goto out;
	finish_bins(&u);
	while (!u.sel_done) {
		int s = tl_select_end_pass(&u.sel);
		if (s < 0) {
			tl_error_prefix("'%s'", run->path);
			goto out;
		}
		if (s > 0)
			break;
		if (run_pass(&u))
			goto out;
	}
	for (unsigned i = 0; i < TL_HIST_NPCT; i++)
		r->pct[i] = u.sel.value[i];
	rc = 0;
out:
	tl_select_release(&u.sel);
	tl_select_prepass_release(&u.pre);
	tl_tidmap_release(&u.ids);
	free(u.name_match);
	free(u.grid_hits);
	return rc;
}

void tl_hist_result_release(struct tl_hist_result *r)
{
	for (unsigned m = 0; m < TL_HIST__MODES; m++)
		tl_hist_release(&r->hists[m]);
	for (unsigned i = 0; i < r->nnames; i++)
		free(r->names[i]);
	free(r->values);
	free(r->grid);
	free(r->grid_above);
	memset(r, 0, sizeof(*r));
}
