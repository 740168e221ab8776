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
#include "capture/record_int.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/errors.h"
#include "base/grow.h"
#include "capture/kallsyms.h"
#include "capture/locknames.h"
#include "capture/procmaps.h"
#include "capture/sample_events.h"
#include "capture/umarks.h"

#define POLL_MS 100
/*
 * --sample: the first samples of a program find libraries its loader
 * mapped after the exec; their maps are read when the drain meets such a
 * sample (procmaps.h), which must be while the program lives: the first
 * 250 ms are drained every 10 ms, so a program of tens of ms has them.
 */
#define EARLY_POLL_MS 10
#define EARLY_NS 250000000ull
#define EXIT_GRACE_MS 10   /* after the command exits: its last switch-out */
#define KILL_GRACE_MS 2000 /* a forwarded signal's time to work before SIGKILL */

/* ---- tracefs ---- */

static void warn_cb(void *ctx, const char *msg)
{
	tl_rec_warn(ctx, "%s", msg);
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

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/*
 * --sample, at the end: the kernel functions the samples hit, as KSYM
 * events (capture/kallsyms.h), so that `profile` names kernel frames
 * wherever it runs.  Their addresses: every kernel frame of the interned
 * stacks, and the samples without a stack.
 */
static int name_kernel(struct rec *rc, uint64_t ts)
{
	struct tl_kallsyms k;
	uint64_t last = UINT64_MAX;
	const uint64_t *f;
	unsigned n;
	int rc2 = 0;

	if (!rc->maps)
		return 0;
	for (uint32_t id = 1; (f = tl_trace_writer_stack_frames(rc->w, id, &n)); id++)
		for (unsigned i = 0; i < n; i++)
			if (f[i] >> 63 && rc->nkips < (1u << 22)) {
				if (TL_GROW(rc->kips, rc->capkips, rc->nkips + 1) < 0)
					return -1;
				rc->kips[rc->nkips++] = f[i];
			}
	if (!rc->nkips)
		return 0;
	if (tl_kallsyms_load(&k, "/proc/kallsyms")) {
		tl_rec_warn(rc->res, "kernel frames stay unnamed: %s", tl_error_msg());
		return 0;
	}
	if (k.hidden)
		tl_rec_warn(rc->res, "kernel frames stay unnamed: /proc/kallsyms hides the addresses "
		                     "(kernel.kptr_restrict)");
	qsort(rc->kips, rc->nkips, sizeof(*rc->kips), cmp_u64);
	for (size_t i = 0; i < rc->nkips && !rc2; i++) {
		const struct tl_ksym *s = tl_kallsyms_find(&k, rc->kips[i]);
		struct tl_event e = { .ts = ts, .type = TL_EV_KSYM, .cpu = -1 };

		if (!s || s->start == last)
			continue;
		last = s->start;
		e.a = (int64_t)s->start;
		e.b = (int64_t)s->end;
		if (!(e.name = tl_trace_writer_intern(rc->w, s->name)))
			rc2 = -1;
		else
			rc2 = tl_rec_add_event(rc, &e);
	}
	tl_kallsyms_release(&k);
	return rc2;
}

static int add_event(void *ctx, const struct tl_event *ev)
{
	return tl_rec_add_event(ctx, ev);
}

/* The JIT functions the samples hit, from their processes' perf maps (capture/jitnames.h). */
static int name_jit(struct rec *rc, uint64_t ts)
{
	size_t named;

	if (!rc->jit)
		return 0;
	if (tl_jitnames_write(rc->jit, rc->w, NULL, ts, add_event, rc, &named))
		return -1;
	rc->res->jit_functions = named;
	return 0;
}

/*
 * --sample: a copy of each sampled file, as mapped, in the build-ID cache
 * (capture/buildids.h), for when its path holds another build.  Not
 * keeping one does not spoil the trace: a warning.
 */
static void keep_builds(struct rec *rc)
{
	size_t kept = 0, naddrs = 0;
	const uint64_t *addrs = NULL;

	if (rc->bids && (tl_jitnames_addresses(rc->jit, rc->w, &addrs, &naddrs) ||
	                 tl_buildids_keep(rc->bids, getenv("HOME"), addrs, naddrs, &kept)))
		tl_rec_warn(rc->res, "a sampled file was not kept by its build ID (--no-buildid-cache: none): %s",
		            tl_error_msg());
	rc->res->kept_files = kept;
}

/*
 * --sample: the command's maps before it execs (a copy of ours): samples
 * between the start and its exec are resolved with them, which a first
 * reading at its first sample, after the exec, could not do.
 */
static int first_maps(struct rec *rc)
{
	if (!rc->maps || rc->tg.child <= 0 || tl_procmaps_note(rc->maps, rc->tg.child, 0, 0) < 0)
		return rc->maps && rc->tg.child > 0 ? -1 : 0;
	return tl_rec_rescan_maps(rc, rc->start_ns) || tl_rec_stage_flush(rc);
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
	snprintf(in->backend, sizeof(in->backend), "%s", rc->bpf ? "bpf" : "perf");
	if (rc->bpf && !o->system_wide)
		snprintf(in->filter, sizeof(in->filter), "processes");
	if (rc->bpf ? tl_bpf_rec_vectors(rc->bpf) : rc->used[TL_TP_VEC_TIMER_ENTRY] && rc->used[TL_TP_VEC_TIMER_EXIT])
		snprintf(in->irq_vectors, sizeof(in->irq_vectors), "recorded");
	snprintf(in->tool_version, sizeof(in->tool_version), "%s", TL_VERSION);
	in->ncpus = rc->ncpus;
	if (o->argv) {
		in->target_mode = TL_TARGET_COMMAND;
		join_argv(in->command, sizeof(in->command), o->argv);
		in->ntargets = 1;
		in->targets[0] = rc->tg.child;
	} else if (o->npids) {
		in->target_mode = TL_TARGET_PIDS;
		in->ntargets = o->npids;
		for (int i = 0; i < o->npids; i++)
			in->targets[i] = o->pids[i];
		tl_targets_describe(o->pids, o->npids, in->command, sizeof(in->command));
	} else {
		in->target_mode = TL_TARGET_SYSTEM;
		snprintf(in->command, sizeof(in->command), "-a");
	}
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
	if (tl_rec_add_event(rc, &ev))
		return -1;
	if (rc->tg.child > 0) {
		/* Until it execs, the command is a copy of us, with our name; exec renames it. */
		char self[17] = "";
		struct tl_tp_str comm = { self, 0 };
		prctl(PR_GET_NAME, self);
		comm.len = (uint32_t)strnlen(self, 16);
		ev.tid = rc->tg.child; /* named by the event: its mask is written (tl_rec_learn) */
		if (tl_rec_learn(rc, &ev, rc->tg.child, rc->tg.child, &comm) || tl_rec_stage_flush(rc))
			return -1;
		return 0;
	}
	/* filtered in the kernel: the other processes' threads would have no events, so no states */
	if (tl_procsnap_write("/proc", rc->w, rc->threads, rc->start_ns, rc->info.filter[0] ? rc->filter_tgids : NULL,
	                      rc->nfilter_tgids, &n))
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

/*
 * The eBPF back end, unless perf is asked for (its --func probes are
 * then tracefs uprobes, uprobes.c).  With --backend bpf a failure is the recording's;
 * otherwise one line says why and perf records.  -1 with tl_error set only
 * for the former.
 */
static int open_bpf(struct rec *rc)
{
	const struct tl_record_opts *o = rc->o;
	struct tl_bpf_sample smp = { .hz = o->sample_hz ? o->sample_hz : TL_SAMPLE_DEFAULT_HZ,
		                     .frames = o->sample_frames ? o->sample_frames : 64,
		                     .dwarf = o->sample_dwarf };
	size_t ring = 0;

	if (o->sample) {
		/* samples come from the eBPF program: no fallback to perf */
		if (o->backend == TL_BACKEND_PERF)
			return tl_error(
			        "sampling (--sample) works with the eBPF back end only: not with --backend perf");
		smp.nevents =
		        tl_sample_events_parse(o->sample_event ? o->sample_event : TL_SAMPLE_DEFAULT_EVENT, smp.events);
		if (smp.nevents < 0)
			return -1;
	}
	if (o->backend == TL_BACKEND_PERF)
		return 0;
	if (o->ring_pages) {
		/* -m: pages per CPU; one ring for all CPUs, a power of two */
		size_t want = (size_t)o->ring_pages * 4096u * 2u;
		ring = 4096;
		while (ring < want && ring < (1u << 30))
			ring <<= 1;
	}
	/* -p, -a: the marker library's calls through uprobes (a command's come through shared memory); OpenMP */
	rc->bpf = tl_bpf_rec_open(rc->groups, ring, !o->system_wide, o->sample ? &smp : NULL,
	                          (o->argv ? 0 : TL_BPF_UMARKS) | (o->nfuncs || !o->no_omp ? TL_BPF_USPANS : 0));
	if (!rc->bpf) {
		if (o->backend == TL_BACKEND_BPF || o->sample)
			return -1;
		tl_rec_warn(rc->res, "%s; recording with perf", tl_error_msg());
		return 0;
	}
	for (int i = 0; o->sample && i < smp.nevents; i++)
		if (tl_bpf_rec_sample_skipped(rc->bpf, i))
			tl_rec_warn(rc->res, "%s; the other events are sampled", tl_bpf_rec_sample_skipped(rc->bpf, i));
	rc->ncpus = tl_bpf_rec_ncpus(rc->bpf);
	return 0;
}

/* The sampled events' names, in -e's order: a SAMPLE names its event by its index (record_drain.c). */
static int intern_sample_names(struct rec *rc)
{
	const struct tl_sample_event *ev[TL_SAMPLE_MAX_EVENTS];
	int n = tl_sample_events_parse(rc->o->sample_event ? rc->o->sample_event : TL_SAMPLE_DEFAULT_EVENT, ev);

	for (int i = 0; i < n; i++)
		if (!(rc->sample_names[i] = tl_trace_writer_intern(rc->w, ev[i]->name)))
			return -1;
	rc->nsample_names = n;
	return n < 0 ? -1 : 0;
}

/* The process a -p id belongs to (a thread id names its process), from /proc; the id itself if unreadable. */
static int32_t tgid_of(int pid)
{
	char path[64], line[128];
	int32_t tgid = pid;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	if (!(f = fopen(path, "r")))
		return pid;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Tgid: %d", &tgid) == 1)
			break;
	fclose(f);
	return tgid;
}

/* The eBPF filter: the command, or the -p processes (and what they fork from now on). */
static int track_targets(struct rec *rc)
{
	if (rc->o->system_wide)
		return 0;
	if (rc->tg.child > 0)
		return tl_bpf_rec_track(rc->bpf, rc->tg.child);
	for (int i = 0; i < rc->o->npids && i < TL_TRACE_MAX_TARGETS; i++) {
		rc->filter_tgids[rc->nfilter_tgids] = tgid_of(rc->o->pids[i]);
		if (tl_bpf_rec_track(rc->bpf, rc->filter_tgids[rc->nfilter_tgids++]))
			return -1;
	}
	return 0;
}

/*
 * OpenMP regions cost the program two uprobe hits per instance and thread
 * (bench/RESULTS.md section 4d: 1.2-1.5 us): when that adds up to more
 * than a twentieth of the recording, one line says so (tiny regions).
 */
static void omp_cost_note(struct rec *rc, uint64_t end_ns)
{
	double probes_s = (double)rc->uspans * TL_REC_UPROBE_HIT_NS / 1e9,
	       wall_s = end_ns > rc->start_ns ? (double)(end_ns - rc->start_ns) / 1e9 : 0;

	rc->res->omp_regions = rc->uspan_begins;

	if (rc->uspans && probes_s > wall_s / 20)
		tl_rec_warn(rc->res,
		            "the OpenMP regions took %llu uprobe hits, about %.0f ms of the program's time in %.2f s "
		            "(tiny regions); record --no-omp leaves them out",
		            (unsigned long long)rc->uspans, probes_s * 1e3, wall_s);
}

/*
 * Filtered: a CPU's occupant is known from its first switch on.  A CPU that
 * a busy task holds may not switch for a long time, so the recorder visits
 * every CPU it may use once, right after the start: each then switches.
 */
static void touch_cpus(void)
{
	cpu_set_t all, one;

	if (sched_getaffinity(0, sizeof(all), &all))
		return;
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &all)) {
			CPU_ZERO(&one);
			CPU_SET(c, &one);
			(void)sched_setaffinity(0, sizeof(one), &one);
		}
	(void)sched_setaffinity(0, sizeof(all), &all);
}

/* Start or stop the kernel's side.  0, or -1 with tl_error set. */
static int backend_enable(struct rec *rc, int on)
{
	if (rc->bpf) {
		tl_bpf_rec_enable(rc->bpf, on);
		return 0;
	}
	return tl_perf_set_enable(&rc->set, on);
}

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

/* A poll() timeout of at most `timeout` ms that wakes for `due` (1 ms after it; 0 when past). */
static int wake_by(uint64_t now, uint64_t due, int timeout)
{
	if (due <= now)
		return 0;
	return (due - now) / 1000000 < (uint64_t)timeout ? (int)((due - now) / 1000000) + 1 : timeout;
}

/* Drain until the end condition; returns 0, or -1 with tl_error set. */
static int loop(struct rec *rc)
{
	const struct tl_record_opts *o = rc->o;
	uint64_t deadline = o->duration_s > 0 ? rc->start_ns + (uint64_t)(o->duration_s * 1e9) : 0;
	int nr = rc->bpf ? 1 : rc->set.nrings;
	struct pollfd *pfd = calloc((size_t)nr + 3, sizeof(*pfd));
	int ret = -1, exiting = 0;

	if (!pfd)
		return tl_error("out of memory");
	for (int i = 0; i < nr; i++)
		pfd[i] = (struct pollfd){ rc->bpf ? tl_bpf_rec_fd(rc->bpf) : tl_perf_ring_fd(rc->set.rings[i]), POLLIN,
			                  0 };
	pfd[nr] = (struct pollfd){ rc->tg.child_pidfd, POLLIN, 0 }; /* -1 is ignored by poll() */
	pfd[nr + 1] = (struct pollfd){ rc->tg.err_fd, POLLIN, 0 };
	pfd[nr + 2] = (struct pollfd){ tl_marks_wake_fd(rc->marks), POLLIN, 0 }; /* a marker ring half full */
	for (;;) {
		uint64_t now = tl_rec_now_ns(CLOCK_MONOTONIC);
		int timeout = rc->maps && now - rc->start_ns < EARLY_NS ? EARLY_POLL_MS : POLL_MS;

		/* wake for the next chunk even when no ring does: a killed recorder loses < FLUSH_NS + a round */
		timeout = wake_by(now, rc->last_flush_ns + FLUSH_NS, timeout);
		if (deadline) {
			if (now >= deadline) {
				ret = 0;
				break;
			}
			timeout = wake_by(now, deadline, timeout);
		}
		if (exiting)
			timeout = EXIT_GRACE_MS;
		pfd[nr + 1].fd = rc->tg.err_fd;
		if (poll(pfd, (nfds_t)nr + 3, timeout) < 0 && errno != EINTR) {
			tl_error_errno("poll");
			break;
		}
		if (tl_targets_check_exec(&rc->tg, rc->o->argv ? rc->o->argv[0] : "", 0) || tl_rec_drain_all(rc))
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
	tl_bpf_rec_close(rc->bpf);
	free(rc->bpf_dropped);
	tl_uprobes_close(rc->uprobes, warn_cb, rc->res); /* after the perf events on them are closed */
	free(rc->lost_per_cpu);
	free(rc->oncpu);
	free(rc->stage);
	tl_threads_free(rc->threads);
	tl_tp_table_free(rc->tps);
	tl_marks_free(rc->marks);
	tl_umarks_free(rc->um);
	tl_procmaps_free(rc->maps);
	tl_jitnames_free(rc->jit);
	tl_buildids_free(rc->bids);
	tl_locknames_free(rc->ln);
	tl_unwinder_free(rc->unwind);
	free(rc->kips);
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
	struct stat st;
	int ret = ok ? 0 : -1;

	/* The END readings while every event is still recorded: the trace covers them. */
	if (ok && !rc->tg.exec_failed && (tl_rec_drain_all(rc) || tl_kwatch_poll(rc->kw) || tl_kwatch_end(rc->kw)))
		ret = -1;
	backend_enable(rc, 0);
	rc->draining_last = 1;
	end.end_ns = tl_rec_now_ns(CLOCK_MONOTONIC);
	rc->stop_ns = end.end_ns;
	if (rc->tg.exec_failed) {
		/* Nothing was recorded of a program that never ran: leave no file behind. */
		tl_trace_writer_abort(rc->w);
		rc->w = NULL;
		if (strcmp(rc->path, "-"))
			unlink(rc->path);
		return -1;
	}
	if (!ret && ok &&
	    (tl_rec_drain_all(rc) || tl_rec_drain_cpuless(rc, UINT64_MAX) || tl_rec_drain_marks(rc, TL_MARKS_ALL) ||
	     name_kernel(rc, end.end_ns) || name_jit(rc, end.end_ns)))
		ret = -1;
	if (!ret && ok)
		keep_builds(rc);
	tl_kwatch_get_stats(rc->kw, &ks);
	rc->res->kstat_threads = ks.threads;
	rc->res->kstat_reads = ks.reads;
	tl_marks_get_stats(rc->marks, &ms);
	rc->res->marks = ms.markers + rc->umarks;
	omp_cost_note(rc, end.end_ns);
	rc->res->samples = rc->samples;
	rc->res->marks_lost = ms.lost;
	if (!ret)
		tl_rec_progress(rc, end.end_ns, 1);
	rc->res->lost = rc->lost;
	end.events = rc->res->events;
	end.lost = rc->lost;
	end.ncpus = rc->ncpus;
	end.lost_per_cpu = rc->lost_per_cpu;
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
	/* the size once closed: the last chunks and the end block are written by the close */
	rc->res->bytes = stat(rc->path, &st) == 0 ? (uint64_t)st.st_size : 0;
	rc->res->elapsed_s = (double)(end.end_ns - rc->start_ns) / 1e9;
	if (rc->malformed)
		tl_rec_warn(rc->res, "%llu samples could not be decoded and were skipped",
		            (unsigned long long)rc->malformed);
	if (ks.exits_lost || ks.unreadable)
		tl_rec_warn(rc->res,
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
	if (open_bpf(rc) < 0)
		goto out;
	if (rc->bpf) {
		if (opts->npids && tl_targets_attach(&rc->tg, opts->pids, opts->npids))
			goto out;
	} else if (tl_tracefs_dir(rc->tracing, sizeof(rc->tracing)) ||
	           tl_tracefs_load(rc->tracing, rc->groups, rc->tps, rc->used, warn_cb, res) ||
	           (opts->npids && tl_targets_attach(&rc->tg, opts->pids, opts->npids)) ||
	           !(rc->uprobes = tl_uprobes_open(rc->tracing, &probes, rc->tps)) ||
	           tl_perf_set_open_table(&rc->set, rc->tps, rc->used, opts->ring_pages, rc->tracing, warn_cb, res,
	                                  &rc->ncpus) ||
	           tl_uprobes_attach(rc->uprobes, &rc->set)) {
		goto out;
	}
	for (int i = 0; i < tl_uprobes_count(rc->uprobes); i++)
		if (tl_uprobes_func(rc->uprobes, i)->note[0]) /* a function DWARF found inlined */
			tl_rec_warn(res, "%s", tl_uprobes_func(rc->uprobes, i)->note);
	snprintf(res->backend, sizeof(res->backend), "%s", rc->bpf ? "bpf" : "perf");
	rc->lost_per_cpu = calloc((size_t)rc->ncpus, sizeof(*rc->lost_per_cpu));
	rc->bpf_dropped = calloc((size_t)rc->ncpus, sizeof(*rc->bpf_dropped));
	rc->oncpu = calloc((size_t)rc->ncpus, sizeof(*rc->oncpu));
	if (!rc->lost_per_cpu || !rc->oncpu || !rc->bpf_dropped) {
		tl_error("out of memory");
		goto out;
	}
	if (opts->sample_dwarf && !(rc->unwind = tl_unwinder_new()))
		goto out;
	if (opts->sample && (!(rc->maps = tl_procmaps_new()) || !(rc->jit = tl_jitnames_new()) ||
	                     !(rc->bids = tl_buildids_new(!opts->no_buildid_cache))))
		goto out;
	if (!(rc->ln = tl_locknames_new()))
		goto out;
	/* Without the marker memory the recording goes on, without markers. */
	if (opts->argv && !(rc->marks = tl_marks_new()))
		tl_rec_warn(res, "markers are not recorded: %s", tl_error_msg());
	if (opts->argv && tl_targets_fork(&rc->tg, opts->argv, export_marks, rc->marks, &go_fd))
		goto out;
	res->child_ran = rc->tg.child > 0;
	if (rc->bpf && track_targets(rc))
		goto out;
	if (tl_rec_attach_uprobes(rc, &probes))
		goto out;
	fill_info(rc);
	/* Before the start: delay accounting must be on when the first counters are read. */
	if (!(rc->kw = tl_kwatch_new(opts->system_wide, warn_cb, res)))
		goto out;

	/* start_ns comes first: no event can be older than the trace's start. */
	rc->start_ns = tl_rec_now_ns(CLOCK_MONOTONIC);
	rc->info.realtime_offset_ns = tl_rec_now_ns(CLOCK_REALTIME) - tl_rec_now_ns(CLOCK_MONOTONIC);
	rc->info.start_ns = rc->start_ns;
	if ((rc->info.filter[0] && tl_bpf_rec_start_at(rc->bpf, rc->start_ns)) || backend_enable(rc, 1)) {
		backend_enable(rc, 0);
		goto out;
	}
	if (rc->info.filter[0])
		touch_cpus();
	rc->last_flush_ns = rc->last_progress_ns = rc->start_ns;
	rc->w = tl_trace_writer_create(opts->output, &rc->info);
	if (!rc->w || (opts->sample && intern_sample_names(rc) < 0)) {
		backend_enable(rc, 0);
		goto out;
	}
	if (first_threads(rc) || first_kstats(rc) || first_maps(rc)) {
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
