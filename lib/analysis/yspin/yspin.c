/*
 * yspin.c - runs of sched_yield calls (yspin.h).  Invariant: a run is
 * added once, when it ends; a perf trace's open run never spans a switch
 * of its thread (the report ends it there), like the recorder's.
 */
#include "analysis/yspin/yspin.h"

void tl_yspin_add(struct tl_yspin_sum *s, uint64_t first, uint64_t last, uint64_t calls, uint64_t from, uint64_t to)
{
	uint64_t span = last > first ? last - first : 0, a = first < from ? from : first, b = last > to ? to : last;

	if (calls < 2 || span > (calls - 1) * TL_YSPIN_LOOP_NS || first > to || last < from)
		return;
	if (a > first || b < last) /* partly outside the window: its share of the calls */
		calls = b > a ? (uint64_t)((double)calls * (double)(b - a) / (double)span + 0.5) : 0;
	s->calls += calls;
	s->ns += b > a ? b - a : 0;
	s->runs++;
}

void tl_yspin_event(struct tl_yspin_sum *s, const struct tl_event *ev, uint64_t from, uint64_t to)
{
	uint64_t last;

	if (ev->a < 2 || ev->b < 0 || ev->c < 0 || (uint64_t)ev->c > ev->ts ||
	    (uint64_t)ev->b > ev->ts - (uint64_t)ev->c)
		return; /* a damaged one */
	last = ev->ts - (uint64_t)ev->c;
	tl_yspin_add(s, last - (uint64_t)ev->b, last, (uint64_t)ev->a, from, to);
}

void tl_yspin_call(struct tl_yspin_run *r, uint64_t ts, struct tl_yspin_sum *s, uint64_t from, uint64_t to)
{
	if (r->calls && (ts < r->last || ts - r->last > TL_YIELD_SPIN_GAP_NS || ts - r->first >= TL_YIELD_SPIN_MAX_NS))
		tl_yspin_end(r, s, from, to);
	if (!r->calls)
		r->first = ts;
	r->last = ts;
	r->calls++;
}

void tl_yspin_end(struct tl_yspin_run *r, struct tl_yspin_sum *s, uint64_t from, uint64_t to)
{
	if (r->calls)
		tl_yspin_add(s, r->first, r->last, r->calls, from, to);
	r->calls = 0;
}
