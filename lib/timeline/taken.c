/*
 * taken.c - what the run queue took out of a thread's stay (taken.h).
 */
#include "timeline/taken.h"

#include <stdlib.h>

#include "base/grow.h"

#define MAX_CPU 4096 /* a CPU number past this is damage */

int tl_taken_event(struct tl_taken *tk, const struct tl_event *ev)
{
	size_t cap = tk->ncpu;

	if (ev->type == TL_EV_LOST) {
		tk->lost++;
		return 0;
	}
	if (ev->type != TL_EV_CLOCK_TAKEN)
		return 0;
	tk->seen = 1;
	if (ev->cpu < 0 || ev->cpu >= MAX_CPU || ev->a < 0)
		return 0;
	if ((size_t)ev->cpu >= tk->ncpu) {
		if (TL_GROW_ZERO(tk->cpu, cap, (size_t)ev->cpu + 1) < 0)
			return -1;
		tk->ncpu = cap;
	}
	tk->cpu[ev->cpu] = (uint64_t)ev->a + 1;
	return 0;
}

uint64_t tl_taken_value(const struct tl_taken *tk, int cpu)
{
	return cpu >= 0 && (size_t)cpu < tk->ncpu ? tk->cpu[cpu] : 0;
}

void tl_taken_base(const struct tl_taken *tk, struct tl_taken_stay *s, int cpu, uint64_t v)
{
	s->base = v;
	s->cpu = cpu;
	s->lost = tk->lost;
}

enum tl_taken_grew tl_taken_grow(const struct tl_taken *tk, struct tl_taken_stay *s, const struct tl_event *ev,
                                 uint64_t *ns)
{
	uint64_t v = tl_taken_value(tk, ev->cpu);
	enum tl_taken_grew g = TL_TAKEN_GREW;

	*ns = 0;
	if (ev->a < 0 || !v)
		return TL_TAKEN_NONE;
	if (!s->base)
		g = TL_TAKEN_UNKNOWN;
	else if (s->cpu != ev->cpu || s->lost != tk->lost)
		g = TL_TAKEN_BROKEN;
	else if (v > s->base)
		*ns = v - s->base;
	tl_taken_base(tk, s, ev->cpu, v);
	return g;
}

void tl_taken_free(struct tl_taken *tk)
{
	free(tk->cpu);
	tk->cpu = NULL;
	tk->ncpu = 0;
}
