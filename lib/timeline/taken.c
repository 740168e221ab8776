/*
 * taken.c - what the run queue took out of a thread's stay (taken.h).
 */
#include "timeline/taken.h"

#include <stdlib.h>

#include "base/grow.h"

#define MAX_CPU 4096 /* a CPU number past this is damage */

static struct tl_taken_cpu *cpu_of(struct tl_taken *tk, int cpu)
{
	size_t cap = tk->ncpu;

	if (cpu < 0 || cpu >= MAX_CPU)
		return NULL;
	if ((size_t)cpu >= tk->ncpu) {
		if (TL_GROW_ZERO(tk->cpu, cap, (size_t)cpu + 1) < 0) {
			tk->oom = 1;
			return NULL;
		}
		for (size_t i = tk->ncpu; i < cap; i++)
			tk->cpu[i].tid = -1;
		tk->ncpu = cap;
	}
	return &tk->cpu[cpu];
}

enum tl_taken_grew tl_taken_event_slow(struct tl_taken *tk, const struct tl_event *ev, uint64_t *ns)
{
	struct tl_taken_cpu *c;
	enum tl_taken_grew g = TL_TAKEN_GREW;
	uint64_t v;

	if (ev->type == TL_EV_LOST) {
		tk->lost++;
		return TL_TAKEN_NONE;
	}
	if (ev->type == TL_EV_CLOCK_TAKEN)
		tk->seen = 1;
	if (!(c = cpu_of(tk, ev->cpu)))
		return TL_TAKEN_NONE;
	if (ev->type == TL_EV_SWITCH) {
		/* the stay of the thread switched in starts from the CPU's value now */
		c->tid = (int32_t)ev->arg;
		c->base = c->value;
		c->lost = tk->lost;
		c->at = ev->ts - (tl_event_lag_ns(ev) < ev->ts ? tl_event_lag_ns(ev) : ev->ts);
		return TL_TAKEN_NONE;
	}
	if (ev->a < 0)
		return TL_TAKEN_NONE;
	v = (uint64_t)ev->a + 1;
	/*
	 * Below the CPU's last value: one of the two was read torn (the eBPF
	 * program reads rq->clock and clock_task without the run queue's lock,
	 * and another CPU's wakeup may update them in between: 7.6 us up, then
	 * back down, in a lossy recording).  The higher stands: no growth
	 * now, nor again up to it (else the spike is counted twice).
	 */
	if (c->value > v)
		v = c->value;
	if (c->tid < 0)
		g = TL_TAKEN_UNKNOWN; /* on the CPU since before its first SWITCH */
	else if (c->tid != ev->tid)
		g = TL_TAKEN_BROKEN; /* a switch to it that the trace does not hold */
	else if (!c->base)
		g = TL_TAKEN_UNKNOWN; /* switched in before the CPU's first value */
	else if (c->lost != tk->lost)
		g = TL_TAKEN_BROKEN;
	else if (v > c->base && v - c->base > (ev->ts > c->at ? ev->ts - c->at : 0) + TL_TAKEN_SLACK_NS)
		g = TL_TAKEN_BROKEN; /* more taken than the time since: a value missing between */
	else if (v > c->base)
		*ns = v - c->base;
	/* its stay goes on from here */
	c->value = c->base = v;
	c->tid = ev->tid;
	c->lost = tk->lost;
	c->at = ev->ts;
	return g;
}

void tl_taken_free(struct tl_taken *tk)
{
	free(tk->cpu);
	tk->cpu = NULL;
	tk->ncpu = 0;
}
