/*
 * confine.c - waits for a CPU beside an idle CPU the thread may not use (confine.h).
 *
 * Invariants: a thread's record (at its serial) holds its last mask, the
 * words of one reading: AFFINITY events of one reading share their ts and
 * come in rising word order, so an event with another ts or a word not
 * above the last starts a new mask.  `confined` says that mask leaves out
 * a CPU of the machine.  `snapped` is set from the start of a wait for a
 * CPU of a confined thread to its end: then at[c], at[ncpus + c] are CPU
 * c's idle and filtered time at the wait's start, for every CPU c (the
 * mask may change in the wait); sum[c] adds up their differences over the
 * counted waits, for the CPUs excluded at each wait's end (idle, filt) and
 * for the CPU each waited on (own_idle, own_filt).
 */
#include <stdlib.h>
#include <string.h>

#include "analysis/confine/confine.h"
#include "base/errors.h"
#include "base/grow.h"

struct sums {
	double idle, filt;         /* excluded CPUs, over the counted waits (in-window parts) */
	double own_idle, own_filt; /* the CPU each of them waited on */
};

struct thr {
	uint64_t *mask;   /* words CPUs/64 (rounded up); NULL before its first AFFINITY event */
	uint64_t *at;     /* 2 ncpus readings at the wait's start, once confined */
	struct sums *sum; /* ncpus, once confined */
	uint64_t mask_ts;
	int32_t last_word;
	int allowed; /* CPUs of the machine in the mask */
	uint8_t confined, snapped;
	uint64_t waits, wait_ns; /* the counted waits, their time in the window */
	double take;             /* TL_CONFINE_TAKE_NS each, in-window parts */
};

/* A CPU's totals of a filtered recording (FILTERED events): its stretches' known time, of it idle. */
struct filt {
	uint64_t total, idle;
};

struct tl_confine {
	struct tl_sched *sched;
	const struct tl_walk_result *r;
	int ncpus, words;
	struct thr *thr; /* by serial */
	size_t thr_cap;
	struct filt *filt; /* ncpus */
	uint64_t *now;     /* 2 ncpus: readings at a wait's end */
};

struct tl_confine *tl_confine_new(struct tl_sched *sched, const struct tl_walk_result *r, int ncpus)
{
	struct tl_confine *c = calloc(1, sizeof(*c));
	size_t n = (size_t)(ncpus > 0 ? ncpus : 1);

	if (!c || !(c->filt = calloc(n, sizeof(*c->filt))) || !(c->now = calloc(2 * n, sizeof(uint64_t)))) {
		if (c)
			free(c->filt);
		free(c);
		tl_error("out of memory");
		return NULL;
	}
	c->sched = sched;
	c->r = r;
	c->ncpus = ncpus > 0 ? ncpus : 0;
	c->words = (c->ncpus + 63) / 64;
	return c;
}

static int in_mask(const struct thr *t, int cpu)
{
	return (t->mask[cpu / 64] >> (cpu % 64)) & 1;
}

static uint64_t nonneg(int64_t v)
{
	return v > 0 ? (uint64_t)v : 0;
}

static int filtered_event(struct tl_confine *c, const struct tl_event *ev)
{
	struct filt *f = ev->cpu >= 0 && ev->cpu < c->ncpus ? &c->filt[ev->cpu] : NULL;

	if (f && ev->arg == TL_FILT_CPU_TIME) {
		f->total += nonneg(ev->a) + nonneg(ev->b);
		f->idle += nonneg(ev->b);
	} else if (f && ev->arg == TL_FILT_CPU_INTR) {
		f->total += nonneg(ev->a) + nonneg(ev->b); /* c, time the kernel could not place, is left out */
	}
	return 0;
}

int tl_confine_event(struct tl_confine *c, const struct tl_thread *th, const struct tl_event *ev)
{
	struct thr *t;

	if (ev->type == TL_EV_FILTERED)
		return filtered_event(c, ev);
	if (ev->type != TL_EV_AFFINITY || !th || ev->a < 0 || ev->a >= c->words)
		return 0;
	if (TL_GROW_ZERO(c->thr, c->thr_cap, (size_t)th->serial + 1) < 0)
		return -1;
	t = &c->thr[th->serial];
	if (!t->mask && !(t->mask = calloc((size_t)c->words, sizeof(uint64_t))))
		return tl_error("out of memory");
	if (ev->ts != t->mask_ts || ev->a <= t->last_word)
		memset(t->mask, 0, (size_t)c->words * sizeof(uint64_t));
	t->mask_ts = ev->ts;
	t->last_word = (int32_t)ev->a;
	t->mask[ev->a] |= (uint64_t)ev->b;
	t->allowed = 0;
	for (int cpu = 0; cpu < c->ncpus; cpu++)
		t->allowed += in_mask(t, cpu);
	/* an empty mask is a reading gone wrong, not a thread that may run nowhere */
	t->confined = t->allowed > 0 && t->allowed < c->ncpus;
	if (t->confined && !t->sum &&
	    (!(t->at = calloc(2 * (size_t)c->ncpus, sizeof(uint64_t))) ||
	     !(t->sum = calloc((size_t)c->ncpus, sizeof(*t->sum))))) {
		free(t->at);
		t->at = NULL;
		return tl_error("out of memory");
	}
	return 0;
}

/* A wait for a CPU that a mask can cause: a yield is the thread's choice. */
static int cpu_wait(unsigned state)
{
	return state == TL_ST_RUNNABLE || state == TL_ST_READY_PREEMPT || state == TL_ST_READY_QUANTUM;
}

/* now - then, kept within 0..max (see wait_ended). */
static uint64_t diff(uint64_t now, uint64_t then, uint64_t max)
{
	uint64_t d = now > then ? now - then : 0;

	return d < max ? d : max;
}

/* The wait iv of t ended: add the excluded CPUs' idle and filtered time in it. */
static void wait_ended(struct tl_confine *c, struct thr *t, const struct tl_interval *iv)
{
	uint64_t from = iv->start > c->r->win_start ? iv->start : c->r->win_start, len = iv->end - iv->start;
	uint64_t *idle = c->now, *filt = c->now + c->ncpus;
	double k;
	int any = 0;

	if (iv->end < c->r->win_start || iv->end > c->r->win_end || iv->end <= from || len <= TL_CONFINE_TAKE_NS)
		return;
	if (iv->state == TL_ST_READY_QUANTUM && !iv->by)
		return; /* held back by a CPU limit: its own CPU was idle too */
	k = (double)(iv->end - from) / (double)len;
	tl_sched_cpu_idle(c->sched, iv->end, idle, filt);
	for (int cpu = 0; cpu < c->ncpus; cpu++) {
		struct sums *sm = &t->sum[cpu];
		uint64_t i, f;

		if (cpu != iv->cpu && in_mask(t, cpu))
			continue;
		/*
		 * An event dated before a reading (the CPUs' small disorder, a
		 * switch dated back by its run time, an inferred one) changes the
		 * CPU's past: a difference can come out below 0 or above the wait.
		 * It is kept within them.
		 */
		i = diff(idle[cpu], t->at[cpu], len);
		f = diff(filt[cpu], t->at[c->ncpus + cpu], len - i);
		if (cpu == iv->cpu) {
			/* its own CPU idle: woken onto an idle CPU, it waits for that CPU to wake up, mask or not */
			sm->own_idle += k * (double)i;
			sm->own_filt += k * (double)f;
		} else if (i || f) { /* the totals, which come at the end, will say how much of f was idle */
			sm->idle += k * (double)i;
			sm->filt += k * (double)f;
			any = 1;
		}
	}
	if (any) {
		t->waits++;
		t->wait_ns += iv->end - from;
		t->take += k * (double)TL_CONFINE_TAKE_NS;
	}
}

void tl_confine_interval(struct tl_confine *c, const struct tl_thread *th, const struct tl_interval *iv)
{
	struct thr *t = th->serial < c->thr_cap ? &c->thr[th->serial] : NULL;

	if (!t || !t->sum)
		return;
	if (t->snapped && cpu_wait(iv->state))
		wait_ended(c, t, iv);
	t->snapped = 0;
	if (t->confined && iv->next < TL_ST__COUNT && cpu_wait(iv->next)) {
		tl_sched_cpu_idle(c->sched, iv->end, t->at, t->at + c->ncpus);
		t->snapped = 1;
	}
}

void tl_confine_get(const struct tl_confine *c, uint32_t serial, struct tl_confine_thread *out)
{
	const struct thr *t = serial < c->thr_cap ? &c->thr[serial] : NULL;
	double best = 0, less = 0;

	memset(out, 0, sizeof(*out));
	if (!t || !t->sum || !t->waits)
		return;
	for (int cpu = 0; cpu < c->ncpus; cpu++) {
		const struct filt *f = &c->filt[cpu];
		double share = f->total ? (double)f->idle / (double)f->total : 0;
		double ns = t->sum[cpu].idle + t->sum[cpu].filt * share;

		best = ns > best ? ns : best;
		less += t->sum[cpu].own_idle + t->sum[cpu].own_filt * share;
	}
	less += t->take;
	best = best > less ? best - less : 0;
	out->ns = best < (double)t->wait_ns ? (uint64_t)(best + 0.5) : t->wait_ns;
	out->waits = out->ns ? t->waits : 0;
	out->cpus = t->allowed;
}

void tl_confine_free(struct tl_confine *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->thr_cap; i++) {
		free(c->thr[i].mask);
		free(c->thr[i].at);
		free(c->thr[i].sum);
	}
	free(c->thr);
	free(c->filt);
	free(c->now);
	free(c);
}
