/*
 * kcheck.c - state times against the kernel's accounting (see kcheck.h).
 *
 * Per thread, a small record in a tid map:
 *   PENDING  seen, nothing to compare from yet: intervals are ignored;
 *   OPEN     a start reading (or its FORK) at `from`: intervals are
 *            clipped to [from, ...) and added, switches counted;
 *   CLOSED   an end or exit reading at `to`: nothing more is added, except
 *            the part before `to` of an interval still open then.
 * Intervals reach us when they end, so one that spans `from` arrives after
 * the start reading and is clipped, and one that ended before it is dropped.
 */
#include "analysis/kcheck/kcheck.h"

#include <stdlib.h>
#include <string.h>

#include "base/errors.h"
#include "base/grow.h"
#include "base/tidmap.h"
#include "timeline/states.h"

enum { PENDING = 0, OPEN, CLOSED };

struct reading {
	int have_times, have_csw;
	int64_t run, wait, blkio, vol, invol;
};

struct kth {
	int32_t tid; /* tidmap key */
	int status;
	int born, exited, has_start;
	uint64_t from, to;
	uint64_t exit_ts;         /* its EXIT event, 0 before: the kernel sent its exit totals just before it */
	uint64_t lag_in, lag_out; /* clock lag at its switch-ins and preempted switch-outs (kcheck.h) */
	uint64_t lag_end;         /* at switch-outs to sleep dated at an enqueue's clock (kcheck.h) */
	uint64_t lag_sleep;       /* at the other switch-outs to sleep: the kernel's dequeue and pick (kcheck.h) */
	uint64_t enq_ts;          /* its last WAKEUP: when it joined a run queue */
	uint64_t waking_ts;       /* its WAKING since, 0 none */
	uint64_t lag_wake;        /* at enqueues by another CPU: the kernel's wait starts up to this much earlier */
	uint64_t lag_exit;        /* on a CPU at its EXIT since this long: its exit totals may lack that run time */
	uint64_t unknown_ns;      /* UNKNOWN in the window: could be any state, so it may hide run or wait time */
	uint64_t lost_from;       /* kc->lost when its window opened, and when it closed */
	uint64_t lost_to;
	uint64_t ins;       /* switches into it in its window: more than out of it are switches not in the trace */
	uint64_t cpus_used; /* bit c: it ran on CPU c (c < 64); bit 63 also stands for every CPU above */
	/* the recorded clock lags (format 1.6): the kernel's dating minus the trace's, of its run and its wait */
	int64_t kd_run, kd_wait;
	uint64_t enq_lag; /* its last WAKEUP's, until the RUNNABLE it begins is counted */
	int unqueued;     /* preempted while not running (state S/D): the kernel does not count that wait */
	int exit_dated;   /* its EXIT has the lag of its exit totals: kd_run has it, lag_exit is not needed */
	/*
	 * Its exit totals came before its EXIT: the kernel sends them early in
	 * the exit, before it frees the memory and passes the tracepoint, and
	 * they are stamped when read.  They stand for the EXIT (and its lag),
	 * so the window stays open until it comes; `post` is what was counted
	 * after the reading, taken back if it never does (lost).
	 */
	int exit_early;
	uint64_t exit_read_ts, exit_read_lost;
	struct tl_kcheck_side post;
	uint64_t post_unknown;
	/* how much the kernel's delta between its readings is short, each reading being as of its last update */
	int64_t stale_run, stale_wait;
	int wait_open; /* maybe waiting for a CPU since before the trace at the start reading: its wait is not judged */
	struct stale_mark {
		uint64_t at;   /* the reading, [0] start and [1] end, until the interval holding it comes */
		uint64_t tick; /* its CPU's last tick then */
		int cpu;       /* the CPU the walk had it on then, -1 none */
		int set;
	} mark[2];
	/* the stay on a CPU, and the wait for one, that its last intervals make up */
	uint64_t run_from, run_to, wait_from, wait_to;
	int run_inferred, wait_inferred; /* they began where a switch-in nobody reported was guessed */
	uint64_t inferred_at;            /* the end of its last interval that ended at such a guess */
	struct reading start, end;
	struct tl_kcheck_side trace;
};

struct cpu_marks {
	uint64_t mark;      /* the CPU's last event at which the kernel updates its clock */
	uint64_t enq_mark;  /* the last enqueue onto it (a WAKEUP whose target it is) */
	int32_t enq_tid;    /* the thread enqueued then */
	uint64_t switch_ts; /* its last switch */
	int32_t in_tid;     /* the thread it switched in */
	int64_t steal[2];   /* KSTAT_CPU at the start and the end, -1 unknown */
	uint64_t tick;      /* their unit */
	uint64_t timer;     /* the end of its last tick (or local timer interrupt): it updated its task's run time */
};

#define CACHE 64 /* a power of two */

/* A tid's lookup, remembered (found or not) until the next insertion moves the map's values. */
struct cached {
	int32_t tid;
	uint32_t gen;
	struct kth *t;
};

struct tl_kcheck {
	struct tl_tidmap m;
	uint32_t gen; /* bumped at every insertion */
	struct cached cache[CACHE];
	struct cpu_marks *cpus;
	size_t ncpus;
	uint64_t lost;  /* events lost so far (LOST) */
	int lags;       /* the trace has the kernel's clock lags (format 1.6): the check dates as the kernel */
	int ticks_told; /* an IRQ_EXIT said the scheduler tick ran in it (1.6): only those update run times */
	int oom;
};

struct tl_kcheck *tl_kcheck_new(void)
{
	struct tl_kcheck *kc = calloc(1, sizeof(*kc));

	if (!kc || tl_tidmap_init(&kc->m, sizeof(struct kth))) {
		free(kc);
		tl_error("out of memory");
		return NULL;
	}
	return kc;
}

void tl_kcheck_free(struct tl_kcheck *kc)
{
	if (!kc)
		return;
	tl_tidmap_release(&kc->m);
	free(kc->cpus);
	free(kc);
}

/*
 * The record of tid (created if asked).  Nearly every event and interval
 * looks one up, and a trace has few threads at a time: a small cache in
 * front of the map keeps the self-check from slowing the report's walk
 * (about 10% without it, on a 5 M-event ping-pong trace).
 */
static struct kth *get(struct tl_kcheck *kc, int32_t tid, int create)
{
	struct cached *c = &kc->cache[(uint32_t)tid & (CACHE - 1)];
	struct kth *t;
	int created = 0;

	if (tid <= 0)
		return NULL;
	if (c->tid == tid && c->gen == kc->gen && (c->t || !create))
		return c->t;
	if (!create) {
		t = tl_tidmap_get(&kc->m, tid);
	} else {
		if (!(t = tl_tidmap_put(&kc->m, tid, &created)))
			kc->oom = 1;
		kc->gen += created; /* the values may have moved: every cached pointer is void */
	}
	*c = (struct cached){ tid, kc->gen, t };
	return t;
}

static void reading_times(struct reading *r, const struct tl_event *ev)
{
	r->have_times = 1;
	r->run = ev->a;
	r->wait = ev->b;
	r->blkio = ev->c;
}

static struct cpu_marks *cpu_of(struct tl_kcheck *kc, int cpu);

/*
 * A reading of a thread that is on a CPU or in a run queue holds the
 * kernel's numbers as of their last update: its run time as of the CPU's
 * last tick or its switch-in, its run-queue wait without the wait in
 * progress (run_delay grows at the switch-in).  A 100 ms `record -p` of a
 * spinning thread was 1.5-2.5 ms off (both readings up to a 4 ms tick
 * old), beyond the 1 ms tolerance, in 5 runs of 6.  The tick is the local
 * timer interrupt the eBPF recorder marks (IRQ_EXIT b = 1); other timers
 * (the recorder's own, ending a `-d` recording) update nothing; without
 * the mark, any local timer interrupt (then a reading may be older than
 * this says, never newer).
 *
 * The reading is marked here (k: 0 start, 1 end) with its CPU's last tick,
 * and settled by the interval that holds it (stale_settle()): the state
 * the walk has at the reading may still be revised (a switch-in nobody
 * reported, found later, makes the time before it UNKNOWN).
 */
static void stale_mark(struct tl_kcheck *kc, struct kth *t, const struct tl_event *ev, const struct tl_thread *th,
                       int k)
{
	struct cpu_marks *c = th && th->tid == t->tid && th->cpu >= 0 ? cpu_of(kc, th->cpu) : NULL;

	t->mark[k] = (struct stale_mark){ ev->ts, c ? c->timer : 0, c ? th->cpu : -1, 1 };
}

/*
 * The interval iv of t (before it is clipped) holds a marked reading: on
 * a CPU since a known switch-in, the kernel's run time is as of the later
 * of that and the CPU's last tick; waiting since a known enqueue, the wait
 * so far is not in run_delay yet.  Nothing when the stay or the wait began
 * at a guess (UNKNOWN before it is allowed for anyway).
 */
static void stale_settle(struct kth *t, const struct tl_interval *iv)
{
	for (int k = 0; k < 2; k++) {
		struct stale_mark *m = &t->mark[k];
		int64_t sign = k ? 1 : -1;
		uint64_t upd;

		if (!m->set || m->at <= iv->start || m->at > iv->end)
			continue;
		m->set = 0;
		/*
		 * Not seen yet at the start reading, then switched in (or queued):
		 * it may have been waiting since before the trace, and the kernel
		 * adds a wait to run_delay when it ends, so its delta holds the
		 * part before the reading too, which no event dates.
		 */
		if (!k && iv->state == TL_ST_UNKNOWN && iv->next < TL_ST__COUNT &&
		    (tl_state_is_oncpu(iv->next) || tl_state_is_ready(iv->next)))
			t->wait_open = 1;
		if (tl_state_is_oncpu(iv->state) && iv->cpu == m->cpu && !t->run_inferred) {
			upd = m->tick > t->run_from ? m->tick : t->run_from;
			if (upd && m->at > upd)
				t->stale_run += sign * (int64_t)(m->at - upd);
		} else if (tl_state_is_ready(iv->state) && !t->wait_inferred && m->at > t->wait_from) {
			t->stale_wait += sign * (int64_t)(m->at - t->wait_from);
		}
	}
}

/* Exit totals read before an EXIT that did not come: the window ends at the reading. */
static void close_early(struct kth *t)
{
	t->to = t->exit_read_ts;
	t->trace.run_ns -= t->post.run_ns;
	t->trace.wait_ns -= t->post.wait_ns;
	t->trace.blkio_ns -= t->post.blkio_ns;
	t->trace.vol -= t->post.vol;
	t->trace.invol -= t->post.invol;
	t->unknown_ns -= t->post_unknown;
	t->lost_to = t->exit_read_lost;
	t->status = CLOSED;
	t->exit_early = 0;
}

static void on_kstat(struct tl_kcheck *kc, const struct tl_event *ev, const struct tl_thread *th)
{
	struct kth *t = get(kc, ev->tid, 1);

	if (!t)
		return;
	if (ev->arg == TL_KSTAT_AT_START) {
		if (t->status != PENDING)
			return; /* born in the trace, or a second start: the first one stands */
		reading_times(&t->start, ev);
		t->has_start = 1;
		t->status = OPEN;
		t->from = ev->ts;
		t->lost_from = kc->lost;
		memset(&t->trace, 0, sizeof(t->trace));
		stale_mark(kc, t, ev, th, 0);
	} else if (ev->arg == TL_KSTAT_AT_EXIT && t->status == OPEN && !t->exit_ts && !t->exit_early) {
		reading_times(&t->end, ev);
		t->exited = 1;
		t->exit_early = 1;
		t->exit_read_ts = ev->ts;
		t->exit_read_lost = kc->lost;
	} else if (ev->arg == TL_KSTAT_AT_END || ev->arg == TL_KSTAT_AT_EXIT) {
		if (t->exit_early) {
			close_early(t); /* the end reading before its EXIT: the exit totals stand */
			return;
		}
		if (t->status == CLOSED)
			return; /* an exit after the end reading: the end stands */
		reading_times(&t->end, ev);
		t->exited = ev->arg == TL_KSTAT_AT_EXIT;
		t->to = t->exited && t->exit_ts ? t->exit_ts : ev->ts;
		if (t->status == PENDING)
			t->from = ev->ts; /* nothing to compare from: finish() counts it unchecked */
		else if (!t->exited)
			stale_mark(kc, t, ev, th, 1); /* exit totals: the EXIT's lag, or lag_exit */
		t->status = CLOSED;
		t->lost_to = kc->lost;
	}
}

static void on_csw(struct tl_kcheck *kc, const struct tl_event *ev)
{
	struct kth *t = get(kc, ev->tid, 0);
	struct reading *r;

	if (!t)
		return;
	r = ev->arg == TL_KSTAT_AT_START ? &t->start : &t->end;
	if (!r->have_times || r->have_csw)
		return;
	r->have_csw = 1;
	r->vol = ev->a;
	r->invol = ev->b;
}

static struct cpu_marks *cpu_of(struct tl_kcheck *kc, int cpu)
{
	size_t cap = kc->ncpus;

	if (cpu < 0 || cpu >= 4096)
		return NULL;
	if ((size_t)cpu >= kc->ncpus) {
		if (TL_GROW_ZERO(kc->cpus, cap, (size_t)cpu + 1) < 0) {
			kc->oom = 1;
			return NULL;
		}
		for (size_t c = kc->ncpus; c < cap; c++)
			kc->cpus[c].steal[0] = kc->cpus[c].steal[1] = -1;
		kc->ncpus = cap;
	}
	return &kc->cpus[cpu];
}

/* KSTAT_CPU: a CPU's steal time at the start or the end. */
static void on_cpu_steal(struct tl_kcheck *kc, const struct tl_event *ev)
{
	struct cpu_marks *c = cpu_of(kc, ev->arg);

	if (!c || (ev->a != TL_KSTAT_AT_START && ev->a != TL_KSTAT_AT_END))
		return;
	c->steal[ev->a == TL_KSTAT_AT_END] = ev->b;
	c->tick = ev->c > 0 ? (uint64_t)ev->c : 0;
}

/*
 * The steal time a thread's on-CPU time may hold that the kernel left out:
 * the steal of every CPU it ran on over the recording, plus one tick per
 * such CPU (the counters are in ticks, so a delta can be a tick short).
 * A CPU with no steal in its counters adds nothing.
 */
static uint64_t steal_allowance(const struct tl_kcheck *kc, uint64_t used)
{
	uint64_t sum = 0;

	for (size_t c = 0; c < kc->ncpus; c++) {
		const struct cpu_marks *m = &kc->cpus[c];

		if (!(used & (1ull << (c < 63 ? c : 63))) || m->steal[0] < 0 || m->steal[1] <= m->steal[0])
			continue;
		sum += (uint64_t)(m->steal[1] - m->steal[0]) + m->tick;
	}
	return sum;
}

/* A switch on its CPU: the lag between the CPU's last clock update and it, to both threads. */
static void switch_lag(struct tl_kcheck *kc, const struct tl_event *ev, struct kth *prev, struct kth *next)
{
	struct cpu_marks *c = cpu_of(kc, ev->cpu);
	struct kth *t = prev;
	uint64_t lag, mark, sleep;
	int enq;

	if (!c)
		return;
	/*
	 * An enqueue that makes the CPU switch to the enqueued thread (onto an
	 * idle CPU, or preempting its task) skips the clock update of the
	 * switch itself (the kernel's rq_clock_skip_update()), even when the
	 * task there blocks first: the clock stays where the enqueue left it,
	 * whatever interrupts come between.
	 */
	enq = c->enq_mark > c->switch_ts && ev->arg == c->enq_tid;
	mark = enq ? c->enq_mark : c->mark;
	lag = mark > c->switch_ts && ev->ts > mark ? ev->ts - mark : 0;
	if (lag > TL_KCHECK_MAX_LAG_NS)
		lag = TL_KCHECK_MAX_LAG_NS;
	/* a switch to sleep the clock was updated for: dated before the dequeue, the pick and the idle balancing */
	sleep = c->mark > c->switch_ts && ev->ts > c->mark ? ev->ts - c->mark : TL_KCHECK_SLEEP_LAG_NS;
	if (sleep > TL_KCHECK_SLEEP_LAG_NS)
		sleep = TL_KCHECK_SLEEP_LAG_NS;
	c->switch_ts = ev->ts;
	c->in_tid = ev->arg;
	if (lag && next && next->status == OPEN && ev->ts >= next->from)
		next->lag_in += lag;
	/* a thread still runnable is charged short; one that blocks as above, or from the skipped update's clock */
	if (!t || t->status != OPEN || ev->ts < t->from)
		return;
	if ((ev->a & TL_PS_PREEMPT) || !(ev->a & ~TL_PS_PREEMPT))
		t->lag_out += lag;
	else if (enq)
		t->lag_end += lag;
	else
		t->lag_sleep += sleep;
}

/*
 * A switch the recorder dated as the kernel does (its lag, format 1.6):
 * the kernel ends prev's run (lag_end earlier still: its last accounting
 * came before an idle balance's clock update) and starts next's that long
 * before the event; a prev still runnable starts waiting then (sched_info_depart()),
 * and next stops waiting then (sched_info_arrive()).  A prev preempted
 * while it was not running (on its way to sleep, state S or D) is not
 * queued in the kernel's accounting: its wait until it runs again is in
 * no run_delay (unqueued).
 */
static void switch_dated(struct tl_kcheck *kc, const struct tl_event *ev, struct kth *prev, struct kth *next)
{
	int64_t lag = (int64_t)tl_event_lag_ns(ev);
	struct kth *t = prev;

	kc->lags = 1;
	if (t && t->status == OPEN && ev->ts >= t->from && !(t->exit_ts && ev->ts > t->exit_ts)) {
		t->kd_run -= lag + (int64_t)tl_event_lag_end_ns(ev);
		if (!(ev->a & ~TL_PS_PREEMPT))
			t->kd_wait += lag;
		t->unqueued = (ev->a & TL_PS_PREEMPT) && (ev->a & ~TL_PS_PREEMPT);
	}
	if ((t = next) && t->status == OPEN && ev->ts >= t->from) {
		t->kd_run += lag;
		if (!t->unqueued)
			t->kd_wait -= lag;
		t->unqueued = 0;
	}
}

/*
 * A WAKEUP: the enqueue updates the clock of the target CPU, wherever the
 * event fired.  Fired on another CPU than its target, the waker enqueued
 * it holding the target's lock (the target was busy) and dated it there,
 * before the enqueue and the preemption request (an IPI) that come before
 * the event: up to the WAKING (kcheck.h, lag_wake).
 */
static void on_enqueue(struct tl_kcheck *kc, const struct tl_event *ev, struct kth *t)
{
	struct cpu_marks *c;
	uint64_t at = ev->ts;

	if (t && ev->a != ev->cpu && t->waking_ts && t->waking_ts <= ev->ts &&
	    ev->ts - t->waking_ts <= TL_KCHECK_MAX_WAKE_NS) {
		at = t->waking_ts;
		if (t->status == OPEN && at >= t->from)
			t->lag_wake += ev->ts - at;
	}
	if (t) {
		t->enq_ts = ev->ts;
		t->waking_ts = 0;
		t->enq_lag = tl_event_lag_ns(ev);
	}
	if (ev->a >= 0 && ev->a < 4096 && (c = cpu_of(kc, (int)ev->a))) {
		c->enq_mark = at;
		c->enq_tid = ev->tid;
	}
}

void tl_kcheck_event(struct tl_kcheck *kc, const struct tl_event *ev, const struct tl_thread *th)
{
	struct kth *t;
	struct cpu_marks *c;

	switch (ev->type) {
	case TL_EV_KSTAT_CPU: on_cpu_steal(kc, ev); break;
	case TL_EV_WAKING:
	case TL_EV_WAKEUP:
	case TL_EV_WAKEUP_NEW:
	case TL_EV_IRQ_ENTRY:
	case TL_EV_IRQ_EXIT:
	case TL_EV_SOFTIRQ_ENTRY:
	case TL_EV_SOFTIRQ_EXIT:
		if ((c = cpu_of(kc, ev->cpu))) {
			c->mark = ev->ts;
			/* the tick, when the recorder tells it (1.6); else any local timer interrupt */
			if (ev->type == TL_EV_IRQ_EXIT && tl_irq_source(ev) == (TL_IRQ_VECTOR | TL_VEC_LOCAL_TIMER)) {
				kc->ticks_told |= ev->b == 1;
				if (ev->b == 1 || !kc->ticks_told)
					c->timer = ev->ts;
			}
		}
		if (ev->type == TL_EV_WAKING && (t = get(kc, ev->tid, 0)))
			t->waking_ts = ev->ts;
		if (ev->type == TL_EV_WAKEUP || ev->type == TL_EV_WAKEUP_NEW)
			on_enqueue(kc, ev, get(kc, ev->tid, 0));
		break;
	case TL_EV_KSTAT: on_kstat(kc, ev, th); break;
	case TL_EV_LOST: kc->lost += ev->a > 0 ? (uint64_t)ev->a : 0; break;
	case TL_EV_KSTAT_CSW: on_csw(kc, ev); break;
	case TL_EV_FORK:
		/* a new thread: the kernel's counters start at zero now */
		if ((t = get(kc, ev->tid, 1)) && t->status == PENDING) {
			t->status = OPEN;
			t->born = 1;
			t->from = ev->ts;
			t->lost_from = kc->lost;
		}
		break;
	case TL_EV_EXIT:
		if ((t = get(kc, ev->tid, 0)) && t->status == OPEN && !t->exit_ts) {
			t->exit_ts = ev->ts;
			if (ev->lag) { /* its exit totals end that long before the EXIT (trace/event.h) */
				t->kd_run -= (int64_t)tl_event_lag_ns(ev);
				t->exit_dated = 1;
			}
			/* its run time in the exit totals is as of its switch-in or a tick since (kcheck.h) */
			if ((c = cpu_of(kc, ev->cpu)) && c->in_tid == ev->tid && ev->ts > c->switch_ts)
				t->lag_exit = ev->ts - c->switch_ts < TL_KCHECK_MAX_LAG_NS ? ev->ts - c->switch_ts
				                                                           : TL_KCHECK_MAX_LAG_NS;
			if (t->exit_early) { /* its exit totals, read before it, end here (as dated) */
				t->to = ev->ts;
				t->lost_to = kc->lost;
				t->status = CLOSED;
				t->exit_early = 0;
			}
		}
		break;
	case TL_EV_SWITCH: {
		/* looked up once: no insertion moves them before the next event */
		struct kth *next = get(kc, ev->arg, 0);

		t = get(kc, ev->tid, 0);
		switch_lag(kc, ev, t, next);
		if (ev->lag)
			switch_dated(kc, ev, t, next);
		if (next && next->status == OPEN && ev->ts >= next->from)
			next->ins++; /* a switch out of it may never be reported (docs/STATES.md) */
		if (!t || t->status != OPEN || ev->ts < t->from || (t->exit_ts && ev->ts > t->exit_ts))
			break;
		if (ev->a & (TL_PS_X | TL_PS_Z))
			break; /* the last switch of an exiting thread: after its exit totals */
		if ((ev->a & TL_PS_PREEMPT) || !(ev->a & ~TL_PS_PREEMPT)) {
			t->trace.invol++; /* preempted, or yielded (R): the kernel's nivcsw */
			t->post.invol += t->exit_early && ev->ts > t->exit_read_ts;
		} else {
			t->trace.vol++;
			t->post.vol += t->exit_early && ev->ts > t->exit_read_ts;
		}
		break;
	}
	default: break;
	}
}

/* Adds [s, e) of the interval to a side of the comparison. */
static void count(struct tl_kcheck_side *side, uint64_t *unknown, const struct tl_interval *iv, uint64_t s, uint64_t e)
{
	if (tl_state_is_oncpu(iv->state))
		side->run_ns += e - s;
	else if (tl_state_is_ready(iv->state))
		side->wait_ns += e - s;
	else if (iv->state == TL_ST_IO_WAIT)
		side->blkio_ns += e - s;
	else if (iv->state == TL_ST_UNKNOWN)
		*unknown += e - s;
}

void tl_kcheck_interval(struct tl_kcheck *kc, int32_t tid, const struct tl_interval *iv)
{
	struct kth *t;
	uint64_t s, e;

	/* only these are compared or allowed for: no lookup for the rest (sleeps are half of all intervals) */
	if (!tl_state_is_oncpu(iv->state) && !tl_state_is_ready(iv->state) && iv->state != TL_ST_IO_WAIT &&
	    iv->state != TL_ST_UNKNOWN) {
		if (iv->inferred_end && (t = get(kc, tid, 0)))
			t->inferred_at = iv->end; /* a sleep ended by a guessed switch-in */
		return;
	}
	t = get(kc, tid, 0);
	if (!t || t->status == PENDING)
		return;
	/* the stay and the wait this interval continues, or begins (at a guess when the last one ended at one) */
	if (tl_state_is_oncpu(iv->state) && t->run_to != iv->start) {
		t->run_from = iv->start;
		t->run_inferred = t->inferred_at == iv->start;
	} else if (tl_state_is_ready(iv->state) && t->wait_to != iv->start) {
		t->wait_from = iv->state == TL_ST_RUNNABLE && t->enq_ts > iv->start && t->enq_ts <= iv->end ? t->enq_ts
		                                                                                            : iv->start;
		t->wait_inferred = t->inferred_at == iv->start;
	}
	if (tl_state_is_oncpu(iv->state))
		t->run_to = iv->end;
	else if (tl_state_is_ready(iv->state))
		t->wait_to = iv->end;
	if (iv->inferred_end)
		t->inferred_at = iv->end;
	stale_settle(t, iv);
	s = iv->start > t->from ? iv->start : t->from;
	e = iv->end;
	if (t->status == CLOSED && e > t->to)
		e = t->to;
	if (t->exit_ts && e > t->exit_ts)
		e = t->exit_ts;
	/* the kernel's wait starts at the enqueue (WAKEUP), the trace's RUNNABLE at WAKING */
	if (iv->state == TL_ST_RUNNABLE && t->enq_ts >= s && t->enq_ts <= e) {
		s = t->enq_ts;
		t->kd_wait += (int64_t)t->enq_lag; /* dated by the kernel that much earlier */
		t->enq_lag = 0;
	}
	if (e <= s)
		return;
	/* a wait after a preemption on the way to sleep: in the trace's, not in the kernel's */
	if (t->unqueued && tl_state_is_ready(iv->state))
		t->kd_wait -= (int64_t)(e - s);
	count(&t->trace, &t->unknown_ns, iv, s, e);
	if (tl_state_is_oncpu(iv->state) && iv->cpu >= 0)
		t->cpus_used |= 1ull << (iv->cpu < 63 ? iv->cpu : 63);
	if (t->exit_early && e > t->exit_read_ts)
		count(&t->post, &t->post_unknown, iv, s > t->exit_read_ts ? s : t->exit_read_ts, e);
}

uint64_t tl_kcheck_time_tol(uint64_t window_ns)
{
	uint64_t pct = (uint64_t)((double)window_ns * TL_KCHECK_TOL_PCT / 100.0);

	return pct > TL_KCHECK_MIN_TOL_NS ? pct : TL_KCHECK_MIN_TOL_NS;
}

uint64_t tl_kcheck_count_tol(uint64_t kernel_count)
{
	uint64_t pct = (uint64_t)((double)kernel_count * TL_KCHECK_TOL_PCT / 100.0);

	return pct > 1 ? pct : 1;
}

static uint64_t delta(int64_t end, int64_t start)
{
	return end > start ? (uint64_t)(end - start) : 0;
}

static double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0;
}

static uint64_t absdiff(int64_t d)
{
	return d < 0 ? (uint64_t)-d : (uint64_t)d;
}

/*
 * A thread's difference d over its window win into the worst ones: *pct
 * counts only a difference over TL_KCHECK_MIN_TOL_NS (any window
 * tolerates less, and 0.4 ms of a 0.4 ms process read as "within 90%" of
 * the window where every thread agreed); *ns, when judged (the difference
 * the verdicts are on), takes every one.
 */
static void worst(double *pct_max, uint64_t *ns_max, int64_t d, uint64_t win, int judged)
{
	if (absdiff(d) > TL_KCHECK_MIN_TOL_NS && pct(absdiff(d), win) > *pct_max)
		*pct_max = pct(absdiff(d), win);
	if (judged && absdiff(d) > *ns_max)
		*ns_max = absdiff(d);
}

/* trace - kernel = d within [-below, above]. */
static int within(int64_t d, uint64_t above, uint64_t below)
{
	return d >= 0 ? (uint64_t)d <= above : (uint64_t)-d <= below;
}

/* One thread's comparison; 0 if it has no pair of readings. */
static int compare(const struct tl_kcheck *kc, const struct kth *t, struct tl_kcheck_thread *o,
                   struct tl_kcheck_result *r)
{
	struct reading zero = { 1, 1, 0, 0, 0, 0, 0 }, s = t->born ? zero : t->start;
	const struct reading *e = &t->end;
	uint64_t win, tol;
	int64_t run, wait;
	int judge_wait;

	if (t->status != CLOSED || (!t->born && !t->has_start) || !e->have_times || !s.have_times || e->run < 0 ||
	    s.run < 0 || t->to <= t->from)
		return 0;
	memset(o, 0, sizeof(*o));
	o->tid = t->tid;
	o->from = t->from;
	o->to = t->to;
	o->born = t->born;
	o->exited = t->exited;
	o->trace = t->trace;
	o->kernel.run_ns = delta(e->run, s.run);
	if (e->wait >= 0 && s.wait >= 0) {
		o->have |= TL_KCHECK_WAIT;
		o->kernel.wait_ns = delta(e->wait, s.wait);
	}
	/*
	 * A delay longer than the window is the kernel's, not ours: switching
	 * delay accounting on during a wait counts it from 0 (seen: 14778 s, the
	 * machine's uptime).  Then the reading says nothing.
	 */
	if (e->blkio >= 0 && s.blkio >= 0 && delta(e->blkio, s.blkio) <= t->to - t->from) {
		o->have |= TL_KCHECK_BLKIO;
		o->kernel.blkio_ns = delta(e->blkio, s.blkio);
	}
	if (e->have_csw && s.have_csw && e->vol >= 0 && s.vol >= 0) {
		o->have |= TL_KCHECK_SWITCHES;
		o->kernel.vol = delta(e->vol, s.vol);
		o->kernel.invol = delta(e->invol, s.invol);
	}
	win = t->to - t->from;
	tol = tl_kcheck_time_tol(win);
	o->lag_in_ns = t->lag_in;
	o->lag_out_ns = t->lag_out;
	o->lag_end_ns = t->lag_end;
	o->lag_sleep_ns = t->lag_sleep;
	o->lag_wake_ns = t->lag_wake;
	o->lag_exit_ns = t->lag_exit;
	o->steal_ns = steal_allowance(kc, t->cpus_used);
	o->unknown_ns = t->unknown_ns;
	o->run_diff = (int64_t)o->trace.run_ns - (int64_t)o->kernel.run_ns;
	if (o->have & TL_KCHECK_WAIT)
		o->wait_diff = (int64_t)o->trace.wait_ns - (int64_t)o->kernel.wait_ns;
	/* the kernel's readings as of their last update (stale_mark(), stale_settle()): judged as of their time */
	o->stale_run_ns = t->stale_run;
	o->wait_open = t->wait_open;
	judge_wait = (o->have & TL_KCHECK_WAIT) && !t->wait_open; /* run + wait holds the unknown part too */
	o->stale_wait_ns = (o->have & TL_KCHECK_WAIT) ? t->stale_wait : 0;
	run = o->run_diff - o->stale_run_ns;
	wait = o->wait_diff - o->stale_wait_ns;
	if (kc->lags) {
		/*
		 * Dated as the kernel dates (the recorded clock lags): nothing is
		 * allowed for but what no lag explains: stolen time, UNKNOWN time,
		 * and the run since the last update before an exit when the EXIT
		 * does not say it (a trace of format 1.6 before it did).
		 */
		uint64_t exit = t->exit_dated ? 0 : t->lag_exit;

		o->lags = 1;
		o->lag_run_ns = t->kd_run - o->stale_run_ns;
		o->lag_wait_ns = t->kd_wait - o->stale_wait_ns;
		run += t->kd_run; /* = run_diff + lag_run_ns */
		wait += t->kd_wait;
		o->ok = within(run, tol + exit + o->steal_ns, tol + t->unknown_ns);
		if (judge_wait) {
			o->ok &= within(wait, tol, tol + t->unknown_ns);
			o->ok &= within(run + wait, tol + exit + o->steal_ns, tol + t->unknown_ns);
		}
		/* within only thanks to what the trace does not know: the verdict says how many */
		o->allowed = o->ok && !(within(run, tol, tol) &&
		                        (!judge_wait || (within(wait, tol, tol) && within(run + wait, tol, tol))));
	} else {
		/*
		 * The kernel dates switch-ins early (lag_in, lag_out), sleeps
		 * early (lag_end, lag_sleep), enqueues by another CPU early
		 * (lag_wake), and leaves stolen time out (steal); what the trace
		 * says it does not know (UNKNOWN) may hide run or wait time, so
		 * the trace may show that much less.
		 */
		o->ok = within(run, tol + t->lag_out + t->lag_end + t->lag_sleep + t->lag_exit + o->steal_ns,
		               tol + t->lag_in + t->unknown_ns);
		if (judge_wait) {
			o->ok &= within(wait, tol + t->lag_in, tol + t->lag_out + t->lag_wake + t->unknown_ns);
			/* the sum depends only on where sleeps and enqueues are dated; stolen time is in the trace's only */
			o->ok &= within(run + wait, tol + o->steal_ns + t->lag_end + t->lag_sleep + t->lag_exit,
			                tol + t->lag_wake + t->unknown_ns);
		}
	}
	worst(&r->max_run_pct, &r->max_run_ns, o->run_diff, win, !kc->lags);
	worst(&r->max_run_dated_pct, &r->max_run_ns, o->run_diff + o->lag_run_ns, win, kc->lags);
	if (judge_wait) {
		worst(&r->max_wait_pct, &r->max_wait_ns, o->wait_diff, win, !kc->lags);
		worst(&r->max_wait_dated_pct, &r->max_wait_ns, o->wait_diff + o->lag_wait_ns, win, kc->lags);
		r->have_wait = 1;
	}
	if (o->have & TL_KCHECK_SWITCHES) {
		o->vol_diff = (int64_t)o->trace.vol - (int64_t)o->kernel.vol;
		o->invol_diff = (int64_t)o->trace.invol - (int64_t)o->kernel.invol;
		/* events lost while it was UNKNOWN may have been its switches: the trace may count that many fewer */
		o->lost_events = t->unknown_ns ? t->lost_to - t->lost_from : 0;
		/*
		 * Switched in more often than out: switches out of it were not
		 * reported (docs/STATES.md), and whole stays may be missing with
		 * them (seen: 1 switch in, 3 out by the kernel's count).  Its counts
		 * are shown, not judged; its times still are.
		 */
		o->unseen_switches =
		        t->ins > o->trace.vol + o->trace.invol ? t->ins - o->trace.vol - o->trace.invol : 0;
		if (!o->unseen_switches) {
			o->ok &= within(o->vol_diff, tl_kcheck_count_tol(o->kernel.vol),
			                tl_kcheck_count_tol(o->kernel.vol) + o->lost_events) &&
			         within(o->invol_diff, tl_kcheck_count_tol(o->kernel.invol),
			                tl_kcheck_count_tol(o->kernel.invol) + o->lost_events);
			if (pct(absdiff(o->vol_diff), o->kernel.vol) > r->max_switch_pct)
				r->max_switch_pct = pct(absdiff(o->vol_diff), o->kernel.vol);
			if (pct(absdiff(o->invol_diff), o->kernel.invol) > r->max_switch_pct)
				r->max_switch_pct = pct(absdiff(o->invol_diff), o->kernel.invol);
		}
	}
	return 1;
}

static int cmp_tid(const void *x, const void *y)
{
	const struct tl_kcheck_thread *a = x, *b = y;

	return (a->tid > b->tid) - (a->tid < b->tid);
}

int tl_kcheck_finish(struct tl_kcheck *kc, struct tl_kcheck_result *r)
{
	size_t pos = 0, cap = 0;
	struct kth *t;

	memset(r, 0, sizeof(*r));
	if (kc->oom)
		return tl_error("out of memory in the self-check");
	r->lags = kc->lags;
	while ((t = tl_tidmap_next(&kc->m, &pos))) {
		int had_reading;

		if (t->exit_early)
			close_early(t);
		had_reading = t->has_start || t->status == CLOSED;

		if (TL_GROW(r->threads, cap, r->nthreads + 1) < 0) {
			tl_kcheck_release(r);
			return -1;
		}
		if (compare(kc, t, &r->threads[r->nthreads], r)) {
			r->bad += !r->threads[r->nthreads].ok;
			r->allowed += r->threads[r->nthreads].allowed;
			r->nthreads++;
		} else if (had_reading) {
			r->unchecked++;
		}
	}
	if (r->nthreads)
		qsort(r->threads, r->nthreads, sizeof(*r->threads), cmp_tid);
	return 0;
}

void tl_kcheck_release(struct tl_kcheck_result *r)
{
	free(r->threads);
	memset(r, 0, sizeof(*r));
}
