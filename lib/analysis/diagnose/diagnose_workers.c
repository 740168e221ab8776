/*
 * diagnose_workers.c - threads created for work: split unevenly among them
 * (worker-imbalance), or created anew for each small task (thread-churn).
 *
 * A thread that creates workers, gives each a part of the work and joins
 * them (a thread per part: image rows split by count, blocks of unequal
 * size) finishes when its slowest worker does; the others, done early,
 * leave their CPUs idle.  No markers are needed: the workers' lives say
 * it (barrier-imbalance judges marked or OpenMP regions instead).
 *
 * A team: threads that one thread created (FORK) within TEAM_GAP_NS of the
 * first, in its process or as processes of their own (Python's
 * multiprocessing.Process, a fork per part), that exited in the window and
 * wanted a CPU (on one, or waiting for one) at least BUSY_PCT of their
 * lives of 1 ms or more (of what the trace knows of them, busy()): they
 * computed until their part was done, all of them were on a CPU before the
 * first of them ended (they ran together), and they do parts of one work
 * (same_work(): not make -j's different jobs).  A
 * member ends at its exit (a child process lives on until its parent reaps
 * it, in the order the parent joins).  Its span S runs from the first one's
 * start to the last one's end.  With k the fewer of its threads and the
 * CPUs the process may use, each end that leaves fewer than k of them alive
 * leaves a CPU idle until the team ends; the loss L is that idle CPU time
 * over k: the wall time the same work split evenly would have saved (a team
 * of two, one done at 0.5 s, the other at 1.5 s: 0.5 s).  A team counts when
 * L is at least imbalance_pct of S (`--imbalance`, barrier-imbalance's
 * option).  A thread or process the creator starts after the team's first
 * end and before its last fills a freed CPU while it lives (alive, busy or
 * not: a compiler driver waits for the compiler it started): a creator that
 * hands out the next part as a worker finishes (make -j, xargs -P) splits
 * the work as the fix says, and loses only what it leaves idle.  Found per
 * creator when the losses of its teams add up to the minimum cost; the
 * cost is that sum, wall time.  Pool threads that live for the whole run
 * and wait for work, and pipeline stages (asleep much of their lives), are
 * no teams.
 *
 * Thread churn: a thread that creates threads (or child processes) living
 * under CHURN_LIFE_NS each, from creation to exit, at least CHURN_MIN of
 * them at CHURN_RATE a second or more (from its first such creation to its
 * last), pays for a thread per task: the clone, the new thread's start on
 * a CPU, its exit and the join, where a pool would hand the task to a
 * thread already running; a process per task (a shell loop running a
 * command per item) pays a fork, an exec and the loader besides.  The cost
 * is what the trace measures of it: the new threads' waits to run (NEW,
 * and RUNNABLE: a new thread waits for its first CPU), and a process's
 * time on a CPU before its exec (the fork's copy, before the command
 * runs: 72 us of a /bin/true's 474); the CPU time of the clone and of the
 * thread's start and exit, and the loader's, is not told from its work,
 * so the cost is a lower bound.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/diagnose/diagnose_int.h"

/*
 * Created within 50 ms of the team's first: a creator preempted between
 * two creations delays the second (once by more than 10 ms, under the
 * recorder built with ASan); members must also have run together.
 */
#define TEAM_GAP_NS 50000000ull
#define BUSY_PCT 80
#define CHURN_LIFE_NS 1000000ull /* a thread for one small task: it lives under 1 ms */
#define CHURN_MIN 100
#define CHURN_RATE 1000 /* a second */

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* When t ended: its exit, not its reaping. */
static uint64_t end_of(const struct tl_thread_stats *t)
{
	return t->exited_at && t->exited_at < t->end ? t->exited_at : t->end;
}

static int cmp_member(const void *a, const void *b)
{
	const struct tl_thread_stats *x = *(const struct tl_thread_stats *const *)a;
	const struct tl_thread_stats *y = *(const struct tl_thread_stats *const *)b;

	if (x->creator != y->creator)
		return x->creator < y->creator ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->tid - y->tid;
}

static uint64_t oncpu(const struct tl_thread_stats *t)
{
	return t->state_ns[TL_ST_EXECUTING] + t->state_ns[TL_ST_INTERRUPTED];
}

/* What one creator's teams add up to. */
struct sums {
	size_t teams, lopsided, most;               /* teams, those that count, the most threads in one */
	uint64_t span, ideal, cost;                 /* of those that count */
	uint64_t worst;                             /* the largest loss */
	const struct tl_thread_stats *slow, *quick; /* the worst team's last and first to finish */
};

/* A change in how many of a creator's threads are alive: one starts (+1) or ends (-1) at `at`. */
struct step {
	uint64_t at;
	int d;
};

static int cmp_step(const void *a, const void *b)
{
	const struct step *x = a, *y = b;

	return x->at != y->at ? (x->at < y->at ? -1 : 1) : x->d - y->d;
}

/*
 * Judge the team members[0..n) (one creator, created together) into *s;
 * kids[0..nkids): all that creator's threads by start, the later ones
 * among them fill freed CPUs (the head of the file); steps[] room for
 * n + 2 nkids.
 */
static void team(const struct tl_dg_ctx *c, const struct tl_process_stats *p, const struct tl_thread_stats **members,
                 size_t n, const struct tl_thread_stats *const *kids, size_t nkids, struct step *steps, struct sums *s)
{
	uint64_t first = UINT64_MAX, first_end = UINT64_MAX, last = 0, idle = 0, ideal, loss, at;
	const struct tl_thread_stats *slow = members[0], *quick = members[0];
	size_t k = p->available_cpus > 0 && (size_t)p->available_cpus < n ? (size_t)p->available_cpus : n, m = 0, alive;

	for (size_t i = 0; i < n; i++) {
		uint64_t end = end_of(members[i]);

		first = members[i]->start < first ? members[i]->start : first;
		first_end = end < first_end ? end : first_end;
		last = end > last ? end : last;
		slow = end > end_of(slow) ? members[i] : slow;
		quick = end < end_of(quick) ? members[i] : quick;
		steps[m++] = (struct step){ end, -1 };
	}
	/* members all began before first_end: those begun since are refills */
	for (size_t i = 0; i < nkids; i++)
		if (kids[i]->start >= first_end && kids[i]->start < last) {
			steps[m++] = (struct step){ kids[i]->start, 1 };
			steps[m++] = (struct step){ end_of(kids[i]) < last ? end_of(kids[i]) : last, -1 };
		}
	qsort(steps, m, sizeof(*steps), cmp_step);
	/* from the first end on, each CPU of k that none of them holds is idle */
	at = first_end;
	alive = n;
	for (size_t i = 0; i < m; i++) {
		if (alive < k)
			idle += (steps[i].at - at) * (k - alive);
		at = steps[i].at;
		alive = steps[i].d > 0 ? alive + 1 : alive - 1;
	}
	loss = idle / k;
	ideal = last - first - loss;
	s->teams++;
	if (!loss || tl_dg_pct(loss, last - first) < c->o->imbalance_pct)
		return;
	s->lopsided++;
	s->most = n > s->most ? n : s->most;
	s->span += last - first;
	s->ideal += ideal;
	s->cost += loss;
	if (loss > s->worst) {
		s->worst = loss;
		s->slow = slow;
		s->quick = quick;
	}
}

static int finding(struct tl_dg_ctx *c, const struct tl_process_stats *p, int32_t creator, const struct sums *s)
{
	const struct tl_model *m = c->m;
	const char *name = p->name;
	struct tl_finding *f;

	if (s->cost < c->o->min_cost_ns)
		return 0;
	for (size_t i = 0; i < m->nthreads; i++)
		if (m->threads[i].tid == creator && m->threads[i].pid == p->pid)
			name = m->threads[i].name;
	f = tl_dg_new_finding_at(c, TL_FIND_WORKER_IMBALANCE, p->pid, p->name, p->start, p->end, s->cost, s->span);
	if (!f)
		return -1;
	snprintf(f->title, sizeof(f->title),
	         "%.40s (%d) split work unevenly: %zu team%s of up to %zu threads took %.0f%% longer than the work "
	         "split evenly",
	         name, (int)creator, s->lopsided, s->lopsided > 1 ? "s" : "", s->most,
	         s->ideal ? 100.0 * ((double)s->span / (double)s->ideal - 1) : 0.0);
	tl_dg_add_thread(f, creator, p->pid, name, "creator");
	tl_dg_add_thread(f, s->slow->tid, s->slow->pid, s->slow->name, "last to finish");
	tl_dg_add_thread(f, s->quick->tid, s->quick->pid, s->quick->name, "first to finish");
	tl_dg_add_evidence(f, "lost to the split, % of the teams' time", tl_dg_pct(s->cost, s->span),
	                   c->o->imbalance_pct, "%", 1);
	tl_dg_add_evidence(f, "time lost (wall time)", (double)s->cost, (double)c->o->min_cost_ns, "ns", 1);
	tl_dg_add_evidence(f, "teams lopsided, of all", (double)s->lopsided, NAN, "", 1);
	tl_dg_add_evidence(f, "teams in all", (double)s->teams, NAN, "", 1);
	tl_dg_add_evidence(f, "the teams' time (first start to last end)", (double)s->span, NAN, "ns", 1);
	tl_dg_add_evidence(f, "less the loss: their work split evenly", (double)s->ideal, NAN, "ns", 1);
	tl_dg_add_evidence(f, "worst team: last / first to finish, CPU time",
	                   oncpu(s->quick) ? (double)oncpu(s->slow) / (double)oncpu(s->quick) : NAN, NAN, "", 1);
	snprintf(f->cause, sizeof(f->cause),
	         "the work was split unevenly among threads created for it: those done first exit and leave their "
	         "CPUs idle while the last computes on (parts split by count, not by cost: image rows of unequal cost, "
	         "blocks of unequal size)");
	snprintf(f->fix, sizeof(f->fix),
	         "split the work into more, smaller pieces that the threads take as they free up (a work queue, a "
	         "thread pool, OpenMP schedule(dynamic)), or size the parts by their cost");
	return 0;
}

/* The short-lived threads v[0..n) that one creator made (sorted by start; lives[] room for n). */
static int churn(struct tl_dg_ctx *c, const struct tl_process_stats *p, const struct tl_thread_stats **v, size_t n,
                 uint64_t *lives)
{
	const struct tl_model *m = c->m;
	uint64_t span = v[n - 1]->start - v[0]->start, wait = 0, run = 0, life = 0, creator_run = 0, copy = 0;
	double rate = span ? (double)n * 1e9 / (double)span : 0;
	const char *name = p->name, *what;
	struct tl_finding *f;
	size_t procs = 0;

	if (n < CHURN_MIN || rate < CHURN_RATE)
		return 0;
	for (size_t i = 0; i < n; i++) {
		wait += v[i]->state_ns[TL_ST_NEW] + v[i]->state_ns[TL_ST_RUNNABLE];
		run += oncpu(v[i]);
		lives[i] = end_of(v[i]) - v[i]->start;
		life += lives[i];
		procs += v[i]->tid == v[i]->pid;
		copy += v[i]->exec_at ? v[i]->pre_exec_ns : 0;
	}
	what = !procs ? "threads" : procs == n ? "processes" : "threads and processes";
	if (wait + copy < c->o->min_cost_ns)
		return 0;
	qsort(lives, n, sizeof(*lives), cmp_u64);
	for (size_t i = 0; i < m->nthreads; i++)
		if (m->threads[i].tid == v[0]->creator && m->threads[i].pid == p->pid) {
			name = m->threads[i].name;
			creator_run = oncpu(&m->threads[i]);
		}
	f = tl_dg_new_finding_at(c, TL_FIND_THREAD_CHURN, p->pid, p->name, v[0]->start, v[n - 1]->end, wait + copy,
	                         life);
	if (!f)
		return -1;
	snprintf(f->title, sizeof(f->title),
	         "%.40s (%d) created %zu %s of a median %.0f us each, %.0f a second: a %s per task", name,
	         (int)v[0]->creator, n, what, (double)lives[n / 2] / 1e3, rate, procs == n ? "process" : "thread");
	tl_dg_add_thread(f, v[0]->creator, p->pid, name, "creator");
	tl_dg_add_thread(f, v[n / 2]->tid, v[n / 2]->pid, v[n / 2]->name, "one of them");
	tl_dg_add_evidence(f, "short-lived ones it created (under 1 ms)", (double)n, CHURN_MIN, "", 1);
	if (procs)
		tl_dg_add_evidence(f, "of them processes", (double)procs, NAN, "", 1);
	tl_dg_add_evidence(f, "created a second", rate, CHURN_RATE, "", 1);
	tl_dg_add_evidence(f, "their waits to run (NEW, RUNNABLE)", (double)wait, NAN, "ns", 1);
	if (copy)
		tl_dg_add_evidence(f, "their time on a CPU before exec (fork's copy)", (double)copy, NAN, "ns", 1);
	tl_dg_add_evidence(f, "the two: the cost, a lower bound", (double)(wait + copy), (double)c->o->min_cost_ns,
	                   "ns", 1);
	tl_dg_add_evidence(f, "their median lifetime", (double)lives[n / 2], NAN, "ns", 1);
	tl_dg_add_evidence(f, "their time on a CPU in all (work, start, exit)", (double)run, NAN, "ns", 1);
	tl_dg_add_evidence(f, "the creator's CPU time (clones, joins too)", (double)creator_run, NAN, "ns", 1);
	if (procs == n) {
		snprintf(f->cause, sizeof(f->cause),
		         "a new process for each small task: every one pays a fork, an exec and the loader, a wait for "
		         "its first CPU, its exit and a wait, which can cost far more than the task; the trace "
		         "measures the waits and the time before the exec, the rest is in the processes' and the "
		         "creator's CPU time");
		snprintf(f->fix, sizeof(f->fix),
		         "do the task in the creator (a library call, a shell builtin), or give each process many "
		         "items (xargs -n, a long-running helper fed through a pipe)");
	} else {
		snprintf(f->cause, sizeof(f->cause),
		         "a new thread for each small task: every one pays a clone and a new stack, a wait for its "
		         "first CPU, its exit and a join, which can cost as much as the task; the trace measures the "
		         "waits, the rest is in the threads' and the creator's CPU time");
		snprintf(f->fix, sizeof(f->fix),
		         "keep a pool of long-lived threads and hand them the tasks through a queue (a thread pool, "
		         "std::async with a pool, OpenMP tasks), or give each thread a larger batch of work");
	}
	return 0;
}

/*
 * A team member: it computed its part until done, from its start to its
 * exit (see the head of the file), for CHURN_LIFE_NS at least: shorter
 * threads are thread-churn's, and their ends a few us apart are noise.
 */
/*
 * Wanted a CPU BUSY_PCT of the part of its life the trace knows: UNKNOWN
 * time (a switch back to it that no tracepoint reported: 8 ms of a
 * worker's 26 once, preempted by a hypervisor agent's thread) could be
 * waiting or running, so it is left out, when at most half the life.
 */
static int busy(const struct tl_thread_stats *t)
{
	uint64_t life = end_of(t) > t->start ? end_of(t) - t->start : 0;
	uint64_t unknown = t->state_ns[TL_ST_UNKNOWN] < life ? t->state_ns[TL_ST_UNKNOWN] : life;

	return t->exited_at && life >= CHURN_LIFE_NS && unknown <= life / 2 &&
	       tl_dg_pct(tl_dg_wanting(t), life - unknown) >= BUSY_PCT;
}

/* Any thread a thread of the process created: one that may fill a CPU a team member freed. */
static int any(const struct tl_thread_stats *t)
{
	(void)t;
	return 1;
}

/*
 * A thread (or process) for one small task: born in the window, it lived
 * under CHURN_LIFE_NS up to its exit (a child process waits for its
 * parent's reaping after that: 19 ms once in a shell loop).
 */
static int short_lived(const struct tl_thread_stats *t)
{
	return t->exited_at && !t->snapshot && end_of(t) >= t->start && end_of(t) - t->start < CHURN_LIFE_NS;
}

/*
 * Parts of one work: threads, forked processes (a fork per part,
 * multiprocessing.Process), or processes that exec'd the same program
 * (xargs -P's).  Child processes that exec'd different programs do
 * different jobs (make -j's `mkdir` beside a `sh`: 36 such "teams" of a
 * build read as 36 ms lost), whose ends owe nothing to how a work was split.
 */
static int same_work(const struct tl_thread_stats *a, const struct tl_thread_stats *b)
{
	int xa = a->tid == a->pid && a->exec_at, xb = b->tid == b->pid && b->exec_at;

	return !xa && !xb ? 1 : xa && xb && strcmp(a->name, b->name) == 0;
}

static int cmp_i32(const void *a, const void *b)
{
	int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * The threads that a thread of p created (threads of p; with `procs`, the
 * leaders of p's child processes too),
 * those keep() takes, sorted by creator and start, into *v (the caller
 * frees it).  Their count, or -1 (memory).
 */
static long created(const struct tl_model *m, const struct tl_process_stats *p, int procs,
                    int (*keep)(const struct tl_thread_stats *), const struct tl_thread_stats ***v)
{
	size_t n = 0, nt = 0;
	int32_t *tids = calloc(m->nthreads ? m->nthreads : 1, sizeof(*tids));

	/*
	 * p's tids, sorted: a child process is p's when its creator is one of
	 * them.  Looked up by a scan of every thread before, which made
	 * diagnose take 1 to 300 s on one 4,000-process trace as the creator's
	 * place among the threads varied (cli diagnose/thread-churn-procs).
	 */
	*v = calloc(m->nthreads ? m->nthreads : 1, sizeof(**v));
	if (!*v || !tids) {
		free(*v);
		free(tids);
		return -1;
	}
	for (size_t i = 0; i < m->nthreads; i++)
		if (m->threads[i].pid == p->pid)
			tids[nt++] = m->threads[i].tid;
	qsort(tids, nt, sizeof(*tids), cmp_i32);
	for (size_t i = 0; i < m->nthreads; i++) {
		const struct tl_thread_stats *t = &m->threads[i];
		int mine = t->tid != t->pid ? t->pid == p->pid
		                            : procs && bsearch(&t->creator, tids, nt, sizeof(*tids), cmp_i32) != NULL;

		if (mine && t->creator > 0 && keep(t))
			(*v)[n++] = t;
	}
	free(tids);
	if (n > 1)
		qsort(*v, n, sizeof(**v), cmp_member);
	return (long)n;
}

/* Thread churn: each creator's short-lived threads (thread-churn above).  0, or -1. */
int tl_dg_churn(struct tl_dg_ctx *c, const struct tl_process_stats *p)
{
	const struct tl_thread_stats **v;
	long got = created(c->m, p, 1, short_lived, &v);
	size_t n = got > 0 ? (size_t)got : 0;
	uint64_t *lives = got < 0 ? NULL : calloc(n + 1, sizeof(*lives));
	int ret = 0;

	if (!lives) {
		free(got < 0 ? NULL : v);
		return -1;
	}
	for (size_t i = 0, j; i < n && !ret; i = j) {
		for (j = i + 1; j < n && v[j]->creator == v[i]->creator; j++)
			;
		ret = churn(c, p, v + i, j - i, lives);
	}
	free(v);
	free(lives);
	return ret;
}

int tl_dg_workers(struct tl_dg_ctx *c, const struct tl_process_stats *p)
{
	const struct tl_thread_stats **v = NULL, **kids = NULL;
	long got = created(c->m, p, 1, busy, &v), gotk = got < 0 ? -1 : created(c->m, p, 1, any, &kids);
	size_t n = got > 0 ? (size_t)got : 0, nk = gotk > 0 ? (size_t)gotk : 0, k0 = 0, k1;
	struct step *steps = gotk < 0 ? NULL : calloc(n + 2 * nk + 1, sizeof(*steps));
	int ret = 0;

	if (!steps) {
		free(v);
		free(kids);
		return -1;
	}
	for (size_t i = 0; i < n && !ret;) {
		int32_t creator = v[i]->creator;
		struct sums s = { 0 };

		/* kids[k0..k1): this creator's (both lists are sorted by creator) */
		while (k0 < nk && kids[k0]->creator != creator)
			k0++;
		for (k1 = k0; k1 < nk && kids[k1]->creator == creator; k1++)
			;

		while (i < n && v[i]->creator == creator) {
			size_t j = i + 1;
			uint64_t first_end = end_of(v[i]);

			/* created together, and all of them on a CPU before the first is done */
			while (j < n && v[j]->creator == creator && v[j]->start - v[i]->start <= TEAM_GAP_NS &&
			       v[j]->first_run && v[j]->first_run < first_end && same_work(v[i], v[j])) {
				first_end = end_of(v[j]) < first_end ? end_of(v[j]) : first_end;
				j++;
			}
			if (j - i > 1)
				team(c, p, v + i, j - i, kids + k0, k1 - k0, steps, &s);
			i = j;
		}
		if (s.lopsided)
			ret = finding(c, p, creator, &s);
	}
	free(v);
	free(kids);
	free(steps);
	return ret;
}
