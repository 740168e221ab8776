/*
 * state_machine.c - the thread-state machine (see state_machine.h and docs/STATES.md).
 *
 * Invariants:
 *  - every live thread has exactly one open interval (state, state_since);
 *    intervals of a thread are emitted gapless from `born` to its end;
 *  - every CPU has one open activity interval (idle, a thread, an IRQ,
 *    a softirq or unknown) since `since`;
 *  - nothing is kept per event: a thread's open interval and a few
 *    pending facts (an early wakeup, a futex wait in progress, block I/O
 *    issued during the current run) are all the history there is.
 *
 * Evidence that contradicts the model (a thread switched in while it was
 * asleep, a switch-out of a thread that was not running) happens after lost
 * events or with cross-CPU clock skew.  The machine then believes the newest
 * event, closes the old interval at the best known instant and counts an
 * anomaly; it never stops.
 */
#include "timeline/state_machine.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/errors.h"
#include "base/tidmap.h"

#define DEFAULT_PREEMPT_WINDOW_NS 1000000ull
/*
 * A switch this soon after sched_yield returned happened on the syscall's
 * way back to user space (exit_to_user_mode), so it is still the yield.
 */
#define YIELD_RETURN_NS 50000ull

struct thread {
	struct tl_thread pub;
	uint64_t run_since;    /* last switch-in (for "woken during this run") */
	uint64_t wake_ts;      /* when the current RUNNABLE began */
	int32_t by;            /* `by` for the open interval */
	uint64_t pend_wake_ts; /* a sched_waking seen while it was still on a CPU */
	int32_t pend_waker;
	uint8_t pend_wake;
	uint8_t in_futex_wait;  /* between sys_enter_futex (a wait op) and its exit */
	uint8_t in_yield;       /* between sys_enter_sched_yield and its exit */
	uint64_t yield_exit_ts; /* when sched_yield last returned, 0 if not since the last switch */
	uint8_t io_issued;      /* submitted block I/O during the current run */
	uint8_t evidence;       /* some event said what it was doing */
	uint8_t snap_io;        /* snapshot: wchan said block I/O */
	uint64_t marked_at;     /* first user marker since state_since while off a CPU: it ran then */
	/* membership in its CPU's list of READY_PREEMPT threads (pq_cpu -1: not listed) */
	struct thread *pq_next, *pq_prev;
	int16_t pq_cpu;
};

struct cpu {
	int32_t cur;   /* tid on the CPU; 0 idle; -1 unknown */
	uint16_t what; /* enum tl_cpu_activity of the open interval */
	int32_t irq;   /* for IRQ/SOFTIRQ intervals */
	uint64_t since;
	int irq_depth; /* nested hardirqs */
	int softirq_depth;
	uint64_t last_ts;         /* last event on this CPU */
	uint8_t after_lost;       /* the occupant is unknown because events were lost (not because the trace began) */
	struct thread *preempted; /* threads waiting here in READY_PREEMPT */
};

struct tl_sched {
	struct tl_sched_opts o;
	struct tl_sched_counters n;
	struct tl_tidmap live;     /* tid -> struct live */
	struct thread *recent[64]; /* direct-mapped cache of lookups (tid & 63): most events name a recent thread */
	struct cpu *cpus;
	int ncpus;
	uint32_t next_serial;
	uint64_t now;
};

/* ---- thread table: tid -> live thread ---- */

struct live {
	int32_t tid; /* the tidmap key */
	struct thread *t;
};

struct tl_thread *tl_sched_thread(struct tl_sched *s, int32_t tid)
{
	struct thread **c = &s->recent[tid & 63];
	struct live *l;

	if (*c && (*c)->pub.tid == tid)
		return &(*c)->pub;
	l = tl_tidmap_get(&s->live, tid);
	if (!l)
		return NULL;
	*c = l->t;
	return &l->t->pub;
}

static int table_insert(struct tl_sched *s, struct thread *t)
{
	struct live *l = tl_tidmap_put(&s->live, t->pub.tid, NULL);

	if (!l)
		return -1;
	l->t = t;
	return 0;
}

static void table_remove(struct tl_sched *s, int32_t tid)
{
	s->recent[tid & 63] = NULL;
	tl_tidmap_remove(&s->live, tid);
}

/* ---- the per-CPU lists of preempted threads ---- */

static void pq_remove(struct tl_sched *s, struct thread *t)
{
	if (t->pq_cpu < 0)
		return;
	if (t->pq_prev)
		t->pq_prev->pq_next = t->pq_next;
	else
		s->cpus[t->pq_cpu].preempted = t->pq_next;
	if (t->pq_next)
		t->pq_next->pq_prev = t->pq_prev;
	t->pq_next = t->pq_prev = NULL;
	t->pq_cpu = -1;
}

static void pq_add(struct tl_sched *s, struct thread *t, int c)
{
	if (c < 0 || c >= s->ncpus)
		return;
	t->pq_cpu = (int16_t)c;
	t->pq_prev = NULL;
	t->pq_next = s->cpus[c].preempted;
	if (t->pq_next)
		t->pq_next->pq_prev = t;
	s->cpus[c].preempted = t;
}

/* ---- intervals ---- */

/* Close the thread's open interval at `at` and open `state`.  `by` goes with the closing interval. */
static void set_state(struct tl_sched *s, struct thread *t, unsigned state, uint64_t at, int32_t by_closing)
{
	struct tl_interval iv;

	if (at < t->pub.state_since)
		at = t->pub.state_since; /* clock skew across CPUs: never emit negative time */
	iv.start = t->pub.state_since;
	iv.end = at;
	iv.state = t->pub.state;
	iv.cpu = (tl_state_is_oncpu(t->pub.state) || tl_state_is_ready(t->pub.state)) ? t->pub.cpu : -1;
	iv.by = by_closing;
	iv.next = (uint16_t)state;
	/* a zero-length interval still is a transition worth counting, unless it says nothing */
	if (s->o.on_interval && (iv.end > iv.start || (iv.state != state && iv.state != TL_ST_UNKNOWN)))
		s->o.on_interval(s->o.ctx, &t->pub, &iv);
	if (t->pub.state == TL_ST_READY_PREEMPT)
		pq_remove(s, t);
	if (iv.state < TL_ST__COUNT)
		t->pub.state_total[iv.state] += iv.end - iv.start;
	t->pub.state = (uint16_t)state;
	t->pub.state_since = at;
	t->by = 0;
	if (state == TL_ST_READY_PREEMPT)
		pq_add(s, t, t->pub.cpu);
}

static void cpu_set(struct tl_sched *s, int c, unsigned what, int32_t tid, int32_t irq, uint64_t at)
{
	struct cpu *cpu = &s->cpus[c];
	struct tl_cpu_interval iv;

	if (at < cpu->since)
		at = cpu->since;
	if (s->o.on_cpu_interval && at > cpu->since) {
		struct tl_thread *t = cpu->cur > 0 ? tl_sched_thread(s, cpu->cur) : NULL;
		iv.start = cpu->since;
		iv.end = at;
		iv.cpu = (int16_t)c;
		iv.what = cpu->what;
		iv.tid = cpu->cur < 0 ? 0 : cpu->cur;
		iv.tgid = t ? t->tgid : 0;
		iv.irq = cpu->irq;
		s->o.on_cpu_interval(s->o.ctx, &iv);
	}
	cpu->what = (uint16_t)what;
	cpu->cur = tid;
	cpu->irq = irq;
	cpu->since = at;
}

/* What the CPU shows when no IRQ is running on it. */
static unsigned cpu_base_activity(int32_t cur)
{
	return cur < 0 ? TL_CPU_UNKNOWN : cur == 0 ? TL_CPU_IDLE : TL_CPU_THREAD;
}

/* ---- thread life ---- */

static struct thread *thread_new(struct tl_sched *s, int32_t tid, uint64_t born, unsigned state)
{
	struct thread *t = calloc(1, sizeof(*t));

	if (!t) {
		tl_error("out of memory for thread %d", tid);
		return NULL;
	}
	t->pub.tid = tid;
	t->pub.serial = s->next_serial++;
	t->pub.born = born;
	t->pub.state = (uint16_t)state;
	t->pub.state_since = born;
	t->pub.cpu = -1;
	t->pub.prio = -1;
	t->pq_cpu = -1;
	if (table_insert(s, t) < 0) {
		free(t);
		return NULL;
	}
	return t;
}

/* End a thread's life at `at`: close its interval, tell the callbacks, forget it. */
static void thread_end(struct tl_sched *s, struct thread *t, uint64_t at)
{
	if (t->pub.state == TL_ST_BLOCKED && (t->io_issued || t->snap_io))
		t->pub.state = TL_ST_IO_WAIT;
	set_state(s, t, TL_ST__COUNT, at, t->by);
	t->pub.died = at < t->pub.born ? t->pub.born : at;
	if (s->o.on_thread_end)
		s->o.on_thread_end(s->o.ctx, &t->pub);
	pq_remove(s, t);
	table_remove(s, t->pub.tid);
	free(t);
}

/*
 * The thread an event is about.  A tid we have not seen existed before the
 * trace (or its creation was lost): it lives from the trace start in UNKNOWN.
 */
static struct thread *thread_get(struct tl_sched *s, int32_t tid)
{
	struct tl_thread *p;

	if (tid <= 0)
		return NULL;
	p = tl_sched_thread(s, tid);
	if (p)
		return (struct thread *)p;
	return thread_new(s, tid, s->o.start_ns, TL_ST_UNKNOWN);
}

/* ---- event handlers ---- */

static void wake(struct tl_sched *s, struct thread *t, int32_t waker, uint64_t at);

/*
 * The state a thread enters when it leaves the CPU with kernel state `ps`.
 * See docs/STATES.md for the rules and the reasons.
 */
static unsigned state_after_switch(struct tl_sched *s, struct thread *prev, struct thread *next, int64_t ps,
                                   int next_prio, uint64_t at)
{
	/*
	 * After sched_process_exit a task still runs its exit path and may sleep
	 * in it (S or D); only its last switch, as X or Z, makes it a zombie.
	 */
	if (ps & (TL_PS_X | TL_PS_Z))
		return TL_ST_ZOMBIE;
	if (ps & (TL_PS_T | TL_PS_TRACED))
		return TL_ST_STOPPED;
	if (ps & TL_PS_PREEMPT || ps == TL_PS_RUNNING) {
		/*
		 * Still runnable.  The kernel's "+" only marks preemption inside the
		 * kernel: a task preempted in user space (the common case) shows a
		 * plain R, like one that yields.  So a yield is told by the syscall.
		 */
		if (prev->in_yield || (prev->yield_exit_ts && at - prev->yield_exit_ts <= YIELD_RETURN_NS))
			return TL_ST_READY_YIELD;
		/* Preempted: by a task woken during our run that got the CPU at once, or by a more urgent one. */
		if (next && next->pub.state == TL_ST_RUNNABLE && next->wake_ts >= prev->run_since &&
		    at - next->wake_ts <= s->o.preempt_window_ns)
			return TL_ST_READY_PREEMPT;
		if (next && prev->pub.prio >= 0 && next_prio >= 0 && next_prio < prev->pub.prio)
			return TL_ST_READY_PREEMPT;
		return TL_ST_READY_QUANTUM;
	}
	if (prev->in_futex_wait)
		return TL_ST_SYNC_WAIT;
	if (ps & (TL_PS_I | TL_PS_P))
		return TL_ST_SLEEPING; /* idle or parked kernel threads: not a load */
	if (ps & TL_PS_D)
		return TL_ST_BLOCKED; /* may become IO_WAIT when it ends: see wake() */
	return TL_ST_SLEEPING;
}

/* A thread leaves CPU c at `at`. */
static void switch_out(struct tl_sched *s, struct thread *prev, struct thread *next, const struct tl_event *ev)
{
	struct cpu *cpu = &s->cpus[ev->cpu];
	unsigned st;

	if (!tl_state_is_oncpu(prev->pub.state)) {
		/*
		 * We did not see it come in.  If the CPU's occupant was unknown since the
		 * trace began, it has run here since then (a CPU runs one task at a time).
		 * After lost events we cannot tell: the gap stays UNKNOWN.
		 */
		uint64_t since = cpu->cur == prev->pub.tid && !cpu->after_lost ? cpu->since : ev->ts;
		if (since < prev->pub.state_since)
			since = prev->pub.state_since;
		set_state(s, prev, TL_ST_EXECUTING, since, 0);
		prev->pub.cpu = ev->cpu;
		prev->run_since = since;
	}
	if (prev->pub.state == TL_ST_INTERRUPTED)
		set_state(s, prev, TL_ST_EXECUTING, ev->ts, 0);
	prev->pub.prio = (int)ev->b;
	st = state_after_switch(s, prev, next, ev->a, (int)ev->c, ev->ts);
	if (tl_state_is_asleep(st) && prev->pend_wake) {
		/* woken while on its way out: it never really slept (see docs/STATES.md) */
		set_state(s, prev, TL_ST_RUNNABLE, ev->ts, 0);
		prev->wake_ts = ev->ts;
		prev->by = prev->pend_waker;
		s->n.late_wakeups++;
	} else {
		set_state(s, prev, st, ev->ts, 0);
		if (st == TL_ST_READY_PREEMPT || st == TL_ST_READY_QUANTUM)
			prev->by = next ? next->pub.tid : 0;
	}
	prev->pend_wake = 0;
	prev->yield_exit_ts = 0;
	prev->evidence = 1;
}

static void switch_in(struct tl_sched *s, struct thread *next, const struct tl_event *ev)
{
	if (tl_state_is_oncpu(next->pub.state)) {
		/* still running elsewhere in our model: its switch-out was lost */
		int c = next->pub.cpu;
		s->n.anomalies++;
		if (c >= 0 && c < s->ncpus && s->cpus[c].cur == next->pub.tid)
			cpu_set(s, c, TL_CPU_UNKNOWN, -1, 0, ev->ts);
		set_state(s, next, TL_ST_UNKNOWN, ev->ts, 0);
	} else if (tl_state_is_asleep(next->pub.state)) {
		/* its wakeup was not reported (see reveal()): it ends at the switch-in */
		s->n.inferred_wakeups++;
	} else if (next->pub.state == TL_ST_NEW || next->pub.state == TL_ST_ZOMBIE) {
		s->n.anomalies++;
	}
	set_state(s, next, TL_ST_EXECUTING, ev->ts, next->by);
	next->pub.cpu = ev->cpu;
	next->run_since = ev->ts;
	next->io_issued = 0;
	next->pend_wake = 0;
	next->evidence = 1;
	next->pub.prio = (int)ev->c;
}

/*
 * An event on CPU c shows task `tid` as the current task at ev->ts, but the
 * model has another task (or the idle task) there: the kernel did not report
 * the switch.  Some kernels drop the events whose current task is the idle
 * task or a hidden one (seen on a 6.18 VM: sched_switch out of idle, and
 * everything while a sandbox agent runs), so this is not data loss on our
 * side, and it is repaired rather than counted as a contradiction.
 *
 * The task is put on the CPU at the best estimate of its switch-in: `runtime`
 * (from sched_stat_runtime, the time it ran since its last accounting
 * update) dates the first update after a switch-in exactly; otherwise a task
 * that was waiting for a CPU got it when it was woken (it was the reason for
 * the switch); otherwise (its wakeup was not reported either) at ev->ts.  The
 * task that was believed on the CPU left it unseen, so it is UNKNOWN from then.
 */
static void reveal(struct tl_sched *s, int c, int32_t tid, uint64_t runtime, const struct tl_event *ev)
{
	struct cpu *cpu = &s->cpus[c];
	struct thread *t;
	uint64_t at;

	if (tid <= 0 || cpu->cur == tid || cpu->cur < 0 || cpu->irq_depth || cpu->softirq_depth)
		return; /* known, or the occupant is unknown anyway (trace start, lost events) */
	t = thread_get(s, tid);
	if (!t || tl_state_is_oncpu(t->pub.state) || t->pub.state == TL_ST_NEW)
		return;
	if (runtime && runtime <= ev->ts - cpu->since)
		at = ev->ts - runtime;
	else if (tl_state_is_ready(t->pub.state))
		at = t->pub.state_since > cpu->since ? t->pub.state_since : cpu->since;
	else if (t->marked_at >= t->pub.state_since && t->marked_at && t->marked_at < ev->ts)
		at = t->marked_at; /* its own marker shows it running already */
	else
		at = ev->ts;
	if (at < t->pub.state_since)
		at = t->pub.state_since;
	if (at < cpu->since)
		at = cpu->since;
	if (cpu->cur > 0) {
		struct tl_thread *was = tl_sched_thread(s, cpu->cur);
		if (was && tl_state_is_oncpu(was->state) && was->cpu == c)
			set_state(s, (struct thread *)was, TL_ST_UNKNOWN, at, 0);
	}
	if (tl_state_is_asleep(t->pub.state) || t->pub.state == TL_ST_UNKNOWN) {
		wake(s, t, 0, at);
		s->n.inferred_wakeups++;
	}
	set_state(s, t, TL_ST_EXECUTING, at, t->by);
	t->pub.cpu = (int16_t)c;
	t->run_since = at;
	t->io_issued = 0;
	t->pend_wake = 0;
	t->evidence = 1;
	cpu_set(s, c, TL_CPU_THREAD, tid, 0, at);
	s->n.inferred_switches++;
}

/*
 * A thread stays READY_PREEMPT while preempting tasks (freshly woken ones, or
 * more urgent ones) hold the CPU it waits on.  When the CPU goes to a task
 * that is neither, the preemption is over and the thread just waits for its
 * turn: READY_QUANTUM from then on.
 */
static void end_preemptions(struct tl_sched *s, int c, struct thread *next, int next_fresh, int next_prio, uint64_t at)
{
	struct thread *t = s->cpus[c].preempted, *n;

	if (!next)
		return; /* the CPU went idle: whoever waits here will be picked next */
	for (; t; t = n) {
		n = t->pq_next;
		if (t == next || next_fresh || (t->pub.prio >= 0 && next_prio >= 0 && next_prio < t->pub.prio))
			continue;
		set_state(s, t, TL_ST_READY_QUANTUM, at, t->by);
		t->by = next->pub.tid;
	}
}

static void on_switch(struct tl_sched *s, const struct tl_event *ev)
{
	struct cpu *cpu = &s->cpus[ev->cpu];
	int fresh;
	struct thread *prev = thread_get(s, ev->tid);
	struct thread *next = thread_get(s, ev->arg);

	if ((ev->tid > 0 && !prev) || (ev->arg > 0 && !next))
		return; /* out of memory: already reported through tl_error */
	reveal(s, ev->cpu, ev->tid, 0, ev);
	if (cpu->cur >= 0 && cpu->cur != ev->tid) {
		/*
		 * The CPU's occupant changed unseen.  A switch out of idle means the
		 * occupant's own switch to idle was not reported (see reveal()); any
		 * other case contradicts the model.
		 */
		struct tl_thread *was = cpu->cur ? tl_sched_thread(s, cpu->cur) : NULL;
		if (ev->tid == 0)
			s->n.inferred_switches++;
		else
			s->n.anomalies++;
		if (was && tl_state_is_oncpu(was->state) && was->cpu == ev->cpu)
			set_state(s, (struct thread *)was, TL_ST_UNKNOWN, cpu->last_ts, 0);
		if (ev->tid == 0)
			cpu_set(s, ev->cpu, TL_CPU_IDLE, 0, 0, cpu->last_ts);
	}
	if (cpu->cur < 0 && cpu->what == TL_CPU_UNKNOWN && !cpu->after_lost && ev->tid >= 0) {
		/* the first switch on this CPU names who ran since the trace began */
		cpu->cur = ev->tid;
		cpu->what = (uint16_t)cpu_base_activity(ev->tid);
	}
	if (cpu->irq_depth || cpu->softirq_depth) {
		/* no switch happens inside an interrupt; our IRQ bookkeeping lost an exit */
		s->n.anomalies++;
		cpu->irq_depth = cpu->softirq_depth = 0;
	}
	fresh = next && next->pub.state == TL_ST_RUNNABLE && ev->ts - next->wake_ts <= s->o.preempt_window_ns;
	if (prev)
		switch_out(s, prev, next, ev);
	if (next)
		switch_in(s, next, ev);
	cpu_set(s, ev->cpu, cpu_base_activity(ev->arg), ev->arg, 0, ev->ts);
	cpu->after_lost = 0;
	end_preemptions(s, ev->cpu, next, fresh, (int)ev->c, ev->ts);
}

/* A sleeping thread is woken at `at` by `waker` (-1: interrupt context). */
static void wake(struct tl_sched *s, struct thread *t, int32_t waker, uint64_t at)
{
	if (t->pub.state == TL_ST_BLOCKED && (t->io_issued || t->snap_io || waker == -1))
		t->pub.state = TL_ST_IO_WAIT; /* the D sleep was an I/O wait: reclassify before closing */
	set_state(s, t, TL_ST_RUNNABLE, at, waker);
	t->wake_ts = at;
	t->by = waker;
	t->io_issued = 0;
	t->snap_io = 0;
	t->evidence = 1;
}

static void on_wakeup(struct tl_sched *s, const struct tl_event *ev)
{
	struct thread *t = thread_get(s, ev->tid);
	int32_t waker = (ev->flags & (TL_EVF_HARDIRQ | TL_EVF_SOFTIRQ | TL_EVF_NMI)) ? -1 : ev->arg;
	unsigned st;

	if (!t)
		return;
	st = t->pub.state;
	if (ev->b >= 0)
		t->pub.prio = (int)ev->b;
	if (ev->a >= 0 && ev->a < s->ncpus && !tl_state_is_oncpu(st) && !tl_state_is_ready(st))
		t->pub.cpu = (int16_t)ev->a; /* the CPU whose queue it will wait on */
	if (tl_state_is_oncpu(st)) {
		/*
		 * sched_waking while still on a CPU: either it is about to switch out
		 * (the switch will show S or D and must not count as sleep), or the
		 * wakeup completes at once (sched_wakeup while running cancels it).
		 */
		if (ev->type == TL_EV_WAKING) {
			t->pend_wake = 1;
			t->pend_wake_ts = ev->ts;
			t->pend_waker = waker;
		} else {
			t->pend_wake = 0;
		}
		return;
	}
	if (st == TL_ST_NEW) {
		wake(s, t, waker, ev->ts);
		return;
	}
	if (tl_state_is_asleep(st) || st == TL_ST_UNKNOWN) {
		wake(s, t, waker, ev->ts);
	}
	/* already runnable (sched_wakeup after sched_waking) or a zombie: nothing to do */
}

static void on_fork(struct tl_sched *s, const struct tl_event *ev, const char *name)
{
	/* the parent first: a damaged trace may name the child as its own parent */
	struct thread *parent = thread_get(s, ev->arg);
	struct tl_thread *p = tl_sched_thread(s, ev->tid);
	struct thread *t = (struct thread *)p;

	if (t && !t->evidence && !t->pub.snapshot) {
		/* only its identity was known (the recorder names a child just before its fork) */
		t->pub.born = ev->ts;
		t->pub.state = TL_ST_NEW;
		t->pub.state_since = ev->ts;
	} else {
		if (t) {
			/* the tid is reused: the old thread's reaping was not seen */
			if (t->pub.state != TL_ST_ZOMBIE)
				s->n.anomalies++;
			if (parent == t)
				parent = NULL;
			thread_end(s, t, ev->ts);
		}
		t = thread_new(s, ev->tid, ev->ts, TL_ST_NEW);
		if (!t)
			return;
	}
	t->evidence = 1;
	t->pub.parent = ev->arg;
	if (name && *name)
		snprintf(t->pub.name, sizeof(t->pub.name), "%s", name);
	else if (parent)
		memcpy(t->pub.name, parent->pub.name, sizeof(t->pub.name));
	if (s->o.on_name)
		s->o.on_name(s->o.ctx, &t->pub);
}

static void on_thread_info(struct tl_sched *s, const struct tl_event *ev, const char *name)
{
	struct thread *t = thread_get(s, ev->tid);
	int changed = 0;

	if (!t)
		return;
	if (ev->arg > 0 && t->pub.tgid != ev->arg) {
		t->pub.tgid = ev->arg;
		changed = 1;
	}
	if (name && *name && strncmp(t->pub.name, name, sizeof(t->pub.name))) {
		snprintf(t->pub.name, sizeof(t->pub.name), "%s", name);
		changed = 1;
	}
	if (ev->c > 0)
		t->pub.cpus_allowed = (int)ev->c;
	if ((ev->a & TL_PS_SNAPSHOT) && !t->evidence) {
		/* state read from /proc at the start: the best evidence we have until events come */
		int64_t ps = ev->a & ~TL_PS_SNAPSHOT;
		unsigned st = TL_ST_UNKNOWN;
		t->pub.snapshot = 1;
		if (ps & (TL_PS_Z | TL_PS_X))
			st = TL_ST_ZOMBIE;
		else if (ps & (TL_PS_T | TL_PS_TRACED))
			st = TL_ST_STOPPED;
		else if (ps & TL_PS_D && !(ps & TL_PS_I))
			st = (ev->b & 1) ? TL_ST_SYNC_WAIT : TL_ST_BLOCKED;
		else if (ps & (TL_PS_S | TL_PS_I | TL_PS_P))
			st = (ev->b & 1) ? TL_ST_SYNC_WAIT : TL_ST_SLEEPING;
		/* R: running or waiting for a CPU; the first switch will tell */
		t->snap_io = (ev->b & 2) ? 1 : 0;
		if (st != TL_ST_UNKNOWN && t->pub.state == TL_ST_UNKNOWN) {
			t->pub.state = (uint16_t)st; /* from the trace start: no UNKNOWN interval at all */
			t->evidence = 1;
		}
	}
	if (changed && s->o.on_name)
		s->o.on_name(s->o.ctx, &t->pub);
}

static void on_exec(struct tl_sched *s, const struct tl_event *ev, const char *name)
{
	struct thread *t;
	const char *base;

	if (ev->arg > 0 && ev->arg != ev->tid) {
		/* a non-leader thread exec'd: it takes over the leader's pid; the old leader is gone */
		struct tl_thread *leader = tl_sched_thread(s, ev->tid);
		struct tl_thread *old = tl_sched_thread(s, ev->arg);
		if (leader)
			thread_end(s, (struct thread *)leader, ev->ts);
		if (old) {
			table_remove(s, old->tid);
			old->tid = ev->tid;
			if (table_insert(s, (struct thread *)old) < 0) {
				free(old);
				return;
			}
		}
	}
	t = thread_get(s, ev->tid);
	if (!t)
		return;
	t->pub.tgid = ev->tid;
	if (name && *name) {
		/* the kernel names the task after the file, truncated to 15 bytes */
		base = strrchr(name, '/');
		base = base ? base + 1 : name;
		snprintf(t->pub.name, 16, "%s", base);
	}
	if (s->o.on_name)
		s->o.on_name(s->o.ctx, &t->pub);
}

static void on_irq(struct tl_sched *s, const struct tl_event *ev)
{
	struct cpu *cpu = &s->cpus[ev->cpu];
	int entry = ev->type == TL_EV_IRQ_ENTRY || ev->type == TL_EV_SOFTIRQ_ENTRY;
	int hard = ev->type == TL_EV_IRQ_ENTRY || ev->type == TL_EV_IRQ_EXIT;
	int was_in = cpu->irq_depth + cpu->softirq_depth > 0;
	int now_in;
	struct thread *t = cpu->cur > 0 ? (struct thread *)tl_sched_thread(s, cpu->cur) : NULL;

	if (entry) {
		if (hard)
			cpu->irq_depth++;
		else
			cpu->softirq_depth++;
	} else {
		int *d = hard ? &cpu->irq_depth : &cpu->softirq_depth;
		if (*d == 0)
			return; /* it began before the trace (or its entry was lost): nothing to close */
		(*d)--;
	}
	now_in = cpu->irq_depth + cpu->softirq_depth > 0;
	/* CPU view: the innermost activity; a hard IRQ inside a softirq shows as IRQ */
	if (cpu->irq_depth)
		cpu_set(s, ev->cpu, TL_CPU_IRQ, cpu->cur, hard ? (int32_t)ev->a : cpu->irq, ev->ts);
	else if (cpu->softirq_depth)
		cpu_set(s, ev->cpu, TL_CPU_SOFTIRQ, cpu->cur, hard ? cpu->irq : (int32_t)ev->a, ev->ts);
	else
		cpu_set(s, ev->cpu, cpu_base_activity(cpu->cur), cpu->cur, 0, ev->ts);
	/* thread view: EXECUTING <-> INTERRUPTED at the outermost entry and exit */
	if (!t || t->pub.cpu != ev->cpu)
		return;
	if (!was_in && now_in && t->pub.state == TL_ST_EXECUTING)
		set_state(s, t, TL_ST_INTERRUPTED, ev->ts, 0);
	else if (was_in && !now_in && t->pub.state == TL_ST_INTERRUPTED)
		set_state(s, t, TL_ST_EXECUTING, ev->ts, 0);
}

static void on_lost(struct tl_sched *s, const struct tl_event *ev)
{
	struct cpu *cpu;

	s->n.lost += (uint64_t)ev->a;
	if (ev->cpu < 0 || ev->cpu >= s->ncpus)
		return;
	cpu = &s->cpus[ev->cpu];
	/* From the last event we have on this CPU, we do not know what ran there. */
	if (cpu->cur > 0) {
		struct tl_thread *t = tl_sched_thread(s, cpu->cur);
		if (t && tl_state_is_oncpu(t->state) && t->cpu == ev->cpu)
			set_state(s, (struct thread *)t, TL_ST_UNKNOWN, cpu->last_ts, 0);
	}
	cpu->irq_depth = cpu->softirq_depth = 0;
	cpu_set(s, ev->cpu, TL_CPU_UNKNOWN, -1, 0, cpu->last_ts);
	cpu->after_lost = 1;
}

/* The task that was current on the event's CPU when it fired, if the event says; else 0. */
static int32_t context_tid(const struct tl_event *ev)
{
	switch (ev->type) {
	case TL_EV_WAKING:
	case TL_EV_WAKEUP:
	case TL_EV_WAKEUP_NEW:
	case TL_EV_FORK: return ev->arg;
	case TL_EV_EXEC:
	case TL_EV_EXIT:
	case TL_EV_FUTEX_ENTER:
	case TL_EV_FUTEX_EXIT:
	case TL_EV_BLOCK_ISSUE:
	case TL_EV_RUNTIME:
	case TL_EV_YIELD_ENTER:
	case TL_EV_YIELD_EXIT:
	case TL_EV_IRQ_ENTRY: /* interrupt events carry the interrupted task */
	case TL_EV_IRQ_EXIT:
	case TL_EV_SOFTIRQ_ENTRY:
	case TL_EV_SOFTIRQ_EXIT: return ev->tid;
	default: return 0; /* SWITCH does it itself */
	}
}

void tl_sched_feed(struct tl_sched *s, const struct tl_event *ev, const char *name)
{
	struct thread *t = NULL;

	s->n.events++;
	if (ev->ts < s->now)
		; /* the reader already counts late events; we clamp per interval */
	else
		s->now = ev->ts;
	if (ev->cpu >= s->ncpus && ev->cpu >= 0) {
		s->n.anomalies++;
		return;
	}
	if (ev->cpu >= 0) {
		int32_t cur = context_tid(ev);
		if (cur > 0 && cur != s->cpus[ev->cpu].cur) /* the common case, known, costs nothing */
			reveal(s, ev->cpu, cur, ev->type == TL_EV_RUNTIME ? (uint64_t)ev->a : 0, ev);
	}
	switch (ev->type) {
	case TL_EV_SWITCH:
		if (ev->cpu < 0)
			break;
		on_switch(s, ev);
		t = ev->arg > 0 ? (struct thread *)tl_sched_thread(s, ev->arg) : NULL;
		break;
	case TL_EV_WAKING:
	case TL_EV_WAKEUP:
	case TL_EV_WAKEUP_NEW: on_wakeup(s, ev); break;
	case TL_EV_FORK:
		on_fork(s, ev, name);
		t = (struct thread *)tl_sched_thread(s, ev->tid);
		break;
	case TL_EV_EXEC:
		on_exec(s, ev, name);
		t = (struct thread *)tl_sched_thread(s, ev->tid);
		break;
	case TL_EV_EXIT:
		t = thread_get(s, ev->tid);
		if (t) {
			t->evidence = 1;
			if (!tl_state_is_oncpu(t->pub.state) && t->pub.state != TL_ST_ZOMBIE)
				set_state(s, t, TL_ST_ZOMBIE, ev->ts, 0);
		}
		break;
	case TL_EV_FREE: {
		struct tl_thread *p = tl_sched_thread(s, ev->tid);
		if (p) {
			if (s->o.on_event)
				s->o.on_event(s->o.ctx, p, ev);
			thread_end(s, (struct thread *)p, ev->ts);
		}
		goto applied;
	}
	case TL_EV_MIGRATE:
		t = thread_get(s, ev->tid);
		if (t && !tl_state_is_oncpu(t->pub.state) && ev->b >= 0 && ev->b < s->ncpus) {
			t->pub.cpu = (int16_t)ev->b;
			if (t->pq_cpu >= 0) {
				pq_remove(s, t);
				pq_add(s, t, t->pub.cpu);
			}
		}
		break;
	case TL_EV_RENAME:
		t = thread_get(s, ev->tid);
		if (t && name) {
			snprintf(t->pub.name, sizeof(t->pub.name), "%s", name);
			if (s->o.on_name)
				s->o.on_name(s->o.ctx, &t->pub);
		}
		break;
	case TL_EV_THREAD:
		on_thread_info(s, ev, name);
		t = (struct thread *)tl_sched_thread(s, ev->tid);
		break;
	case TL_EV_IRQ_ENTRY:
	case TL_EV_IRQ_EXIT:
	case TL_EV_SOFTIRQ_ENTRY:
	case TL_EV_SOFTIRQ_EXIT:
		if (ev->cpu >= 0)
			on_irq(s, ev);
		break;
	case TL_EV_FUTEX_ENTER:
		t = thread_get(s, ev->tid);
		if (t)
			t->in_futex_wait = (uint8_t)tl_futex_op_waits(ev->a);
		break;
	case TL_EV_FUTEX_EXIT:
		t = thread_get(s, ev->tid);
		if (t)
			t->in_futex_wait = 0;
		break;
	case TL_EV_BLOCK_ISSUE:
		t = thread_get(s, ev->tid);
		if (t)
			t->io_issued = 1;
		break;
	case TL_EV_YIELD_ENTER:
	case TL_EV_YIELD_EXIT:
		t = thread_get(s, ev->tid);
		if (t) {
			t->in_yield = ev->type == TL_EV_YIELD_ENTER;
			t->yield_exit_ts = ev->type == TL_EV_YIELD_EXIT ? ev->ts : 0;
		}
		break;
	case TL_EV_LOST: on_lost(s, ev); break;
	case TL_EV_FRAME_BEGIN:
	case TL_EV_FRAME_END:
	case TL_EV_REGION_BEGIN:
	case TL_EV_REGION_END:
	case TL_EV_TASK_BEGIN:
	case TL_EV_TASK_END:
	case TL_EV_INSTANT:
		/*
		 * A user marker has no CPU, but the thread made it, so it was
		 * running: if the model has it off a CPU, its switch-in was not
		 * reported, and the next event in its context (reveal) puts it on
		 * the CPU from the first such marker rather than from then.
		 */
		t = (struct thread *)tl_sched_thread(s, ev->tid);
		if (t && !tl_state_is_oncpu(t->pub.state) && !tl_state_is_ready(t->pub.state) &&
		    t->marked_at < t->pub.state_since)
			t->marked_at = ev->ts;
		t = NULL;
		break;
	default: break;
	}
	if (s->o.on_event)
		s->o.on_event(s->o.ctx, t ? &t->pub : NULL, ev);
applied:
	if (ev->cpu >= 0 && ev->cpu < s->ncpus && ev->ts > s->cpus[ev->cpu].last_ts)
		s->cpus[ev->cpu].last_ts = ev->ts;
}

struct tl_sched *tl_sched_new(const struct tl_sched_opts *opts)
{
	struct tl_sched *s = calloc(1, sizeof(*s));

	if (!s) {
		tl_error("out of memory");
		return NULL;
	}
	s->o = *opts;
	if (!s->o.preempt_window_ns)
		s->o.preempt_window_ns = DEFAULT_PREEMPT_WINDOW_NS;
	s->ncpus = opts->ncpus > 0 ? opts->ncpus : 1;
	s->cpus = calloc((size_t)s->ncpus, sizeof(*s->cpus));
	if (!s->cpus || tl_tidmap_init(&s->live, sizeof(struct live)) < 0) {
		tl_sched_free(s);
		tl_error("out of memory");
		return NULL;
	}
	for (int c = 0; c < s->ncpus; c++) {
		s->cpus[c].cur = -1;
		s->cpus[c].what = TL_CPU_UNKNOWN;
		s->cpus[c].since = opts->start_ns;
		s->cpus[c].last_ts = opts->start_ns;
	}
	s->next_serial = 1;
	s->now = opts->start_ns;
	return s;
}

void tl_sched_finish(struct tl_sched *s, uint64_t end)
{
	for (int c = 0; c < s->ncpus; c++)
		cpu_set(s, c, s->cpus[c].what, s->cpus[c].cur, s->cpus[c].irq, end);
	/* thread_end() removes from the table, which moves entries: restart each time */
	for (;;) {
		size_t pos = 0;
		struct live *l = tl_tidmap_next(&s->live, &pos);
		if (!l)
			break;
		thread_end(s, l->t, end);
	}
}

const struct tl_sched_counters *tl_sched_counters(const struct tl_sched *s)
{
	return &s->n;
}

void tl_sched_free(struct tl_sched *s)
{
	if (!s)
		return;
	if (s->live.slots) {
		size_t pos = 0;
		struct live *l;
		while ((l = tl_tidmap_next(&s->live, &pos)))
			free(l->t);
	}
	tl_tidmap_release(&s->live);
	free(s->cpus);
	free(s);
}
