/*
 * cpuuse.c - tl_cpuuse_analyze(): the CPU time each instance of a span really
 * used, as callbacks of one walk (walk.h), and the per-span statistics.
 *
 * An instance's time is split into its thread's states by clipping the
 * thread's state intervals to [begin, end].  Intervals, not snapshots of
 * the running totals: the state machine may rewrite the OPEN interval of a
 * thread afterwards (docs/STATES.md: a switch the kernel did not report is
 * inferred later, from a moment in the past), so totals read at a marker
 * can count time in a state the final timeline does not show.  Closed
 * intervals are final.  So:
 *  - on_event watches the begin and end markers and keeps, per thread, a
 *    mirror of the span builder's stack (spans.c: regions, tasks and probed
 *    functions share one stack; an END closes the innermost open span of
 *    its kind and name and everything above it; BEGINs past
 *    TL_SPAN_MAX_DEPTH are ignored).  Each selected entry adds up the
 *    overlap of every interval the thread closes after its begin.
 *  - The END that closes entries moves them to a small `closing` list; the
 *    span builder's on_span for that same END (tl_walk_run feeds the state
 *    machine, and with it on_event, before the span builder) finds its
 *    entry there and makes it `pending`.
 *  - A pending instance keeps adding the overlap of the thread's intervals
 *    with [begin, end] until an interval that reaches its end has closed;
 *    then it is measured.  At the end of the walk every interval is closed
 *    (tl_sched_finish); what no interval covered is `unknown` time.
 *
 * Invariants: the mirror stack of a thread always equals the span builder's
 * (same rules, same events), so an on_span of depth d matches the entry the
 * END moved to `closing` from depth d; the closing list only lives from one
 * event to the next; pending instances of a thread are in end order; every
 * measured instance splits exactly: cpu + irq + ready + asleep + unknown =
 * elapsed.  Memory: one entry per open span, pending instances up to
 * PENDING_MAX per thread (past that the oldest is measured with the state
 * the machine believes at that moment), one value per measured instance (up
 * to TL_CPUUSE_EXACT_MAX), the instances themselves only on request.
 */
#include "analysis/cpuuse/cpuuse.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/dist.h"
#include "base/errors.h"
#include "base/grow.h"
#include "timeline/spans.h"
#include "base/tidmap.h"
#include "timeline/walk.h"

/*
 * Instances of one thread waiting for the interval that covers their end.
 * Many only when a thread closes many spans without changing state; the
 * cap bounds memory for a thread that runs one burst for a long time.
 */
#define PENDING_MAX 4096

/* One open span of a thread, as the span builder has it. */
struct open_ent {
	uint64_t begin;
	uint32_t name;
	uint16_t kind;
	int16_t sel;                /* the spec it counts for, -1 none */
	uint8_t seen;               /* an interval of the thread overlapped it */
	uint64_t acc[TL_ST__COUNT]; /* time per state since the begin, from closed intervals */
};

/* An instance that ended, waiting for the rest of its intervals. */
struct pending {
	struct tl_span sp;
	int16_t sel;
	uint8_t seen;
	uint64_t acc[TL_ST__COUNT];
};

struct uthread {
	int32_t tid; /* the tidmap key */
	int depth;
	size_t cap;
	int nsel;         /* selected entries in the stack */
	uint64_t covered; /* intervals were seen up to here: a reused tid's new thread may restate the past */
	struct open_ent *stack;
	struct pending *pend; /* pend[head .. npend) */
	size_t head, npend, cappend;
};

/* A selected span just closed by an END, waiting for its on_span. */
struct closing {
	struct open_ent e;
	int32_t tid;
	uint16_t depth;
};

/* Running moments of one duration (Welford). */
struct run {
	uint64_t count, sum, min, max;
	double mean, m2;
};

/* Per span type while walking. */
struct acc {
	uint64_t *vals; /* net CPU times, while at most TL_CPUUSE_EXACT_MAX */
	size_t nvals, cap;
	int overflow; /* more than TL_CPUUSE_EXACT_MAX: quantiles from dist */
	struct tl_dist dist;
	struct run cpu, elapsed, irq, ready, asleep, unknown;
	struct tl_tidmap tids;
	size_t inst_cap;
};

/* What a name id selects, per kind (region, task, function); -2 not looked up yet. */
struct sel_entry {
	int16_t sel[3];
};

struct pass {
	const struct tl_cpuuse_opts *o;
	struct tl_cpuuse_result *r;
	struct tl_trace *t;
	struct tl_sched *sched;
	const struct tl_walk_result *wr;
	struct tl_tidmap threads; /* struct uthread */
	struct sel_entry *cache;  /* by string id */
	size_t ncache;
	struct closing closing[TL_SPAN_MAX_DEPTH];
	int nclosing;
	struct acc *acc;   /* one per spec */
	const char **want; /* spec names without the kind prefix */
	int *want_kind;    /* their kind, -1 any */
	int oom;
};

static const struct {
	const char *prefix;
	int kind;
} kind_prefixes[] = {
	{ "region:", TL_SPAN_REGION },
	{ "task:", TL_SPAN_TASK },
	{ "function:", TL_SPAN_FUNC },
};

/* Split "region:decode" into the kind and "decode"; no known prefix: any kind. */
static const char *spec_name(const char *s, int *kind)
{
	for (size_t i = 0; i < sizeof(kind_prefixes) / sizeof(kind_prefixes[0]); i++) {
		size_t n = strlen(kind_prefixes[i].prefix);
		if (!strncmp(s, kind_prefixes[i].prefix, n) && s[n]) {
			*kind = kind_prefixes[i].kind;
			return s + n;
		}
	}
	*kind = -1;
	return s;
}

static int marker_kind(unsigned type, int *is_end)
{
	*is_end = type == TL_EV_REGION_END || type == TL_EV_TASK_END || type == TL_EV_FUNC_EXIT;
	switch (type) {
	case TL_EV_REGION_BEGIN:
	case TL_EV_REGION_END: return TL_SPAN_REGION;
	case TL_EV_TASK_BEGIN:
	case TL_EV_TASK_END: return TL_SPAN_TASK;
	case TL_EV_FUNC_ENTRY:
	case TL_EV_FUNC_EXIT: return TL_SPAN_FUNC;
	default: return -1;
	}
}

/* The spec a span of this name id and kind counts for (the first that matches), or -1. */
static int select_spec(struct pass *p, uint32_t name, int kind)
{
	size_t k = (size_t)(kind - TL_SPAN_REGION);

	if (kind < TL_SPAN_REGION || kind > TL_SPAN_FUNC || !name)
		return -1;
	if (name >= p->ncache) {
		size_t n = p->ncache ? p->ncache : 64;
		struct sel_entry *c;
		while (n <= name)
			n *= 2;
		c = realloc(p->cache, n * sizeof(*c));
		if (!c) {
			p->oom = 1;
			return -1;
		}
		for (size_t i = p->ncache; i < n; i++)
			c[i] = (struct sel_entry){ { -2, -2, -2 } };
		p->cache = c;
		p->ncache = n;
	}
	if (p->cache[name].sel[k] == -2) {
		const char *s = tl_trace_string(p->t, name);
		int16_t sel = -1;
		for (size_t i = 0; i < p->o->nspecs; i++)
			if ((p->want_kind[i] < 0 || p->want_kind[i] == kind) && !strcmp(s, p->want[i])) {
				sel = (int16_t)i;
				break;
			}
		p->cache[name].sel[k] = sel;
	}
	return p->cache[name].sel[k];
}

static void span_begin(struct pass *p, const struct tl_event *ev, int kind)
{
	struct uthread *u = tl_tidmap_put(&p->threads, ev->tid, NULL);
	struct open_ent *e;

	if (!u) {
		p->oom = ev->tid > 0;
		return;
	}
	if (u->depth >= TL_SPAN_MAX_DEPTH)
		return; /* the span builder ignores it too (too_deep) */
	if (TL_GROW(u->stack, u->cap, (size_t)u->depth + 1) < 0) {
		p->oom = 1;
		return;
	}
	e = &u->stack[u->depth++];
	memset(e, 0, sizeof(*e));
	e->begin = ev->ts;
	e->name = ev->name;
	e->kind = (uint16_t)kind;
	e->sel = (int16_t)select_spec(p, ev->name, kind);
	u->nsel += e->sel >= 0;
}

static void span_end(struct pass *p, const struct tl_event *ev, int kind)
{
	struct uthread *u = tl_tidmap_get(&p->threads, ev->tid);
	int i;

	if (!u)
		return;
	for (i = u->depth - 1; i >= 0; i--)
		if (u->stack[i].kind == kind && u->stack[i].name == ev->name)
			break;
	if (i < 0)
		return; /* unmatched: the span builder ignores it too */
	while (u->depth > i) {
		struct open_ent *e = &u->stack[--u->depth];
		struct closing *c;
		if (e->sel < 0)
			continue;
		u->nsel--;
		if (p->nclosing >= TL_SPAN_MAX_DEPTH)
			continue;
		c = &p->closing[p->nclosing++];
		c->e = *e;
		c->tid = ev->tid;
		c->depth = (uint16_t)u->depth;
	}
}

static void on_event(void *ctx, struct tl_thread *th, const struct tl_event *ev)
{
	struct pass *p = ctx;
	int is_end, kind;

	(void)th;        /* NULL for markers */
	p->nclosing = 0; /* the previous event's spans have all been delivered */
	kind = marker_kind(ev->type, &is_end);
	if (kind < 0 || (ev->flags & TL_EVF_INLINED)) /* an inlined copy's entry: no span (spans.c) */
		return;
	if (is_end)
		span_end(p, ev, kind);
	else
		span_begin(p, ev, kind);
}

static void run_add(struct run *m, uint64_t v)
{
	double d = (double)v - m->mean;

	if (!m->count || v < m->min)
		m->min = v;
	if (v > m->max)
		m->max = v;
	m->count++;
	m->sum += v;
	m->mean += d / (double)m->count;
	m->m2 += d * ((double)v - m->mean);
}

static void run_finish(const struct run *m, struct tl_cpuuse_moments *out)
{
	out->count = m->count;
	out->sum = m->sum;
	out->min = m->count ? m->min : 0;
	out->max = m->max;
	out->mean = m->mean;
	out->sd = m->count > 1 ? sqrt(m->m2 / (double)(m->count - 1)) : 0;
}

/* Measure one finished instance from its time per state (pd->acc, covering [begin, end] or less). */
static void measure(struct pass *p, const struct pending *pd)
{
	const struct tl_span *sp = &pd->sp;
	struct tl_cpuuse_span *out = &p->r->spans[pd->sel];
	struct acc *a = &p->acc[pd->sel];
	struct tl_cpuuse_instance in = { 0 };
	uint64_t accounted = 0;

	if (!pd->seen && sp->end > sp->begin) {
		out->unmeasured++; /* no interval of its thread: the trace says nothing about it */
		return;
	}
	in.id = sp->id;
	in.begin = sp->begin;
	in.end = sp->end;
	in.frame = sp->frame;
	in.tid = sp->tid;
	in.kind = sp->kind;
	in.depth = sp->depth;
	in.elapsed_ns = sp->end - sp->begin;
	for (unsigned s = 0; s < TL_ST__COUNT; s++) {
		uint64_t d = pd->acc[s];
		out->state_ns[s] += d;
		accounted += d;
		if (s == TL_ST_EXECUTING)
			in.cpu_ns = d;
		else if (s == TL_ST_INTERRUPTED)
			in.irq_ns = d;
		else if (tl_state_is_ready(s))
			in.ready_ns += d;
		else if (tl_state_is_asleep(s))
			in.asleep_ns += d;
		else
			in.unknown_ns += d;
	}
	/* intervals are gapless, so this is time no interval covered: the thread was unknown then */
	if (accounted < in.elapsed_ns)
		in.unknown_ns += in.elapsed_ns - accounted;

	out->kinds_seen |= 1u << sp->kind;
	if (tl_tidmap_put(&a->tids, sp->tid, NULL) == NULL)
		p->oom = 1;
	run_add(&a->cpu, in.cpu_ns);
	run_add(&a->elapsed, in.elapsed_ns);
	run_add(&a->irq, in.irq_ns);
	run_add(&a->ready, in.ready_ns);
	run_add(&a->asleep, in.asleep_ns);
	run_add(&a->unknown, in.unknown_ns);
	if (tl_dist_add(&a->dist, in.cpu_ns) < 0)
		p->oom = 1;
	if (!a->overflow) {
		if (a->nvals == TL_CPUUSE_EXACT_MAX) {
			a->overflow = 1;
			free(a->vals);
			a->vals = NULL;
			a->nvals = a->cap = 0;
		} else {
			if (TL_GROW(a->vals, a->cap, a->nvals + 1) < 0) {
				p->oom = 1;
				return;
			}
			a->vals[a->nvals++] = in.cpu_ns;
		}
	}
	if (p->o->keep_instances) {
		if (TL_GROW(out->inst, a->inst_cap, out->ninst + 1) < 0) {
			p->oom = 1;
			return;
		}
		out->inst[out->ninst++] = in;
	}
}

static uint64_t overlap(uint64_t a0, uint64_t a1, uint64_t b0, uint64_t b1)
{
	uint64_t lo = a0 > b0 ? a0 : b0, hi = a1 < b1 ? a1 : b1;
	return hi > lo ? hi - lo : 0;
}

/* Measure and drop the oldest pending instance of u. */
static void pop_pending(struct pass *p, struct uthread *u)
{
	measure(p, &u->pend[u->head++]);
	if (u->head == u->npend)
		u->head = u->npend = 0;
}

/*
 * Past PENDING_MAX, measure the oldest pending instance now: the rest of
 * its time is in the state the machine has the thread in since
 * state_since, as far as it knows yet.
 */
static void force_oldest(struct pass *p, struct uthread *u)
{
	struct pending *pd = &u->pend[u->head];
	struct tl_thread *th = u->tid > 0 ? tl_sched_thread(p->sched, u->tid) : NULL;

	if (th && th->state < TL_ST__COUNT) {
		uint64_t d = overlap(th->state_since, pd->sp.end, pd->sp.begin, pd->sp.end);
		pd->acc[th->state] += d;
		pd->seen |= d > 0;
	}
	pop_pending(p, u);
}

static void add_pending(struct pass *p, struct uthread *u, const struct tl_span *sp, const struct closing *c)
{
	struct pending *pd;

	if (u->npend - u->head >= PENDING_MAX)
		force_oldest(p, u);
	if (u->head && u->npend == u->cappend) { /* slide down before growing */
		memmove(u->pend, u->pend + u->head, (u->npend - u->head) * sizeof(*u->pend));
		u->npend -= u->head;
		u->head = 0;
	}
	if (TL_GROW(u->pend, u->cappend, u->npend + 1) < 0) {
		p->oom = 1;
		return;
	}
	pd = &u->pend[u->npend++];
	pd->sp = *sp;
	pd->sel = c->e.sel;
	pd->seen = c->e.seen;
	memcpy(pd->acc, c->e.acc, sizeof(pd->acc));
}

/*
 * A closed interval of a thread: it counts for the thread's open selected
 * spans and its pending instances; those it reaches the end of are done.
 */
static void on_interval(void *ctx, struct tl_thread *th, const struct tl_interval *iv)
{
	struct pass *p = ctx;
	struct uthread *u = tl_tidmap_get(&p->threads, th->tid);
	uint64_t start;

	if (!u || iv->state >= TL_ST__COUNT)
		return;
	/*
	 * A thread whose tid showed up again after its end starts UNKNOWN from
	 * the trace start: only time after what the tid's earlier intervals
	 * covered is new.
	 */
	start = iv->start > u->covered ? iv->start : u->covered;
	if (iv->end > u->covered)
		u->covered = iv->end;
	for (int i = 0; u->nsel && i < u->depth; i++) {
		struct open_ent *e = &u->stack[i];
		uint64_t d;
		if (e->sel < 0)
			continue;
		d = overlap(start, iv->end, e->begin, UINT64_MAX);
		e->acc[iv->state] += d;
		e->seen |= d > 0;
	}
	for (size_t i = u->head; i < u->npend; i++) {
		struct pending *pd = &u->pend[i];
		uint64_t d = overlap(start, iv->end, pd->sp.begin, pd->sp.end);
		pd->acc[iv->state] += d;
		pd->seen |= d > 0 || (start <= pd->sp.begin && iv->end >= pd->sp.end);
	}
	/* in end order: the ones this interval reaches past are complete; the thread's end completes all */
	while (u->head < u->npend && (iv->end >= u->pend[u->head].sp.end || iv->next >= TL_ST__COUNT))
		pop_pending(p, u);
}

/* Remember the name of a span nobody asked for, so that a typo can be answered with the real names. */
static void note_seen(struct tl_cpuuse_result *r, const char *name)
{
	if (!name || !*name || r->nseen >= TL_CPUUSE_MAX_SEEN)
		return;
	for (size_t i = 0; i < r->nseen; i++)
		if (!strcmp(r->seen[i], name))
			return;
	if ((r->seen[r->nseen] = strdup(name)))
		r->nseen++;
}

static void on_span(void *ctx, const struct tl_span *sp, const char *name)
{
	struct pass *p = ctx;
	struct closing *c = NULL;
	struct uthread *u;
	int sel;

	if (sp->kind < TL_SPAN_REGION || sp->kind > TL_SPAN_FUNC)
		return;
	sel = select_spec(p, sp->name, sp->kind);
	if (sel < 0) {
		note_seen(p->r, name);
		return;
	}
	for (int i = 0; i < p->nclosing; i++)
		if (p->closing[i].tid == sp->tid && p->closing[i].depth == sp->depth &&
		    p->closing[i].e.begin == sp->begin) {
			c = &p->closing[i];
			break;
		}
	if (!sp->complete)
		p->r->spans[sel].incomplete++;
	else if (sp->begin < p->wr->win_start)
		p->r->spans[sel].outside++;
	else if (!c || !(u = tl_tidmap_get(&p->threads, sp->tid)))
		p->r->spans[sel].unmeasured++; /* cannot happen while the mirror holds */
	else
		add_pending(p, u, sp, c);
}

/* After the walk: every interval has closed; what is still pending had no interval reaching its end. */
static void flush_pending(struct pass *p)
{
	size_t pos = 0;
	struct uthread *u;

	while ((u = tl_tidmap_next(&p->threads, &pos)))
		while (u->head < u->npend)
			pop_pending(p, u);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static void finish_span(struct pass *p, size_t i)
{
	struct tl_cpuuse_span *s = &p->r->spans[i];
	struct acc *a = &p->acc[i];
	double worst = p->r->worst_pct;

	run_finish(&a->cpu, &s->cpu);
	run_finish(&a->elapsed, &s->elapsed);
	run_finish(&a->irq, &s->irq);
	run_finish(&a->ready, &s->ready);
	run_finish(&a->asleep, &s->asleep);
	run_finish(&a->unknown, &s->unknown);
	s->threads = a->tids.count;
	s->quantiles_exact = !a->overflow;
	if (!a->overflow) {
		if (a->nvals > 1)
			qsort(a->vals, a->nvals, sizeof(*a->vals), cmp_u64);
		s->p50_ns = tl_cpuuse_percentile(a->vals, a->nvals, 50);
		s->p99_ns = tl_cpuuse_percentile(a->vals, a->nvals, 99);
		s->worst_ns = tl_cpuuse_percentile(a->vals, a->nvals, worst);
		tl_cpuuse_central95(a->vals, a->nvals, &s->range_low_ns, &s->range_high_ns);
	} else {
		s->p50_ns = tl_dist_percentile(&a->dist, 50);
		s->p99_ns = tl_dist_percentile(&a->dist, 99);
		s->worst_ns = worst >= 100 ? a->dist.max : tl_dist_percentile(&a->dist, worst);
		s->range_low_ns = tl_dist_percentile(&a->dist, 2.5);
		s->range_high_ns = tl_dist_percentile(&a->dist, 97.5);
	}
	s->has_ci = tl_cpuuse_ci95(&s->cpu, &s->ci_low_ns, &s->ci_high_ns, &s->t_quantile) == 0;
}

int tl_cpuuse_admission_compute(struct tl_cpuuse_result *r)
{
	struct tl_cpuuse_admission *ad = &r->admission;
	double *rate, *pm, *pw;
	size_t n = 0;

	for (size_t i = 0; i < r->nspans; i++)
		n += r->spans[i].period_ns && r->spans[i].cpu.count;
	if (!n)
		return 0;
	ad->span = calloc(n, sizeof(*ad->span));
	ad->mean_rows = calloc(n, sizeof(*ad->mean_rows));
	ad->worst_rows = calloc(n, sizeof(*ad->worst_rows));
	rate = calloc(n, sizeof(*rate));
	pm = calloc(n, sizeof(*pm));
	pw = calloc(n, sizeof(*pw));
	if (ad->span && ad->mean_rows && ad->worst_rows && rate && pm && pw) {
		for (size_t i = 0; i < r->nspans; i++) {
			const struct tl_cpuuse_span *s = &r->spans[i];
			if (!s->period_ns || !s->cpu.count)
				continue;
			ad->span[ad->n] = i;
			rate[ad->n] = s->rate_hz > 0 ? s->rate_hz : 1e9 / (double)s->period_ns;
			pm[ad->n] = s->cpu.mean;
			pw[ad->n] = (double)s->worst_ns;
			ad->n++;
		}
		tl_cpuuse_admit(rate, pm, n, ad->mean_rows, &ad->mean);
		tl_cpuuse_admit(rate, pw, n, ad->worst_rows, &ad->worst);
	}
	free(rate);
	free(pm);
	free(pw);
	if (ad->n != n) {
		ad->n = 0;
		return tl_error("out of memory");
	}
	return 0;
}

static int check_opts(const struct tl_cpuuse_opts *o)
{
	if (!o->nspecs || !o->specs)
		return tl_error("no span to measure");
	if (o->nspecs > TL_CPUUSE_MAX_SPANS)
		return tl_error("too many spans to measure: %zu (at most %d)", o->nspecs, TL_CPUUSE_MAX_SPANS);
	if (o->worst_pct < 0 || o->worst_pct > 100 || isnan(o->worst_pct))
		return tl_error("bad worst-case percentile %g (want 0 < p <= 100)", o->worst_pct);
	for (size_t i = 0; i < o->nspecs; i++) {
		if (!o->specs[i].name || !*o->specs[i].name)
			return tl_error("empty span name");
		if (!(o->specs[i].rate_hz >= 0) || isinf(o->specs[i].rate_hz))
			return tl_error("bad rate for span '%s'", o->specs[i].name);
	}
	return 0;
}

static int setup(struct pass *p, struct tl_cpuuse_result *r)
{
	const struct tl_cpuuse_opts *o = p->o;

	r->worst_pct = o->worst_pct > 0 ? o->worst_pct : 99;
	r->instances_kept = o->keep_instances != 0;
	r->spans = calloc(o->nspecs, sizeof(*r->spans));
	p->acc = calloc(o->nspecs, sizeof(*p->acc));
	p->want = calloc(o->nspecs, sizeof(*p->want));
	p->want_kind = calloc(o->nspecs, sizeof(*p->want_kind));
	if (!r->spans || !p->acc || !p->want || !p->want_kind || tl_tidmap_init(&p->threads, sizeof(struct uthread)))
		return tl_error("out of memory");
	r->nspans = o->nspecs;
	for (size_t i = 0; i < o->nspecs; i++) {
		const struct tl_cpuuse_spec *sp = &o->specs[i];
		struct tl_cpuuse_span *s = &r->spans[i];
		p->want[i] = spec_name(sp->name, &p->want_kind[i]);
		s->kind = p->want_kind[i];
		s->name = strdup(p->want[i]);
		s->rate_hz = sp->rate_hz;
		if (sp->rate_hz > 0)
			s->period_ns = (uint64_t)llround(1e9 / sp->rate_hz);
		else
			s->period_ns = sp->period_ns;
		tl_dist_init(&p->acc[i].dist);
		if (!s->name || tl_tidmap_init(&p->acc[i].tids, sizeof(int32_t)))
			return tl_error("out of memory");
	}
	return 0;
}

static void pass_release(struct pass *p)
{
	size_t pos = 0;
	struct uthread *u;

	if (p->threads.slots)
		while ((u = tl_tidmap_next(&p->threads, &pos))) {
			free(u->stack);
			free(u->pend);
		}
	tl_tidmap_release(&p->threads);
	for (size_t i = 0; p->acc && i < p->o->nspecs; i++) {
		free(p->acc[i].vals);
		tl_dist_release(&p->acc[i].dist);
		tl_tidmap_release(&p->acc[i].tids);
	}
	free(p->acc);
	free(p->want);
	free(p->want_kind);
	free(p->cache);
}

int tl_cpuuse_analyze(struct tl_run *run, const struct tl_cpuuse_opts *opts, struct tl_cpuuse_result *r)
{
	struct tl_walk_opts wo = { 0 };
	struct tl_walk *w = NULL;
	struct pass p = { 0 };
	int rc = -1;

	memset(r, 0, sizeof(*r));
	if (check_opts(opts) || tl_run_start(run) < 0)
		return -1;
	r->run = run;
	p.o = opts;
	p.r = r;
	p.t = run->trace;
	if (setup(&p, r))
		goto out;
	tl_run_walk_opts(run, &wo);
	wo.ctx = &p;
	wo.on_event = on_event;
	wo.on_interval = on_interval;
	wo.on_span = on_span;
	w = tl_walk_new(&wo, &run->info);
	if (!w)
		goto out;
	p.sched = tl_walk_sched(w);
	p.wr = tl_walk_result(w);
	if (tl_walk_run(w, run->trace) < 0)
		goto out;
	flush_pending(&p);
	if (p.oom) {
		tl_error("out of memory while measuring spans");
		goto out;
	}
	if (tl_run_keep(run, p.wr) < 0)
		goto out;
	for (size_t i = 0; i < r->nspans; i++)
		finish_span(&p, i);
	rc = tl_cpuuse_admission_compute(r);
out:
	tl_walk_free(w);
	pass_release(&p);
	return rc;
}

void tl_cpuuse_result_release(struct tl_cpuuse_result *r)
{
	for (size_t i = 0; r->spans && i < r->nspans; i++) {
		free(r->spans[i].name);
		free(r->spans[i].inst);
	}
	free(r->spans);
	free(r->admission.span);
	free(r->admission.mean_rows);
	free(r->admission.worst_rows);
	for (size_t i = 0; i < r->nseen; i++)
		free(r->seen[i]);
	memset(r, 0, sizeof(*r));
}
