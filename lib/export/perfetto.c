/*
 * perfetto.c - the Perfetto protobuf writer of `threadlens export`
 * (export.h says what it holds).
 *
 * A Perfetto trace is a `Trace` message: a sequence of TracePacket fields
 * (number 1), each written here as soon as it is complete.  The field
 * numbers below come from Perfetto's protos/perfetto/trace/ (stable by the
 * protobuf contract); they are spelled out because there are so few.
 *
 * Ftrace events are gathered per CPU into one FtraceEventBundle each and
 * all bundles are written together once BUNDLE_EVENTS events wait, so the
 * bundles of one flush cover the same stretch of time.  Track events (the
 * states and markers) go on one packet sequence; each track is described
 * (TrackDescriptor) before its first event.  Markers of one thread are held
 * until its outermost span ends, then written in begin order (parents
 * before children at the same instant, ends before begins), because the
 * walk hands spans over in end order and a slice track must nest.  Frames
 * may overlap: each goes to the first of its process's frame lanes whose
 * last frame ended before it began.  As frames arrive in end order, that
 * lane's frames all end before this one begins, so a lane never overlaps.
 */
#include <stdlib.h>
#include <string.h>

#include "base/errors.h"
#include "base/grow.h"
#include "export/export_int.h"
#include "export/pb.h"

enum {
	TRACE_PACKET = 1,
	/* TracePacket */
	PKT_FTRACE_EVENTS = 1,
	PKT_PROCESS_TREE = 2,
	PKT_TIMESTAMP = 8,
	PKT_SEQUENCE_ID = 10,
	PKT_TRACK_EVENT = 11,
	PKT_SEQUENCE_FLAGS = 13,
	PKT_SYSTEM_INFO = 45,
	PKT_TRACK_DESCRIPTOR = 60,
	SEQ_INCREMENTAL_STATE_CLEARED = 1,
	/* FtraceEventBundle, FtraceEvent */
	BUNDLE_CPU = 1,
	BUNDLE_EVENT = 2,
	FT_TIMESTAMP = 1,
	FT_PID = 2,
	FT_SCHED_SWITCH = 4,
	FT_SCHED_WAKEUP = 17,
	FT_SCHED_WAKING = 20,
	FT_SOFTIRQ_ENTRY = 24,
	FT_SOFTIRQ_EXIT = 25,
	FT_IRQ_ENTRY = 36,
	FT_IRQ_EXIT = 37,
	FT_SCHED_WAKEUP_NEW = 114,
	/* SchedSwitchFtraceEvent; SchedWaking/Wakeup/WakeupNewFtraceEvent; irq.proto */
	SW_PREV_COMM = 1,
	SW_PREV_PID,
	SW_PREV_PRIO,
	SW_PREV_STATE,
	SW_NEXT_COMM,
	SW_NEXT_PID,
	SW_NEXT_PRIO,
	WK_COMM = 1,
	WK_PID,
	WK_PRIO,
	WK_SUCCESS,
	WK_TARGET_CPU,
	IRQ_NUMBER = 1,
	IRQ_NAME = 2,
	IRQ_RET = 2,
	SOFTIRQ_VEC = 1,
	/* TrackDescriptor, ProcessDescriptor, ThreadDescriptor */
	TD_UUID = 1,
	TD_NAME = 2,
	TD_PROCESS = 3,
	TD_THREAD = 4,
	TD_PARENT = 5,
	PD_PID = 1,
	PD_NAME = 6,
	THD_PID = 1,
	THD_TID = 2,
	THD_NAME = 5,
	/* TrackEvent, DebugAnnotation */
	TE_ANNOTATION = 4,
	TE_TYPE = 9,
	TE_TRACK = 11,
	TE_NAME = 23,
	TE_SLICE_BEGIN = 1,
	TE_SLICE_END = 2,
	TE_INSTANT = 3,
	DA_INT = 4,
	DA_STRING = 6,
	DA_NAME = 10,
	/* ProcessTree; SystemInfo, Utsname */
	PT_PROCESS = 1,
	PT_THREAD = 2,
	PTP_PID = 1,
	PTP_CMDLINE = 3,
	PTT_TID = 1,
	PTT_NAME = 2,
	PTT_TGID = 3,
	SI_UTSNAME = 1,
	UTS_SYSNAME = 1,
	UTS_RELEASE = 3,
};

#define BUNDLE_EVENTS 4096 /* ftrace events held before the bundles are written */

/* Track uuids: the kind in bits 40-47, the thread or process id below. */
enum { TRACK_STATES = 1, TRACK_MARKS = 2, TRACK_PROCESS = 3, TRACK_FRAMES = 4 };
#define DESCRIBED_STATES 1
#define DESCRIBED_MARKS 2

static uint64_t uuid(int kind, uint64_t id)
{
	return (uint64_t)kind << 40 | id;
}

struct pending {
	struct tl_span sp;
	uint32_t name; /* offset in names */
};

/* Per thread with markers: spans waiting for their outermost span's end. */
struct marks {
	int32_t tid; /* first: the map's key */
	struct pending *spans;
	size_t n, cap;
	char *names;
	size_t names_len, names_cap;
};

/* Per process: described yet, and its frame lanes (each lane's last end). */
struct proc {
	int32_t pid; /* first: the map's key */
	int described;
	uint64_t *lane_end;
	size_t nlanes, cap;
};

struct pf {
	struct tl_pb packet;
	struct tl_pb *cpu; /* per CPU: encoded FtraceEvent fields of the bundle to come */
	int ncpus;
	size_t pending;
	int first_track_packet;
	int sampled;            /* the trace has SAMPLE events: perfetto_samples.c writes them at the end */
	struct tl_tidmap marks; /* tid -> struct marks */
	struct tl_tidmap procs; /* pid -> struct proc */
};

int tl_pf_put(struct tl_pb *b, FILE *out)
{
	tl_pb_end(b);
	if (b->bad)
		return tl_error("out of memory");
	if (fwrite(b->buf, 1, b->len, out) != b->len)
		return tl_error("cannot write the trace: %s", "write failed");
	tl_pb_reset(b);
	return 0;
}

static int put_packet(struct ex *x)
{
	return tl_pf_put(&((struct pf *)x->w)->packet, x->o->out);
}

static void fail(struct ex *x, int rc)
{
	if (rc < 0)
		x->failed = 1;
}

static void start_packet(struct pf *p, uint64_t ts)
{
	tl_pb_reset(&p->packet);
	tl_pb_begin(&p->packet, TRACE_PACKET);
	if (ts)
		tl_pb_varint(&p->packet, PKT_TIMESTAMP, ts);
}

/* A packet on the track-event sequence. */
static void start_track_packet(struct pf *p, uint64_t ts)
{
	start_packet(p, ts);
	tl_pb_varint(&p->packet, PKT_SEQUENCE_ID, 1);
	if (p->first_track_packet) {
		tl_pb_varint(&p->packet, PKT_SEQUENCE_FLAGS, SEQ_INCREMENTAL_STATE_CLEARED);
		p->first_track_packet = 0;
	}
}

static int flush_bundles(struct ex *x)
{
	struct pf *p = x->w;

	for (int c = 0; c < p->ncpus; c++) {
		if (!p->cpu[c].len)
			continue;
		start_packet(p, 0);
		tl_pb_begin(&p->packet, PKT_FTRACE_EVENTS);
		tl_pb_varint(&p->packet, BUNDLE_CPU, (uint64_t)c);
		tl_pb_raw(&p->packet, p->cpu[c].buf, p->cpu[c].len);
		if (p->cpu[c].bad)
			p->packet.bad = 1;
		tl_pb_end(&p->packet);
		tl_pb_reset(&p->cpu[c]);
		if (put_packet(x) < 0)
			return -1;
	}
	p->pending = 0;
	return 0;
}

static uint64_t pid_of(struct ex *x, int32_t tid)
{
	struct ex_thread *t = tl_tidmap_get(&x->threads, tid);

	return t && t->tgid > 0 ? (uint64_t)t->tgid : (uint64_t)tid;
}

static void ft_event(struct ex *x, struct tl_thread *th, const struct tl_event *ev)
{
	struct pf *p = x->w;
	struct tl_pb *b;
	unsigned field;
	const char *s;

	if (ev->type == TL_EV_SAMPLE)
		p->sampled = 1;
	if (ev->cpu < 0 || ev->cpu >= p->ncpus)
		return;
	switch (ev->type) {
	case TL_EV_SWITCH:
	case TL_EV_WAKING:
	case TL_EV_WAKEUP:
	case TL_EV_WAKEUP_NEW:
	case TL_EV_IRQ_ENTRY:
	case TL_EV_IRQ_EXIT:
	case TL_EV_SOFTIRQ_ENTRY:
	case TL_EV_SOFTIRQ_EXIT: break;
	default: return;
	}
	b = &p->cpu[ev->cpu];
	tl_pb_begin(b, BUNDLE_EVENT);
	tl_pb_varint(b, FT_TIMESTAMP, ev->ts);
	switch (ev->type) {
	case TL_EV_SWITCH:
		tl_pb_varint(b, FT_PID, (uint32_t)ev->tid);
		tl_pb_begin(b, FT_SCHED_SWITCH);
		/* th is the thread switched out; its name is the one it had */
		tl_pb_string(b, SW_PREV_COMM, ev->tid == 0 ? ex_name_of(x, 0, ev->cpu) : th ? th->name : "");
		tl_pb_int(b, SW_PREV_PID, ev->tid);
		tl_pb_int(b, SW_PREV_PRIO, ev->b);
		/* TL_PS_* are the kernel's report bits (S 1, D 2, ..., R+ 0x100) */
		tl_pb_int(b, SW_PREV_STATE, ev->a & 0x1ff);
		tl_pb_string(b, SW_NEXT_COMM, ex_name_of(x, ev->arg, ev->cpu));
		tl_pb_int(b, SW_NEXT_PID, ev->arg);
		tl_pb_int(b, SW_NEXT_PRIO, ev->c);
		tl_pb_end(b);
		break;
	case TL_EV_WAKING:
	case TL_EV_WAKEUP:
	case TL_EV_WAKEUP_NEW:
		field = ev->type == TL_EV_WAKING   ? FT_SCHED_WAKING
		        : ev->type == TL_EV_WAKEUP ? FT_SCHED_WAKEUP
		                                   : FT_SCHED_WAKEUP_NEW;
		tl_pb_varint(b, FT_PID, (uint32_t)(ev->arg > 0 ? ev->arg : 0));
		tl_pb_begin(b, field);
		tl_pb_string(b, WK_COMM, ex_name_of(x, ev->tid, ev->cpu));
		tl_pb_int(b, WK_PID, ev->tid);
		tl_pb_int(b, WK_PRIO, ev->b);
		tl_pb_int(b, WK_SUCCESS, 1);
		tl_pb_int(b, WK_TARGET_CPU, ev->a);
		tl_pb_end(b);
		break;
	case TL_EV_IRQ_ENTRY:
		tl_pb_varint(b, FT_PID, (uint32_t)ev->tid);
		tl_pb_begin(b, FT_IRQ_ENTRY);
		tl_pb_int(b, IRQ_NUMBER, ev->a);
		s = ev->name ? tl_trace_string(x->run->trace, ev->name) : NULL;
		tl_pb_string(b, IRQ_NAME, s ? s : "");
		tl_pb_end(b);
		break;
	case TL_EV_IRQ_EXIT:
		tl_pb_varint(b, FT_PID, (uint32_t)ev->tid);
		tl_pb_begin(b, FT_IRQ_EXIT);
		tl_pb_int(b, IRQ_NUMBER, ev->a);
		tl_pb_int(b, IRQ_RET, ev->b);
		tl_pb_end(b);
		break;
	default: /* softirq entry, exit */
		tl_pb_varint(b, FT_PID, (uint32_t)ev->tid);
		tl_pb_begin(b, ev->type == TL_EV_SOFTIRQ_ENTRY ? FT_SOFTIRQ_ENTRY : FT_SOFTIRQ_EXIT);
		tl_pb_varint(b, SOFTIRQ_VEC, (uint64_t)ev->a);
		tl_pb_end(b);
		break;
	}
	tl_pb_end(b);
	x->n->sched_events++;
	if (++p->pending >= BUNDLE_EVENTS)
		fail(x, flush_bundles(x));
}

static struct proc *proc_of(struct ex *x, uint64_t pid)
{
	struct pf *p = x->w;
	struct proc *pr;
	struct ex_thread *t;
	int created;

	if (pid == 0 || pid > INT32_MAX)
		return NULL;
	if (!(pr = tl_tidmap_put(&p->procs, (int32_t)pid, &created))) {
		tl_error("out of memory");
		x->failed = 1;
		return NULL;
	}
	if (!pr->described) {
		pr->described = 1;
		t = tl_tidmap_get(&x->threads, (int32_t)pid);
		start_track_packet(p, 0);
		tl_pb_begin(&p->packet, PKT_TRACK_DESCRIPTOR);
		tl_pb_varint(&p->packet, TD_UUID, uuid(TRACK_PROCESS, pid));
		tl_pb_begin(&p->packet, TD_PROCESS);
		tl_pb_int(&p->packet, PD_PID, (int64_t)pid);
		if (t && t->name[0])
			tl_pb_string(&p->packet, PD_NAME, t->name);
		tl_pb_end(&p->packet);
		tl_pb_end(&p->packet);
		fail(x, put_packet(x));
	}
	return pr;
}

static void describe_thread(struct ex *x, struct ex_thread *t, int which)
{
	struct pf *p = x->w;
	uint64_t pid = t->tgid > 0 ? (uint64_t)t->tgid : (uint64_t)t->tid;

	if (t->described & which)
		return;
	t->described |= which;
	if (!proc_of(x, pid))
		return;
	start_track_packet(p, 0);
	tl_pb_begin(&p->packet, PKT_TRACK_DESCRIPTOR);
	tl_pb_varint(&p->packet, TD_UUID,
	             uuid(which == DESCRIBED_STATES ? TRACK_STATES : TRACK_MARKS, (uint32_t)t->tid));
	tl_pb_string(&p->packet, TD_NAME, which == DESCRIBED_STATES ? "states" : "markers");
	tl_pb_begin(&p->packet, TD_THREAD);
	tl_pb_int(&p->packet, THD_PID, (int64_t)pid);
	tl_pb_int(&p->packet, THD_TID, t->tid);
	if (t->name[0])
		tl_pb_string(&p->packet, THD_NAME, t->name);
	tl_pb_end(&p->packet);
	tl_pb_end(&p->packet);
	fail(x, put_packet(x));
}

/* One TrackEvent: a slice's begin (name set) or end (name NULL), or an instant. */
static void track_event(struct ex *x, uint64_t track, uint64_t ts, int type, const char *name, int64_t cpu, int64_t by)
{
	struct pf *p = x->w;

	start_track_packet(p, ts);
	tl_pb_begin(&p->packet, PKT_TRACK_EVENT);
	tl_pb_varint(&p->packet, TE_TYPE, (uint64_t)type);
	tl_pb_varint(&p->packet, TE_TRACK, track);
	if (name)
		tl_pb_string(&p->packet, TE_NAME, name);
	if (cpu >= 0) {
		tl_pb_begin(&p->packet, TE_ANNOTATION);
		tl_pb_string(&p->packet, DA_NAME, "cpu");
		tl_pb_int(&p->packet, DA_INT, cpu);
		tl_pb_end(&p->packet);
	}
	if (by) {
		tl_pb_begin(&p->packet, TE_ANNOTATION);
		tl_pb_string(&p->packet, DA_NAME, "by");
		if (by > 0)
			tl_pb_int(&p->packet, DA_INT, by);
		else
			tl_pb_string(&p->packet, DA_STRING, by == TL_WAKER_DEVICE ? "[device]" : "[irq]");
		tl_pb_end(&p->packet);
	}
	tl_pb_end(&p->packet);
	fail(x, put_packet(x));
}

static void pf_interval(struct ex *x, struct ex_thread *t, const struct tl_interval *iv)
{
	uint64_t track = uuid(TRACK_STATES, (uint32_t)t->tid);

	describe_thread(x, t, DESCRIBED_STATES);
	track_event(x, track, iv->start, TE_SLICE_BEGIN, tl_state_name(iv->state), iv->cpu, iv->by);
	track_event(x, track, iv->end, TE_SLICE_END, NULL, -1, 0);
}

static void frame_span(struct ex *x, const struct tl_span *sp)
{
	uint64_t pid = pid_of(x, sp->tid);
	struct proc *pr = proc_of(x, pid);
	struct pf *p = x->w;
	char name[40];
	size_t lane;

	if (!pr)
		return;
	for (lane = 0; lane < pr->nlanes && pr->lane_end[lane] > sp->begin; lane++)
		;
	if (lane == pr->nlanes) {
		if (lane >= 4096 || TL_GROW(pr->lane_end, pr->cap, lane + 1) < 0) {
			tl_error(lane >= 4096 ? "more than 4096 frames in flight at once" : "out of memory");
			x->failed = 1;
			return;
		}
		pr->nlanes++;
		if (pr->nlanes > x->n->frame_lanes)
			x->n->frame_lanes = pr->nlanes;
		start_track_packet(p, 0);
		tl_pb_begin(&p->packet, PKT_TRACK_DESCRIPTOR);
		tl_pb_varint(&p->packet, TD_UUID, uuid(TRACK_FRAMES, pid << 12 | lane));
		snprintf(name, sizeof(name), lane ? "frames %zu" : "frames", lane + 1);
		tl_pb_string(&p->packet, TD_NAME, name);
		tl_pb_varint(&p->packet, TD_PARENT, uuid(TRACK_PROCESS, pid));
		tl_pb_end(&p->packet);
		fail(x, put_packet(x));
	}
	pr->lane_end[lane] = sp->end;
	snprintf(name, sizeof(name), "frame %lld", (long long)sp->frame);
	if (sp->end == sp->begin) {
		track_event(x, uuid(TRACK_FRAMES, pid << 12 | lane), sp->begin, TE_INSTANT, name, -1, 0);
		return;
	}
	track_event(x, uuid(TRACK_FRAMES, pid << 12 | lane), sp->begin, TE_SLICE_BEGIN, name, -1, 0);
	track_event(x, uuid(TRACK_FRAMES, pid << 12 | lane), sp->end, TE_SLICE_END, NULL, -1, 0);
}

/* A mark's begin or end, for the sort that puts a thread's marks in file order. */
struct mark_edge {
	uint64_t ts;
	int end;    /* 0 begin, 1 end */
	int depth;  /* nesting */
	size_t idx; /* into marks.spans */
};

static int edge_cmp(const void *pa, const void *pb)
{
	const struct mark_edge *a = pa, *b = pb;

	if (a->ts != b->ts)
		return a->ts < b->ts ? -1 : 1;
	if (a->end != b->end)
		return a->end ? -1 : 1; /* ends first: a sibling closes before the next opens */
	if (a->depth != b->depth)
		return a->end ? (a->depth > b->depth ? -1 : 1) : (a->depth < b->depth ? -1 : 1);
	return 0;
}

static void flush_marks(struct ex *x, struct ex_thread *t, struct marks *m)
{
	struct mark_edge *e = malloc(2 * m->n * sizeof(*e) + 1);
	uint64_t track = uuid(TRACK_MARKS, (uint32_t)t->tid);
	size_t ne = 0;

	if (!e) {
		tl_error("out of memory");
		x->failed = 1;
		return;
	}
	describe_thread(x, t, DESCRIBED_MARKS);
	for (size_t i = 0; i < m->n; i++) {
		const struct tl_span *sp = &m->spans[i].sp;

		if (sp->end == sp->begin) { /* an instant: it cannot be put between ends and begins */
			track_event(x, track, sp->begin, TE_INSTANT, m->names + m->spans[i].name, -1, 0);
			continue;
		}
		e[ne++] = (struct mark_edge){ sp->begin, 0, sp->depth, i };
		e[ne++] = (struct mark_edge){ sp->end, 1, sp->depth, i };
	}
	qsort(e, ne, sizeof(*e), edge_cmp);
	for (size_t i = 0; i < ne && !x->failed; i++)
		track_event(x, track, e[i].ts, e[i].end ? TE_SLICE_END : TE_SLICE_BEGIN,
		            e[i].end ? NULL : m->names + m->spans[e[i].idx].name, -1, 0);
	free(e);
	m->n = 0;
	m->names_len = 0;
}

static void pf_span(struct ex *x, const struct tl_span *sp, const char *name)
{
	struct pf *p = x->w;
	struct ex_thread *t;
	struct marks *m;
	size_t len = strlen(name) + 1;
	int created;

	if (sp->kind == TL_SPAN_FRAME) {
		frame_span(x, sp);
		return;
	}
	if (!(t = ex_thread_of(x, sp->tid)))
		return;
	if (!(m = tl_tidmap_put(&p->marks, sp->tid, &created)) || TL_GROW(m->spans, m->cap, m->n + 1) < 0 ||
	    TL_GROW(m->names, m->names_cap, m->names_len + len) < 0) {
		tl_error("out of memory");
		x->failed = 1;
		return;
	}
	m->tid = sp->tid;
	m->spans[m->n].sp = *sp;
	m->spans[m->n++].name = (uint32_t)m->names_len;
	memcpy(m->names + m->names_len, name, len);
	m->names_len += len;
	if (sp->depth == 0)
		flush_marks(x, t, m);
}

static int pf_begin(struct ex *x)
{
	struct pf *p = calloc(1, sizeof(*p));

	if (!p)
		return tl_error("out of memory");
	x->w = p;
	p->first_track_packet = 1;
	p->ncpus = x->run->info.ncpus > 0 ? x->run->info.ncpus : 1;
	if (!(p->cpu = calloc((size_t)p->ncpus, sizeof(*p->cpu))) ||
	    tl_tidmap_init(&p->marks, sizeof(struct marks)) < 0 || tl_tidmap_init(&p->procs, sizeof(struct proc)) < 0)
		return tl_error("out of memory");
	/* the kernel release tells Perfetto how to read prev_state */
	start_packet(p, 0);
	tl_pb_begin(&p->packet, PKT_SYSTEM_INFO);
	tl_pb_begin(&p->packet, SI_UTSNAME);
	tl_pb_string(&p->packet, UTS_SYSNAME, "Linux");
	if (x->run->info.kernel[0])
		tl_pb_string(&p->packet, UTS_RELEASE, x->run->info.kernel);
	tl_pb_end(&p->packet);
	tl_pb_end(&p->packet);
	return put_packet(x);
}

static int pf_end(struct ex *x)
{
	struct pf *p = x->w;
	struct ex_thread *t;
	struct marks *m;
	size_t pos = 0;

	if (flush_bundles(x) < 0)
		return -1;
	/* marks whose outermost span never came (it began deeper than the walk
	 * keeps spans): write what is there */
	while ((m = tl_tidmap_next(&p->marks, &pos)))
		if (m->n && (t = ex_thread_of(x, m->tid)))
			flush_marks(x, t, m);
	pos = 0;
	/* the process tree: which process each thread belongs to, and the names */
	start_packet(p, x->run->win_start);
	tl_pb_begin(&p->packet, PKT_PROCESS_TREE);
	while ((t = tl_tidmap_next(&x->threads, &pos))) {
		if (t->tgid > 0 && t->tgid == t->tid) {
			tl_pb_begin(&p->packet, PT_PROCESS);
			tl_pb_int(&p->packet, PTP_PID, t->tgid);
			tl_pb_string(&p->packet, PTP_CMDLINE, t->name);
			tl_pb_end(&p->packet);
		}
		tl_pb_begin(&p->packet, PT_THREAD);
		tl_pb_int(&p->packet, PTT_TID, t->tid);
		tl_pb_string(&p->packet, PTT_NAME, t->name);
		if (t->tgid > 0)
			tl_pb_int(&p->packet, PTT_TGID, t->tgid);
		tl_pb_end(&p->packet);
	}
	tl_pb_end(&p->packet);
	if (put_packet(x) < 0 || x->failed)
		return -1;
	return p->sampled ? tl_pf_samples(x->run, x->o->out, &x->n->samples) : 0;
}

static void pf_release(struct ex *x, int failed)
{
	struct pf *p = x->w;
	struct marks *m;
	struct proc *pr;
	size_t pos = 0;

	(void)failed;
	if (!p)
		return;
	for (int c = 0; p->cpu && c < p->ncpus; c++)
		tl_pb_release(&p->cpu[c]);
	free(p->cpu);
	while (p->marks.cap && (m = tl_tidmap_next(&p->marks, &pos))) {
		free(m->spans);
		free(m->names);
	}
	pos = 0;
	while (p->procs.cap && (pr = tl_tidmap_next(&p->procs, &pos)))
		free(pr->lane_end);
	tl_tidmap_release(&p->marks);
	tl_tidmap_release(&p->procs);
	tl_pb_release(&p->packet);
	free(p);
	x->w = NULL;
}

const struct ex_writer tl_ex_perfetto = {
	.begin = pf_begin,
	.event = ft_event,
	.interval = pf_interval,
	.span = pf_span,
	.end = pf_end,
	.release = pf_release,
};
