/*
 * state_machine.c - the thread-state machine (see state_machine.h and docs/STATES.md):
 * the thread and CPU tables, intervals, thread life and tl_sched_feed(); what
 * each kind of event does is in state_machine_events.c.
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
#include "timeline/state_machine_int.h"

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

int tl_sm_table_insert(struct tl_sched *s, struct thread *t)
{
	struct live *l = tl_tidmap_put(&s->live, t->pub.tid, NULL);

	if (!l)
		return -1;
	l->t = t;
	return 0;
}

void tl_sm_table_remove(struct tl_sched *s, int32_t tid)
{
	s->recent[tid & 63] = NULL;
	tl_tidmap_remove(&s->live, tid);
}

/* ---- the per-CPU lists of threads switched out runnable (READY_PREEMPT, READY_QUANTUM) ---- */

void tl_sm_pq_remove(struct tl_sched *s, struct thread *t)
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

void tl_sm_pq_add(struct tl_sched *s, struct thread *t, int c)
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
void tl_sm_set_state(struct tl_sched *s, struct thread *t, unsigned state, uint64_t at, int32_t by_closing)
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
	iv.inferred_end = s->inferring;
	/* a zero-length interval still is a transition worth counting, unless it says nothing */
	if (s->o.on_interval && (iv.end > iv.start || (iv.state != state && iv.state != TL_ST_UNKNOWN)))
		s->o.on_interval(s->o.ctx, &t->pub, &iv);
	tl_sm_pq_remove(s, t);
	if (iv.state < TL_ST__COUNT)
		t->pub.state_total[iv.state] += iv.end - iv.start;
	t->pub.state = (uint16_t)state;
	t->pub.state_since = at;
	t->by = 0;
	t->gap_cpus = 0;
	if (state == TL_ST_READY_PREEMPT || state == TL_ST_READY_QUANTUM)
		tl_sm_pq_add(s, t, t->pub.cpu);
}

void tl_sm_cpu_set(struct tl_sched *s, int c, unsigned what, int32_t tid, int32_t irq, uint64_t at)
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
	if (cpu->what == TL_CPU_IDLE)
		cpu->idle_ns += at - cpu->since;
	else if (cpu->what == TL_CPU_FILTERED)
		cpu->filtered_ns += at - cpu->since;
	cpu->what = (uint16_t)what;
	cpu->cur = tid;
	cpu->irq = irq;
	cpu->since = at;
}

void tl_sched_cpu_idle(const struct tl_sched *s, uint64_t at, uint64_t *idle, uint64_t *filtered)
{
	for (int c = 0; c < s->ncpus; c++) {
		const struct cpu *cpu = &s->cpus[c];
		uint64_t open = at > cpu->since ? at - cpu->since : 0;

		idle[c] = cpu->idle_ns + (cpu->what == TL_CPU_IDLE ? open : 0);
		filtered[c] = cpu->filtered_ns + (cpu->what == TL_CPU_FILTERED ? open : 0);
	}
}

/* What the CPU shows when no IRQ is running on it. */
unsigned tl_sm_cpu_base_activity(int32_t cur)
{
	return cur < 0 ? TL_CPU_UNKNOWN : cur == 0 ? TL_CPU_IDLE : TL_CPU_THREAD;
}

/* ---- thread life ---- */

struct thread *tl_sm_thread_new(struct tl_sched *s, int32_t tid, uint64_t born, unsigned state)
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
	if (tl_sm_table_insert(s, t) < 0) {
		free(t);
		return NULL;
	}
	return t;
}

/* End a thread's life at `at`: close its interval, tell the callbacks, forget it. */
void tl_sm_thread_end(struct tl_sched *s, struct thread *t, uint64_t at)
{
	if (t->pub.state == TL_ST_BLOCKED && (t->io_issued || t->snap_io))
		t->pub.state = TL_ST_IO_WAIT;
	tl_sm_set_state(s, t, TL_ST__COUNT, at, t->by);
	t->pub.died = at < t->pub.born ? t->pub.born : at;
	if (s->o.on_thread_end)
		s->o.on_thread_end(s->o.ctx, &t->pub);
	tl_sm_pq_remove(s, t);
	tl_sm_table_remove(s, t->pub.tid);
	free(t);
}

/*
 * The thread an event is about.  A tid we have not seen existed before the
 * trace (or its creation was lost): it lives from the trace start in UNKNOWN.
 */
struct thread *tl_sm_thread_get(struct tl_sched *s, int32_t tid)
{
	struct tl_thread *p;

	if (tid <= 0)
		return NULL;
	p = tl_sched_thread(s, tid);
	if (p)
		return (struct thread *)p;
	return tl_sm_thread_new(s, tid, s->o.start_ns, TL_ST_UNKNOWN);
}

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

/* state_machine_int.h */
int tl_sm_in_context(const struct tl_event *ev)
{
	return (ev->type >= TL_EV_IRQ_ENTRY && ev->type <= TL_EV_SOFTIRQ_EXIT) || ev->type == TL_EV_EXIT ||
	       ev->type == TL_EV_EXEC || ev->type == TL_EV_BLOCK_ISSUE;
}

/*
 * An event that the eBPF filter writes in a recorded thread's context only
 * (an interrupt of it, its exit, exec or block I/O), whose thread is
 * recorded (not an outsider of a filtered trace): it holds the CPU.  Not
 * the wakeups: before format 1.7 a waker that is not recorded is not
 * flagged, so it cannot be told from a recorded one.
 */
static int recorded_context(struct tl_sched *s, const struct tl_event *ev, int32_t tid)
{
	const struct tl_thread *t;

	if (!tl_sm_in_context(ev))
		return 0;
	t = tl_sched_thread(s, tid);
	return t && !t->outsider;
}

/*
 * An interrupt's entry that names the idle task as the interrupted one, on
 * a CPU we believe a thread holds, outside any interrupt we follow: the
 * thread's switch to idle was not reported (this VM's agent threads).
 */
static int idle_interrupted(const struct tl_sched *s, const struct tl_event *ev)
{
	const struct cpu *cpu = &s->cpus[ev->cpu];

	return (ev->type == TL_EV_IRQ_ENTRY || ev->type == TL_EV_SOFTIRQ_ENTRY) && cpu->what != TL_CPU_FILTERED &&
	       !cpu->irq_depth && !cpu->softirq_depth;
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
	if (ev->cpu >= 0 && s->cpus[ev->cpu].gap_open && ev->type != TL_EV_LOST)
		tl_sm_gap_end(s, ev->cpu, ev->ts);
	if (ev->cpu >= 0) {
		int32_t cur = context_tid(ev);
		/*
		 * The common case, known, costs nothing.  A filtered stretch's tasks
		 * are not followed, but an interrupt, exit, exec or block I/O of a
		 * recorded thread in it (recorded_context()) shows that the switch
		 * back to it was not reported, and the stretch is over.
		 */
		if (cur > 0 && cur != s->cpus[ev->cpu].cur &&
		    (s->cpus[ev->cpu].what != TL_CPU_FILTERED || recorded_context(s, ev, cur)))
			tl_sm_reveal(s, ev->cpu, cur, ev->type == TL_EV_RUNTIME ? (uint64_t)ev->a : 0, ev);
		else if (!cur && s->cpus[ev->cpu].cur > 0 && idle_interrupted(s, ev))
			tl_sm_left_for_idle(s, ev->cpu);
	}
	switch (ev->type) {
	case TL_EV_SWITCH:
		if (ev->cpu < 0)
			break;
		tl_sm_on_switch(s, ev);
		t = ev->arg > 0 ? (struct thread *)tl_sched_thread(s, ev->arg) : NULL;
		break;
	case TL_EV_WAKING:
	case TL_EV_WAKEUP:
	case TL_EV_WAKEUP_NEW: tl_sm_on_wakeup(s, ev); break;
	case TL_EV_FORK:
		tl_sm_on_fork(s, ev, name);
		t = (struct thread *)tl_sched_thread(s, ev->tid);
		break;
	case TL_EV_EXEC:
		tl_sm_on_exec(s, ev, name);
		t = (struct thread *)tl_sched_thread(s, ev->tid);
		break;
	case TL_EV_EXIT:
		t = tl_sm_thread_get(s, ev->tid);
		if (t) {
			t->evidence = 1;
			t->exited = 1;
			if (!tl_state_is_oncpu(t->pub.state) && t->pub.state != TL_ST_ZOMBIE)
				tl_sm_set_state(s, t, TL_ST_ZOMBIE, ev->ts, 0);
		}
		break;
	case TL_EV_FREE: {
		struct tl_thread *p = tl_sched_thread(s, ev->tid);
		if (p) {
			if (s->o.on_event)
				s->o.on_event(s->o.ctx, p, ev);
			tl_sm_thread_end(s, (struct thread *)p, ev->ts);
		}
		goto applied;
	}
	case TL_EV_MIGRATE:
		t = tl_sm_thread_get(s, ev->tid);
		if (t && !tl_state_is_oncpu(t->pub.state) && ev->b >= 0 && ev->b < s->ncpus) {
			t->pub.cpu = (int16_t)ev->b;
			if (t->pq_cpu >= 0) {
				tl_sm_pq_remove(s, t);
				tl_sm_pq_add(s, t, t->pub.cpu);
			}
		}
		break;
	case TL_EV_RENAME:
		t = tl_sm_thread_get(s, ev->tid);
		if (t && name) {
			snprintf(t->pub.name, sizeof(t->pub.name), "%s", name);
			if (s->o.on_name)
				s->o.on_name(s->o.ctx, &t->pub);
		}
		break;
	case TL_EV_THREAD:
		tl_sm_on_thread_info(s, ev, name);
		t = (struct thread *)tl_sched_thread(s, ev->tid);
		break;
	case TL_EV_AFFINITY: /* the report takes the masks (on_event) */ t = tl_sm_thread_get(s, ev->tid); break;
	case TL_EV_IRQ_ENTRY:
	case TL_EV_IRQ_EXIT:
	case TL_EV_SOFTIRQ_ENTRY:
	case TL_EV_SOFTIRQ_EXIT:
		if (ev->cpu >= 0)
			tl_sm_on_irq(s, ev);
		break;
	case TL_EV_FUTEX_ENTER:
		t = tl_sm_thread_get(s, ev->tid);
		if (t)
			t->in_futex_wait = (uint8_t)tl_futex_op_waits(ev->a);
		break;
	case TL_EV_FUTEX_EXIT:
		t = tl_sm_thread_get(s, ev->tid);
		if (t)
			t->in_futex_wait = 0;
		break;
	case TL_EV_BLOCK_ISSUE:
		t = tl_sm_thread_get(s, ev->tid);
		if (t)
			t->io_issued = 1;
		break;
	case TL_EV_YIELD_ENTER:
	case TL_EV_YIELD_EXIT:
		t = tl_sm_thread_get(s, ev->tid);
		if (t) {
			t->in_yield = ev->type == TL_EV_YIELD_ENTER;
			t->yield_exit_ts = ev->type == TL_EV_YIELD_EXIT ? ev->ts : 0;
		}
		break;
	case TL_EV_LOST: tl_sm_on_lost(s, ev); break;
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
	case TL_EV_SAMPLE: s->n.samples++; break;
	default: break;
	}
	if (s->o.on_event)
		s->o.on_event(s->o.ctx, t ? &t->pub : NULL, ev);
applied:
	if (ev->cpu >= 0 && ev->cpu < s->ncpus && ev->ts > s->cpus[ev->cpu].last_ts)
		s->cpus[ev->cpu].last_ts = ev->ts;
	/* lives that ended with this event (tl_sm_end_life), now that the callbacks have seen it */
	for (int i = 0; i < s->nend; i++) {
		struct thread *d = (struct thread *)tl_sched_thread(s, s->end_tid[i]);
		if (d && d->pub.state == TL_ST_ZOMBIE)
			tl_sm_thread_end(s, d, ev->ts);
	}
	s->nend = 0;
}

void tl_sm_end_life(struct tl_sched *s, struct thread *t)
{
	if (s->nend < (int)(sizeof(s->end_tid) / sizeof(s->end_tid[0])))
		s->end_tid[s->nend++] = t->pub.tid;
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
		tl_sm_cpu_set(s, c, s->cpus[c].what, s->cpus[c].cur, s->cpus[c].irq, end);
	/* tl_sm_thread_end() removes from the table, which moves entries: restart each time */
	for (;;) {
		size_t pos = 0;
		struct live *l = tl_tidmap_next(&s->live, &pos);
		if (!l)
			break;
		tl_sm_thread_end(s, l->t, end);
	}
}

void tl_sm_unknown_ready(struct tl_sched *s, uint64_t from, int asleep_too)
{
	size_t pos = 0;
	struct live *l;

	/* tl_sm_set_state() touches the ready queues, not the table: iterating is safe */
	while ((l = tl_tidmap_next(&s->live, &pos)))
		if (tl_state_is_ready(l->t->pub.state) || (asleep_too && tl_state_is_asleep(l->t->pub.state)))
			tl_sm_set_state(s, l->t, TL_ST_UNKNOWN,
			                from > l->t->pub.state_since ? from : l->t->pub.state_since, 0);
}

static uint64_t gap_bit(int cpu)
{
	return 1ull << (cpu < 63 ? cpu : 63);
}

/* CPU c lost events from `from`: its gap begins for every sleeper (and joins the open gaps of earlier losses). */
void tl_sm_gap_begin(struct tl_sched *s, int c, uint64_t from)
{
	size_t pos = 0;
	struct live *l;
	int n = 0;

	while ((l = tl_tidmap_next(&s->live, &pos))) {
		struct thread *t = l->t;
		unsigned was = t->pub.state;

		if (was == TL_ST_NEW) {
			/* its wakeup (WAKEUP_NEW follows the fork at once) may be in the gap: unknown until it is seen */
			tl_sm_set_state(s, t, TL_ST_UNKNOWN, from > t->pub.state_since ? from : t->pub.state_since, 0);
			continue;
		}
		if (tl_state_is_asleep(was)) {
			tl_sm_set_state(s, t, TL_ST_UNKNOWN, from, 0);
			t->gap_state = (uint16_t)was;
		} else if (!t->gap_cpus || was != TL_ST_UNKNOWN) {
			continue;
		}
		t->gap_cpus |= gap_bit(c);
		n++;
	}
	s->cpus[c].gap_open = n > 0;
}

/* The first event on CPU c after its gap: a sleeper no gap covers any more is asleep again from ts. */
void tl_sm_gap_end(struct tl_sched *s, int c, uint64_t ts)
{
	size_t pos = 0;
	struct live *l;

	s->cpus[c].gap_open = 0;
	while ((l = tl_tidmap_next(&s->live, &pos))) {
		struct thread *t = l->t;

		if (!(t->gap_cpus & gap_bit(c)))
			continue;
		t->gap_cpus &= ~gap_bit(c);
		if (!t->gap_cpus && t->pub.state == TL_ST_UNKNOWN)
			tl_sm_set_state(s, t, t->gap_state, ts, 0);
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
