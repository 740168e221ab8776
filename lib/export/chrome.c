/*
 * chrome.c - the Chrome trace-event JSON writer of `threadlens export`
 * (export.h; the format: "Trace Event Format", Google, the JSON Object
 * form).
 *
 * States and markers are complete events ("ph": "X") on their thread,
 * frames async events ("b"/"e", id = the frame id) on their process, and
 * what each CPU ran is a complete event on a pseudo-process "CPUs" whose
 * thread ids lie above any kernel tid (the kernel's pid_max is at most
 * 2^22), so they cannot meet a real thread.  Names come last, as metadata
 * events ("ph": "M").  Times are microseconds from the trace start with
 * three decimals: nanoseconds, exactly.
 */
#include <stdlib.h>

#include "base/errors.h"
#include "export/export_int.h"
#include "output/json.h"

#define CPU_PID 0x40000000 /* the pseudo-process of the CPU rows */

struct cj {
	struct tl_json j;
};

static void event_head(struct ex *x, const char *ph, const char *cat, const char *name, int64_t pid, int64_t tid,
                       uint64_t ts)
{
	struct tl_json *j = &((struct cj *)x->w)->j;

	tl_json_begin_object(j, TL_JSON_INLINE);
	tl_json_kv_string(j, "ph", ph);
	tl_json_kv_string(j, "cat", cat);
	tl_json_kv_string(j, "name", name);
	tl_json_kv_int(j, "pid", pid);
	tl_json_kv_int(j, "tid", tid);
	tl_json_kv_double(j, "ts", (double)ex_rel(x, ts) / 1e3, 3);
}

static void cj_interval(struct ex *x, struct ex_thread *t, const struct tl_interval *iv)
{
	struct tl_json *j = &((struct cj *)x->w)->j;

	event_head(x, "X", "state", tl_state_name(iv->state), t->tgid > 0 ? t->tgid : t->tid, t->tid, iv->start);
	tl_json_kv_double(j, "dur", (double)(iv->end - iv->start) / 1e3, 3);
	tl_json_key(j, "args");
	tl_json_begin_object(j, TL_JSON_INLINE);
	if (iv->cpu >= 0)
		tl_json_kv_int(j, "cpu", iv->cpu);
	if (iv->by > 0)
		tl_json_kv_int(j, "by", iv->by);
	else if (iv->by < 0)
		tl_json_kv_string(j, "by", iv->by == TL_WAKER_DEVICE ? "[device]" : "[irq]");
	if (iv->inferred_end)
		tl_json_kv_bool(j, "inferred_end", 1);
	tl_json_end_object(j);
	tl_json_end_object(j);
}

static void cj_cpu_interval(struct ex *x, const struct tl_cpu_interval *iv)
{
	struct tl_json *j = &((struct cj *)x->w)->j;
	char name[48];

	switch (iv->what) {
	case TL_CPU_IDLE: return; /* a gap in the row */
	case TL_CPU_THREAD: snprintf(name, sizeof(name), "%s", ex_name_of(x, iv->tid, iv->cpu)); break;
	case TL_CPU_IRQ:
		if (iv->irq & TL_IRQ_VECTOR)
			snprintf(name, sizeof(name), "%s", tl_vector_name(iv->irq & ~TL_IRQ_VECTOR));
		else
			snprintf(name, sizeof(name), "irq %d", iv->irq);
		break;
	case TL_CPU_SOFTIRQ: snprintf(name, sizeof(name), "softirq %d", iv->irq); break;
	case TL_CPU_FILTERED: snprintf(name, sizeof(name), "other processes"); break;
	default: snprintf(name, sizeof(name), "unknown"); break;
	}
	event_head(x, "X", "cpu", name, CPU_PID, CPU_PID + iv->cpu, iv->start);
	tl_json_kv_double(j, "dur", (double)(iv->end - iv->start) / 1e3, 3);
	if (iv->what == TL_CPU_THREAD) {
		tl_json_key(j, "args");
		tl_json_begin_object(j, TL_JSON_INLINE);
		tl_json_kv_int(j, "tid", iv->tid);
		tl_json_end_object(j);
	}
	tl_json_end_object(j);
	x->n->cpu_intervals++;
}

static void cj_span(struct ex *x, const struct tl_span *sp, const char *name)
{
	struct tl_json *j = &((struct cj *)x->w)->j;
	struct ex_thread *t = ex_thread_of(x, sp->tid);
	int64_t pid;
	char fname[40];

	if (!t)
		return;
	pid = t->tgid > 0 ? t->tgid : t->tid;
	if (sp->kind != TL_SPAN_FRAME) {
		event_head(x, "X", tl_span_kind_name(sp->kind), name, pid, t->tid, sp->begin);
		tl_json_kv_double(j, "dur", (double)(sp->end - sp->begin) / 1e3, 3);
		if (sp->frame >= 0 || !sp->complete) {
			tl_json_key(j, "args");
			tl_json_begin_object(j, TL_JSON_INLINE);
			if (sp->frame >= 0)
				tl_json_kv_int(j, "frame", sp->frame);
			if (!sp->complete)
				tl_json_kv_bool(j, "incomplete", 1);
			tl_json_end_object(j);
		}
		tl_json_end_object(j);
		return;
	}
	snprintf(fname, sizeof(fname), "frame %lld", (long long)sp->frame);
	for (int end = 0; end < 2; end++) {
		event_head(x, end ? "e" : "b", "frame", fname, pid, t->tid, end ? sp->end : sp->begin);
		tl_json_kv_int(j, "id", sp->frame);
		tl_json_end_object(j);
	}
}

static int cj_begin(struct ex *x)
{
	struct cj *c = calloc(1, sizeof(*c));
	struct tl_json *j;

	if (!c)
		return tl_error("out of memory");
	x->w = c;
	j = &c->j;
	tl_json_init(j, x->o->out, 0);
	tl_json_begin_object(j, TL_JSON_BLOCK);
	tl_json_kv_string(j, "displayTimeUnit", "ns");
	tl_json_key(j, "otherData");
	tl_json_begin_object(j, TL_JSON_INLINE);
	tl_json_kv_string(j, "tool", "threadlens");
	tl_json_kv_string(j, "kernel", x->run->info.kernel);
	tl_json_kv_string(j, "hostname", x->run->info.hostname);
	tl_json_kv_string(j, "command", x->run->info.command);
	tl_json_end_object(j);
	tl_json_key(j, "traceEvents");
	tl_json_begin_array(j, TL_JSON_BLOCK);
	return 0;
}

static void name_event(struct tl_json *j, const char *what, int64_t pid, int64_t tid, const char *name)
{
	tl_json_begin_object(j, TL_JSON_INLINE);
	tl_json_kv_string(j, "ph", "M");
	tl_json_kv_string(j, "name", what);
	tl_json_kv_int(j, "pid", pid);
	tl_json_kv_int(j, "tid", tid);
	tl_json_key(j, "args");
	tl_json_begin_object(j, TL_JSON_INLINE);
	tl_json_kv_string(j, "name", name);
	tl_json_end_object(j);
	tl_json_end_object(j);
}

static int cj_end(struct ex *x)
{
	struct tl_json *j = &((struct cj *)x->w)->j;
	struct ex_thread *t;
	size_t pos = 0;
	char name[24];

	while ((t = tl_tidmap_next(&x->threads, &pos))) {
		int64_t pid = t->tgid > 0 ? t->tgid : t->tid;

		if (pid == t->tid)
			name_event(j, "process_name", pid, t->tid, t->name);
		name_event(j, "thread_name", pid, t->tid, t->name);
	}
	name_event(j, "process_name", CPU_PID, CPU_PID, "CPUs");
	for (int c = 0; c < x->run->ncpus; c++) {
		snprintf(name, sizeof(name), "CPU %d", c);
		name_event(j, "thread_name", CPU_PID, CPU_PID + c, name);
	}
	tl_json_end_array(j);
	tl_json_end_object(j);
	if (tl_json_finish(j) < 0)
		return -1;
	if (fputc('\n', x->o->out) == EOF || ferror(x->o->out))
		return tl_error("cannot write the trace");
	return 0;
}

static void cj_release(struct ex *x, int failed)
{
	(void)failed;
	free(x->w);
	x->w = NULL;
}

const struct ex_writer tl_ex_chrome = {
	.begin = cj_begin,
	.interval = cj_interval,
	.cpu_interval = cj_cpu_interval,
	.span = cj_span,
	.end = cj_end,
	.release = cj_release,
};
