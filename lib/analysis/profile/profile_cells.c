/*
 * profile_cells.c - the counts of a profile beyond its counted event's
 * (profile.h): each event's samples and periods, in all and per function;
 * the ratios known; and with opts.cells the page's bins, stacks, cells
 * and each event's periods by bin and CPU.  Called by profile.c's finish()
 * once every sample is resolved (profile_int.h).
 */
#include "analysis/profile/profile.h"
#include "analysis/profile/profile_int.h"

#include <stdlib.h>
#include <string.h>

#include "base/errors.h"
#include "base/strtab.h"

static int cmp_cell(const void *a, const void *b)
{
	const struct tl_profile_cell *x = a, *y = b;

	if (x->bin != y->bin)
		return x->bin < y->bin ? -1 : 1;
	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x->stack < y->stack ? -1 : x->stack > y->stack;
}

/* The bins, stacks (function ids made indices by rank) and cells of profile.h. */
int tl_profile_cells(struct pass *p, struct tl_profile_result *r, const uint32_t *rank)
{
	static const uint64_t steps[] = { 1, 2, 5 };
	uint64_t span = r->run->win_end > r->run->win_start ? r->run->win_end - r->run->win_start : 0;
	size_t n = 0;

	for (unsigned i = 0;; i++) { /* 10 ms, 20, 50, 100... */
		uint64_t scale = 10000000ull;
		for (unsigned k = 0; k < i / 3; k++)
			scale *= 10;
		r->bin_ns = scale * steps[i % 3];
		if (span / r->bin_ns < TL_PROFILE_BINS)
			break;
	}
	r->nbins = (size_t)(span / r->bin_ns) + 1;
	r->nstacks = tl_strtab_next_id(&p->pstacks) - 1;
	r->stacks = calloc(r->nstacks ? r->nstacks : 1, sizeof(*r->stacks));
	r->cells = calloc(p->ns ? p->ns : 1, sizeof(*r->cells));
	if (p->o->each)
		r->each = calloc(p->ns ? p->ns : 1, sizeof(*r->each));
	if (!r->stacks || !r->cells || (p->o->each && !r->each))
		return tl_error("out of memory");
	for (size_t i = 0; i < r->nstacks; i++) {
		const char *k = tl_strtab_get(&p->pstacks, (uint32_t)i + 1);
		uint32_t nf = 0;
		for (const char *c = k; *c; c++)
			nf += *c == ',';
		if (!(r->stacks[i].frames = calloc(nf ? nf : 1, sizeof(uint32_t))))
			return tl_error("out of memory");
		for (char *end; *k && r->stacks[i].n < nf; k = end + 1)
			r->stacks[i].frames[r->stacks[i].n++] = rank[strtoul(k, &end, 10)];
	}
	for (size_t i = 0; i < p->ns; i++) {
		const struct smp *sm = &p->s[i];
		if (!sm->pstack || sm->ts < r->run->win_start)
			continue;
		if (r->each)
			r->each[r->neach++] =
			        (struct tl_profile_each){ sm->ts, sm->tid, sm->pid, sm->cpu, sm->pstack - 1 };
		r->cells[n++] = (struct tl_profile_cell){ .stack = sm->pstack - 1,
			                                  .bin = (uint32_t)((sm->ts - r->run->win_start) / r->bin_ns),
			                                  .tid = sm->tid,
			                                  .cpu = sm->cpu,
			                                  .count = 1 };
	}
	if (n)
		qsort(r->cells, n, sizeof(*r->cells), cmp_cell);
	r->ncells = 0;
	for (size_t i = 0; i < n; i++) { /* merge equal neighbours */
		struct tl_profile_cell *last = r->ncells ? &r->cells[r->ncells - 1] : NULL;
		if (last && !cmp_cell(last, &r->cells[i]))
			last->count++;
		else
			r->cells[r->ncells++] = r->cells[i];
	}
	return 0;
}

static const struct tl_profile_ratio ratios[] = {
	{ "IPC", "instructions", "cycles", 1 },
	{ "cache misses per 1000 instructions", "cache-misses", "instructions", 1000 },
	{ "branch misses per 1000 instructions", "branch-misses", "instructions", 1000 },
	{ "cache miss rate (%)", "cache-misses", "cache-references", 100 },
	{ "page faults per ms of CPU", "page-faults", "cpu-clock", 1e6 },
	{ "context switches per ms of CPU", "context-switches", "cpu-clock", 1e6 },
};

const struct tl_profile_ratio *tl_profile_ratios(size_t *n)
{
	*n = sizeof(ratios) / sizeof(ratios[0]);
	return ratios;
}

/* Where event e of the pass shows in r->events: the counted one first (its place and 0 swap). */
unsigned tl_profile_shown(const struct pass *p, unsigned e)
{
	return e == p->prim ? 0 : e == 0 ? p->prim : e;
}

/* Each event's samples and periods, in all and per function (r->funcs sorted, rank: id -> index). */
int tl_profile_event_sums(struct pass *p, struct tl_profile_result *r, const uint32_t *rank, uint32_t nf)
{
	size_t ne = r->nevents ? r->nevents : 1;

	if (!(r->fperiod = calloc((size_t)(nf ? nf : 1) * ne, sizeof(*r->fperiod))))
		return tl_error("out of memory");
	for (size_t i = 0; i < p->ns; i++) {
		const struct smp *sm = &p->s[i];
		unsigned k = tl_profile_shown(p, sm->ev);

		r->events[k].samples++;
		r->events[k].period += sm->period;
		if (sm->self >= 1 && sm->self <= nf)
			r->fperiod[(size_t)rank[sm->self] * ne + k] += sm->period;
	}
	return 0;
}

/* opts.cells: each event's periods by (bin, CPU), for its rate and the ratios over time. */
int tl_profile_event_bins(struct pass *p, struct tl_profile_result *r)
{
	size_t ncpus = (size_t)(r->run->ncpus > 0 ? r->run->ncpus : 1), per = r->nbins * ncpus;

	if (!(r->ebins = calloc((r->nevents ? r->nevents : 1) * per, sizeof(*r->ebins))))
		return tl_error("out of memory");
	for (size_t i = 0; i < p->ns; i++) {
		const struct smp *sm = &p->s[i];
		uint64_t bin = sm->ts >= r->run->win_start ? (sm->ts - r->run->win_start) / r->bin_ns : r->nbins;

		if (bin < r->nbins && sm->cpu >= 0 && (size_t)sm->cpu < ncpus)
			r->ebins[tl_profile_shown(p, sm->ev) * per + bin * ncpus + (size_t)sm->cpu] += sm->period;
	}
	return 0;
}
