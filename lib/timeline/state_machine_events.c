/*
 * state_machine_events.c - what each kind of event does to the thread-state
 * model: switches (with the state a thread leaves in, preemption and
 * yields), wakeups, fork, exec, thread names, interrupts and lost events.
 * The tables, intervals and thread life they use are in state_machine.c;
 * the invariants are stated there and in docs/STATES.md.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/errors.h"
#include "timeline/state_machine_int.h"

/* ---- event handlers ---- */

static void wake(struct tl_sched *s, struct thread *t, int32_t waker, uint64_t at);

/*
 * The state a thread enters when it leaves the CPU with kernel state `ps`.
 * See docs/STATES.md for the rules and the reasons.
 */
static unsigned state_after_switch(struct tl_sched *s, struct thread *prev, struct thread *next, int64_t ps,
                                   int next_prio, uint64_t at, unsigned flags)
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
		if (prev->in_yield || (flags & TL_EVF_WAIT_YIELD) ||
		    (prev->yield_exit_ts && at - prev->yield_exit_ts <= YIELD_RETURN_NS))
			return TL_ST_READY_YIELD;
		/* Preempted: by a task woken during our run that got the CPU at once, or by a more urgent one. */
		if (next && (next->pub.state == TL_ST_RUNNABLE || next->pub.outsider) && next->wake_ts &&
		    next->wake_ts >= prev->run_since && at - next->wake_ts <= s->o.preempt_window_ns)
			return TL_ST_READY_PREEMPT;
		if (next && prev->pub.prio >= 0 && next_prio >= 0 && next_prio < prev->pub.prio)
			return TL_ST_READY_PREEMPT;
		return TL_ST_READY_QUANTUM;
	}
	if (prev->in_futex_wait || (flags & TL_EVF_WAIT_FUTEX))
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
		s->inferring = 1;
		tl_sm_set_state(s, prev, TL_ST_EXECUTING, since, 0);
		s->inferring = 0;
		prev->pub.cpu = ev->cpu;
		prev->run_since = since;
	}
	if (prev->pub.state == TL_ST_INTERRUPTED)
		tl_sm_set_state(s, prev, TL_ST_EXECUTING, ev->ts, 0);
	prev->pub.prio = (int)ev->b;
	st = state_after_switch(s, prev, next, ev->a, (int)ev->c, ev->ts, ev->flags);
	if (tl_state_is_asleep(st) && prev->pend_wake) {
		/* woken while on its way out: it never really slept (see docs/STATES.md) */
		tl_sm_set_state(s, prev, TL_ST_RUNNABLE, ev->ts, 0);
		prev->wake_ts = ev->ts;
		prev->by = prev->pend_waker;
		s->n.late_wakeups++;
	} else {
		tl_sm_set_state(s, prev, st, ev->ts, 0);
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
			tl_sm_cpu_set(s, c, TL_CPU_UNKNOWN, -1, 0, ev->ts);
		tl_sm_set_state(s, next, TL_ST_UNKNOWN, ev->ts, 0);
	} else if (tl_state_is_asleep(next->pub.state)) {
		/* its wakeup was not reported (see tl_sm_reveal()): it ends at the switch-in */
		s->n.inferred_wakeups++;
	} else if (next->pub.state == TL_ST_NEW || next->pub.state == TL_ST_ZOMBIE) {
		s->n.anomalies++;
	}
	tl_sm_set_state(s, next, TL_ST_EXECUTING, ev->ts, next->by);
	if (next->reap_tid) {
		/* woken by its child's exit, it reaps the child now (at its last switch-out if still running) */
		struct thread *c = (struct thread *)tl_sched_thread(s, next->reap_tid);
		if (c && c->pub.state == TL_ST_ZOMBIE)
			tl_sm_end_life(s, c);
		else if (c)
			c->reaped = 1;
		next->reap_tid = 0;
	}
	next->pub.cpu = ev->cpu;
	next->run_since = ev->ts;
	next->io_issued = 0;
	next->pend_wake = 0;
	next->evidence = 1;
	next->pub.prio = (int)ev->c;
}

/*
 * An event in tid's context on CPU c, which has had no switch since the
 * trace began (and lost nothing): tid has held c since then, as the first
 * switch there would say (tl_sm_on_switch()), or since it came to be in
 * the trace (a fork, a wakeup: its state_since).  A thread already running
 * when a -p or -a recording starts may keep its CPU for long: a spinner
 * alone on a CPU had its first 77 ms UNKNOWN, its interrupts naming it all
 * along.  Only an event that names the CPU's current task
 * (tl_sm_in_context()), and a thread that could be running then (UNKNOWN,
 * or waiting for a CPU) is taken; its interrupts before this event count
 * as EXECUTING (they are past).  The CPU's open interval, since the start
 * or its last interrupt, becomes the thread's, as at a first switch.
 */
static void reveal_from_start(struct tl_sched *s, int c, int32_t tid, const struct tl_event *ev)
{
	struct thread *t;
	uint64_t at;

	if (!tl_sm_in_context(ev) || !(t = tl_sm_thread_get(s, tid)) ||
	    (t->pub.state != TL_ST_UNKNOWN && !tl_state_is_ready(t->pub.state)))
		return;
	at = s->o.start_ns > t->pub.state_since ? s->o.start_ns : t->pub.state_since;
	if (at > ev->ts)
		at = ev->ts;
	s->inferring = 1;
	tl_sm_set_state(s, t, TL_ST_EXECUTING, at, t->by);
	s->inferring = 0;
	t->pub.cpu = (int16_t)c;
	t->run_since = at;
	t->evidence = 1;
	s->cpus[c].cur = tid;
	s->cpus[c].what = TL_CPU_THREAD;
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
void tl_sm_reveal(struct tl_sched *s, int c, int32_t tid, uint64_t runtime, const struct tl_event *ev)
{
	struct cpu *cpu = &s->cpus[c];
	struct thread *t;
	uint64_t at;
	int exact = 0, woke = 0; /* exact: the runtime dates the switch-in; woke: the wakeup is inferred */

	if (tid <= 0 || cpu->cur == tid || cpu->irq_depth || cpu->softirq_depth)
		return; /* known */
	if (cpu->cur < 0) {
		if (!cpu->after_lost && cpu->what == TL_CPU_UNKNOWN)
			reveal_from_start(s, c, tid, ev);
		return; /* after lost events the occupant is unknown anyway */
	}
	t = tl_sm_thread_get(s, tid);
	if (!t || tl_state_is_oncpu(t->pub.state) || t->pub.state == TL_ST_NEW)
		return;
	if (runtime && runtime <= ev->ts - cpu->since)
		at = ev->ts - runtime, exact = 1;
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
			tl_sm_set_state(s, (struct thread *)was, TL_ST_UNKNOWN, at, 0);
	}
	s->inferring = 1; /* a sleep ended by an unreported wakeup ends at a guess */
	if (tl_state_is_asleep(t->pub.state) || t->pub.state == TL_ST_UNKNOWN) {
		wake(s, t, 0, at);
		s->n.inferred_wakeups++;
		woke = 1;
	}
	s->inferring = !exact;
	if (!runtime && (cpu->cur > 0 || cpu->what == TL_CPU_FILTERED) && at < ev->ts) {
		/*
		 * The CPU had a real occupant whose switch-out was not reported: it
		 * ran for a time we cannot know (seen here: a hypervisor agent's
		 * threads whose switches no tracepoint reports; other processes'
		 * tasks whose switches stayed in the kernel, in a forced overrun
		 * 2.5 ms of a waiting thread's run-queue wait taken for run time).
		 * Giving this thread the CPU from the occupant's start would invent
		 * on-CPU time; from then until now we do not know.  (An idle CPU
		 * that did not report its switch out of idle gave it the CPU at
		 * once: the rule above.)
		 */
		tl_sm_set_state(s, t, TL_ST_UNKNOWN, at, t->by);
		tl_sm_cpu_set(s, c, TL_CPU_UNKNOWN, -1, 0, at);
		at = ev->ts;
	}
	s->inferring = !exact || woke; /* a wait begun at an inferred wakeup has no known length either */
	tl_sm_set_state(s, t, TL_ST_EXECUTING, at, t->by);
	s->inferring = 0;
	t->pub.cpu = (int16_t)c;
	t->run_since = at;
	t->io_issued = 0;
	t->pend_wake = 0;
	t->evidence = 1;
	tl_sm_cpu_set(s, c, TL_CPU_THREAD, tid, 0, at);
	s->n.inferred_switches++;
}

void tl_sm_left_for_idle(struct tl_sched *s, int c)
{
	struct cpu *cpu = &s->cpus[c];
	struct tl_thread *was = cpu->cur > 0 ? tl_sched_thread(s, cpu->cur) : NULL;

	s->n.inferred_switches++;
	if (was && tl_state_is_oncpu(was->state) && was->cpu == c)
		tl_sm_set_state(s, (struct thread *)was, TL_ST_UNKNOWN, cpu->last_ts, 0);
	tl_sm_cpu_set(s, c, TL_CPU_IDLE, 0, 0, cpu->last_ts);
}

/*
 * A thread stays READY_PREEMPT while preempting tasks (freshly woken ones, or
 * more urgent ones) hold the CPU it waits on.  When the CPU goes to a task
 * that is neither, the preemption is over and the thread just waits for its
 * turn: READY_QUANTUM from then on.  When the CPU goes idle while threads
 * switched out runnable wait on it, the kernel holds them back (a CPU
 * limit: a cgroup's quota ran out): READY_QUANTUM with `by` 0 from then on,
 * as a thread that left its CPU to the idle task waits, until the CPU runs
 * a recorded task again (then it waits for its turn behind that one).  A
 * task of another process that runs meanwhile (a filtered recording keeps
 * the switches of a CPU a recorded thread waits on: a kworker's moment
 * inside a throttle) does not end the hold: the limit still holds the
 * thread back, as when those switches were left out.
 */
static void end_preemptions(struct tl_sched *s, int c, struct thread *next, int next_fresh, int next_prio, uint64_t at)
{
	struct thread *t = s->cpus[c].preempted, *n;

	for (; t; t = n) {
		n = t->pq_next; /* set_state moves t to the list's head: it is not seen again */
		if (!next) {
			if (t->pub.state != TL_ST_READY_QUANTUM || t->by) {
				tl_sm_set_state(s, t, TL_ST_READY_QUANTUM, at, t->by);
				t->by = 0;
			}
			continue;
		}
		if (t == next)
			continue;
		if (t->pub.state == TL_ST_READY_QUANTUM && !t->by) {
			if (next->pub.outsider)
				continue;
			tl_sm_set_state(s, t, TL_ST_READY_QUANTUM, at, 0); /* no longer held back */
			t->by = next->pub.tid;
			continue;
		}
		if (t->pub.state != TL_ST_READY_PREEMPT || next_fresh ||
		    (t->pub.prio >= 0 && next_prio >= 0 && next_prio < t->pub.prio))
			continue;
		tl_sm_set_state(s, t, TL_ST_READY_QUANTUM, at, t->by);
		t->by = next->pub.tid;
	}
}

/*
 * A switch of a filtered recording (TL_EVF_OTHER_*, event.h) out of a task
 * that is not recorded: a filtered stretch ends, or (the CPU's first switch,
 * or after lost events) the occupant we believed in left unseen.
 */
static void switch_from_other(struct tl_sched *s, struct cpu *cpu, const struct tl_event *ev)
{
	struct tl_thread *was;

	if (cpu->what == TL_CPU_FILTERED || cpu->cur <= 0 || cpu->cur == ev->tid)
		return;
	s->n.anomalies++;
	was = tl_sched_thread(s, cpu->cur);
	if (was && tl_state_is_oncpu(was->state) && was->cpu == ev->cpu)
		tl_sm_set_state(s, (struct thread *)was, TL_ST_UNKNOWN, cpu->last_ts, 0);
}

void tl_sm_on_switch(struct tl_sched *s, const struct tl_event *ev)
{
	struct cpu *cpu = &s->cpus[ev->cpu];
	int fresh, other_prev = !!(ev->flags & TL_EVF_OTHER_TID), other_next = !!(ev->flags & TL_EVF_OTHER_ARG);
	struct thread *prev = tl_sm_thread_get(s, ev->tid);
	struct thread *next = tl_sm_thread_get(s, ev->arg);

	if ((ev->tid > 0 && !prev) || (ev->arg > 0 && !next))
		return; /* out of memory: already reported through tl_error */
	if (other_prev) {
		if (prev)
			prev->pub.outsider = 1;
		switch_from_other(s, cpu, ev);
		prev = NULL;
	} else {
		tl_sm_reveal(s, ev->cpu, ev->tid, 0, ev);
	}
	if (other_next && next)
		next->pub.outsider = 1;
	if (other_prev) {
		; /* handled above */
	} else if (cpu->cur >= 0 && cpu->cur != ev->tid) {
		/*
		 * The CPU's occupant changed unseen.  A switch out of idle means the
		 * occupant's own switch to idle was not reported (see tl_sm_reveal()); any
		 * other case contradicts the model.
		 */
		if (ev->tid == 0) {
			tl_sm_left_for_idle(s, ev->cpu);
		} else {
			struct tl_thread *was = cpu->cur ? tl_sched_thread(s, cpu->cur) : NULL;
			s->n.anomalies++;
			if (was && tl_state_is_oncpu(was->state) && was->cpu == ev->cpu)
				tl_sm_set_state(s, (struct thread *)was, TL_ST_UNKNOWN, cpu->last_ts, 0);
		}
	}
	if (cpu->cur < 0 && cpu->what == TL_CPU_UNKNOWN && !cpu->after_lost && ev->tid >= 0) {
		/* the first switch on this CPU names who ran since the trace began (filtered: in the totals) */
		cpu->cur = other_prev ? 0 : ev->tid;
		cpu->what = other_prev ? TL_CPU_FILTERED : (uint16_t)tl_sm_cpu_base_activity(ev->tid);
	}
	if (cpu->irq_depth || cpu->softirq_depth) {
		/* no switch happens inside an interrupt; our IRQ bookkeeping lost an exit */
		s->n.anomalies++;
		cpu->irq_depth = cpu->softirq_depth = 0;
	}
	fresh = next && (next->pub.state == TL_ST_RUNNABLE || (other_next && next->wake_ts)) &&
	        ev->ts - next->wake_ts <= s->o.preempt_window_ns;
	if (prev) {
		switch_out(s, prev, next, ev);
		/*
		 * Its last switch-out.  A thread that is not its process's leader is
		 * reaped by itself at exit; a leader when its parent reaps it.
		 */
		if (prev->pub.state == TL_ST_ZOMBIE &&
		    ((prev->pub.tgid > 0 && prev->pub.tgid != prev->pub.tid) || prev->reaped))
			tl_sm_end_life(s, prev);
	}
	if (next && !other_next)
		switch_in(s, next, ev);
	if (other_next)
		tl_sm_cpu_set(s, ev->cpu, TL_CPU_FILTERED, 0, 0, ev->ts);
	else
		tl_sm_cpu_set(s, ev->cpu, tl_sm_cpu_base_activity(ev->arg), ev->arg, 0, ev->ts);
	cpu->after_lost = 0;
	end_preemptions(s, ev->cpu, next, fresh, (int)ev->c, ev->ts);
}

/* A sleeping thread is woken at `at` by `waker` (< 0: interrupt context, state_machine.h). */
static void wake(struct tl_sched *s, struct thread *t, int32_t waker, uint64_t at)
{
	if (t->pub.state == TL_ST_BLOCKED && (t->io_issued || t->snap_io || waker < 0))
		t->pub.state = TL_ST_IO_WAIT; /* the D sleep was an I/O wait: reclassify before closing */
	tl_sm_set_state(s, t, TL_ST_RUNNABLE, at, waker);
	t->wake_ts = at;
	t->by = waker;
	t->io_issued = 0;
	t->snap_io = 0;
	t->evidence = 1;
}

/* Who woke: the waking thread, or for interrupt context what the CPU was serving (state_machine.h). */
static int32_t waker_of(const struct tl_sched *s, const struct tl_event *ev)
{
	const struct cpu *c;

	if (!(ev->flags & TL_EVF_CTX))
		return ev->arg;
	if (ev->cpu < 0 || ev->cpu >= s->ncpus)
		return TL_WAKER_IRQ;
	c = &s->cpus[ev->cpu];
	if ((c->what == TL_CPU_IRQ && !(c->irq & TL_IRQ_VECTOR)) || /* the local timer, IPIs: not a device */
	    (c->what == TL_CPU_SOFTIRQ && c->irq != TL_SOFTIRQ_TIMER && c->irq != TL_SOFTIRQ_HRTIMER))
		return TL_WAKER_DEVICE;
	return TL_WAKER_IRQ;
}

/*
 * An exiting thread wakes sleeping t: if t belongs to the parent of the
 * exiting thread's process, t was waiting for it (wait4, waitid, or a
 * SIGCHLD) and reaps the process's leader when it next runs.
 */
static void note_reaper(struct tl_sched *s, struct thread *t, int32_t waker)
{
	struct tl_thread *w = waker > 0 ? tl_sched_thread(s, waker) : NULL, *leader, *parent;
	int32_t ptgid;

	if (!w || !((struct thread *)w)->exited)
		return;
	leader = w->tgid > 0 ? tl_sched_thread(s, w->tgid) : w;
	parent = leader && leader->parent > 0 ? tl_sched_thread(s, leader->parent) : NULL;
	if (!parent)
		return;
	ptgid = parent->tgid > 0 ? parent->tgid : parent->tid;
	if (t->pub.tid == parent->tid || t->pub.tgid == ptgid)
		t->reap_tid = leader->tid;
}

void tl_sm_on_wakeup(struct tl_sched *s, const struct tl_event *ev)
{
	struct thread *t = tl_sm_thread_get(s, ev->tid);
	int32_t waker = waker_of(s, ev);
	unsigned st;

	if (!t)
		return;
	if (ev->flags & TL_EVF_OTHER_TID) {
		/* not recorded: kept only to tell whether it preempts a recorded thread */
		t->pub.outsider = 1;
		t->wake_ts = ev->ts;
		return;
	}
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
		if (tl_state_is_asleep(st))
			note_reaper(s, t, waker);
		wake(s, t, waker, ev->ts);
	}
	/* already runnable (sched_wakeup after sched_waking) or a zombie: nothing to do */
}

void tl_sm_on_fork(struct tl_sched *s, const struct tl_event *ev, const char *name)
{
	/* the parent first: a damaged trace may name the child as its own parent */
	struct thread *parent = tl_sm_thread_get(s, ev->arg);
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
			tl_sm_thread_end(s, t, ev->ts);
		}
		t = tl_sm_thread_new(s, ev->tid, ev->ts, TL_ST_NEW);
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

void tl_sm_on_thread_info(struct tl_sched *s, const struct tl_event *ev, const char *name)
{
	struct thread *t = tl_sm_thread_get(s, ev->tid);
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

void tl_sm_on_exec(struct tl_sched *s, const struct tl_event *ev, const char *name)
{
	struct thread *t;
	const char *base;

	if (ev->arg > 0 && ev->arg != ev->tid) {
		/* a non-leader thread exec'd: it takes over the leader's pid; the old leader is gone */
		struct tl_thread *leader = tl_sched_thread(s, ev->tid);
		struct tl_thread *old = tl_sched_thread(s, ev->arg);
		if (leader)
			tl_sm_thread_end(s, (struct thread *)leader, ev->ts);
		if (old) {
			tl_sm_table_remove(s, old->tid);
			old->tid = ev->tid;
			if (tl_sm_table_insert(s, (struct thread *)old) < 0) {
				free(old);
				return;
			}
		}
	}
	t = tl_sm_thread_get(s, ev->tid);
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

void tl_sm_on_irq(struct tl_sched *s, const struct tl_event *ev)
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
		tl_sm_cpu_set(s, ev->cpu, TL_CPU_IRQ, cpu->cur, hard ? tl_irq_source(ev) : cpu->irq, ev->ts);
	else if (cpu->softirq_depth)
		tl_sm_cpu_set(s, ev->cpu, TL_CPU_SOFTIRQ, cpu->cur, hard ? cpu->irq : (int32_t)ev->a, ev->ts);
	else
		tl_sm_cpu_set(s, ev->cpu, tl_sm_cpu_base_activity(cpu->cur), cpu->cur, 0, ev->ts);
	/* thread view: EXECUTING <-> INTERRUPTED at the outermost entry and exit */
	if (!t || t->pub.cpu != ev->cpu)
		return;
	if (!was_in && now_in && t->pub.state == TL_ST_EXECUTING)
		tl_sm_set_state(s, t, TL_ST_INTERRUPTED, ev->ts, 0);
	else if (was_in && !now_in && t->pub.state == TL_ST_INTERRUPTED)
		tl_sm_set_state(s, t, TL_ST_EXECUTING, ev->ts, 0);
}

void tl_sm_on_lost(struct tl_sched *s, const struct tl_event *ev)
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
			tl_sm_set_state(s, (struct thread *)t, TL_ST_UNKNOWN, cpu->last_ts, 0);
	}
	/*
	 * Nor which waiting thread it ran: any runnable thread (threads migrate)
	 * may have got this CPU in the gap and left it again unseen.  Leaving them
	 * RUNNABLE would invent a wait as long as the gap and more (a lossy trace
	 * once showed a 932 ms scheduling latency that never happened).
	 */
	tl_sm_unknown_ready(s, cpu->last_ts, 0);
	/*
	 * Nor whom it woke: any sleeper may have been woken in the gap, run and
	 * slept again unseen (a thread waiting for its children, 24 switches
	 * and 8 ms on a CPU missing in a forced overrun).  Sleepers are
	 * UNKNOWN until the gap ends, then asleep again (tl_sm_gap_end).
	 */
	if (!(ev->flags & TL_EVF_DAMAGE))
		tl_sm_gap_begin(s, ev->cpu, cpu->last_ts);
	/*
	 * A damaged block of the file (the reader's LOST, b = the gap's start)
	 * held every CPU's events: any sleeper may have been woken in it.
	 */
	if ((ev->flags & TL_EVF_DAMAGE) && s->damage_from != (uint64_t)ev->b + 1) {
		s->damage_from = (uint64_t)ev->b + 1;
		tl_sm_unknown_ready(s, (uint64_t)ev->b, 1);
	}
	cpu->irq_depth = cpu->softirq_depth = 0;
	tl_sm_cpu_set(s, ev->cpu, TL_CPU_UNKNOWN, -1, 0, cpu->last_ts);
	cpu->after_lost = 1;
}

/* The task that was current on the event's CPU when it fired, if the event says; else 0. */
