/*
 * record_drain.c - the recorder's drain rounds (record_int.h): the records
 * of the back end (perf rings, or the eBPF ring buffer) decoded into
 * events, the identities they reveal learned, staged and sorted per batch,
 * and written under the watermark with the cpu -1 events (markers, kernel
 * counters).  The invariants are record.c's.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/errors.h"
#include "base/grow.h"
#include "capture/locknames.h"
#include "capture/procmaps.h"
#include "capture/record_int.h"

uint64_t tl_rec_now_ns(clockid_t clk)
{
	struct timespec ts;
	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void tl_rec_warn(struct tl_record_result *res, const char *fmt, ...)
{
	va_list ap;
	int n = res->nwarnings;

	if (n >= 8)
		return;
	va_start(ap, fmt);
	vsnprintf(res->warnings[n], sizeof(res->warnings[n]), fmt, ap);
	va_end(ap);
	res->nwarnings++;
}

/* ---- events into the writer ---- */

int tl_rec_add_event(struct rec *rc, const struct tl_event *ev)
{
	if (tl_trace_writer_add(rc->w, ev))
		return -1;
	rc->res->events++;
	rc->pending++;
	return 0;
}

/* Insertion sort by ts: the batch is nearly sorted, and equal times keep their order. */
static void sort_stage(struct tl_event *e, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		struct tl_event x;
		size_t j = i;

		if (e[i].ts >= e[i - 1].ts)
			continue;
		x = e[i];
		while (j > 0 && e[j - 1].ts > x.ts) {
			e[j] = e[j - 1];
			j--;
		}
		e[j] = x;
	}
}

int tl_rec_stage_flush(struct rec *rc)
{
	sort_stage(rc->stage, rc->nstage);
	for (size_t i = 0; i < rc->nstage; i++)
		if (tl_rec_add_event(rc, &rc->stage[i]))
			return -1;
	rc->nstage = 0;
	return 0;
}

static inline int stage_push(struct rec *rc, const struct tl_event *ev)
{
	if (rc->nstage == STAGE_EVENTS && tl_rec_stage_flush(rc))
		return -1;
	rc->stage[rc->nstage++] = *ev;
	return 0;
}

static uint32_t intern_n(struct rec *rc, const char *s, size_t len)
{
	char buf[4096];
	uint32_t id;

	if (len >= sizeof(buf))
		len = sizeof(buf) - 1;
	memcpy(buf, s, len);
	buf[len] = 0;
	id = tl_trace_writer_intern(rc->w, buf);
	if (!id && buf[0])
		return (uint32_t)-1;
	return id;
}

/* What an event says about a thread; a THREAD event goes in front of it if that is news. */
int tl_rec_learn(struct rec *rc, const struct tl_event *at, int32_t tid, int32_t tgid, const struct tl_tp_str *comm)
{
	struct tl_event th, aff[TL_AFFINITY_WORDS];
	struct tl_affinity a;
	int r = tl_threads_learn(rc->threads, rc->w, at, tid, tgid, comm ? comm->s : NULL, comm ? comm->len : 0, &th,
	                         &a);

	if (r <= 0)
		return r;
	if (stage_push(rc, &th))
		return -1;
	/*
	 * A thread seen for the first time: its mask too, unless a filtered
	 * recording left it out: flagged as not recorded, or the task on the
	 * CPU that the event does not name (a migration's or a reaping's: a
	 * recorded thread is known before its first event, from the snapshot
	 * or its FORK).
	 */
	if ((at->flags & TL_EVF_OTHER_TID && tid == at->tid) || (at->flags & TL_EVF_OTHER_ARG && tid == at->arg) ||
	    (rc->info.filter[0] && tid != at->tid && tid != at->arg)) {
		struct tl_thread_id *e = tl_threads_get(rc->threads, tid, 0, NULL);
		if (e)
			e->aff = 0; /* and no rechecks */
		return 0;
	}
	for (int i = 0, n = tl_affinity_events(&a, tid, at->ts, at->cpu, aff, TL_AFFINITY_WORDS); i < n; i++)
		if (stage_push(rc, &aff[i]))
			return -1;
	return 0;
}

/* A thread's mask changed (tl_threads_recheck_affinity): its AFFINITY events, at the flush's mark. */
static int add_affinity(void *ctx, int32_t tid, const struct tl_affinity *a)
{
	struct rec *rc = ctx;
	struct tl_event aff[TL_AFFINITY_WORDS];

	for (int i = 0, n = tl_affinity_events(a, tid, rc->aff_mark, -1, aff, TL_AFFINITY_WORDS); i < n; i++)
		if (tl_rec_add_event(rc, &aff[i]))
			return -1;
	return 0;
}

/* A code mapping of a sampled process (procmaps.h), as a MAP event at rc->map_ts. */
static int add_map(void *ctx, int32_t pid, const struct tl_map *m)
{
	struct rec *rc = ctx;
	struct tl_event e = { .ts = rc->map_ts, .type = TL_EV_MAP, .cpu = rc->map_cpu, .tid = pid };

	if (rc->unwind) /* its code changed: the unwinder reads its modules again */
		tl_unwinder_forget(rc->unwind, pid);
	e.a = (int64_t)m->start;
	e.b = (int64_t)m->end;
	e.c = (int64_t)m->pgoff;
	if ((e.name = intern_n(rc, m->path, m->path_len)) == (uint32_t)-1)
		return -1;
	char hex[TL_BUILD_ID_HEX];
	int n = tl_buildids_of(rc->bids, pid, m, hex);
	if (n < 0 || (n && (e.arg = (int32_t)intern_n(rc, hex, (size_t)n)) == -1))
		return -1;
	return stage_push(rc, &e);
}

int tl_rec_rescan_maps(struct rec *rc, uint64_t ts)
{
	rc->map_ts = ts;
	rc->map_cpu = -1;
	return rc->maps ? tl_procmaps_scan(rc->maps, 0, add_map, rc) : 0;
}

/* IRQ handler names repeat with every interrupt: remember the last id per irq. */
static uint32_t irq_name_id(struct rec *rc, int64_t irq, const struct tl_tp_str *name)
{
	struct irq_name *c = &rc->irqs[(uint64_t)irq % IRQ_CACHE];
	uint32_t id;

	if (c->id && c->irq == irq && c->len == name->len && !memcmp(c->s, name->s, name->len))
		return c->id;
	id = intern_n(rc, name->s, name->len);
	if (id != (uint32_t)-1 && name->len <= sizeof(c->s)) {
		c->irq = irq;
		c->id = id;
		c->len = name->len;
		memcpy(c->s, name->s, name->len);
	}
	return id;
}

/*
 * A futex word that process pid waited on, at event `at`: named once
 * (capture/locknames.h), as a FUTEX_NAME event at the same time and CPU.
 * 0, or -1 (tl_error set).
 */
static int name_word(struct rec *rc, const struct tl_event *at, int32_t pid, uint64_t addr)
{
	struct tl_event e = { .ts = at->ts, .type = TL_EV_FUTEX_NAME, .cpu = at->cpu, .tid = pid, .a = (int64_t)addr };
	char name[TL_LOCKNAME_MAX];
	int r = rc->ln && addr ? tl_locknames_note(rc->ln, pid, addr, name, sizeof(name)) : 0;

	if (r <= 0)
		return r;
	if ((e.name = intern_n(rc, name, strlen(name))) == (uint32_t)-1)
		return -1;
	return stage_push(rc, &e);
}

/*
 * A decoded event, whatever back end produced it: the identities it
 * reveals (the current task's process comes with every record, its name
 * with some), its name interned, then staged.
 */
static int handle_decoded(struct rec *rc, int32_t cur_tid, int32_t cur_pid, struct tl_tp_decoded *d)
{
	const struct tl_tp_str *cur_comm = NULL;

	if (d->reset_tid)
		tl_threads_remove(rc->threads, d->reset_tid);
	for (int i = 0; i < d->nids; i++)
		if (d->ids[i].tid == cur_tid)
			cur_comm = &d->ids[i].comm;
	if (tl_rec_learn(rc, &d->ev, cur_tid, cur_pid, cur_comm))
		return -1;
	for (int i = 0; i < d->nids; i++)
		if (d->ids[i].tid != cur_tid && tl_rec_learn(rc, &d->ev, d->ids[i].tid, -1, &d->ids[i].comm))
			return -1;
	if (d->ev.type == TL_EV_IRQ_ENTRY && (d->ev.flags & TL_EVF_VECTOR) && !d->name.len) {
		/* a timer or IPI: named after its kind (trace/event.h), whichever back end */
		d->name.s = tl_vector_name(d->ev.c);
		d->name.len = (uint32_t)strlen(d->name.s);
	}
	if (d->name.len) {
		d->ev.name = d->ev.type == TL_EV_IRQ_ENTRY ? irq_name_id(rc, d->ev.a, &d->name)
		                                           : intern_n(rc, d->name.s, d->name.len);
		if (d->ev.name == (uint32_t)-1)
			return -1;
	}
	if (d->ev.type == TL_EV_FREE && tl_threads_retire(rc->threads, d->ev.tid, d->ev.ts))
		return -1;
	if (d->ev.type == TL_EV_FORK && tl_kwatch_fork(rc->kw, d->ev.arg, d->ev.tid))
		return -1;
	if (d->futex_addr && d->ev.type == TL_EV_SWITCH && !(d->ev.flags & TL_EVF_OTHER_TID)) {
		/* the futex word of the wait this switch begins, right before it (trace/event.h) */
		struct tl_event fw = { .ts = d->ev.ts, .type = TL_EV_FUTEX_WAIT, .cpu = d->ev.cpu, .tid = d->ev.tid };

		fw.a = (int64_t)d->futex_addr;
		if (stage_push(rc, &fw) || name_word(rc, &d->ev, cur_pid, d->futex_addr))
			return -1;
	}
	if (d->ev.type == TL_EV_FUTEX_ENTER && tl_futex_op_waits(d->ev.a) &&
	    name_word(rc, &d->ev, cur_pid, (uint64_t)d->ev.b))
		return -1;
	if (stage_push(rc, &d->ev))
		return -1;
	/* a sampled process changed its image: its new maps, right after the exec */
	if (d->ev.type == TL_EV_EXEC && rc->maps) {
		rc->map_ts = d->ev.ts;
		rc->map_cpu = d->ev.cpu;
		if (tl_procmaps_scan(rc->maps, d->ev.tid, add_map, rc))
			return -1;
	}
	return 0;
}

/* --stack dwarf: the kernel frames, then the user ones unwound from the copied registers and stack (dwunwind.h). */
static const uint64_t *dwarf_frames(struct rec *rc, const struct tl_bpf_event *ev, uint64_t *out, unsigned *n)
{
	unsigned nk = ev->nframes;

	memcpy(out, ev->frames, nk * sizeof(*out));
	if (ev->uregs[0] && rc->unwind && nk < TL_BPF_SAMPLE_FRAMES)
		nk += tl_unwind(rc->unwind, ev->d.ev.arg, ev->d.ev.tid, ev->uregs, ev->ustack, ev->ustack_len, out + nk,
		                TL_BPF_SAMPLE_FRAMES - nk);
	*n = nk;
	return out;
}

/* The perf back end: one raw tracepoint sample. */
static int handle_sample(struct rec *rc, const struct tl_tp_sample *s)
{
	struct tl_tp_decoded d;
	int r = tl_tp_decode(rc->tps, s, &d);

	if (r <= 0) {
		rc->malformed += r < 0;
		return 0;
	}
	/*
	 * sched_stat_runtime fires at every tick and switch; it is kept only when
	 * it shows a task on a CPU that no recorded switch put there (some
	 * kernels drop the switch out of idle: see the RUNTIME note in event.h).
	 */
	if (s->cpu >= 0 && s->cpu < rc->ncpus) {
		if (d.ev.type == TL_EV_SWITCH)
			rc->oncpu[s->cpu] = d.ev.arg;
		else if (d.ev.type == TL_EV_RUNTIME) {
			/* only the current task's own accounting dates its switch-in */
			if (rc->oncpu[s->cpu] == d.ev.tid || d.ev.tid != s->tid)
				return 0;
			rc->oncpu[s->cpu] = d.ev.tid;
		}
	}
	return handle_decoded(rc, s->tid, s->pid, &d);
}

/* The perf back end: one ring's records up to its current head. */
static int drain_ring(struct rec *rc, struct tl_perf_ring *ring)
{
	struct tl_perf_rec pr;
	int cpu = tl_perf_ring_cpu(ring);

	if (!tl_perf_ring_begin(ring))
		return 0;
	while (tl_perf_ring_next(ring, &pr)) {
		if (pr.type == TL_PERF_REC_SAMPLE) {
			struct tl_tp_sample s = { .ts = pr.ts,
				                  .raw = pr.raw,
				                  .raw_size = pr.raw_size,
				                  .pid = pr.pid,
				                  .tid = pr.tid,
				                  .cpu = (int16_t)cpu };
			if (handle_sample(rc, &s))
				return -1;
		} else {
			struct tl_event ev = {
				.ts = pr.ts, .type = TL_EV_LOST, .cpu = (int16_t)cpu, .a = (int64_t)pr.lost
			};
			rc->lost += pr.lost;
			rc->lost_per_cpu[cpu] += pr.lost;
			if (stage_push(rc, &ev))
				return -1;
		}
	}
	tl_perf_ring_end(ring);
	return tl_rec_stage_flush(rc);
}

void tl_rec_progress(struct rec *rc, uint64_t now, int force)
{
	struct tl_record_progress p;

	if (!rc->o->progress || (!force && now - rc->last_progress_ns < PROGRESS_NS))
		return;
	rc->last_progress_ns = now;
	p.elapsed_s = (double)(now - rc->start_ns) / 1e9;
	p.events = rc->res->events;
	p.lost = rc->lost;
	p.bytes_written = tl_trace_writer_bytes(rc->w);
	rc->o->progress(&p, rc->o->progress_ctx);
}

/* The command's markers older than `mark` into the writer (marks.c). */
int tl_rec_drain_marks(struct rec *rc, uint64_t mark)
{
	int64_t n = tl_marks_drain(rc->marks, rc->w, mark);

	if (n < 0)
		return -1;
	rc->res->events += (uint64_t)n;
	rc->pending += (uint64_t)n;
	return 0;
}

/* A kernel-counter reading into the cpu -1 section, after the markers older than it. */
static int add_kstat(void *ctx, const struct tl_event *ev)
{
	struct rec *rc = ctx;

	return tl_rec_drain_marks(rc, ev->ts) || tl_rec_add_event(rc, ev);
}

/* The cpu -1 events older than mark: kernel-counter readings and markers, in time order. */
int tl_rec_drain_cpuless(struct rec *rc, uint64_t mark)
{
	return tl_kwatch_poll(rc->kw) || tl_kwatch_flush(rc->kw, mark, add_kstat, rc) || tl_rec_drain_marks(rc, mark);
}

/* One round: read every ring, then promise the writer what the next round can still bring. */
/* The eBPF back end: one record of its ring buffer. */
static int handle_bpf(void *ctx, const struct tl_bpf_event *ev)
{
	struct rec *rc = ctx;
	struct tl_tp_decoded d = ev->d; /* not the frames: only a SAMPLE has them */

	if (d.ev.type == TL_EV_LOST) {
		/* in the stream where the loss happened (record.bpf.c, reserve()) */
		int c = d.ev.cpu;

		if (c < 0 || c >= rc->ncpus || d.ev.a <= 0)
			return 0;
		rc->lost += (uint64_t)d.ev.a;
		rc->lost_per_cpu[c] += (uint64_t)d.ev.a;
		rc->bpf_dropped[c] += (uint64_t)d.ev.a;
		return stage_push(rc, &d.ev);
	}
	if (d.ev.type == TL_EV_SAMPLE) {
		const uint64_t *frames = ev->frames;
		unsigned nframes = ev->nframes;
		uint64_t dw[TL_BPF_SAMPLE_FRAMES];

		if (ev->dwarf) /* the kernel frames, then the user stack unwound from its copy */
			frames = dwarf_frames(rc, ev, dw, &nframes);
		/* its stack into the trace's table (written before the chunk that names it), its event by name */
		if (nframes > 1 && !(d.ev.a = tl_trace_writer_stack(rc->w, frames, nframes)))
			return -1;
		if (ev->dwarf)
			d.ev.b = (int64_t)(nframes ? frames[0] : 0);
		/* a kernel address of no stack: named at the end with the stacks' (record.c) */
		if (nframes <= 1 && (uint64_t)d.ev.b >> 63 && rc->nkips < (1u << 20)) {
			if (TL_GROW(rc->kips, rc->capkips, rc->nkips + 1) < 0)
				return -1;
			rc->kips[rc->nkips++] = (uint64_t)d.ev.b;
		}
		d.ev.name = rc->sample_names[ev->sample_event < (unsigned)rc->nsample_names ? ev->sample_event : 0];
		rc->samples++;
		if (rc->jit && tl_jitnames_sample(rc->jit, d.ev.arg, nframes <= 1 ? (uint64_t)d.ev.b : 0) < 0)
			return -1;
		/* a process sampled for the first time, or outside its code as read: its mappings, at this sample's time */
		switch (rc->maps ? tl_procmaps_note(rc->maps, d.ev.arg, (uint64_t)d.ev.b >> 63 ? 0 : (uint64_t)d.ev.b,
		                                    d.ev.ts)
		                 : 0) {
		case -1: return -1;
		case 1:
			rc->map_ts = d.ev.ts;
			rc->map_cpu = d.ev.cpu; /* in that CPU's time order, right before the sample */
			if (tl_procmaps_scan(rc->maps, d.ev.arg, add_map, rc))
				return -1;
			break;
		}
	}

	/* a new thread's process is known at once: the FORK record carries it */
	if (d.reset_tid) {
		tl_threads_remove(rc->threads, d.reset_tid); /* a reused tid: the old identity is void */
		d.reset_tid = 0;
	}
	if (ev->child_tgid > 0 && tl_rec_learn(rc, &d.ev, d.ev.tid, ev->child_tgid, d.nids ? &d.ids[0].comm : NULL))
		return -1;
	if (ev->span >= 0) { /* an OpenMP function's region: its name is the recorder's (capture/umarks.h) */
		if (!rc->um || ev->span >= rc->um->nspans) {
			rc->malformed++;
			return 0;
		}
		d.name.s = rc->um->spans[ev->span].name;
		d.name.len = (uint32_t)strlen(d.name.s);
		rc->uspans += d.ev.type == TL_EV_REGION_BEGIN || d.ev.type == TL_EV_REGION_END ||
		              rc->um->spans[ev->span].barrier; /* the runtime's barriers: OpenMP's too */
		rc->uspan_begins += d.ev.type == TL_EV_REGION_BEGIN;
	} else {
		rc->umarks += tl_bpf_is_marker(d.ev.type);
	}
	return handle_decoded(rc, ev->cur_tid, ev->cur_pid, &d);
}

/* A FILTERED total (bpf_rec.h), with its process's name. */
static int add_filtered(void *ctx, const struct tl_event *ev, const char *name)
{
	struct rec *rc = ctx;
	struct tl_event e = *ev;

	if (name && !(e.name = tl_trace_writer_intern(rc->w, name)))
		return -1;
	return tl_rec_add_event(rc, &e);
}

/* A run of yields still open at the end (bpf_rec.h). */
static int add_yield_run(void *ctx, const struct tl_event *ev)
{
	return tl_rec_add_event(ctx, ev);
}

/*
 * The eBPF back end: the ring buffer up to now.  Losses arrive as LOST
 * records in the stream; at the end, the drop counters also give the
 * losses no later record of their CPU reported, as LOST events at t0.
 */
static int drain_bpf(struct rec *rc, uint64_t t0, int final)
{
	if (tl_bpf_rec_drain(rc->bpf, handle_bpf, rc, &rc->malformed) < 0 || tl_rec_stage_flush(rc))
		return -1;
	if (final) {
		uint64_t now[4096];
		int n = rc->ncpus < 4096 ? rc->ncpus : 4096;

		if (tl_bpf_rec_dropped(rc->bpf, now, n) < 0)
			return -1;
		for (int c = 0; c < n; c++) {
			struct tl_event ev = { .ts = t0, .type = TL_EV_LOST, .cpu = (int16_t)c };

			if (now[c] <= rc->bpf_dropped[c])
				continue;
			ev.a = (int64_t)(now[c] - rc->bpf_dropped[c]);
			rc->lost += (uint64_t)ev.a;
			rc->lost_per_cpu[c] += (uint64_t)ev.a;
			rc->bpf_dropped[c] = now[c];
			if (tl_rec_add_event(rc, &ev))
				return -1;
		}
		if (rc->info.filter[0] &&
		    tl_bpf_rec_filtered(rc->bpf, rc->stop_ns, add_filtered, rc, &rc->res->left_out))
			return -1;
		if (tl_bpf_rec_yield_runs(rc->bpf, rc->stop_ns, add_yield_run, rc))
			return -1;
	}
	return 0;
}

int tl_rec_drain_all(struct rec *rc)
{
	uint64_t t0 = tl_rec_now_ns(CLOCK_MONOTONIC),
	         mark = t0 > rc->start_ns + SLACK_NS ? t0 - SLACK_NS : rc->start_ns;

	if (rc->bpf && drain_bpf(rc, t0, rc->draining_last))
		return -1;
	for (int i = 0; i < rc->set.nrings; i++)
		if (drain_ring(rc, rc->set.rings[i]))
			return -1;
	/*
	 * Markers too are read after T0 and published right after their time: the
	 * same slack holds.  Exits are polled after the rings, whose FORK events
	 * say which threads are watched; readings are stamped when taken, after T0.
	 */
	if (tl_rec_drain_cpuless(rc, mark))
		return -1;
	if (rc->pending >= STAGE_EVENTS * 4 || t0 - rc->last_flush_ns >= FLUSH_NS || rc->draining_last) {
		/* masks changed since the last look: no tracepoint says (capture/affinity.h) */
		rc->aff_mark = mark;
		if (tl_threads_recheck_affinity(rc->threads, add_affinity, rc) < 0 || tl_rec_rescan_maps(rc, mark) ||
		    tl_rec_stage_flush(rc))
			return -1;
		if (tl_trace_writer_flush(rc->w, mark))
			return -1;
		rc->last_flush_ns = t0;
		rc->pending = 0;
	}
	tl_threads_sweep(rc->threads, t0 > SLACK_NS ? t0 - SLACK_NS : 0); /* nothing older is still to come */
	tl_rec_progress(rc, t0, 0);
	return 0;
}
