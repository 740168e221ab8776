/*
 * unmark.c - tl_predict_unmark(): the marker calls' own cost out of the
 * task tree (predict_int.h; the estimate is described at struct
 * tl_predict_markers in predict.h).
 *
 * Invariant: the walk visits every node's begin, its children, then its
 * end, so the times come in order (predict_int.h); the new times keep that
 * order, as each gap only shrinks, to no less than 0.
 */
#include "analysis/predict/predict_int.h"

#define TRUST_MAX_NS 500 /* a recorded marker costs 30-45 ns here (bench/RESULTS.md section 4) */
#define TRUST_MIN_GAPS 100

struct gaps {
	uint64_t prev, prev_new; /* the last time met, and what it became */
	int started;
	uint64_t n, min, near, cut, removed;
	int apply;
};

static void visit(struct gaps *g, uint64_t *t)
{
	uint64_t gap;

	if (!g->started) {
		g->started = 1;
		g->prev = g->prev_new = *t;
		return;
	}
	gap = *t > g->prev ? *t - g->prev : 0;
	g->prev = *t;
	if (gap) {
		g->n++;
		if (!g->min || gap < g->min)
			g->min = gap;
		g->near += g->cut && 2 * gap <= 3 * g->cut;
	}
	if (g->apply) {
		uint64_t cut = gap < g->cut ? gap : g->cut;
		g->removed += cut;
		g->prev_new += gap - cut;
		*t = g->prev_new;
	}
}

static void walk(struct node *nodes, uint32_t k, struct gaps *g)
{
	visit(g, &nodes[k].begin);
	for (uint32_t c = nodes[k].child; c; c = nodes[c].next)
		walk(nodes, c, g);
	visit(g, &nodes[k].end);
}

void tl_predict_unmark(struct node *nodes, size_t ntasks, const struct tl_predict_opts *o, struct tl_predict_result *r)
{
	struct tl_predict_markers *m = &r->markers;
	struct gaps g = { 0 };

	m->calls = 2 * (uint64_t)ntasks;
	m->recorded_ns = nodes[0].end - nodes[0].begin;
	if (!o->marker_ns)
		return;
	if (o->marker_ns < 0) {
		walk(nodes, 0, &g); /* the least gap */
		g = (struct gaps){ .cut = g.min };
		walk(nodes, 0, &g); /* how many are near it */
		m->estimated = 1;
		if (!g.min || g.min > TRUST_MAX_NS || g.n < TRUST_MIN_GAPS || 20 * g.near < g.n) {
			m->untrusted = 1;
			return;
		}
	} else {
		g.min = (uint64_t)o->marker_ns;
	}
	g = (struct gaps){ .cut = g.min, .apply = 1 };
	walk(nodes, 0, &g);
	m->ns_each = g.cut;
	m->removed_ns = g.removed;
}
