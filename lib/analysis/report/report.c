/*
 * report.c - tl_report_analyze(): one streaming pass over a trace that fills the
 * model of report.h.
 *
 * The state machine (state_machine.c) turns events into intervals; this file is the
 * pass that sums them: per thread (time and entries per state, transitions,
 * switches, latencies, bursts, wakers), per CPU (busy, idle, IRQ time and
 * which processes used it) and per process.  Every interval is clipped to
 * the window, so the states of a thread sum exactly to its lifetime inside
 * the window.  Memory holds one record per thread ever seen, never per event.
 */
#include "analysis/report/report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/errors.h"
#include "base/grow.h"
#include "analysis/confine/confine.h"
#include "analysis/report/report_int.h"
#include "analysis/report/report_pass.h"
#include "timeline/walk.h"

static uint64_t clip_len(const struct pass *p, uint64_t a, uint64_t b)
{
	if (a < p->r->win_start)
		a = p->r->win_start;
	if (b > p->r->win_end)
		b = p->r->win_end;
	return b > a ? b - a : 0;
}

static struct acc *acc_of(struct pass *p, struct tl_thread *th)
{
	struct acc *a = th->user;

	if (a)
		return a;
	a = calloc(1, sizeof(*a));
	if (!a || TL_GROW(p->accs, p->cap, p->naccs + 1) < 0) {
		free(a);
		p->oom = 1;
		return NULL;
	}
	a->st.tid = th->tid;
	a->st.serial = th->serial;
	tl_dist_init(&a->st.sched_latency);
	tl_dist_init(&a->st.ready_wait);
	tl_dist_init(&a->st.bursts);
	p->accs[p->naccs++] = a;
	th->user = a;
	return a;
}

static void sync_identity(struct acc *a, const struct tl_thread *th)
{
	a->st.pid = th->tgid;
	a->outsider |= th->outsider;
	memcpy(a->st.name, th->name, sizeof(a->st.name));
	a->st.snapshot = th->snapshot;
	a->st.prio = th->prio;
	if (th->cpus_allowed)
		a->cpus_allowed = th->cpus_allowed;
	if (th->parent)
		a->st.creator = a->parent_tid = th->parent;
}

/* Count a wait of `wait` ns that thread tid ended (a wakeup) or caused (a preemption) in list *l. */
static void add_waker_to(struct pass *p, struct tl_waker_stat **l, size_t *n, size_t *cap, int32_t tid, uint64_t wait)
{
	struct tl_waker_stat *w = NULL;

	for (size_t i = 0; i < *n; i++)
		if ((*l)[i].tid == tid) {
			w = &(*l)[i];
			break;
		}
	if (!w) {
		if (TL_GROW(*l, *cap, *n + 1) < 0) {
			p->oom = 1;
			return;
		}
		w = &(*l)[(*n)++];
		memset(w, 0, sizeof(*w));
		w->tid = tid;
		w->prio = -1;
		if (tid == TL_WAKER_IRQ)
			snprintf(w->name, sizeof(w->name), "[interrupt]");
		else if (tid == TL_WAKER_DEVICE)
			snprintf(w->name, sizeof(w->name), "[device]");
		else if (tid == 0)
			snprintf(w->name, sizeof(w->name), "[unknown]");
	}
	if (tid > 0) {
		/* the name it has now: a thread often names itself after its first wakeups */
		struct tl_thread *wt = tl_sched_thread(p->sched, tid);
		if (wt) {
			memcpy(w->name, wt->name, sizeof(w->name));
			w->prio = wt->prio;
		}
	}
	w->count++;
	w->wait_ns += wait;
}

static void add_waker(struct pass *p, struct acc *a, int32_t tid, uint64_t wait)
{
	add_waker_to(p, &a->st.wakers, &a->st.nwakers, &a->wakers_cap, tid, wait);
}

static void on_interval(void *ctx, struct tl_thread *th, const struct tl_interval *iv)
{
	struct pass *p = ctx;
	struct acc *a = acc_of(p, th);
	uint64_t len;
	int inside_start, inside_end;

	tl_kcheck_interval(p->kc, th->tid, iv);
	tl_load_interval(p->load, th, iv);
	tl_inversion_preempted(p->inv, th, iv);
	if (tl_lockhold_interval(p->lh, th, iv, a && a->lock_wait) < 0)
		p->oom = 1;
	if (!a)
		return;
	tl_herd_interval(p->herd, th, iv, iv->state == TL_ST_SYNC_WAIT && a->lock_wait);
	tl_confine_interval(p->cf, th, iv);
	len = clip_len(p, iv->start, iv->end);
	inside_start = iv->start >= p->r->win_start && iv->start < p->r->win_end;
	inside_end = iv->end >= p->r->win_start && iv->end <= p->r->win_end;
	a->st.state_ns[iv->state] += len;
	if (iv->state == TL_ST_READY_QUANTUM && !iv->by) {
		/* held back: the CPU it waits on was idle (state_machine.h); one interval each */
		a->st.throttled_ns += len;
		if (inside_end && iv->next < TL_ST__COUNT) {
			a->st.throttles++;
			if (iv->end - iv->start > a->st.throttled_max_ns)
				a->st.throttled_max_ns = iv->end - iv->start;
		}
	}
	if (inside_start || (iv->start == iv->end && inside_end))
		a->st.entries[iv->state]++;
	if (iv->next < TL_ST__COUNT && inside_end) {
		a->st.trans[iv->state][iv->next]++;
		if (tl_state_is_oncpu(iv->state) && !tl_state_is_oncpu(iv->next)) {
			if (iv->next == TL_ST_READY_PREEMPT || iv->next == TL_ST_READY_QUANTUM)
				a->st.invol_switches++;
			else if (iv->next == TL_ST_READY_YIELD)
				a->st.yields++;
			else if (iv->next != TL_ST_ZOMBIE)
				a->st.vol_switches++;
		}
	}
	if (tl_state_is_oncpu(iv->state)) {
		if (!a->st.first_run && len) /* a thread's intervals close in time order */
			a->st.first_run = iv->start > p->r->win_start ? iv->start : p->r->win_start;
		if (!a->burst)
			a->burst_start = iv->start > p->r->win_start ? iv->start : p->r->win_start;
		a->burst += len;
		if (iv->cpu >= 0 && iv->cpu < p->ncpus && len) {
			if (!a->cpu_ns && !(a->cpu_ns = calloc((size_t)p->ncpus, sizeof(uint64_t))))
				p->oom = 1;
			else
				a->cpu_ns[iv->cpu] += len;
		}
		if (!tl_state_is_oncpu(iv->next)) {
			if (a->burst && (!a->st.bursts.count || a->burst > a->st.bursts.max))
				a->st.burst_max_at = a->burst_start; /* "max at", as perf sched latency gives it */
			if (a->burst && tl_dist_add(&a->st.bursts, a->burst) < 0)
				p->oom = 1;
			a->burst = 0;
		}
	}
	/* a wait that ends inside the window counts with its in-window part */
	if (inside_end && iv->next < TL_ST__COUNT) {
		if (tl_state_is_ready(iv->state) && tl_state_is_oncpu(iv->next) && iv->inferred_end) {
			a->st.waits_inferred++; /* its length is an estimate: no latency is invented */
		} else if (tl_state_is_ready(iv->state) && tl_state_is_oncpu(iv->next)) {
			if (tl_dist_add(&a->st.ready_wait, iv->end - iv->start) < 0)
				p->oom = 1;
			if (iv->state == TL_ST_RUNNABLE &&
			    (!a->st.sched_latency.count || iv->end - iv->start > a->st.sched_latency.max))
				a->st.latency_max_at = iv->start;
			if (iv->state == TL_ST_RUNNABLE && tl_dist_add(&a->st.sched_latency, iv->end - iv->start) < 0)
				p->oom = 1;
		}
		/* by 0: the trace does not say who woke it; kept as "[unknown]" */
		if ((tl_state_is_asleep(iv->state) || iv->state == TL_ST_UNKNOWN) && iv->next == TL_ST_RUNNABLE)
			add_waker(p, a, iv->by, len);
		if (iv->state == TL_ST_READY_PREEMPT && iv->by > 0)
			add_waker_to(p, &a->st.preemptors, &a->st.npreemptors, &a->preemptors_cap, iv->by, len);
		if (iv->state == TL_ST_SYNC_WAIT && a->lock_wait) {
			uint64_t did[TL_LH__COUNT] = { 0 }, convoy = 0;

			tl_inversion_lock_wait(p->inv, th, iv);
			tl_lockhold_wait(p->lh, iv, did, &convoy);
			for (unsigned c = 0; c < TL_LH__COUNT; c++)
				a->st.lock_holder_ns[c] += did[c];
			a->st.lock_convoy_ns += convoy;
			if (tl_locks_wait(p->locks, th, a->futex_word, len, iv->end - iv->start,
			                  iv->by > 0 ? tl_sched_thread(p->sched, iv->by) : NULL, did, convoy) < 0)
				p->oom = 1;
			a->futex_word = 0;
			a->st.lock_wait_ns += len;
			add_waker_to(p, &a->st.lock_wakers, &a->st.nlock_wakers, &a->lock_wakers_cap, iv->by, len);
			a->lock_wait = 0;
		}
		if ((iv->state == TL_ST_SYNC_WAIT || iv->state == TL_ST_SLEEPING) && iv->by > 0) {
			/* woken by a thread that had already exited: its exit woke the joiner (or the parent in wait4) */
			struct tl_thread *w = tl_sched_thread(p->sched, iv->by);
			struct acc *wa = w ? w->user : NULL;

			if (wa && wa->exited_at && wa->exited_at <= iv->end)
				a->st.join_wait_ns += len;
		}
	}
	/* identity is copied when it changes (on_name) and at the end, not per interval */
}

/* An interrupt's stretch inside thread tid's time: count it by source. */
static void add_intr(struct pass *p, const struct tl_cpu_interval *iv, uint64_t len)
{
	struct tl_thread *th = tl_sched_thread(p->sched, iv->tid);
	struct tl_intr_stat *l, *e = NULL;
	int soft = iv->what == TL_CPU_SOFTIRQ;

	if (!th)
		return;
	l = acc_of(p, th)->st.intr;
	for (size_t i = 0; i < TL_INTR_SOURCES && !e; i++)
		if (!l[i].count || (l[i].soft == soft && l[i].irq == iv->irq) || i == TL_INTR_SOURCES - 1)
			e = &l[i];
	if (!e->count) {
		e->soft = soft;
		e->irq = iv->irq;
	} else if (e->soft != soft || e->irq != iv->irq) {
		e->soft = 0;
		e->irq = -1; /* the last slot: the other sources together */
	}
	e->count++;
	e->ns += len;
}

static void on_cpu_interval(void *ctx, const struct tl_cpu_interval *iv)
{
	struct pass *p = ctx;
	struct tl_cpu_stats *c;
	uint64_t len = clip_len(p, iv->start, iv->end);

	if (iv->cpu < 0 || iv->cpu >= p->ncpus || !len)
		return;
	c = &p->cpus[iv->cpu];
	switch (iv->what) {
	case TL_CPU_IDLE: c->idle_ns += len; break;
	case TL_CPU_THREAD: c->busy_ns += len; break;
	case TL_CPU_IRQ: c->irq_ns += len; break;
	case TL_CPU_SOFTIRQ: c->softirq_ns += len; break;
	case TL_CPU_FILTERED: c->filtered_ns += len; break;
	default: c->unknown_ns += len; break;
	}
	if ((iv->what == TL_CPU_IRQ || iv->what == TL_CPU_SOFTIRQ) && iv->tid > 0)
		add_intr(p, iv, len);
}

/* Runs of sched_yield calls (analysis/yspin): the recorder's, or found in the calls; a switch ends prev's. */
static void yield_runs(struct pass *p, const struct tl_event *ev)
{
	struct tl_thread *t;
	struct acc *a;

	if (ev->type == TL_EV_YIELD_ENTER)
		p->yield_calls = 1;
	else if (ev->type != TL_EV_YIELD_SPIN && (ev->type != TL_EV_SWITCH || !p->yield_calls))
		return; /* a switch ends no run where no call was seen: not every switch looks its thread up */
	if (!(t = tl_sched_thread(p->sched, ev->tid)) || !(a = acc_of(p, t)))
		return;
	if (ev->type == TL_EV_YIELD_SPIN)
		tl_yspin_event(&a->st.yield_spin, ev, p->r->win_start, p->r->win_end);
	else if (ev->type == TL_EV_YIELD_ENTER)
		tl_yspin_call(&a->yrun, ev->ts, &a->st.yield_spin, p->r->win_start, p->r->win_end);
	else
		tl_yspin_end(&a->yrun, &a->st.yield_spin, p->r->win_start, p->r->win_end);
}

static void on_event(void *ctx, struct tl_thread *th, const struct tl_event *ev)
{
	struct pass *p = ctx;
	struct acc *a;

	/* a reading names its thread but is no event of it: the self-check needs its state then */
	tl_kcheck_event(p->kc, ev, ev->type == TL_EV_KSTAT && !th ? tl_sched_thread(p->sched, ev->tid) : th);
	tl_herd_event(p->herd, ev->type == TL_EV_CLOCK_TAKEN ? tl_sched_thread(p->sched, ev->tid) : th, ev);
	tl_regions_event(p->rg, th, ev,
	                 ev->type == TL_EV_REGION_BEGIN || ev->type == TL_EV_FUNC_ENTRY || ev->type == TL_EV_FUNC_EXIT
	                         ? tl_trace_string(p->run->trace, ev->name)
	                         : NULL);
	if ((ev->type == TL_EV_AFFINITY || ev->type == TL_EV_FILTERED) && tl_confine_event(p->cf, th, ev) < 0)
		p->oom = 1;
	if (ev->type == TL_EV_FILTERED) {
		if (tl_report_filt_event(p->filt, ev, p->run->trace) < 0)
			p->oom = 1;
		return;
	}
	if (ev->type == TL_EV_EXEC && th && (a = acc_of(p, th)) && !a->st.exec_at && ev->ts >= p->r->win_start &&
	    ev->ts <= p->r->win_end) {
		uint64_t tot[TL_ST__COUNT];

		a->st.exec_at = ev->ts;
		if (th->born >= p->r->win_start) {
			tl_thread_totals(th, ev->ts, tot);
			a->st.pre_exec_ns = tot[TL_ST_EXECUTING] + tot[TL_ST_INTERRUPTED];
		}
	}
	if (ev->type == TL_EV_EXIT && th && (a = acc_of(p, th))) {
		a->exited_at = ev->ts;
		a->st.exited_at = ev->ts >= p->r->win_start && ev->ts <= p->r->win_end ? ev->ts : 0;
	}
	if (ev->type == TL_EV_AFFINITY && th && (a = acc_of(p, th)) && ev->a >= 0 && ev->a < (p->ncpus + 63) / 64) {
		/* every mask it had: the CPUs its process could use (seed 000, Eq. 4) */
		if (!a->aff && !(a->aff = calloc((size_t)(p->ncpus + 63) / 64, sizeof(uint64_t))))
			p->oom = 1;
		else
			a->aff[ev->a] |= (uint64_t)ev->b;
	}
	if (ev->type == TL_EV_FUTEX_NAME &&
	    tl_locks_name(p->locks, ev->tid, (uint64_t)ev->a, tl_trace_string(p->run->trace, ev->name)) < 0)
		p->oom = 1;
	if (ev->type == TL_EV_FUTEX_WAIT || ev->type == TL_EV_FUTEX_ENTER ||
	    (ev->type == TL_EV_SWITCH && (ev->flags & TL_EVF_WAIT_FUTEX))) {
		/*
		 * Its next wait: the futex word it sleeps on (locks.h: FUTEX_WAIT, or
		 * FUTEX_ENTER's uaddr), and whether it is a lock's or a condition's
		 * (the switch's flag; FUTEX_ENTER's op: the perf back end).
		 */
		struct tl_thread *w = tl_sched_thread(p->sched, ev->tid);
		int64_t cmd = ev->a & TL_FUTEX_CMD_MASK;

		if (w && (a = acc_of(p, w))) {
			if (ev->type == TL_EV_FUTEX_WAIT)
				a->futex_word = (uint64_t)ev->a;
			if (ev->type == TL_EV_FUTEX_ENTER)
				a->futex_word = (uint64_t)ev->b;
			if (ev->type == TL_EV_SWITCH)
				a->lock_wait = !!(ev->flags & TL_EVF_WAIT_LOCK);
			if (ev->type == TL_EV_FUTEX_ENTER) /* its value: before 1.11 0, a condition's for WAIT_BITSET */
				a->lock_wait = tl_futex_wait_locks(cmd, ev->c);
		}
	}
	yield_runs(p, ev);
	if (ev->type != TL_EV_SWITCH && ev->type != TL_EV_MIGRATE && ev->type != TL_EV_FORK)
		return; /* the rest is counted from intervals */
	if (ev->ts < p->r->win_start || ev->ts > p->r->win_end)
		return;
	if (ev->type == TL_EV_SWITCH && ev->cpu >= 0 && ev->cpu < p->ncpus)
		p->cpus[ev->cpu].switches++;
	if (!th || !(a = acc_of(p, th)))
		return;
	if (ev->type == TL_EV_MIGRATE)
		a->st.migrations++;
	if (ev->type == TL_EV_FORK) {
		struct tl_thread *parent = tl_sched_thread(p->sched, ev->arg);
		if (parent)
			a->parent_tgid = parent->tgid;
	}
}

static void on_span(void *ctx, const struct tl_span *sp, const char *name)
{
	struct pass *p = ctx;

	tl_regions_span(p->rg, sp, name);
}

static void on_name(void *ctx, struct tl_thread *th)
{
	struct pass *p = ctx;
	struct acc *a = acc_of(p, th);

	if (a)
		sync_identity(a, th);
}

static void on_thread_end(void *ctx, struct tl_thread *th)
{
	struct pass *p = ctx;
	struct acc *a = acc_of(p, th);
	uint64_t from = th->born, to = th->died;

	if (!a)
		return;
	sync_identity(a, th);
	tl_yspin_end(&a->yrun, &a->st.yield_spin, p->r->win_start, p->r->win_end);
	a->st.start = from < p->r->win_start ? p->r->win_start : from;
	a->st.end = to > p->r->win_end ? p->r->win_end : to;
	if (a->st.end < a->st.start)
		a->st.end = a->st.start;
	a->ended = 1;
	th->user = NULL;
}

static void pass_release(struct pass *p)
{
	for (size_t i = 0; i < p->naccs; i++) {
		struct acc *a = p->accs[i];
		free(a->cpu_ns);
		free(a->aff);
		free(a->st.wakers);
		free(a->st.preemptors);
		free(a->st.lock_wakers);
		tl_dist_release(&a->st.sched_latency);
		tl_dist_release(&a->st.ready_wait);
		tl_dist_release(&a->st.bursts);
		free(a);
	}
	free(p->accs);
	tl_report_filt_free(p->filt);
	if (p->cpus)
		for (int c = 0; c < p->ncpus; c++)
			free(p->cpus[c].procs);
	free(p->cpus);
	tl_kcheck_free(p->kc);
	tl_regions_free(p->rg);
	tl_load_free(p->load);
	tl_inversion_free(p->inv);
	tl_herd_free(p->herd);
	tl_confine_free(p->cf);
	tl_lockhold_free(p->lh);
	tl_locks_free(p->locks);
}

int tl_report_analyze(struct tl_run *run, struct tl_model *m)
{
	struct tl_walk_opts wo = { 0 };
	struct tl_walk *w;
	struct pass p = { 0 };

	memset(m, 0, sizeof(*m));
	if (tl_run_start(run) < 0)
		return -1;
	m->run = run;
	m->ncpus = run->info.ncpus > 0 ? run->info.ncpus : 1;
	p.run = run;
	p.ncpus = m->ncpus;
	p.cpus = calloc((size_t)p.ncpus, sizeof(*p.cpus));
	p.kc = tl_kcheck_new();
	p.filt = tl_report_filt_new(p.ncpus);
	if (!p.cpus || !p.kc || !p.filt) {
		pass_release(&p);
		return tl_error("out of memory");
	}
	for (int c = 0; c < p.ncpus; c++)
		p.cpus[c].cpu = c;

	tl_run_walk_opts(run, &wo);
	wo.ctx = &p;
	wo.on_interval = on_interval;
	wo.on_cpu_interval = on_cpu_interval;
	wo.on_thread_end = on_thread_end;
	wo.on_event = on_event;
	wo.on_name = on_name;
	wo.on_span = on_span;
	w = tl_walk_new(&wo, &run->info);
	if (!w) {
		pass_release(&p);
		return -1;
	}
	p.sched = tl_walk_sched(w);
	p.r = tl_walk_result(w);
	if (!(p.rg = tl_regions_new(p.sched)) || !(p.load = tl_load_new(p.r)) ||
	    !(p.inv = tl_inversion_new(p.sched, p.r)) || !(p.herd = tl_herd_new(p.sched, p.r)) ||
	    !(p.cf = tl_confine_new(p.sched, p.r, p.ncpus)) || !(p.lh = tl_lockhold_new(p.sched, p.r)) ||
	    !(p.locks = tl_locks_new()))
		goto fail;
	if (tl_walk_run(w, run->trace) < 0 || p.oom) {
		if (p.oom)
			tl_error("out of memory while analysing the trace");
		goto fail;
	}
	if (tl_run_keep(run, p.r) < 0 || tl_report_build_model(&p, m) < 0 || tl_kcheck_finish(p.kc, &m->kcheck) < 0 ||
	    tl_regions_finish(p.rg, &m->regions) < 0 || tl_load_finish(p.load, &m->load) < 0 ||
	    tl_inversion_finish(p.inv, &m->inversions) < 0 || tl_herd_finish(p.herd, &m->herds) < 0 ||
	    tl_locks_finish(p.locks, &m->locks) < 0)
		goto fail;
	pass_release(&p);
	tl_walk_free(w);
	return 0;

fail:
	pass_release(&p);
	tl_walk_free(w);
	tl_report_release(m);
	return -1;
}

void tl_report_release(struct tl_model *m)
{
	for (size_t i = 0; i < m->nthreads; i++) {
		free(m->threads[i].wakers);
		free(m->threads[i].preemptors);
		free(m->threads[i].lock_wakers);
		tl_dist_release(&m->threads[i].sched_latency);
		tl_dist_release(&m->threads[i].ready_wait);
		tl_dist_release(&m->threads[i].bursts);
	}
	free(m->threads);
	if (m->cpus)
		for (int c = 0; c < m->ncpus; c++)
			free(m->cpus[c].procs);
	free(m->cpus);
	free(m->procs);
	tl_kcheck_release(&m->kcheck);
	tl_regions_release(&m->regions);
	tl_load_release(&m->load);
	tl_inversion_release(&m->inversions);
	tl_herd_release(&m->herds);
	tl_locks_release(&m->locks);
	memset(m, 0, sizeof(*m));
}
