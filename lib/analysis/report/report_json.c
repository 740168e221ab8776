/*
 * report_json.c - the JSON report, schema "threadlens-report" version 1,
 * exactly as docs/JSON.md documents it.
 *
 * Invariants: every state name appears in every state_ns / state_pct /
 * entries object; instants are relative to the trace start; durations are
 * integer nanoseconds; percentages have three decimals.  Threads come in the
 * model's order (pid, tid) unless a sort key was given, and are cut only
 * when --top was given, so scripts see every thread the analysis kept.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/errors.h"
#include "output/json.h"
#include "output/trace_json.h"
#include "analysis/report/report_int.h"

#define PCT_DECIMALS 3
#define TL_JSON_LOCK_THREADS 16 /* a lock's waiters and holders listed, the most time first */

static uint64_t rel(const struct tl_model *m, uint64_t ts)
{
	return ts > m->run->trace_start ? ts - m->run->trace_start : 0;
}

static uint64_t window_ns(const struct tl_model *m)
{
	return m->run->win_end > m->run->win_start ? m->run->win_end - m->run->win_start : 0;
}

static void state_u64_obj(struct tl_json *j, const char *key, const uint64_t *v)
{
	tl_json_key(j, key);
	tl_json_begin_object(j, TL_JSON_INLINE);
	for (unsigned s = 0; s < TL_ST__COUNT; s++)
		tl_json_kv_uint(j, tl_state_name(s), v[s]);
	tl_json_end_object(j);
}

/* A list of threads that ended (wakers) or caused (preemptors) the thread's waits. */
static void write_wakers(struct tl_json *j, const char *key, const struct tl_waker_stat *l, size_t n)
{
	tl_json_key(j, key);
	tl_json_begin_array(j, TL_JSON_BLOCK);
	for (size_t w = 0; w < n; w++) {
		tl_json_begin_object(j, TL_JSON_INLINE);
		tl_json_kv_int(j, "tid", l[w].tid);
		tl_json_kv_string(j, "name", l[w].name);
		tl_json_kv_uint(j, "count", l[w].count);
		tl_json_kv_uint(j, "wait_ns", l[w].wait_ns);
		tl_json_end_object(j);
	}
	tl_json_end_array(j);
}

/* A distribution; with max_at (absolute, 0: not kept) also when its maximum began, from the trace's start. */
static void write_dist(struct tl_json *j, const struct tl_model *m, const char *key, const struct tl_dist *d,
                       uint64_t max_at)
{
	tl_json_key(j, key);
	tl_json_begin_object(j, TL_JSON_INLINE);
	tl_json_kv_uint(j, "count", d->count);
	tl_json_kv_uint(j, "mean_ns", tl_dist_mean(d));
	tl_json_kv_uint(j, "p50_ns", tl_dist_percentile(d, 50));
	tl_json_kv_uint(j, "p99_ns", tl_dist_percentile(d, 99));
	tl_json_kv_uint(j, "max_ns", d->count ? d->max : 0);
	if (max_at && d->count)
		tl_json_kv_uint(j, "max_at_ns", rel(m, max_at));
	tl_json_end_object(j);
}

/* What lock holders did while threads waited, by lockhold.h's class: {"running_ns": ..., ...}. */
static void write_holder_did(struct tl_json *j, const char *key, const uint64_t ns[TL_LH__COUNT])
{
	tl_json_key(j, key);
	tl_json_begin_object(j, TL_JSON_INLINE);
	for (unsigned c = 0; c < TL_LH__COUNT; c++) {
		char k[32];

		snprintf(k, sizeof(k), "%s_ns", tl_lockhold_class_name(c));
		tl_json_kv_uint(j, k, ns[c]);
	}
	tl_json_end_object(j);
}

static void write_thread(struct tl_json *j, const struct tl_model *m, const struct tl_thread_stats *t)
{
	uint64_t life = tl_report_lifetime(t);

	tl_json_begin_object(j, TL_JSON_BLOCK);
	tl_json_kv_int(j, "tid", t->tid);
	tl_json_kv_int(j, "pid", t->pid);
	tl_json_kv_string(j, "name", t->name);
	tl_json_kv_string(j, "process", t->process);
	tl_json_kv_bool(j, "target", t->is_target);
	tl_json_kv_bool(j, "snapshot", t->snapshot);
	tl_json_kv_int(j, "creator", t->creator); /* the thread that created it, 0 if the trace did not see it */
	tl_json_kv_bool(j, "exited", t->exited_at != 0);
	tl_json_key(j, "pre_exec_ns"); /* its time on a CPU from its birth to its exec: a fork's copy */
	if (t->exec_at && !t->snapshot)
		tl_json_uint(j, t->pre_exec_ns);
	else
		tl_json_null(j);
	tl_json_kv_uint(j, "start_ns", rel(m, t->start));
	tl_json_kv_uint(j, "end_ns", rel(m, t->end));
	tl_json_kv_uint(j, "lifetime_ns", life);
	state_u64_obj(j, "state_ns", t->state_ns);
	tl_json_key(j, "state_pct");
	tl_json_begin_object(j, TL_JSON_INLINE);
	for (unsigned s = 0; s < TL_ST__COUNT; s++)
		tl_json_kv_double(j, tl_state_name(s), tl_fmt_pct(t->state_ns[s], life), PCT_DECIMALS);
	tl_json_end_object(j);
	state_u64_obj(j, "entries", t->entries);

	tl_json_key(j, "transitions");
	tl_json_begin_array(j, TL_JSON_BLOCK);
	for (unsigned from = 0; from < TL_ST__COUNT; from++)
		for (unsigned to = 0; to < TL_ST__COUNT; to++) {
			if (!t->trans[from][to])
				continue;
			tl_json_begin_object(j, TL_JSON_INLINE);
			tl_json_kv_string(j, "from", tl_state_name(from));
			tl_json_kv_string(j, "to", tl_state_name(to));
			tl_json_kv_uint(j, "count", t->trans[from][to]);
			tl_json_end_object(j);
		}
	tl_json_end_array(j);

	tl_json_key(j, "switches");
	tl_json_begin_object(j, TL_JSON_INLINE);
	tl_json_kv_uint(j, "voluntary", t->vol_switches);
	tl_json_kv_uint(j, "involuntary", t->invol_switches);
	tl_json_kv_uint(j, "yields", t->yields);
	tl_json_end_object(j);
	tl_json_kv_uint(j, "migrations", t->migrations);
	write_dist(j, m, "sched_latency", &t->sched_latency, t->latency_max_at);
	write_dist(j, m, "ready_wait", &t->ready_wait, 0);
	tl_json_kv_uint(j, "waits_inferred", t->waits_inferred);
	tl_json_kv_uint(j, "join_wait_ns", t->join_wait_ns);
	tl_json_kv_uint(j, "lock_wait_ns", t->lock_wait_ns);
	write_holder_did(j, "lock_holder", t->lock_holder_ns); /* what the holders did while it waited on locks */
	tl_json_kv_uint(j, "lock_convoy_ns", t->lock_convoy_ns);
	tl_json_key(j, "throttled");
	tl_json_begin_object(j, TL_JSON_INLINE);
	tl_json_kv_uint(j, "count", t->throttles);
	tl_json_kv_uint(j, "wait_ns", t->throttled_ns);
	tl_json_kv_uint(j, "max_ns", t->throttled_max_ns);
	tl_json_end_object(j);
	tl_json_key(j, "confined"); /* waits beside an idle CPU its mask leaves out (confine.h) */
	tl_json_begin_object(j, TL_JSON_INLINE);
	tl_json_kv_uint(j, "count", t->confined);
	tl_json_kv_uint(j, "wait_ns", t->confined_ns);
	tl_json_kv_int(j, "cpus", t->confined_cpus);
	tl_json_end_object(j);
	tl_json_key(j, "yield_spin"); /* runs of sched_yield calls that spun (yspin.h) */
	tl_json_begin_object(j, TL_JSON_INLINE);
	tl_json_kv_uint(j, "calls", t->yield_spin.calls);
	tl_json_kv_uint(j, "runs", t->yield_spin.runs);
	tl_json_kv_uint(j, "ns", t->yield_spin.ns);
	tl_json_end_object(j);
	write_dist(j, m, "bursts", &t->bursts, t->burst_max_at);

	write_wakers(j, "wakers", t->wakers, t->nwakers);
	write_wakers(j, "preemptors", t->preemptors, t->npreemptors);
	tl_json_key(j, "interrupts"); /* interrupt handling inside its time on a CPU, by source */
	tl_json_begin_array(j, TL_JSON_BLOCK);
	for (size_t i = 0; i < TL_INTR_SOURCES && t->intr[i].count; i++) {
		char name[40];

		tl_json_begin_object(j, TL_JSON_INLINE);
		tl_json_kv_string(j, "source", tl_intr_source_name(&t->intr[i], name, sizeof(name)));
		tl_json_kv_uint(j, "count", t->intr[i].count);
		tl_json_kv_uint(j, "ns", t->intr[i].ns);
		tl_json_end_object(j);
	}
	tl_json_end_array(j);
	tl_json_end_object(j);
}

static void write_cpu(struct tl_json *j, const struct tl_model *m, const struct tl_cpu_stats *c)
{
	uint64_t win = window_ns(m);

	tl_json_begin_object(j, TL_JSON_BLOCK);
	tl_json_kv_int(j, "cpu", c->cpu);
	tl_json_kv_uint(j, "busy_ns", c->busy_ns);
	tl_json_kv_uint(j, "idle_ns", c->idle_ns);
	tl_json_kv_uint(j, "irq_ns", c->irq_ns);
	tl_json_kv_uint(j, "softirq_ns", c->softirq_ns);
	tl_json_kv_uint(j, "unknown_ns", c->unknown_ns);
	tl_json_kv_uint(j, "filtered_ns", c->filtered_ns);
	tl_json_kv_double(j, "util_pct", tl_fmt_pct(c->busy_ns + c->irq_ns + c->softirq_ns, win), PCT_DECIMALS);
	tl_json_kv_uint(j, "switches", c->switches);
	tl_json_key(j, "processes");
	tl_json_begin_array(j, TL_JSON_BLOCK);
	for (size_t p = 0; p < c->nprocs; p++) {
		tl_json_begin_object(j, TL_JSON_INLINE);
		tl_json_kv_int(j, "pid", c->procs[p].pid);
		tl_json_kv_string(j, "name", c->procs[p].name);
		tl_json_kv_uint(j, "ns", c->procs[p].ns);
		tl_json_kv_double(j, "pct", tl_fmt_pct(c->procs[p].ns, win), PCT_DECIMALS);
		tl_json_end_object(j);
	}
	tl_json_end_array(j);
	tl_json_end_object(j);
}

/* A lock's waiters or holders: the first TL_JSON_LOCK_THREADS of them, the most time first. */
static void write_lock_threads(struct tl_json *j, const char *key, const struct tl_lock_thread *t, size_t n)
{
	tl_json_key(j, key);
	tl_json_begin_array(j, TL_JSON_INLINE);
	for (size_t i = 0; i < n && i < TL_JSON_LOCK_THREADS; i++) {
		tl_json_begin_object(j, TL_JSON_INLINE);
		tl_json_kv_int(j, "tid", t[i].tid);
		tl_json_kv_string(j, "name", t[i].name);
		tl_json_kv_uint(j, "waits", t[i].waits);
		tl_json_kv_uint(j, "wait_ns", t[i].ns);
		tl_json_end_object(j);
	}
	tl_json_end_array(j);
}

/* Process pid's locks (locks.h), most waited on first; the waits of no known futex word apart. */
static void write_locks(struct tl_json *j, const struct tl_model *m, int32_t pid)
{
	const struct tl_lock *unknown = tl_locks_find(&m->locks, pid, 0);

	tl_json_key(j, "locks");
	tl_json_begin_array(j, TL_JSON_BLOCK);
	for (size_t i = 0; i < m->locks.n; i++) {
		const struct tl_lock *x = &m->locks.items[i];
		char addr[24];

		if (x->pid != pid || !x->addr)
			continue;
		snprintf(addr, sizeof(addr), "0x%" PRIx64, x->addr);
		tl_json_begin_object(j, TL_JSON_INLINE);
		tl_json_kv_string(j, "addr", addr);
		tl_json_kv_string(j, "name", x->name);
		tl_json_kv_uint(j, "waits", x->waits);
		tl_json_kv_uint(j, "wait_ns", x->wait_ns);
		tl_json_kv_uint(j, "max_ns", x->max_ns);
		tl_json_kv_uint(j, "waiters", x->nwaiters);
		tl_json_kv_uint(j, "holders", x->nholders);
		write_holder_did(j, "holder", x->holder_ns);
		tl_json_kv_uint(j, "convoy_ns", x->convoy_ns);
		write_lock_threads(j, "waiter_threads", x->waiters, x->nwaiters);
		write_lock_threads(j, "holder_threads", x->holders, x->nholders);
		tl_json_end_object(j);
	}
	tl_json_end_array(j);
	tl_json_key(j, "locks_unknown"); /* lock waits whose futex word the trace does not give */
	tl_json_begin_object(j, TL_JSON_INLINE);
	tl_json_kv_uint(j, "waits", unknown ? unknown->waits : 0);
	tl_json_kv_uint(j, "wait_ns", unknown ? unknown->wait_ns : 0);
	tl_json_end_object(j);
}

static void write_process(struct tl_json *j, const struct tl_model *m, const struct tl_process_stats *p)
{
	const struct tl_load_proc *lp;
	struct tl_omp_workers w;

	tl_json_begin_object(j, TL_JSON_BLOCK);
	tl_json_kv_int(j, "pid", p->pid);
	tl_json_kv_string(j, "name", p->name);
	tl_json_kv_bool(j, "target", p->is_target);
	tl_json_kv_uint(j, "threads", p->nthreads);
	tl_json_kv_uint(j, "start_ns", rel(m, p->start));
	tl_json_kv_uint(j, "end_ns", rel(m, p->end));
	tl_json_kv_uint(j, "cpu_ns", p->cpu_ns);
	tl_json_kv_double(j, "cpu_pct_machine", p->cpu_pct_machine, PCT_DECIMALS);
	tl_json_kv_double(j, "cpu_pct_available", p->cpu_pct_available, PCT_DECIMALS);
	tl_json_kv_int(j, "available_cpus", p->available_cpus);
	tl_json_kv_int(j, "cpus_used", p->cpus_used);
	state_u64_obj(j, "state_ns", p->state_ns);
	lp = tl_load_find(&m->load, p->pid);
	tl_json_key(j, "wanting_cpu_ns"); /* [k]: time k of its threads wanted a CPU (load.h) */
	tl_json_begin_array(j, TL_JSON_INLINE);
	for (int k = 0; lp && k <= lp->max_level && k < TL_LOAD_LEVELS; k++)
		tl_json_uint(j, lp->at_level[k]);
	tl_json_end_array(j);
	tl_json_kv_uint(j, "idle_under_ns", lp ? lp->idle_under_ns : 0); /* with a CPU idle (load.h) */
	tl_json_kv_uint(j, "idle_spare_ns", lp ? lp->idle_spare_ns : 0);
	tl_model_omp_workers(m, p->pid, &w);
	tl_json_key(j, "omp_workers"); /* report.h: the OpenMP workers' EXECUTING, and where it went */
	tl_json_begin_object(j, TL_JSON_INLINE);
	tl_json_kv_int(j, "threads", w.threads);
	tl_json_kv_uint(j, "exec_ns", w.exec_ns);
	tl_json_kv_uint(j, "inside_ns", w.inside_ns);
	tl_json_kv_uint(j, "around_ns", w.around_ns);
	tl_json_kv_uint(j, "between_ns", w.between_ns);
	tl_json_end_object(j);
	tl_json_key(j, "herds"); /* herd.h: its threads woken several at once, by waker */
	tl_json_begin_array(j, TL_JSON_BLOCK);
	for (size_t i = 0; i < m->herds.n; i++) {
		const struct tl_herd *x = &m->herds.items[i];

		if (x->pid != p->pid)
			continue;
		tl_json_begin_object(j, TL_JSON_INLINE);
		tl_json_kv_int(j, "waker", x->waker);
		tl_json_kv_string(j, "waker_name", x->waker_name);
		tl_json_kv_bool(j, "peer", x->peer);
		tl_json_kv_uint(j, "bursts", x->bursts);
		tl_json_kv_uint(j, "woken", x->woken);
		tl_json_kv_uint(j, "futile", x->futile);
		tl_json_kv_uint(j, "futile_ns", x->futile_ns);
		tl_json_kv_uint(j, "work_ns", x->work_ns);
		tl_json_kv_uint(j, "queued_ns", x->queued_ns);
		tl_json_end_object(j);
	}
	tl_json_end_array(j);
	write_locks(j, m, p->pid);
	tl_json_end_object(j);
}

int tl_report_write_json(FILE *out, const struct tl_model *m, const struct tl_report_opts *o)
{
	struct tl_json j;
	size_t *order, nrows, nprocs;
	int sort = o ? o->sort : TL_REPORT_SORT_DEFAULT;
	int ncpus = m->cpus ? m->ncpus : 0;

	order = tl_report_thread_order(m, sort, tl_report_limit(o, m->nthreads, SIZE_MAX), &nrows);
	if (!order)
		return -1;
	nprocs = tl_report_limit(o, m->nprocs, SIZE_MAX);

	tl_json_init(&j, out, o && o->compact ? 0 : TL_JSON_PRETTY);
	tl_json_begin_object(&j, TL_JSON_BLOCK);
	tl_json_kv_string(&j, "schema", "threadlens-report");
	tl_json_kv_int(&j, "version", 1);
	tl_json_trace(&j, m->run);
	tl_json_window(&j, m->run);

	tl_json_key(&j, "lost_events");
	tl_json_begin_object(&j, TL_JSON_INLINE);
	tl_json_kv_uint(&j, "total", m->run->lost_total);
	tl_json_key(&j, "per_cpu");
	tl_json_begin_array(&j, TL_JSON_INLINE);
	for (int c = 0; m->run->lost_per_cpu && c < m->ncpus; c++)
		tl_json_uint(&j, m->run->lost_per_cpu[c]);
	tl_json_end_array(&j);
	tl_json_end_object(&j);
	tl_json_kv_uint(&j, "anomalies", m->run->sched.anomalies);
	tl_json_key(&j, "inferred");
	tl_json_begin_object(&j, TL_JSON_INLINE);
	tl_json_kv_uint(&j, "switches", m->run->sched.inferred_switches);
	tl_json_kv_uint(&j, "wakeups", m->run->sched.inferred_wakeups);
	tl_json_end_object(&j);

	tl_json_key(&j, "states");
	tl_json_begin_array(&j, TL_JSON_INLINE);
	for (unsigned s = 0; s < TL_ST__COUNT; s++)
		tl_json_string(&j, tl_state_name(s));
	tl_json_end_array(&j);

	tl_json_key(&j, "threads");
	tl_json_begin_array(&j, TL_JSON_BLOCK);
	for (size_t r = 0; r < nrows; r++)
		write_thread(&j, m, &m->threads[order[r]]);
	tl_json_end_array(&j);

	tl_json_key(&j, "cpus");
	tl_json_begin_array(&j, TL_JSON_BLOCK);
	for (int c = 0; c < ncpus; c++)
		write_cpu(&j, m, &m->cpus[c]);
	tl_json_end_array(&j);

	tl_json_key(&j, "regions");
	tl_regions_write_json(&j, &m->regions, m->run->trace_start);

	tl_json_key(&j, "kernel_check");
	tl_kcheck_write_json(&j, &m->kcheck, m->run->trace_start);

	tl_json_key(&j, "processes");
	tl_json_begin_array(&j, TL_JSON_BLOCK);
	for (size_t p = 0; p < nprocs; p++)
		write_process(&j, m, &m->procs[p]);
	tl_json_end_array(&j);
	tl_json_end_object(&j);
	free(order);
	return tl_json_finish(&j);
}
