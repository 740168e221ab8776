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
 * The records are in kcheck_int.h; the verdict on each, kcheck_compare.c.
 */
#include "analysis/kcheck/kcheck.h"
#include "analysis/kcheck/kcheck_int.h"

#include <stdlib.h>
#include <string.h>

#include "base/errors.h"
#include "base/grow.h"
#include "timeline/states.h"

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
	tl_taken_free(&kc->tk);
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

/* The CPU's last update of its task's run time: its last tick or reschedule IPI, 0 none. */
static uint64_t cpu_update(const struct cpu_marks *c)
{
	return c->timer > c->resched ? c->timer : c->resched;
}

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
 * this says, never newer).  A reschedule IPI updates it too: schedule()
 * runs on its return and charges the task on the CPU, then may pick it
 * again, and no SWITCH says so (a spinner's start reading was 1.56 ms
 * younger than its switch-in said: the self-check 1.58 ms off, failing).
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
	uint64_t upd = c ? cpu_update(c) : 0;
	uint64_t alt = upd && ev->ts - upd < TL_KSTAT_READ_SPAN_NS ? c->prev_upd : upd;

	t->mark[k] = (struct stale_mark){ ev->ts, upd, alt, c ? th->cpu : -1, 1 };
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
		if (tl_state_is_oncpu(iv->state) && !t->run_inferred) {
			/*
			 * Neither a switch-in nor a tick of its CPU before the reading
			 * in the trace (on since before it; the recorder reading its
			 * own counters 3 ms in, run 3.4 ms short of the kernel's): the
			 * update is at most a tick period old, how old is not known.
			 */
			upd = iv->cpu == m->cpu ? (m->tick > t->run_from ? m->tick : t->run_from) : 0;
			if (upd && m->at > upd)
				t->stale_run += sign * (int64_t)(m->at - upd);
			else if (!upd)
				t->stale_open[k] = 1;
			/*
			 * The update came while the reading was under way: the
			 * numbers may be as of the one before (a spinner's end
			 * reading 34 us after a tick held the tick before: the
			 * kernel's delta 4 ms short, the check failing).
			 */
			if (upd && m->alt < m->tick && m->tick > t->run_from)
				t->stale_span[k] = m->tick - (m->alt > t->run_from ? m->alt : t->run_from);
		} else if (tl_state_is_ready(iv->state) && !t->wait_inferred && m->at > t->wait_from) {
			t->stale_wait += sign * (int64_t)(m->at - t->wait_from);
		}
	}
}

/* Its window ends at `to`, with `lost` events lost by then. */
static void close_at(struct kth *t, uint64_t to, uint64_t lost)
{
	t->to = to;
	t->lost_to = lost;
	t->status = CLOSED;
	t->exit_early = 0;
}

/*
 * Exit totals read before an EXIT that did not come: the window ends at
 * the reading.  The EXIT was lost (or came after the trace), and with it
 * when the kernel last updated the thread's run time: when its last stay
 * ended at the gap, its run since that stay's last update is allowed for
 * as an EXIT's would be (lag_exit).  Seen in a lossy trace: a seq switched
 * in at 6.51 ms, no tick on its CPU until the gap at 7.62 ms, ran 1.08 ms
 * the kernel's exit totals did not have (1.235 ms against 0.140 ms).
 */
static void close_early(struct kth *t)
{
	t->lag_exit = t->gap_run < TL_KCHECK_MAX_LAG_NS ? t->gap_run : TL_KCHECK_MAX_LAG_NS;
	t->trace.run_ns -= t->post.run_ns;
	t->trace.wait_ns -= t->post.wait_ns;
	t->trace.blkio_ns -= t->post.blkio_ns;
	t->trace.vol -= t->post.vol;
	t->trace.invol -= t->post.invol;
	t->unknown_ns -= t->post_unknown;
	close_at(t, t->exit_read_ts, t->exit_read_lost);
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
		if (t->status == PENDING)
			t->from = ev->ts; /* nothing to compare from: finish() counts it unchecked */
		else if (!t->exited)
			stale_mark(kc, t, ev, th, 1); /* exit totals: the EXIT's lag, or lag_exit */
		close_at(t, t->exited && t->exit_ts ? t->exit_ts : ev->ts, kc->lost);
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
 * CLOCK_TAKEN (format 1.15): the CPU's run queue has taken ev->a out of
 * its tasks' clock so far, as of the clock update of the switch or tick
 * that ends or interrupts the stay of ev->tid.  What it grew by since that
 * thread's switch-in (or its stay's last one) is what the kernel left out
 * of its run time: counted while its window is open.
 */
static void on_taken(struct tl_kcheck *kc, const struct tl_event *ev, enum tl_taken_grew g, uint64_t ns)
{
	struct kth *t = get(kc, ev->tid, 0);

	if (!t || g == TL_TAKEN_NONE)
		return;
	if (t->status == OPEN && ev->ts >= t->from && !(t->exit_ts && ev->ts > t->exit_ts)) {
		if (g == TL_TAKEN_BROKEN)
			t->taken_late = 2;
		else if (g == TL_TAKEN_UNKNOWN)
			t->taken_late = t->taken_late ? t->taken_late : 1;
		else
			t->taken_ns += ns;
	}
}

/* A tick (or local timer) of CPU c at ts: the shortest gap between two is the tick period, or less. */
static void tick_gap(struct tl_kcheck *kc, const struct cpu_marks *c, uint64_t ts)
{
	uint64_t gap = c->timer && ts > c->timer ? ts - c->timer : 0;

	if (gap >= TL_KCHECK_MIN_TICK_NS && (!kc->tick_gap || gap < kc->tick_gap))
		kc->tick_gap = gap < TL_KCHECK_MAX_TICK_NS ? gap : TL_KCHECK_MAX_TICK_NS;
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
	uint64_t taken_ns;
	enum tl_taken_grew taken = tl_taken_event(&kc->tk, ev, &taken_ns);

	kc->oom |= kc->tk.oom;
	switch (ev->type) {
	case TL_EV_KSTAT_CPU: on_cpu_steal(kc, ev); break;
	case TL_EV_CLOCK_TAKEN: on_taken(kc, ev, taken, taken_ns); break;
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
				if (ev->b == 1 || !kc->ticks_told) {
					tick_gap(kc, c, ev->ts);
					c->prev_upd = cpu_update(c);
					c->timer = ev->ts;
				}
			} else if (ev->type == TL_EV_IRQ_EXIT &&
			           tl_irq_source(ev) == (TL_IRQ_VECTOR | TL_VEC_RESCHEDULE)) {
				c->prev_upd = cpu_update(c);
				c->resched = ev->ts;
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
				if (ev->b > 0) { /* 1.12: or earlier, by its run total then (kcheck_int.h) */
					t->exit_sum = ev->b + (int64_t)tl_event_lag_ns(ev);
					t->exit_lag_ns = tl_event_lag_ns(ev);
				}
			}
			/* its run time in the exit totals is as of its switch-in or a tick since (kcheck.h) */
			if ((c = cpu_of(kc, ev->cpu)) && c->in_tid == ev->tid && ev->ts > c->switch_ts)
				t->lag_exit = ev->ts - c->switch_ts < TL_KCHECK_MAX_LAG_NS ? ev->ts - c->switch_ts
				                                                           : TL_KCHECK_MAX_LAG_NS;
			if (t->exit_early) /* its exit totals, read before it, end here (as dated) */
				close_at(t, ev->ts, kc->lost);
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

/* The last clock update of t's stay on iv's CPU, by iv's end: its start, or a tick or IPI since. */
static uint64_t last_update(struct tl_kcheck *kc, const struct kth *t, const struct tl_interval *iv)
{
	const struct cpu_marks *c = cpu_of(kc, iv->cpu);
	uint64_t upd = t->run_from, mark = c ? cpu_update(c) : 0;

	return mark > upd && mark <= iv->end ? mark : upd;
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
	/*
	 * Followed from its first stay or wait, before its start reading too:
	 * a wait in progress at the reading began where the first of its
	 * intervals did (the recorder preempting it, then another task
	 * holding the CPU: two intervals, and the kernel adds the whole wait
	 * to run_delay at the switch-in; taken from the second, the check was
	 * 2.4 ms off on a spinner recorded with -p).
	 */
	t = get(kc, tid, tl_state_is_oncpu(iv->state) || tl_state_is_ready(iv->state));
	if (!t)
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
	if (tl_state_is_oncpu(iv->state)) {
		t->run_to = iv->end;
		t->gap_run = iv->next == TL_ST_UNKNOWN ? iv->end - last_update(kc, t, iv) : 0;
	} else if (tl_state_is_ready(iv->state))
		t->wait_to = iv->end;
	if (iv->inferred_end)
		t->inferred_at = iv->end;
	if (t->status == PENDING)
		return; /* nothing to compare from yet */
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
	r->taken = kc->tk.seen;
	while ((t = tl_tidmap_next(&kc->m, &pos))) {
		int had_reading;

		if (t->exit_early)
			close_early(t);
		had_reading = t->has_start || t->status == CLOSED;

		if (TL_GROW(r->threads, cap, r->nthreads + 1) < 0) {
			tl_kcheck_release(r);
			return -1;
		}
		if (tl_kcheck_compare(kc, t, &r->threads[r->nthreads], r)) {
			r->bad += !r->threads[r->nthreads].ok;
			r->allowed += r->threads[r->nthreads].allowed;
			r->taken_ns += r->threads[r->nthreads].taken_ns;
			r->run_ns += r->threads[r->nthreads].trace.run_ns;
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
