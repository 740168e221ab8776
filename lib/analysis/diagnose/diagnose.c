/*
 * diagnose.c - tl_diagnose_analyze(): the detectors, on the per-thread
 * statistics of one walk (the report's model), and the ranking.
 *
 * Invariants: a finding names at least one thread; every evidence line is
 * a number measured in this trace, with the threshold it was held to (NAN
 * for context); findings come sorted by cost_ns, largest first, and none
 * costs less than opts->min_cost_ns; a finding whose thread the self-check
 * against the kernel's accounting did not pass, or whose trace lost events,
 * says that its numbers are in doubt.  Rules and reasons: docs/DIAGNOSE.md.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/diagnose/diagnose.h"
#include "analysis/diagnose/diagnose_int.h"
#include "analysis/report/report.h"
#include "base/errors.h"
#include "base/grow.h"

static const char *const kind_names[TL_FIND__COUNT] = {
	[TL_FIND_WAKE_STORM] = "wake-storm",
	[TL_FIND_POINTLESS_PARALLEL] = "pointless-parallelism",
	[TL_FIND_BARRIER_IMBALANCE] = "barrier-imbalance",
	[TL_FIND_OVERSUBSCRIPTION] = "oversubscription",
	[TL_FIND_PREEMPT_STARVATION] = "preemption-starvation",
	[TL_FIND_IO_BOUND] = "io-bound",
	[TL_FIND_LOCK_CONTENTION] = "lock-contention",
	[TL_FIND_PRIORITY_INVERSION] = "priority-inversion",
	[TL_FIND_SINGLE_THREAD_BOTTLENECK] = "single-thread-bottleneck",
	[TL_FIND_MIGRATION_STORM] = "migration-storm",
	[TL_FIND_IRQ_INTERFERENCE] = "irq-interference",
	[TL_FIND_SERIALIZED] = "serialized-threads",
	[TL_FIND_SPIN_WAITING] = "spin-waiting",
	[TL_FIND_TASK_STARVATION] = "task-starvation",
	[TL_FIND_CPU_THROTTLED] = "cpu-throttled",
	[TL_FIND_AFFINITY_BOUND] = "affinity-bound",
	[TL_FIND_WORKER_IMBALANCE] = "worker-imbalance",
	[TL_FIND_THREAD_CHURN] = "thread-churn",
	[TL_FIND_YIELD_SPIN] = "yield-spinning",
	[TL_FIND_THUNDERING_HERD] = "thundering-herd",
	[TL_FIND_CPU_SATURATION] = "cpu-saturation",
};

const char *tl_finding_kind_name(unsigned kind)
{
	return kind < TL_FIND__COUNT && kind_names[kind] ? kind_names[kind] : "?";
}

int tl_finding_kind_from_name(const char *name)
{
	for (int k = 0; k < TL_FIND__COUNT; k++)
		if (!strcmp(kind_names[k], name))
			return k;
	return -1;
}

void tl_diagnose_defaults(struct tl_diagnose_opts *o)
{
	o->min_cost_ns = 10000000;
	o->lock_wait_pct = 20;
	o->io_wait_pct = 30;
	o->storm_switches_hz = 1000;
	o->storm_burst_ns = 50000;
	o->storm_invol_pct = 5;
	o->storm_timer_pct = 50;
	o->preempt_pct = 20;
	o->migrate_hz = 100;
	o->migrate_pct = 50;
	o->migrate_cost_ns = 50000;
	o->busy_pct = 90;
	o->irq_pct = 10;
	o->imbalance_pct = 20;
	o->overhead_pct = 100;
	o->oversub_pct = 10;
	o->throttle_pct = 5;
	o->affinity_pct = 5;
	o->yield_spin_pct = 20;
}

void tl_findings_release(struct tl_findings *f)
{
	free(f->items);
	memset(f, 0, sizeof(*f));
}

double tl_dg_pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0;
}

uint64_t tl_dg_lifetime(const struct tl_thread_stats *t)
{
	return t->end > t->start ? t->end - t->start : 0;
}

void tl_dg_keep_top(const struct tl_thread_stats **top, size_t *n, const struct tl_thread_stats *t,
                    int (*cmp)(const void *, const void *))
{
	if (*n < TL_FINDING_MAX_THREADS)
		top[(*n)++] = t;
	else if (cmp(&t, &top[*n - 1]) < 0)
		top[*n - 1] = t;
	qsort(top, *n, sizeof(*top), cmp);
}

uint64_t tl_dg_wanting(const struct tl_thread_stats *t)
{
	uint64_t ns = 0;

	for (unsigned s = 0; s < TL_ST__COUNT; s++)
		if (tl_state_is_oncpu(s) || tl_state_is_ready(s))
			ns += t->state_ns[s];
	return ns;
}

void tl_dg_add_thread(struct tl_finding *f, int32_t tid, int32_t pid, const char *name, const char *role)
{
	struct tl_finding_thread *ft;

	if (f->nthreads == TL_FINDING_MAX_THREADS)
		return;
	ft = &f->threads[f->nthreads++];
	ft->tid = tid;
	ft->pid = pid;
	snprintf(ft->name, sizeof(ft->name), "%s", name);
	snprintf(ft->role, sizeof(ft->role), "%s", role);
}

void tl_dg_add_evidence(struct tl_finding *f, const char *what, double value, double threshold, const char *unit,
                        int above)
{
	struct tl_evidence *e;

	if (f->nevidence == TL_FINDING_MAX_EVIDENCE)
		return;
	e = &f->evidence[f->nevidence++];
	snprintf(e->what, sizeof(e->what), "%s", what);
	e->value = value;
	e->threshold = threshold;
	snprintf(e->unit, sizeof(e->unit), "%s", unit);
	e->above = above;
}

struct tl_finding *tl_dg_new_finding_at(struct tl_dg_ctx *c, unsigned kind, int32_t pid, const char *process,
                                        uint64_t from, uint64_t to, uint64_t cost, uint64_t base)
{
	struct tl_finding *f;

	if (TL_GROW(c->out->items, c->cap, c->out->n + 1) < 0)
		return NULL;
	f = &c->out->items[c->out->n++];
	memset(f, 0, sizeof(*f));
	f->kind = kind;
	f->pid = pid;
	snprintf(f->process, sizeof(f->process), "%s", process);
	f->windows[0][0] = from;
	f->windows[0][1] = to;
	f->nwindows = 1;
	f->cost_ns = cost;
	f->severity = base ? (double)cost / (double)base : 0;
	if (f->severity > 1)
		f->severity = 1;
	return f;
}

struct tl_finding *tl_dg_new_finding(struct tl_dg_ctx *c, unsigned kind, const struct tl_thread_stats *t, uint64_t cost)
{
	return tl_dg_new_finding_at(c, kind, t->pid, t->process, t->start, t->end, cost, tl_dg_lifetime(t));
}

void tl_dg_add_wakers(struct tl_finding *f, const struct tl_waker_stat *w, size_t n, const char *role, size_t max)
{
	for (size_t i = 0; i < n && i < max; i++)
		tl_dg_add_thread(f, w[i].tid, 0, w[i].name, role);
}

int tl_dg_share_finding(struct tl_dg_ctx *c, const struct tl_thread_stats *t, unsigned kind, uint64_t w, double min_pct,
                        const char *doing, const char *role, const char *share_what, const char *time_what,
                        struct tl_finding **out)
{
	uint64_t life = tl_dg_lifetime(t);
	struct tl_finding *f;

	if (tl_dg_pct(w, life) < min_pct || w < c->o->min_cost_ns)
		return 0;
	if (!(f = tl_dg_new_finding(c, kind, t, w)))
		return -1;
	snprintf(f->title, sizeof(f->title), "%s (%d) %s %.0f%% of its life", t->name, t->tid, doing,
	         tl_dg_pct(w, life));
	tl_dg_add_thread(f, t->tid, t->pid, t->name, role);
	tl_dg_add_evidence(f, share_what, tl_dg_pct(w, life), min_pct, "%", 1);
	tl_dg_add_evidence(f, time_what, (double)w, (double)c->o->min_cost_ns, "ns", 1);
	*out = f;
	return 1;
}

/* I/O-bound: waiting for block I/O (IO_WAIT) takes at least io_wait_pct of the thread's life. */
static uint64_t waited_on(const struct tl_dg_ctx *c, const struct tl_thread_stats *u, int32_t tid, uint64_t *all);

/*
 * I/O-bound thread: IO_WAIT at least io_wait_pct of its life; the threads
 * of its process, or of another recorded one (a pipeline: `dd | wc`), that
 * wait for it (its wakeups end at least a fifth of their life's waiting)
 * are named as its starving consumers.
 */
static int io_bound(struct tl_dg_ctx *c, const struct tl_thread_stats *t)
{
	struct tl_finding *f;
	size_t starved = 0;
	uint64_t starved_ns = 0;
	int r = tl_dg_share_finding(c, t, TL_FIND_IO_BOUND, t->state_ns[TL_ST_IO_WAIT], c->o->io_wait_pct,
	                            "waits for block I/O", "reader", "IO_WAIT share of the thread's life",
	                            "time in IO_WAIT", &f);

	if (r <= 0)
		return r;
	tl_dg_add_evidence(f, "EXECUTING share of the thread's life",
	                   tl_dg_pct(t->state_ns[TL_ST_EXECUTING], tl_dg_lifetime(t)), NAN, "%", 1);
	/* its consumers: recorded threads that wait for it (its wakeups end their waits) a fifth of their life */
	for (size_t i = 0; i < c->m->nthreads; i++) {
		const struct tl_thread_stats *u = &c->m->threads[i];
		uint64_t all, by;

		if (u == t || (u->pid != t->pid && !u->is_target))
			continue;
		by = waited_on(c, u, t->tid, &all);
		if (tl_dg_pct(by, tl_dg_lifetime(u)) >= 20) {
			starved++;
			starved_ns += by;
			tl_dg_add_thread(f, u->tid, u->pid, u->name, "consumer");
		}
	}
	tl_dg_add_evidence(f, "consumers waiting for it >= 20% of their life", (double)starved, NAN, "", 1);
	if (starved)
		tl_dg_add_evidence(f, "their time waiting for it", (double)starved_ns, NAN, "ns", 1);
	snprintf(f->cause, sizeof(f->cause),
	         "it blocks in the kernel until the disk answers: the device's latency, not the CPU, sets its pace%s",
	         starved ? ", and the consumers named wait for what it reads" : "");
	snprintf(f->fix, sizeof(f->fix),
	         "read ahead or in larger blocks, overlap I/O with work (a reader thread and a queue, or "
	         "asynchronous I/O), or cache what is read again");
	return 0;
}

/* The share of t's waits that interrupt context ended (a timer: its own timeout), in %. */
static double timer_share(const struct tl_thread_stats *t)
{
	uint64_t all = 0, irq = 0;

	for (size_t i = 0; i < t->nwakers; i++) {
		all += t->wakers[i].count;
		if (t->wakers[i].tid == TL_WAKER_IRQ)
			irq += t->wakers[i].count; /* not TL_WAKER_DEVICE: data arriving is not a timeout */
	}
	return tl_dg_pct(irq, all);
}

/*
 * Wake storm (polling): very many voluntary switches per second with very
 * short runs between them, almost no preemption, and woken mostly by its
 * own timeouts (interrupt context): a thread that wakes, finds nothing to
 * do and sleeps again.  A thread woken by other threads that hand it work
 * (a ping-pong, a pipeline) switches as often, but is not polling.
 */
static int wake_storm(struct tl_dg_ctx *c, const struct tl_thread_stats *t)
{
	uint64_t life = tl_dg_lifetime(t), sw = t->vol_switches + t->invol_switches, burst;
	/* sleeps on block I/O end by the disk's interrupt too, but they are not polling */
	uint64_t io = t->entries[TL_ST_IO_WAIT] + t->entries[TL_ST_BLOCKED];
	uint64_t polls = t->vol_switches > io ? t->vol_switches - io : 0;
	double hz = life ? (double)polls * 1e9 / (double)life : 0;
	uint64_t cost = t->state_ns[TL_ST_EXECUTING] + t->state_ns[TL_ST_INTERRUPTED];
	struct tl_finding *f;

	if (hz < c->o->storm_switches_hz || !t->bursts.count)
		return 0;
	burst = tl_dist_percentile(&t->bursts, 50);
	if (burst > c->o->storm_burst_ns || tl_dg_pct(t->invol_switches, sw) > c->o->storm_invol_pct ||
	    cost < c->o->min_cost_ns || timer_share(t) < c->o->storm_timer_pct)
		return 0;
	if (!(f = tl_dg_new_finding(c, TL_FIND_WAKE_STORM, t, cost)))
		return -1;
	snprintf(f->title, sizeof(f->title), "%s (%d) wakes %.0f times a second to run %.1f us each time", t->name,
	         t->tid, hz, (double)burst / 1e3);
	tl_dg_add_thread(f, t->tid, t->pid, t->name, "poller");
	tl_dg_add_wakers(f, t->wakers, t->nwakers, "waker", 2);
	tl_dg_add_evidence(f, "voluntary switches a second (block I/O apart)", hz, c->o->storm_switches_hz, "/s", 1);
	tl_dg_add_evidence(f, "median on-CPU burst", (double)burst, (double)c->o->storm_burst_ns, "ns", 0);
	tl_dg_add_evidence(f, "involuntary share of the switches", tl_dg_pct(t->invol_switches, sw),
	                   c->o->storm_invol_pct, "%", 0);
	tl_dg_add_evidence(f, "wakeups by its own timeouts (interrupts)", timer_share(t), c->o->storm_timer_pct, "%",
	                   1);
	tl_dg_add_evidence(f, "CPU time it burned (EXECUTING + INTERRUPTED)", (double)cost, (double)c->o->min_cost_ns,
	                   "ns", 1);
	snprintf(f->cause, sizeof(f->cause),
	         "it polls: a wait with a zero or tiny timeout, or a wakeup for every item, so it runs a few "
	         "microseconds, finds little to do and sleeps again");
	snprintf(f->fix, sizeof(f->fix),
	         "wait with a real timeout or on a condition that is signalled only when there is work; batch "
	         "items per wakeup");
	return 0;
}

/*
 * Preemption starvation: the thread waits preempted (READY_PREEMPT: a
 * more urgent or freshly woken task took its CPU) at least preempt_pct of
 * its life.  The threads that took the CPU are named.
 */
/* A preemptor more urgent than t (prio as each was last seen; lower is more urgent). */
static int outranks(const struct tl_waker_stat *p, const struct tl_thread_stats *t)
{
	return p->prio >= 0 && p->prio < t->prio;
}

static int preempt_starvation(struct tl_dg_ctx *c, const struct tl_thread_stats *t)
{
	uint64_t w = 0;
	struct tl_finding *f;
	size_t named = 0;
	int r;

	for (size_t i = 0; i < t->npreemptors; i++)
		if (outranks(&t->preemptors[i], t))
			w += t->preemptors[i].wait_ns;
	r = tl_dg_share_finding(c, t, TL_FIND_PREEMPT_STARVATION, w, c->o->preempt_pct, "waits preempted", "victim",
	                        "preempted by more urgent threads, % of life", "time preempted by them", &f);
	if (r <= 0)
		return r;
	for (size_t i = 0; i < t->npreemptors && named < 3; i++)
		if (outranks(&t->preemptors[i], t)) {
			tl_dg_add_thread(f, t->preemptors[i].tid, 0, t->preemptors[i].name, "preemptor");
			if (!named++)
				tl_dg_add_evidence(f, "share of it behind the first preemptor",
				                   tl_dg_pct(t->preemptors[i].wait_ns, w), NAN, "%", 1);
		}
	tl_dg_add_evidence(f, "all READY_PREEMPT (equal priorities too)", (double)t->state_ns[TL_ST_READY_PREEMPT], NAN,
	                   "ns", 1);
	snprintf(f->cause, sizeof(f->cause),
	         "threads of higher priority take its CPU while it has work: the preemptors named");
	snprintf(f->fix, sizeof(f->fix),
	         "lower the preemptors' priority or raise this thread's, give it a CPU of its own (affinity), or "
	         "make the preemptors' work shorter or less frequent");
	return 0;
}

/*
 * Interrupt interference: interrupt handlers (hard IRQs, softirqs) ran
 * inside at least irq_pct of the thread's time on a CPU (EXECUTING +
 * INTERRUPTED), for at least min_cost: that much of the CPU it was given
 * went to someone else's work.  The sources are named, largest first.
 */
static int irq_interference(struct tl_dg_ctx *c, const struct tl_thread_stats *t)
{
	uint64_t w = t->state_ns[TL_ST_INTERRUPTED], oncpu = w + t->state_ns[TL_ST_EXECUTING];
	char src[3][48], name[40];
	struct tl_finding *f;

	if (tl_dg_pct(w, oncpu) < c->o->irq_pct || w < c->o->min_cost_ns)
		return 0;
	if (!(f = tl_dg_new_finding(c, TL_FIND_IRQ_INTERFERENCE, t, w)))
		return -1;
	snprintf(f->title, sizeof(f->title), "%s (%d) loses %.0f%% of its time on a CPU to interrupts", t->name, t->tid,
	         tl_dg_pct(w, oncpu));
	tl_dg_add_thread(f, t->tid, t->pid, t->name, "victim");
	tl_dg_add_evidence(f, "INTERRUPTED share of its time on a CPU", tl_dg_pct(w, oncpu), c->o->irq_pct, "%", 1);
	tl_dg_add_evidence(f, "time in INTERRUPTED", (double)w, (double)c->o->min_cost_ns, "ns", 1);
	memset(src, 0, sizeof(src));
	for (size_t i = 0; i < 3 && t->intr[i].count && (!i || tl_dg_pct(t->intr[i].ns, w) >= 1); i++) {
		char what[64];

		tl_intr_source_name(&t->intr[i], name, sizeof(name));
		snprintf(src[i], sizeof(src[i]), "%s%s", i ? ", " : "", name);
		snprintf(what, sizeof(what), "share of it in %s", name);
		tl_dg_add_evidence(f, what, tl_dg_pct(t->intr[i].ns, w), NAN, "%", 1);
	}
	snprintf(f->cause, sizeof(f->cause),
	         "interrupt handlers ran on its CPUs inside its time (%.48s%.48s%.48s): device interrupts land "
	         "where their affinity sends them, network receive where the packet was sent or steered",
	         src[0][0] ? src[0] : "sources unknown", src[1], src[2]);
	snprintf(f->fix, sizeof(f->fix),
	         "steer the interrupts to other CPUs (/proc/irq/N/smp_affinity, RPS for network receive) and "
	         "pin this thread away from them, or make fewer of them (batch sends, interrupt coalescing)");
	return 0;
}

/*
 * Migration storm: the thread moves to another CPU on at least
 * migrate_pct of its switch-ins, and at least migrate_hz times a second:
 * each move costs it its warm caches.
 */
static int migration_storm(struct tl_dg_ctx *c, const struct tl_thread_stats *t)
{
	uint64_t life = tl_dg_lifetime(t), runs = t->entries[TL_ST_EXECUTING];
	double hz = life ? (double)t->migrations * 1e9 / (double)life : 0;
	uint64_t cost = t->migrations * c->o->migrate_cost_ns;
	struct tl_finding *f;

	if (hz < c->o->migrate_hz || tl_dg_pct(t->migrations, runs) < c->o->migrate_pct || cost < c->o->min_cost_ns)
		return 0;
	if (!(f = tl_dg_new_finding(c, TL_FIND_MIGRATION_STORM, t, cost)))
		return -1;
	snprintf(f->title, sizeof(f->title), "%s (%d) moves to another CPU %.0f times a second", t->name, t->tid, hz);
	tl_dg_add_thread(f, t->tid, t->pid, t->name, "migrant");
	tl_dg_add_evidence(f, "migrations per second", hz, c->o->migrate_hz, "/s", 1);
	tl_dg_add_evidence(f, "migrations per run on a CPU", tl_dg_pct(t->migrations, runs), c->o->migrate_pct, "%", 1);
	tl_dg_add_evidence(f, "estimated cost per migration (cold caches)", (double)c->o->migrate_cost_ns, NAN, "ns",
	                   1);
	snprintf(f->cause, sizeof(f->cause),
	         "it is moved between CPUs far more often than its runs need: changing affinity, a scheduler "
	         "balancing busy CPUs, or wakeups from threads on other CPUs pulling it along");
	snprintf(f->fix, sizeof(f->fix),
	         "pin it (or its pipeline) to a CPU set, keep the threads that wake it on its CPU, or stop "
	         "changing its affinity at run time");
	return 0;
}

/* The time u's waits ended by thread tid lasted, and by anyone (joins apart: an exit is not work handed over). */
/* u's waits that tid ended, joins and the barriers of parallel regions apart (all: every wait). */
static uint64_t waited_on(const struct tl_dg_ctx *c, const struct tl_thread_stats *u, int32_t tid, uint64_t *all)
{
	uint64_t by = 0, skip = u->join_wait_ns + tl_dg_rsync(c, u);

	*all = 0;
	for (size_t i = 0; i < u->nwakers; i++) {
		*all += u->wakers[i].wait_ns;
		if (u->wakers[i].tid == tid)
			by += u->wakers[i].wait_ns;
	}
	return by > skip ? by - skip : 0;
}

/*
 * Another thread of the recorded program (t's process, or another of its
 * processes: a pipeline of processes, a client and its server) that waits
 * for t at least half its life, mostly for t.
 */
static int waits_for(const struct tl_dg_ctx *c, const struct tl_thread_stats *u, const struct tl_thread_stats *t,
                     uint64_t *by)
{
	uint64_t all;

	*by = waited_on(c, u, t->tid, &all);
	return u->tid != t->tid && (u->pid == t->pid || (u->is_target && t->is_target)) &&
	       tl_dg_pct(*by, tl_dg_lifetime(u)) >= 50 && tl_dg_pct(*by, all) >= 50;
}

/*
 * Single-thread bottleneck: one thread runs at least busy_pct of its life,
 * while other threads of its process wait at least half of their lives,
 * mostly for it (its wakeups end at least half of their waiting).  The
 * cost is the time they waited for it, and its share is of their lives
 * (of its own, two threads waiting all along read as 200%).
 */
static int bottleneck(struct tl_dg_ctx *c, const struct tl_thread_stats *t)
{
	uint64_t life = tl_dg_lifetime(t), run = t->state_ns[TL_ST_EXECUTING] + t->state_ns[TL_ST_INTERRUPTED],
	         cost = 0, lives = 0, by;
	const struct tl_model *m = c->m;
	struct tl_finding *f;
	size_t nwait = 0, elsewhere = 0;
	char others[48] = "";

	if (tl_dg_pct(run, life) < c->o->busy_pct || run < c->o->min_cost_ns)
		return 0;
	for (size_t i = 0; i < m->nthreads; i++)
		if (waits_for(c, &m->threads[i], t, &by)) {
			cost += by;
			lives += tl_dg_lifetime(&m->threads[i]);
			nwait++;
			elsewhere += m->threads[i].pid != t->pid;
		}
	if (!nwait || cost < c->o->min_cost_ns)
		return 0;
	if (!(f = tl_dg_new_finding_at(c, TL_FIND_SINGLE_THREAD_BOTTLENECK, t->pid, t->process, t->start, t->end, cost,
	                               lives)))
		return -1;
	if (elsewhere)
		snprintf(others, sizeof(others), " (%zu in other processes)", elsewhere);
	snprintf(f->title, sizeof(f->title), "%.40s (%d) runs %.0f%% of its life while %zu other thread%s for it%s",
	         t->name, t->tid, tl_dg_pct(run, life), nwait, nwait == 1 ? " waits" : "s wait", others);
	tl_dg_add_thread(f, t->tid, t->pid, t->name, "bottleneck");
	for (size_t i = 0; i < m->nthreads; i++)
		if (waits_for(c, &m->threads[i], t, &by))
			tl_dg_add_thread(f, m->threads[i].tid, m->threads[i].pid, m->threads[i].name, "waiting");
	tl_dg_add_evidence(f, "on-CPU share of its life", tl_dg_pct(run, life), c->o->busy_pct, "%", 1);
	tl_dg_add_evidence(f, "threads that wait for it half their lives", (double)nwait, 1, "", 1);
	tl_dg_add_evidence(f, "their time waiting for it", (double)cost, (double)c->o->min_cost_ns, "ns", 1);
	snprintf(f->cause, sizeof(f->cause),
	         "the work is serial in this thread: it is always busy while the threads it feeds (named as "
	         "waiting%s) sit idle until it hands them something",
	         elsewhere ? "; in the program's other processes too: a pipeline of processes, a pipe or a socket"
	                   : "");
	snprintf(f->fix, sizeof(f->fix),
	         "split this thread's work (data-parallel blocks or a pipeline of stages), or move work from it to "
	         "the waiting threads%s",
	         elsewhere ? "; for a stage that is a program of its own, a parallel version of it, or the input split "
	                     "over several of its processes"
	                   : "");
	return 0;
}

/* Numbers in doubt: the self-check did not pass the thread, or the trace lost events. */
/*
 * Oversubscription, in two forms.  Alternating with idle CPUs: a process
 * has more threads wanting a CPU than the CPUs it may use at least
 * oversub_pct of the time it is active (some thread wants a CPU), and
 * fewer (but some) while a CPU is idle at least oversub_pct of it too;
 * cost, the smaller of the thread time spent waiting while oversubscribed
 * and the idle CPU time while under-using: what spreading the same work in
 * time could recover.  Idle: no thread of the trace on the CPU (load.h),
 * so the CPUs the program's other processes kept busy are not counted.  Sustained: its threads wait for a CPU, in thread time, at
 * least as long as they run (OVERSUB_QUEUE_PCT: on average a thread queued
 * behind each running one); cost, the time it was oversubscribed times
 * the share of its threads' time spent queued then (a wall time, not more
 * than the run).
 */
#define OVERSUB_QUEUE_PCT 100
static int oversubscription(struct tl_dg_ctx *c, const struct tl_process_stats *p)
{
	const struct tl_load_proc *l = tl_load_find(&c->m->load, p->pid);
	uint64_t active = 0, over = 0, under = 0, wait = 0, spare = 0, run = 0, cost;
	int alternating, sustained;
	int n = p->available_cpus > 0 ? p->available_cpus : c->m->ncpus;
	const struct tl_thread_stats *top[3] = { 0 };
	struct tl_finding *f;

	if (!l)
		return 0;
	for (int k = 1; k < TL_LOAD_LEVELS; k++) {
		active += l->at_level[k];
		run += (uint64_t)(k < n ? k : n) * l->at_level[k];
		if (k > n) {
			over += l->at_level[k];
			wait += (uint64_t)(k - n) * l->at_level[k];
		} else if (k < n) {
			under += l->at_level[k];
			spare += (uint64_t)(n - k) * l->at_level[k];
		}
	}
	/* unused CPUs that nothing else of the trace used: exact when n is the machine's, a bound when less */
	if (l->idle_under_ns < under)
		under = l->idle_under_ns;
	if (l->idle_spare_ns < spare)
		spare = l->idle_spare_ns;
	alternating = tl_dg_pct(over, active) >= c->o->oversub_pct && tl_dg_pct(under, active) >= c->o->oversub_pct &&
	              (wait < spare ? wait : spare) >= c->o->min_cost_ns;
	cost = alternating ? (wait < spare ? wait : spare)
	                   : (uint64_t)((double)over * (double)wait / ((double)wait + (double)run + 1));
	sustained = !alternating && tl_dg_pct(wait, run) >= OVERSUB_QUEUE_PCT && cost >= c->o->min_cost_ns;
	if (!alternating && !sustained)
		return 0;
	/* the threads that waited longest for a CPU */
	for (size_t i = 0; i < c->m->nthreads; i++) {
		const struct tl_thread_stats *t = &c->m->threads[i];
		uint64_t r = tl_regions_ready(t->state_ns);

		if (t->pid != p->pid || !r)
			continue;
		for (int k = 0; k < 3; k++)
			if (!top[k] || r > tl_regions_ready(top[k]->state_ns)) {
				memmove(&top[k + 1], &top[k], (size_t)(2 - k) * sizeof(top[0]));
				top[k] = t;
				break;
			}
	}
	f = tl_dg_new_finding_at(c, TL_FIND_OVERSUBSCRIPTION, p->pid, p->name, p->start, p->end, cost, active);
	if (!f)
		return -1;
	if (alternating)
		snprintf(f->title, sizeof(f->title),
		         "%s (%d) wants more than its %d CPUs for %.0f%% of its active time, and leaves some idle "
		         "for %.0f%%",
		         p->name, p->pid, n, tl_dg_pct(over, active), tl_dg_pct(under, active));
	else
		snprintf(f->title, sizeof(f->title),
		         "%s (%d) keeps up to %d threads wanting its %d CPUs: %.0f%% of its run time again in queues",
		         p->name, p->pid, l->max_level, n, tl_dg_pct(wait, run));
	for (int k = 0; k < 3 && top[k]; k++)
		tl_dg_add_thread(f, top[k]->tid, top[k]->pid, top[k]->name, "waiting");
	tl_dg_add_evidence(f, "time with more threads wanting a CPU than CPUs", tl_dg_pct(over, active),
	                   alternating ? c->o->oversub_pct : NAN, "%", 1);
	tl_dg_add_evidence(f, "time with CPUs idle (some thread running)", tl_dg_pct(under, active),
	                   alternating ? c->o->oversub_pct : NAN, "%", 1);
	tl_dg_add_evidence(f, "thread time waiting for a CPU, per running", tl_dg_pct(wait, run),
	                   alternating ? NAN : OVERSUB_QUEUE_PCT, "%", 1);
	tl_dg_add_evidence(f, "thread time waiting for a CPU then", (double)wait, NAN, "ns", 1);
	tl_dg_add_evidence(f, "CPU time idle then", (double)spare, NAN, "ns", 1);
	tl_dg_add_evidence(f,
	                   alternating ? "the smaller: what spreading could recover" : "time over, times share queued",
	                   (double)cost, (double)c->o->min_cost_ns, "ns", 1);
	tl_dg_add_evidence(f, "most threads wanting a CPU at once", l->max_level, NAN, "", 1);
	tl_dg_add_evidence(f, "CPUs it may use", n, NAN, "", 1);
	if (alternating)
		snprintf(f->cause, sizeof(f->cause),
		         "its threads become runnable together (more busy threads than CPUs, woken at once) and then "
		         "wait on each other, so the same work alternates between queues for the CPUs and idle CPUs");
	else
		snprintf(f->cause, sizeof(f->cause),
		         "it runs more busy threads than it has CPUs: they take turns, each wakeup and time slice "
		         "a switch, and any of them may be the one the others wait for");
	snprintf(f->fix, sizeof(f->fix),
	         "use no more busy threads than CPUs, give the threads that feed the others a higher priority, "
	         "or overlap the serial parts with the parallel ones (pipeline the rounds)");
	return 0;
}

/* "rt 30" (SCHED_FIFO/RR priority) or "nice 0", from the kernel's prio. */
static const char *prio_str(int prio, char *buf, size_t len)
{
	if (prio >= 0 && prio < 100)
		snprintf(buf, len, "rt %d", 99 - prio);
	else
		snprintf(buf, len, "nice %d", prio - 120);
	return buf;
}

/*
 * Priority inversion: a thread's waits on locks held by a less urgent
 * thread, while a thread of middle priority kept the holder from its CPU
 * (the model's inversions, analysis/inversion), add up to min_cost.  The
 * biggest (holder, preemptor) pair is named; the cost is all of them.
 */
static int priority_inversion(struct tl_dg_ctx *c, const struct tl_thread_stats *t)
{
	const struct tl_inversion_result *r = &c->m->inversions;
	const struct tl_inversion *top = NULL;
	uint64_t ns = 0, waits = 0;
	char b[3][24];
	struct tl_finding *f;

	for (size_t i = 0; i < r->n; i++)
		if (r->items[i].waiter == t->tid && r->items[i].pid == t->pid) {
			top = top ? top : &r->items[i]; /* sorted: the first is the biggest */
			ns += r->items[i].ns;
			waits += r->items[i].waits;
		}
	if (!top || ns < c->o->min_cost_ns)
		return 0;
	if (!(f = tl_dg_new_finding(c, TL_FIND_PRIORITY_INVERSION, t, ns)))
		return -1;
	snprintf(f->title, sizeof(f->title),
	         "%.20s (%d, %.8s) waits on a lock %.20s (%.8s) holds while %.20s (%.8s) runs", t->name, t->tid,
	         prio_str(top->waiter_prio, b[0], sizeof(b[0])), top->holder_name,
	         prio_str(top->holder_prio, b[1], sizeof(b[1])), top->preemptor_name,
	         prio_str(top->preemptor_prio, b[2], sizeof(b[2])));
	tl_dg_add_thread(f, t->tid, t->pid, t->name, "waiter");
	tl_dg_add_thread(f, top->holder, t->pid, top->holder_name, "holder");
	tl_dg_add_thread(f, top->preemptor, 0, top->preemptor_name, "preemptor");
	f->windows[0][0] = top->first;
	f->windows[0][1] = top->last;
	tl_dg_add_evidence(f, "lock wait while the holder was preempted", (double)ns, (double)c->o->min_cost_ns, "ns",
	                   1);
	tl_dg_add_evidence(f, "lock waits it happened in", (double)waits, NAN, "", 1);
	tl_dg_add_evidence(f, "share of its lock waits", tl_dg_pct(ns, t->lock_wait_ns), NAN, "%", 1);
	snprintf(f->cause, sizeof(f->cause),
	         "the lock's holder runs at a lower priority than the waiter, and a thread of middle priority "
	         "takes the holder's CPU: the waiter, which outranks it, waits for it through the lock");
	snprintf(f->fix, sizeof(f->fix),
	         "use a priority-inheritance mutex (PTHREAD_PRIO_INHERIT) or a priority ceiling "
	         "(PTHREAD_PRIO_PROTECT), or do not share locks between threads of different priorities");
	return 0;
}

static void mark_doubt(struct tl_finding *f, const struct tl_model *m)
{
	const struct tl_kcheck_result *k = &m->kcheck;

	if (m->run->lost_total) {
		snprintf(f->doubt, sizeof(f->doubt), "the trace lost %llu events",
		         (unsigned long long)m->run->lost_total);
		return;
	}
	for (size_t i = 0; i < k->nthreads; i++)
		if (k->threads[i].tid == f->threads[0].tid && !k->threads[i].ok) {
			snprintf(f->doubt, sizeof(f->doubt),
			         "the kernel's own accounting of %s disagrees with the trace (report: Self-check)",
			         f->threads[0].name);
			return;
		}
}

static int cmp_cost(const void *a, const void *b)
{
	const struct tl_finding *x = a, *y = b;

	if (x->cost_ns != y->cost_ns)
		return x->cost_ns < y->cost_ns ? 1 : -1;
	return x->kind != y->kind ? (x->kind < y->kind ? -1 : 1) : x->threads[0].tid - y->threads[0].tid;
}

int tl_diagnose_model(const struct tl_model *m, const struct tl_diagnose_opts *opts, struct tl_findings *out)
{
	/* the detectors that examine each thread; the region ones count regions (diagnose_regions.c) */
	static const unsigned ready[] = { TL_FIND_LOCK_CONTENTION,  TL_FIND_IO_BOUND,
		                          TL_FIND_WAKE_STORM,       TL_FIND_PREEMPT_STARVATION,
		                          TL_FIND_MIGRATION_STORM,  TL_FIND_SINGLE_THREAD_BOTTLENECK,
		                          TL_FIND_IRQ_INTERFERENCE, TL_FIND_PRIORITY_INVERSION,
		                          TL_FIND_YIELD_SPIN };
	struct tl_diagnose_opts def;
	struct tl_dg_ctx c = { 0 };
	int ret = 0;

	memset(out, 0, sizeof(*out));
	if (!opts) {
		tl_diagnose_defaults(&def);
		opts = &def;
	}
	out->run = m->run;
	c.o = opts;
	c.m = m;
	c.out = out;
	if (tl_dg_rsync_init(&c) < 0)
		return tl_error("out of memory");
	for (unsigned k = 0; k < TL_FIND__COUNT; k++)
		snprintf(out->skipped[k], sizeof(out->skipped[k]), TL_DIAGNOSE_NOT_YET);
	for (size_t i = 0; i < sizeof(ready) / sizeof(ready[0]); i++)
		out->skipped[ready[i]][0] = 0;
	out->skipped[TL_FIND_BARRIER_IMBALANCE][0] = 0;
	out->skipped[TL_FIND_POINTLESS_PARALLEL][0] = 0;
	out->skipped[TL_FIND_OVERSUBSCRIPTION][0] = 0;
	out->skipped[TL_FIND_SERIALIZED][0] = 0;
	out->skipped[TL_FIND_SPIN_WAITING][0] = 0;
	out->skipped[TL_FIND_TASK_STARVATION][0] = 0;
	out->skipped[TL_FIND_CPU_THROTTLED][0] = 0;
	out->skipped[TL_FIND_AFFINITY_BOUND][0] = 0;
	out->skipped[TL_FIND_WORKER_IMBALANCE][0] = 0;
	out->skipped[TL_FIND_THREAD_CHURN][0] = 0;
	out->skipped[TL_FIND_THUNDERING_HERD][0] = 0;
	out->skipped[TL_FIND_CPU_SATURATION][0] = 0;
	for (size_t i = 0; i < m->nthreads && !ret; i++) {
		const struct tl_thread_stats *t = &m->threads[i];

		for (size_t k = 0; k < sizeof(ready) / sizeof(ready[0]); k++)
			out->checked[ready[k]]++;
		ret = io_bound(&c, t) || wake_storm(&c, t) || preempt_starvation(&c, t) || migration_storm(&c, t) ||
		                      bottleneck(&c, t) || irq_interference(&c, t) || priority_inversion(&c, t) ||
		                      tl_dg_yield(&c, t)
		              ? -1
		              : 0;
	}
	for (size_t i = 0; i < m->nprocs && !ret; i++)
		if (m->procs[i].is_target) {
			out->checked[TL_FIND_OVERSUBSCRIPTION]++;
			out->checked[TL_FIND_SERIALIZED]++;
			out->checked[TL_FIND_SPIN_WAITING]++;
			out->checked[TL_FIND_CPU_THROTTLED]++;
			out->checked[TL_FIND_AFFINITY_BOUND]++;
			out->checked[TL_FIND_WORKER_IMBALANCE]++;
			out->checked[TL_FIND_THREAD_CHURN]++;
			ret = oversubscription(&c, &m->procs[i]) || tl_dg_serialized(&c, &m->procs[i]) ||
			                      tl_dg_spin(&c, &m->procs[i]) || tl_dg_throttle(&c, &m->procs[i]) ||
			                      tl_dg_affinity(&c, &m->procs[i]) || tl_dg_workers(&c, &m->procs[i]) ||
			                      tl_dg_churn(&c, &m->procs[i])
			              ? -1
			              : 0;
		}
	if (!ret)
		ret = tl_dg_locks(&c) || tl_dg_regions(&c) || tl_dg_herds(&c) || tl_dg_saturation(&c) ? -1 : 0;
	free(c.rsync);
	if (ret) {
		tl_findings_release(out);
		return tl_error("out of memory");
	}
	for (size_t i = 0; i < out->n; i++)
		mark_doubt(&out->items[i], m);
	if (out->n > 1)
		qsort(out->items, out->n, sizeof(*out->items), cmp_cost);
	return 0;
}

int tl_diagnose_analyze(struct tl_run *run, const struct tl_diagnose_opts *opts, struct tl_findings *out)
{
	struct tl_model m;
	int ret;

	memset(out, 0, sizeof(*out));
	if (tl_report_analyze(run, &m) < 0)
		return -1;
	ret = tl_diagnose_model(&m, opts, out);
	tl_report_release(&m);
	return ret;
}
