/*
 * report_model.c - tl_report_build_model(): the model of report.h from the
 * sums of the report's walk (report.c, report_pass.h).
 *
 * Runs once, after the walk; its cost grows with threads and processes,
 * never with events, and is O(n log n) in them: a system-wide trace may
 * hold tens of thousands of short processes (each lookup is a binary
 * search of the processes sorted by pid, or an index found once).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/errors.h"
#include "base/grow.h"
#include "analysis/report/report_int.h"
#include "analysis/confine/confine.h"
#include "analysis/report/report_pass.h"
#include "capture/umarks.h"
#include "timeline/run.h"

static int in_list(const int *list, int n, int v)
{
	for (int i = 0; i < n; i++)
		if (list[i] == v)
			return 1;
	return 0;
}

/* What build_model needs to know about each process, found once (sorted by pid). */
struct pinfo {
	int32_t pid;
	int32_t parent;   /* parent process, 0 if unknown */
	const char *name; /* the leader's name, else any thread's */
	int target;       /* -1 not yet known */
	size_t proc;      /* its record in m->procs, + 1; 0 before its first kept thread */
	int cpu;          /* the per-CPU pass: its share on CPU cpu - 1 is procs[slot]; 0 none yet */
	size_t slot;
};

static int cmp_acc_pid(const void *x, const void *y)
{
	const struct acc *a = *(const struct acc *const *)x, *b = *(const struct acc *const *)y;
	int la = a->st.tid == a->st.pid, lb = b->st.tid == b->st.pid;
	if (a->st.pid != b->st.pid)
		return a->st.pid < b->st.pid ? -1 : 1;
	return lb - la; /* the leader first */
}

static int cmp_pinfo(const void *x, const void *y)
{
	const struct pinfo *a = x, *b = y;
	return a->pid < b->pid ? -1 : a->pid > b->pid;
}

static struct pinfo *pinfo_find(struct pinfo *v, size_t n, int32_t pid)
{
	struct pinfo key = { .pid = pid };
	return bsearch(&key, v, n, sizeof(*v), cmp_pinfo);
}

static struct pinfo *build_pinfo(struct pass *p, size_t *np)
{
	struct acc **sorted = malloc((p->naccs ? p->naccs : 1) * sizeof(*sorted));
	struct pinfo *v = calloc(p->naccs ? p->naccs : 1, sizeof(*v));
	struct tl_report_tid *tids = malloc((p->naccs ? p->naccs : 1) * sizeof(*tids));
	size_t n = 0;

	if (!sorted || !v || !tids) {
		free(sorted);
		free(v);
		free(tids);
		return NULL;
	}
	for (size_t i = 0; i < p->naccs; i++) {
		sorted[i] = p->accs[i];
		tids[i] = (struct tl_report_tid){ p->accs[i]->st.tid, i };
	}
	sort_n(sorted, p->naccs, sizeof(*sorted), cmp_acc_pid);
	tl_report_tids_sort(tids, p->naccs);
	for (size_t i = 0; i < p->naccs; i++) {
		struct acc *a = sorted[i];
		if (n && v[n - 1].pid == a->st.pid)
			continue;
		v[n].pid = a->st.pid;
		v[n].name = a->st.name;
		v[n].target = -1;
		v[n].parent = 0;
		if (a->st.tid == a->st.pid) {
			v[n].parent = a->parent_tgid;
			if (!v[n].parent && a->parent_tid) {
				/* the process of the first thread record with that tid */
				const struct tl_report_tid *pt = tl_report_tids_find(tids, p->naccs, a->parent_tid);
				v[n].parent = pt ? p->accs[pt->i]->st.pid : 0;
			}
			if (v[n].parent == a->st.pid)
				v[n].parent = 0;
		}
		n++;
	}
	free(sorted);
	free(tids);
	*np = n;
	return v;
}

static int process_is_target(struct pinfo *v, size_t n, const struct tl_trace_info *info, int32_t pid)
{
	struct pinfo *pi = pinfo_find(v, n, pid), *walk = pi;
	int result = 0;

	if (info->target_mode == TL_TARGET_SYSTEM || info->ntargets == 0)
		return 1;
	if (pi && pi->target >= 0)
		return pi->target;
	/* walk up the process tree; the depth bound guards against cycles from pid reuse */
	for (int depth = 0; pid > 0 && depth < 64; depth++) {
		if (in_list(info->targets, info->ntargets, pid)) {
			result = 1;
			break;
		}
		walk = pinfo_find(v, n, pid);
		if (!walk)
			break;
		if (walk->target >= 0) {
			result = walk->target;
			break;
		}
		pid = walk->parent;
	}
	if (pi)
		pi->target = result;
	return result;
}

static int cmp_threads(const void *x, const void *y)
{
	const struct tl_thread_stats *a = x, *b = y;
	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	if (a->tid != b->tid)
		return a->tid < b->tid ? -1 : 1;
	return a->serial < b->serial ? -1 : a->serial > b->serial;
}

static int cmp_procs(const void *x, const void *y)
{
	const struct tl_process_stats *a = x, *b = y;
	if (a->cpu_ns != b->cpu_ns)
		return a->cpu_ns > b->cpu_ns ? -1 : 1;
	return a->pid < b->pid ? -1 : a->pid > b->pid;
}

static int cmp_cpu_procs(const void *x, const void *y)
{
	const struct tl_cpu_proc *a = x, *b = y;
	if (a->ns != b->ns)
		return a->ns > b->ns ? -1 : 1;
	return a->pid < b->pid ? -1 : a->pid > b->pid;
}

static int cmp_intr(const void *x, const void *y)
{
	const struct tl_intr_stat *a = x, *b = y;
	if (a->ns != b->ns)
		return a->ns > b->ns ? -1 : 1;
	return a->count < b->count ? 1 : a->count > b->count ? -1 : 0;
}

static int cmp_wakers(const void *x, const void *y)
{
	const struct tl_waker_stat *a = x, *b = y;
	if (a->wait_ns != b->wait_ns)
		return a->wait_ns > b->wait_ns ? -1 : 1;
	return a->tid < b->tid ? -1 : a->tid > b->tid;
}

/* The process record of f in m->procs, added on first use; NULL out of memory. */
static struct tl_process_stats *proc_slot(struct tl_model *m, size_t *cap, struct pinfo *f)
{
	if (f->proc)
		return &m->procs[f->proc - 1];
	if (TL_GROW(m->procs, *cap, m->nprocs + 1) < 0)
		return NULL;
	memset(&m->procs[m->nprocs], 0, sizeof(m->procs[0]));
	m->procs[m->nprocs].pid = f->pid;
	f->proc = ++m->nprocs;
	return &m->procs[m->nprocs - 1];
}

/*
 * Each CPU's process shares, over all threads whatever the filters, added
 * to what the filtered totals put there (tl_report_filt_split()), largest
 * first.  The arrays grow by doubling here; nothing appends to them later.
 */
static int cpu_shares(struct pass *p, struct pinfo *pi, size_t npi)
{
	for (int c = 0; c < p->ncpus; c++) {
		struct tl_cpu_stats *cs = &p->cpus[c];
		size_t cap = cs->nprocs;

		for (size_t k = 0; k < cs->nprocs; k++) {
			struct pinfo *f = pinfo_find(pi, npi, cs->procs[k].pid);
			if (f) {
				f->cpu = c + 1;
				f->slot = k;
			}
		}
		for (size_t i = 0; i < p->naccs; i++) {
			const struct acc *a = p->accs[i];
			struct pinfo *f;

			if (!a->cpu_ns || !a->cpu_ns[c])
				continue;
			f = pinfo_find(pi, npi, a->st.pid);
			if (f->cpu == c + 1) {
				cs->procs[f->slot].ns += a->cpu_ns[c];
				continue;
			}
			if (TL_GROW(cs->procs, cap, cs->nprocs + 1) < 0)
				return tl_error("out of memory");
			memset(&cs->procs[cs->nprocs], 0, sizeof(cs->procs[0]));
			cs->procs[cs->nprocs].pid = a->st.pid;
			snprintf(cs->procs[cs->nprocs].name, sizeof(cs->procs[0].name), "%s", f->name);
			cs->procs[cs->nprocs].ns = a->cpu_ns[c];
			f->cpu = c + 1;
			f->slot = cs->nprocs++;
		}
		sort_n(cs->procs, cs->nprocs, sizeof(struct tl_cpu_proc), cmp_cpu_procs);
	}
	return 0;
}

/*
 * Per process in m->procs: mask[k] (words per process) the union of the
 * AFFINITY masks of its kept threads, any[k] whether one had a mask, used[k]
 * the CPUs it ran on.
 */
static void proc_cpus(const struct pass *p, struct pinfo *pi, size_t npi, uint64_t *mask, char *any, int *used)
{
	size_t words = ((size_t)p->ncpus + 63) / 64;

	for (size_t i = 0; i < p->naccs; i++) {
		const struct acc *a = p->accs[i];
		size_t k;

		if (!a->kept || !a->aff)
			continue;
		k = pinfo_find(pi, npi, a->st.pid)->proc - 1;
		any[k] = 1;
		for (size_t w = 0; w < words; w++)
			mask[k * words + w] |= a->aff[w];
	}
	for (int c = 0; c < p->ncpus; c++)
		for (size_t j = 0; j < p->cpus[c].nprocs; j++) { /* one entry per process on a CPU */
			struct pinfo *f = p->cpus[c].procs[j].ns ? pinfo_find(pi, npi, p->cpus[c].procs[j].pid) : NULL;
			if (f && f->proc)
				used[f->proc - 1]++;
		}
}

/*
 * The CPUs the recorded processes together may use: the union of the
 * masks of those that did at least 1/20 of their CPU time, and at least as
 * many as any of those may use (one whose masks the trace lacks counts the
 * CPUs it ran on, or all).  A process's mask is the union of every mask
 * its threads had: a launcher such as `taskset -c 1 sh -c ...` counts the
 * CPUs it had before it narrowed its mask, and it runs for a few ms.
 */
static int worker(const struct tl_model *m, size_t i, uint64_t total)
{
	return m->procs[i].is_target && m->procs[i].cpu_ns * 20 >= total;
}

static int program_cpus(const struct tl_model *m, const uint64_t *mask, const char *any, size_t words)
{
	int n = 0, most = 0;
	uint64_t total = 0;

	for (size_t i = 0; i < m->nprocs; i++)
		total += m->procs[i].is_target ? m->procs[i].cpu_ns : 0;
	for (size_t w = 0; w < words; w++) {
		uint64_t u = 0;

		for (size_t i = 0; i < m->nprocs; i++)
			if (worker(m, i, total) && any[i])
				u |= mask[i * words + w];
		if (w == words - 1 && m->ncpus % 64)
			u &= (1ull << (m->ncpus % 64)) - 1;
		n += __builtin_popcountll(u);
	}
	for (size_t i = 0; i < m->nprocs; i++)
		if (worker(m, i, total) && m->procs[i].available_cpus > most)
			most = m->procs[i].available_cpus;
	n = n > most ? n : most;
	return n > 0 && n <= m->ncpus ? n : m->ncpus;
}

int tl_report_build_model(struct pass *p, struct tl_model *m)
{
	const struct tl_run *run = m->run;
	size_t pcap = 0, kept = 0, npi = 0, words;
	uint64_t win = run->win_end - run->win_start, *mask;
	char *any;
	int *used;
	struct pinfo *pi = build_pinfo(p, &npi);

	m->threads = calloc(p->naccs ? p->naccs : 1, sizeof(*m->threads));
	if (!m->threads || !pi) {
		free(pi);
		return tl_error("out of memory");
	}
	if (tl_report_filt_split(p->filt, p->cpus) < 0) {
		free(pi);
		return -1;
	}
	if (cpu_shares(p, pi, npi) < 0) {
		free(pi);
		return -1;
	}

	for (size_t i = 0; i < p->naccs; i++) {
		struct acc *a = p->accs[i];
		struct tl_thread_stats *t = &a->st;
		struct tl_process_stats *pr;
		struct pinfo *f = pinfo_find(pi, npi, t->pid);
		const char *pname = f->name;

		if (t->end <= t->start && !t->state_ns[TL_ST_EXECUTING])
			continue; /* lived entirely outside the window */
		if (a->outsider)
			continue; /* a filtered trace's other processes: they have no states */
		t->is_target = process_is_target(pi, npi, &run->info, t->pid);
		if (run->info.filter[0] && !t->is_target)
			continue; /* a filtered trace follows only the recorded program: others have no states */
		snprintf(t->process, sizeof(t->process), "%s", pname);
		if (!tl_run_keeps_thread(run, t->is_target, t->tid, t->pid, t->name, pname))
			continue;
		sort_n(t->wakers, t->nwakers, sizeof(*t->wakers), cmp_wakers);
		sort_n(t->preemptors, t->npreemptors, sizeof(*t->preemptors), cmp_wakers);
		sort_n(t->lock_wakers, t->nlock_wakers, sizeof(*t->lock_wakers), cmp_wakers);
		sort_n(t->intr, TL_INTR_SOURCES, sizeof(t->intr[0]), cmp_intr);
		if (p->cf) {
			struct tl_confine_thread cf;

			tl_confine_get(p->cf, t->serial, &cf);
			t->confined = cf.waits;
			t->confined_ns = cf.ns;
			t->confined_cpus = cf.cpus;
		}
		m->threads[kept] = *t;
		a->st.wakers = NULL; /* ownership moved to the model */
		a->st.preemptors = NULL;
		a->st.lock_wakers = NULL;
		memset(&a->st.sched_latency, 0, sizeof(a->st.sched_latency));
		memset(&a->st.ready_wait, 0, sizeof(a->st.ready_wait));
		memset(&a->st.bursts, 0, sizeof(a->st.bursts));
		t = &m->threads[kept++];
		a->kept = 1;

		pr = proc_slot(m, &pcap, f);
		if (!pr) {
			free(pi);
			return tl_error("out of memory");
		}
		if (!pr->nthreads) {
			snprintf(pr->name, sizeof(pr->name), "%s", pname);
			pr->start = t->start;
			pr->end = t->end;
			pr->is_target = t->is_target;
		}
		pr->nthreads++;
		if (t->start < pr->start)
			pr->start = t->start;
		if (t->end > pr->end)
			pr->end = t->end;
		for (int s = 0; s < TL_ST__COUNT; s++)
			pr->state_ns[s] += t->state_ns[s];
		pr->cpu_ns += t->state_ns[TL_ST_EXECUTING];
		if (a->cpus_allowed > pr->available_cpus)
			pr->available_cpus = a->cpus_allowed;
	}
	m->nthreads = kept;
	sort_n(m->threads, m->nthreads, sizeof(*m->threads), cmp_threads);

	words = ((size_t)p->ncpus + 63) / 64;
	mask = calloc(m->nprocs * words + 1, sizeof(*mask));
	any = calloc(m->nprocs + 1, 1);
	used = calloc(m->nprocs + 1, sizeof(*used));
	if (!mask || !any || !used) {
		free(pi);
		free(mask);
		free(any);
		free(used);
		return tl_error("out of memory");
	}
	proc_cpus(p, pi, npi, mask, any, used);
	free(pi);
	for (size_t i = 0; i < m->nprocs; i++) {
		struct tl_process_stats *pr = &m->procs[i];
		int masks = 0;

		for (size_t w = 0; any[i] && w < words; w++)
			masks += __builtin_popcountll(
			        mask[i * words + w] &
			        (w == words - 1 && p->ncpus % 64 ? (1ull << (p->ncpus % 64)) - 1 : ~0ull));
		pr->cpus_used = used[i];
		/*
		 * The CPUs it could use: the union of its threads' masks (older
		 * traces: the largest count), and at least every CPU it ran on,
		 * which a mask the recorder did not see must have allowed.
		 */
		if (masks > 0)
			pr->available_cpus = masks;
		if (pr->available_cpus < used[i])
			pr->available_cpus = used[i];
		if (!pr->available_cpus || pr->available_cpus > m->ncpus)
			pr->available_cpus = m->ncpus;
		if (win) {
			pr->cpu_pct_machine = 100.0 * (double)pr->cpu_ns / ((double)win * m->ncpus);
			pr->cpu_pct_available = 100.0 * (double)pr->cpu_ns / ((double)win * pr->available_cpus);
		}
	}
	m->program_cpus = program_cpus(m, mask, any, words);
	free(mask);
	free(any);
	free(used);
	sort_n(m->procs, m->nprocs, sizeof(*m->procs), cmp_procs);
	m->cpus = p->cpus;
	p->cpus = NULL;
	return 0;
}

int tl_model_omp_worker(const struct tl_model *m, const struct tl_thread_stats *t, uint64_t *inside, uint64_t *around)
{
	int seen = 0;

	*inside = *around = 0;
	if (t->tid == t->pid)
		return 0;
	for (size_t i = 0; i < m->regions.n; i++) {
		const struct tl_region_stats *r = &m->regions.regions[i];

		if (r->pid != t->pid || !tl_umarks_is_omp(r->name))
			continue;
		for (size_t k = 0; k < r->nthreads; k++)
			if (r->threads[k].tid == t->tid && r->threads[k].instances) {
				/* a task inside its region (nested) is in the region's sums already */
				/* waiting in a barrier inside an instance is waiting, as at a part's end */
				uint64_t in = r->threads[k].top_inside_exec, bar = r->threads[k].top_barrier_exec;

				*inside += in > bar ? in - bar : 0;
				*around += r->threads[k].top_around_exec + (in > bar ? bar : in);
				seen = 1;
			}
	}
	return seen;
}

/* 1 if process pid has a region of OpenMP's (the only ones whose threads can be workers). */
static int has_omp_region(const struct tl_model *m, int32_t pid)
{
	for (size_t i = 0; i < m->regions.n; i++)
		if (m->regions.regions[i].pid == pid && tl_umarks_is_omp(m->regions.regions[i].name))
			return 1;
	return 0;
}

void tl_model_omp_workers(const struct tl_model *m, int32_t pid, struct tl_omp_workers *w)
{
	memset(w, 0, sizeof(*w));
	/* the report asks for every process: no walk over all threads for the many without OpenMP */
	if (!has_omp_region(m, pid))
		return;
	for (size_t i = 0; i < m->nthreads; i++) {
		const struct tl_thread_stats *t = &m->threads[i];
		uint64_t in, around, e = t->state_ns[TL_ST_EXECUTING];

		if (t->pid != pid || !tl_model_omp_worker(m, t, &in, &around))
			continue;
		w->threads++;
		w->exec_ns += e;
		w->inside_ns += in;
		w->around_ns += around;
		w->between_ns += e > in + around ? e - in - around : 0;
	}
}
