/*
 * record.c - the recorder: per-CPU perf rings into a trace file (record.h).
 *
 * Sequence: read the tracepoint formats from tracefs into a decode table
 * (with the --func uprobes, uprobes.c); open every (tracepoint, online CPU)
 * event and map one ring per CPU; fork the command (held back on a pipe);
 * enable the events and note start_ns; create the writer; write the thread
 * snapshot; let the command exec; then drain until the command or the
 * targets are gone, the duration is over or *stop is set; disable, drain
 * the rest, close the file with its END block, and only then deal with a
 * command that still runs; last, remove the uprobes.
 *
 * Invariants:
 * - Every event of a CPU reaches the writer in the order of the CPU's ring,
 *   except that each drained batch is sorted by time first (a record written
 *   from an interrupt can land in the ring before the one it interrupted).
 * - The watermark passed to the writer is T0 - SLACK_NS, where T0 was read
 *   before the rings were: a sample is visible in its ring microseconds
 *   after its timestamp, so every record not yet read is younger than that.
 *   The command's user markers (marks.c: shared memory set up before the
 *   fork) are drained in the same rounds under the same watermark.
 * - A THREAD event precedes, on the same CPU and with the same ts, the first
 *   event at which the recorder learns a thread's new or changed identity.
 * - Memory is fixed after start, except the identity table, which follows
 *   the number of live threads (entries go on sched_process_free).
 * - After fork, every exit path reaps the child.
 *
 * The perf specifics stay in drain_ring(): an eBPF back end would replace
 * it with a function that hands the same struct tl_tp_sample to
 * handle_sample().
 */
#include "capture/record.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/errors.h"
#include "capture/kwatch.h"
#include "capture/marks.h"
#include "capture/perf_ring.h"
#include "capture/procsnap.h"
#include "capture/targets.h"
#include "capture/tp_decode.h"
#include "trace/trace.h"
#include "capture/uprobes.h"

#define POLL_MS 100
#define SLACK_NS 10000000ull  /* watermark slack behind T0 */
#define FLUSH_NS 500000000ull /* longest time between chunks */
#define PROGRESS_NS 250000000ull
#define EXIT_GRACE_MS 10   /* after the command exits: its last switch-out */
#define KILL_GRACE_MS 2000 /* a forwarded signal's time to work before SIGKILL */
#define STAGE_EVENTS 16384
#define IRQ_CACHE 64

struct irq_name {
	int64_t irq;
	uint32_t id;
	uint32_t len;
	char s[32];
};

struct rec {
	const struct tl_record_opts *o;
	struct tl_record_result *res;
	unsigned groups;
	char tracing[256];
	struct tl_tp_table *tps;
	int used[TL_TP__COUNT];
	int ncpus;                  /* highest online CPU + 1 */
	struct tl_perf_set set;     /* one ring per online CPU */
	struct tl_uprobes *uprobes; /* --func: probes in tracefs until release() */
	struct tl_trace_writer *w;
	struct tl_marks *marks; /* user markers of the command (marks.h), or NULL */
	struct tl_kwatch *kw;   /* the kernel's accounting of the recorded threads (kwatch.h) */
	char *path;             /* the output, for unlink() when the command cannot run */
	struct tl_threads *threads;
	struct tl_event *stage;
	size_t nstage;
	uint64_t *lost_per_cpu;
	int32_t *oncpu; /* per CPU: the task the last recorded event put on it */
	uint64_t lost, malformed;
	uint64_t start_ns, last_flush_ns, last_progress_ns;
	uint64_t pending; /* events added since the last flush */
	struct irq_name irqs[IRQ_CACHE];
	struct tl_trace_info info;
	struct tl_targets tg; /* the command, or the -p processes */
};

static uint64_t now_ns(clockid_t clk)
{
	struct timespec ts;
	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void warn(struct tl_record_result *res, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void warn(struct tl_record_result *res, const char *fmt, ...)
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

/* ---- tracefs ---- */

static void warn_cb(void *ctx, const char *msg)
{
	warn(ctx, "%s", msg);
}

static int group_on(unsigned groups, const struct tl_tp_desc *d)
{
	return !d->group || (groups & d->group);
}

int tl_record_list_events(unsigned groups, void (*fn)(const struct tl_record_tp_status *st, void *ctx), void *ctx,
                          char *state_desc, unsigned state_desc_len)
{
	struct tl_tp_table *t = tl_tp_table_new();
	char tracing[256];
	int used[TL_TP__COUNT];

	if (!t)
		return -1;
	if (!groups)
		groups = TL_REC_ALL;
	if (tl_tracefs_dir(tracing, sizeof(tracing)) || tl_tracefs_load(tracing, TL_REC_ALL, t, used, NULL, NULL)) {
		tl_tp_table_free(t);
		return -1;
	}
	for (unsigned k = 0; k < TL_TP__COUNT; k++) {
		const struct tl_tp_desc *d = tl_tp_desc(k);
		struct tl_record_tp_status st = {
			d->system, d->name, tl_tp_table_id(t, k), d->required, used[k] && group_on(groups, d), d->group
		};
		fn(&st, ctx);
	}
	if (state_desc && state_desc_len)
		tl_tp_table_state_desc(t, state_desc, state_desc_len);
	tl_tp_table_free(t);
	return 0;
}

/* ---- trace info ---- */

/* The command line as a shell would accept it back. */
static void join_argv(char *out, size_t len, char *const *argv)
{
	size_t used = 0;

	out[0] = 0;
	for (int i = 0; argv[i] && used + 1 < len; i++) {
		const char *a = argv[i];
		int quote = !*a || strpbrk(a, " \t\n'\"\\$`|&;<>()*?[]{}~#!") != NULL;
		used += (size_t)snprintf(out + used, len - used, "%s%s", i ? " " : "", quote ? "'" : "");
		for (; *a && used + 5 < len; a++) {
			if (*a == '\'' && quote)
				used += (size_t)snprintf(out + used, len - used, "'\\''");
			else
				out[used++] = *a;
		}
		out[used] = 0;
		if (quote && used + 1 < len)
			used += (size_t)snprintf(out + used, len - used, "'");
	}
}

static void fill_info(struct rec *rc)
{
	const struct tl_record_opts *o = rc->o;
	struct tl_trace_info *in = &rc->info;

	memset(in, 0, sizeof(*in));
	snprintf(in->clock, sizeof(in->clock), "monotonic");
	tl_procsnap_machine(in);
	snprintf(in->source, sizeof(in->source), "record");
	snprintf(in->tool_version, sizeof(in->tool_version), "%s", TL_VERSION);
	in->ncpus = rc->ncpus;
	if (o->argv) {
		in->target_mode = TL_TARGET_COMMAND;
		join_argv(in->command, sizeof(in->command), o->argv);
		in->ntargets = 1;
		in->targets[0] = rc->tg.child;
	} else if (o->npids) {
		size_t used = (size_t)snprintf(in->command, sizeof(in->command), "-p ");
		in->target_mode = TL_TARGET_PIDS;
		in->ntargets = o->npids;
		for (int i = 0; i < o->npids; i++) {
			in->targets[i] = o->pids[i];
			if (used < sizeof(in->command))
				used += (size_t)snprintf(in->command + used, sizeof(in->command) - used, "%s%d",
				                         i ? "," : "", o->pids[i]);
		}
	} else {
		in->target_mode = TL_TARGET_SYSTEM;
		snprintf(in->command, sizeof(in->command), "-a");
	}
}

/* ---- events into the writer ---- */

static int add_event(struct rec *rc, const struct tl_event *ev)
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

static int stage_flush(struct rec *rc)
{
	sort_stage(rc->stage, rc->nstage);
	for (size_t i = 0; i < rc->nstage; i++)
		if (add_event(rc, &rc->stage[i]))
			return -1;
	rc->nstage = 0;
	return 0;
}

static inline int stage_push(struct rec *rc, const struct tl_event *ev)
{
	if (rc->nstage == STAGE_EVENTS && stage_flush(rc))
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
static int learn(struct rec *rc, const struct tl_event *at, int32_t tid, int32_t tgid, const struct tl_tp_str *comm)
{
	struct tl_event th;
	int r = tl_threads_learn(rc->threads, rc->w, at, tid, tgid, comm ? comm->s : NULL, comm ? comm->len : 0, &th);

	return r > 0 ? stage_push(rc, &th) : r;
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

/* One tracepoint sample, whatever back end produced it. */
static int handle_sample(struct rec *rc, const struct tl_tp_sample *s)
{
	struct tl_tp_decoded d;
	const struct tl_tp_str *cur_comm = NULL;
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
	if (d.reset_tid)
		tl_threads_remove(rc->threads, d.reset_tid);
	/* The current task's process comes with every sample; its name with some. */
	for (int i = 0; i < d.nids; i++)
		if (d.ids[i].tid == s->tid)
			cur_comm = &d.ids[i].comm;
	if (learn(rc, &d.ev, s->tid, s->pid, cur_comm))
		return -1;
	for (int i = 0; i < d.nids; i++)
		if (d.ids[i].tid != s->tid && learn(rc, &d.ev, d.ids[i].tid, -1, &d.ids[i].comm))
			return -1;
	if (d.name.len) {
		d.ev.name = d.ev.type == TL_EV_IRQ_ENTRY ? irq_name_id(rc, d.ev.a, &d.name)
		                                         : intern_n(rc, d.name.s, d.name.len);
		if (d.ev.name == (uint32_t)-1)
			return -1;
	}
	if (d.ev.type == TL_EV_FREE && tl_threads_retire(rc->threads, d.ev.tid, d.ev.ts))
		return -1;
	if (d.ev.type == TL_EV_FORK && tl_kwatch_fork(rc->kw, d.ev.arg, d.ev.tid))
		return -1;
	return stage_push(rc, &d.ev);
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
	return stage_flush(rc);
}

static void progress(struct rec *rc, uint64_t now, int force)
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
static int drain_marks(struct rec *rc, uint64_t mark)
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

	return drain_marks(rc, ev->ts) || add_event(rc, ev);
}

/* The cpu -1 events older than mark: kernel-counter readings and markers, in time order. */
static int drain_cpuless(struct rec *rc, uint64_t mark)
{
	return tl_kwatch_poll(rc->kw) || tl_kwatch_flush(rc->kw, mark, add_kstat, rc) || drain_marks(rc, mark);
}

/* One round: read every ring, then promise the writer what the next round can still bring. */
static int drain_all(struct rec *rc)
{
	uint64_t t0 = now_ns(CLOCK_MONOTONIC), mark = t0 > rc->start_ns + SLACK_NS ? t0 - SLACK_NS : rc->start_ns;

	for (int i = 0; i < rc->set.nrings; i++)
		if (drain_ring(rc, rc->set.rings[i]))
			return -1;
	/*
	 * Markers too are read after T0 and published right after their time: the
	 * same slack holds.  Exits are polled after the rings, whose FORK events
	 * say which threads are watched; readings are stamped when taken, after T0.
	 */
	if (drain_cpuless(rc, mark))
		return -1;
	if (rc->pending >= STAGE_EVENTS * 4 || t0 - rc->last_flush_ns >= FLUSH_NS) {
		if (tl_trace_writer_flush(rc->w, mark))
			return -1;
		rc->last_flush_ns = t0;
		rc->pending = 0;
	}
	tl_threads_sweep(rc->threads, t0 > SLACK_NS ? t0 - SLACK_NS : 0); /* nothing older is still to come */
	progress(rc, t0, 0);
	return 0;
}

/* In the command, just before exec: hand it the marker memory. */
static void export_marks(void *marks)
{
	tl_marks_export(marks);
}

/* ---- snapshot ---- */

/* THREAD events at start: the idle tasks, the command, or every thread of the system. */
static int first_threads(struct rec *rc)
{
	struct tl_event ev = { .ts = rc->start_ns, .type = TL_EV_THREAD, .cpu = -1 };
	uint64_t n;

	ev.name = tl_trace_writer_intern(rc->w, "swapper");
	if (add_event(rc, &ev))
		return -1;
	if (rc->tg.child > 0) {
		/* Until it execs, the command is a copy of us, with our name; exec renames it. */
		char self[17] = "";
		struct tl_tp_str comm = { self, 0 };
		prctl(PR_GET_NAME, self);
		comm.len = (uint32_t)strnlen(self, 16);
		if (learn(rc, &ev, rc->tg.child, rc->tg.child, &comm) || stage_flush(rc))
			return -1;
		return 0;
	}
	if (tl_procsnap_write("/proc", rc->w, rc->threads, rc->start_ns, &n))
		return -1;
	rc->res->events += n;
	rc->pending += n;
	return 0;
}

/* The kernel's counters of the recorded threads as the trace starts (kwatch.h). */
static int first_kstats(struct rec *rc)
{
	if (rc->tg.child > 0)
		return tl_kwatch_start(rc->kw, rc->tg.child);
	for (int i = 0; i < rc->o->npids; i++)
		if (tl_kwatch_start(rc->kw, rc->o->pids[i]))
			return -1;
	return rc->o->system_wide ? tl_kwatch_start(rc->kw, 0) : 0;
}

/* ---- the recording ---- */

static int validate(const struct tl_record_opts *o)
{
	int modes = (o->argv && o->argv[0]) + (o->npids > 0) + !!o->system_wide;

	if (modes != 1)
		return tl_error("give exactly one of: a command, process ids (-p), the whole system (-a)");
	if (o->npids > TL_TRACE_MAX_TARGETS)
		return tl_error("too many processes to attach to (at most %d)", TL_TRACE_MAX_TARGETS);
	if (o->ring_pages && (o->ring_pages & (o->ring_pages - 1)))
		return tl_error("ring size of %u pages is not a power of two", o->ring_pages);
	if (o->duration_s < 0)
		return tl_error("duration %g is negative", o->duration_s);
	if (o->system_wide && !o->duration_s && !o->stop)
		return tl_error("a system-wide recording needs a duration or a stop flag");
	if (!o->output || !*o->output)
		return tl_error("no output file");
	return 0;
}

/* Drain until the end condition; returns 0, or -1 with tl_error set. */
static int loop(struct rec *rc)
{
	const struct tl_record_opts *o = rc->o;
	uint64_t deadline = o->duration_s > 0 ? rc->start_ns + (uint64_t)(o->duration_s * 1e9) : 0;
	int nr = rc->set.nrings;
	struct pollfd *pfd = calloc((size_t)nr + 3, sizeof(*pfd));
	int ret = -1, exiting = 0;

	if (!pfd)
		return tl_error("out of memory");
	for (int i = 0; i < nr; i++)
		pfd[i] = (struct pollfd){ tl_perf_ring_fd(rc->set.rings[i]), POLLIN, 0 };
	pfd[nr] = (struct pollfd){ rc->tg.child_pidfd, POLLIN, 0 }; /* -1 is ignored by poll() */
	pfd[nr + 1] = (struct pollfd){ rc->tg.err_fd, POLLIN, 0 };
	pfd[nr + 2] = (struct pollfd){ tl_marks_wake_fd(rc->marks), POLLIN, 0 }; /* a marker ring half full */
	for (;;) {
		uint64_t now = now_ns(CLOCK_MONOTONIC);
		int timeout = POLL_MS;

		if (deadline) {
			if (now >= deadline) {
				ret = 0;
				break;
			}
			if ((deadline - now) / 1000000 < (uint64_t)timeout)
				timeout = (int)((deadline - now) / 1000000) + 1;
		}
		if (exiting)
			timeout = EXIT_GRACE_MS;
		pfd[nr + 1].fd = rc->tg.err_fd;
		if (poll(pfd, (nfds_t)nr + 3, timeout) < 0 && errno != EINTR) {
			tl_error_errno("poll");
			break;
		}
		if (tl_targets_check_exec(&rc->tg, rc->o->argv ? rc->o->argv[0] : "", 0) || drain_all(rc))
			break;
		if (exiting || (o->stop && *o->stop)) {
			ret = 0;
			break;
		}
		if (rc->tg.child > 0 && tl_targets_child_gone(&rc->tg)) {
			if (tl_targets_check_exec(&rc->tg, rc->o->argv[0], 1))
				break;
			exiting = 1; /* one short round more: the command's last events */
			pfd[nr].fd = -1;
		} else if (rc->tg.npids && tl_targets_gone(&rc->tg)) {
			exiting = 1;
		}
	}
	free(pfd);
	return ret;
}

static void release(struct rec *rc)
{
	tl_perf_set_release(&rc->set);
	tl_uprobes_close(rc->uprobes, warn_cb, rc->res); /* after the perf events on them are closed */
	free(rc->lost_per_cpu);
	free(rc->oncpu);
	free(rc->stage);
	tl_threads_free(rc->threads);
	tl_tp_table_free(rc->tps);
	tl_marks_free(rc->marks);
	tl_kwatch_free(rc->kw); /* sets kernel.task_delayacct back */
	tl_targets_release(&rc->tg);
}

static double cpu_seconds(void)
{
	struct rusage ru;
	if (getrusage(RUSAGE_SELF, &ru))
		return 0;
	return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
	       ru.ru_stime.tv_usec / 1e6;
}

/* After the loop (or a failure in it): stop the kernel, drain, finish the file. */
static int finish(struct rec *rc, int ok)
{
	struct tl_trace_end end = { 0 };
	struct tl_marks_stats ms;
	struct tl_kwatch_stats ks;
	int ret = ok ? 0 : -1;

	/* The END readings while every event is still recorded: the trace covers them. */
	if (ok && !rc->tg.exec_failed && (drain_all(rc) || tl_kwatch_poll(rc->kw) || tl_kwatch_end(rc->kw)))
		ret = -1;
	tl_perf_set_enable(&rc->set, 0);
	end.end_ns = now_ns(CLOCK_MONOTONIC);
	if (rc->tg.exec_failed) {
		/* Nothing was recorded of a program that never ran: leave no file behind. */
		tl_trace_writer_abort(rc->w);
		rc->w = NULL;
		if (strcmp(rc->path, "-"))
			unlink(rc->path);
		return -1;
	}
	if (!ret && ok && (drain_all(rc) || drain_cpuless(rc, UINT64_MAX) || drain_marks(rc, TL_MARKS_ALL)))
		ret = -1;
	tl_kwatch_get_stats(rc->kw, &ks);
	rc->res->kstat_threads = ks.threads;
	rc->res->kstat_reads = ks.reads;
	tl_marks_get_stats(rc->marks, &ms);
	rc->res->marks = ms.markers;
	rc->res->marks_lost = ms.lost;
	if (!ret)
		progress(rc, end.end_ns, 1);
	rc->res->lost = rc->lost;
	end.events = rc->res->events;
	end.lost = rc->lost;
	end.ncpus = rc->ncpus;
	end.lost_per_cpu = rc->lost_per_cpu;
	rc->res->bytes = tl_trace_writer_bytes(rc->w);
	if (ret) {
		/* Keep the first error; still leave a file that reads up to its last good chunk. */
		char msg[512];
		snprintf(msg, sizeof(msg), "%s", tl_error_msg());
		tl_trace_writer_close(rc->w, &end);
		tl_error("%s", msg);
	} else if (tl_trace_writer_close(rc->w, &end)) {
		ret = -1;
	}
	rc->w = NULL;
	rc->res->elapsed_s = (double)(end.end_ns - rc->start_ns) / 1e9;
	if (rc->malformed)
		warn(rc->res, "%llu samples could not be decoded and were skipped", (unsigned long long)rc->malformed);
	if (ks.exits_lost || ks.unreadable)
		warn(rc->res,
		     "the kernel's counters of %llu threads were lost (full socket: %llu, unreadable: %llu): "
		     "the self-check leaves them out",
		     (unsigned long long)(ks.exits_lost + ks.unreadable), (unsigned long long)ks.exits_lost,
		     (unsigned long long)ks.unreadable);
	return ret;
}

int tl_record(const struct tl_record_opts *opts, struct tl_record_result *res)
{
	struct rec rc_, *rc = &rc_;
	struct tl_uprobes_spec probes = { opts->funcs, opts->nfuncs, opts->argv ? opts->argv[0] : NULL,
		                          opts->npids > 0 ? opts->pids[0] : 0 };
	double cpu0 = cpu_seconds();
	int go_fd = -1, ret = -1, sig;

	memset(res, 0, sizeof(*res));
	memset(rc, 0, sizeof(*rc));
	rc->o = opts;
	rc->res = res;
	tl_targets_init(&rc->tg);
	if (validate(opts))
		return -1;
	rc->path = (char *)opts->output;
	rc->groups = opts->groups ? opts->groups : TL_REC_ALL;
	rc->tps = tl_tp_table_new();
	rc->threads = tl_threads_new();
	rc->stage = malloc(STAGE_EVENTS * sizeof(*rc->stage));
	if (!rc->tps || !rc->threads || !rc->stage) {
		tl_error("out of memory");
		goto out;
	}
	if (tl_tracefs_dir(rc->tracing, sizeof(rc->tracing)) ||
	    tl_tracefs_load(rc->tracing, rc->groups, rc->tps, rc->used, warn_cb, res) ||
	    (opts->npids && tl_targets_attach(&rc->tg, opts->pids, opts->npids)) ||
	    !(rc->uprobes = tl_uprobes_open(rc->tracing, &probes, rc->tps)) ||
	    tl_perf_set_open_table(&rc->set, rc->tps, rc->used, opts->ring_pages, rc->tracing, warn_cb, res,
	                           &rc->ncpus) ||
	    tl_uprobes_attach(rc->uprobes, &rc->set))
		goto out;
	rc->lost_per_cpu = calloc((size_t)rc->ncpus, sizeof(*rc->lost_per_cpu));
	rc->oncpu = calloc((size_t)rc->ncpus, sizeof(*rc->oncpu));
	if (!rc->lost_per_cpu || !rc->oncpu) {
		tl_error("out of memory");
		goto out;
	}
	/* Without the marker memory the recording goes on, without markers. */
	if (opts->argv && !(rc->marks = tl_marks_new()))
		warn(res, "markers are not recorded: %s", tl_error_msg());
	if (opts->argv && tl_targets_fork(&rc->tg, opts->argv, export_marks, rc->marks, &go_fd))
		goto out;
	res->child_ran = rc->tg.child > 0;
	fill_info(rc);
	/* Before the start: delay accounting must be on when the first counters are read. */
	if (!(rc->kw = tl_kwatch_new(opts->system_wide, warn_cb, res)))
		goto out;

	/* start_ns comes first: no event can be older than the trace's start. */
	rc->start_ns = now_ns(CLOCK_MONOTONIC);
	rc->info.realtime_offset_ns = now_ns(CLOCK_REALTIME) - now_ns(CLOCK_MONOTONIC);
	rc->info.start_ns = rc->start_ns;
	if (tl_perf_set_enable(&rc->set, 1)) {
		tl_perf_set_enable(&rc->set, 0);
		goto out;
	}
	rc->last_flush_ns = rc->last_progress_ns = rc->start_ns;
	rc->w = tl_trace_writer_create(opts->output, &rc->info);
	if (!rc->w) {
		tl_perf_set_enable(&rc->set, 0);
		goto out;
	}
	if (first_threads(rc) || first_kstats(rc)) {
		finish(rc, 0);
		goto out;
	}
	if (go_fd >= 0) {
		/* The command may run now: everything it does is traced. */
		if (write(go_fd, "g", 1) != 1) {
			tl_error_errno("cannot start '%s'", opts->argv[0]);
			finish(rc, 0);
			goto out;
		}
		close(go_fd);
		go_fd = -1;
	}
	ret = finish(rc, !loop(rc));
out:
	if (go_fd >= 0)
		close(go_fd); /* a child still waiting reads EOF and exits */
	sig = opts->stop ? *opts->stop : 0;
	tl_targets_end_child(&rc->tg, sig == SIGINT || sig == SIGTERM ? sig : SIGTERM, KILL_GRACE_MS);
	res->child_status = rc->tg.child_status;
	if (rc->w)
		tl_trace_writer_abort(rc->w);
	release(rc);
	res->recorder_cpu_s = cpu_seconds() - cpu0;
	return ret;
}
