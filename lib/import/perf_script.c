/*
 * perf_script.c - the line parser of `perf script` output (see import.h):
 * text lines in, events of lib/trace/event.h out.
 *
 * The importer (import_perf.c) feeds it the output of `perf script
 * --header --ns -F comm,tid,pid,cpu,time,event,trace`.  A sample line
 * looks like
 *   "  wl-worker-a  4734/4736  [000]   720.442839182:  sched:sched_switch: prev_comm=..."
 * (comm, pid/tid, cpu, seconds, event, then the tracepoint's print format).
 * Comms may contain spaces and brackets, so a line is anchored on the
 * "pid/tid [cpu] secs.nsecs:" pattern rather than split on spaces.
 *
 * The tracepoint fields are found by their names ("prev_pid=") rather than
 * by position, so fields that older or newer kernels add or drop (e.g.
 * "success=1") do not matter.  A line whose fields do not parse is counted
 * as malformed and dropped, never half-imported.
 *
 * Invariants: memory is bounded by the number of threads (the tid map) and
 * a fixed line buffer; one line gives at most two events (a THREAD event,
 * when the line shows a new identity for its thread, then its own).
 */
#include "import/import.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/errors.h"
#include "base/tidmap.h"

#define MAX_LINE TL_PERF_MAX_LINE
#define MAX_CPUS 4096 /* the trace format's limit */

/* ---- the line parser ---- */

struct tid_slot {
	int32_t tid, pid; /* tid first: the tidmap's key (tids > 0 only) */
	uint32_t comm;
};

struct tl_perf_parser {
	struct tl_perf_sink sink;
	struct tl_trace_info info;
	struct tl_import_result res;
	struct tl_tidmap tids;     /* struct tid_slot: the identity each thread last showed */
	int32_t oncpu[MAX_CPUS];   /* per CPU: the task the last kept event put on it */
	int system_wide, pid_mode; /* from perf's command line */
	char line[MAX_LINE + 1];
};

struct sample {
	char *comm;
	int32_t pid, tid; /* pid -1 if the line has none */
	int cpu;
	uint64_t ts;
	char *event; /* "sched:sched_switch" */
	char *text;  /* the tracepoint's fields */
};

/* The value after "key=" where key starts the text or follows a space. */
static char *find_key(char *text, const char *key)
{
	size_t kl = strlen(key);
	for (char *p = strstr(text, key); p; p = strstr(p + 1, key))
		if ((p == text || p[-1] == ' ') && p[kl] == '=')
			return p + kl + 1;
	return NULL;
}

static int parse_int(const char *v, int base, int64_t *out)
{
	char *end;
	long long x;
	if (!v || !(isdigit((unsigned char)*v) || (*v == '-' && isdigit((unsigned char)v[1]))))
		return -1;
	errno = 0;
	x = strtoll(v, &end, base);
	if (errno || (*end && *end != ' ' && *end != ',' && *end != ']'))
		return -1;
	*out = x;
	return 0;
}

static int int_field(char *text, const char *key, int64_t *out)
{
	return parse_int(find_key(text, key), 10, out);
}

static int tid_field(char *text, const char *key, int32_t *out)
{
	int64_t v;
	if (int_field(text, key, &v) < 0 || v < INT32_MIN || v > INT32_MAX)
		return -1;
	*out = (int32_t)v;
	return 0;
}

/* Intern the value of key, which runs up to " <next>=" (values may hold spaces). */
static int str_field(struct tl_perf_parser *p, char *text, const char *key, const char *next, uint32_t *id)
{
	char *v = find_key(text, key), *e = NULL, save;
	if (!v)
		return -1;
	if (next) {
		size_t nl = strlen(next);
		for (e = strstr(v, next); e; e = strstr(e + 1, next))
			if (e > v && e[-1] == ' ' && e[nl] == '=')
				break;
		if (e)
			e--;
	}
	if (!e)
		e = v + strlen(v);
	save = *e;
	*e = 0;
	*id = *v ? p->sink.intern(p->sink.ctx, v) : 0;
	*e = save;
	return *v && !*id ? -2 : 0;
}

/* "0x5617886a00a0" after "key: " (the syscall tracepoints' format). */
static int hex_after(const char *text, const char *key, int64_t *out)
{
	const char *v = strstr(text, key);
	uint64_t x;
	char *end;
	if (!v)
		return -1;
	v += strlen(key);
	if (strncmp(v, "0x", 2))
		return -1;
	errno = 0;
	x = strtoull(v, &end, 16);
	if (errno || end == v + 2)
		return -1;
	*out = (int64_t)x;
	return 0;
}

/* "R+", "S", "D|K"... into TL_PS_* bits; unknown letters of other kernels are ignored. */
static int parse_state(const char *v, int64_t *out)
{
	int64_t s = 0;
	if (!v || !*v || *v == ' ')
		return -1;
	for (; *v && *v != ' '; v++) {
		switch (*v) {
		case 'S': s |= TL_PS_S; break;
		case 'D': s |= TL_PS_D; break;
		case 'T': s |= TL_PS_T; break;
		case 't': s |= TL_PS_TRACED; break;
		case 'X':
		case 'x': s |= TL_PS_X; break;
		case 'Z': s |= TL_PS_Z; break;
		case 'P': s |= TL_PS_P; break;
		case 'I': s |= TL_PS_I; break;
		case '+': s |= TL_PS_PREEMPT; break;
		default: break; /* R, |, K (wakekill), W (waking), N (noload) */
		}
	}
	*out = s;
	return 0;
}

/* Each handler fills ev from the sample; 0 ok, 1 drop, -1 malformed, -2 sink failure. */
typedef int (*kind_fn)(struct tl_perf_parser *p, struct sample *s, struct tl_event *ev);

static int k_switch(struct tl_perf_parser *p, struct sample *s, struct tl_event *ev)
{
	char *arrow = strstr(s->text, " ==> ");
	if (!arrow)
		return -1;
	*arrow = 0; /* prev_ and next_ halves apart, so keys cannot mix */
	if (tid_field(s->text, "prev_pid", &ev->tid) < 0 || int_field(s->text, "prev_prio", &ev->b) < 0 ||
	    parse_state(find_key(s->text, "prev_state"), &ev->a) < 0 ||
	    tid_field(arrow + 5, "next_pid", &ev->arg) < 0 || int_field(arrow + 5, "next_prio", &ev->c) < 0)
		return -1;
	p->oncpu[s->cpu] = ev->arg;
	return 0;
}

static int k_wake(struct tl_perf_parser *p, struct sample *s, struct tl_event *ev)
{
	ev->arg = s->tid; /* the waker: whoever ran when it fired */
	if (tid_field(s->text, "pid", &ev->tid) < 0 || int_field(s->text, "prio", &ev->b) < 0 ||
	    int_field(s->text, "target_cpu", &ev->a) < 0)
		return -1;
	return 0;
}

static int k_fork(struct tl_perf_parser *p, struct sample *s, struct tl_event *ev)
{
	if (tid_field(s->text, "child_pid", &ev->tid) < 0 || tid_field(s->text, "pid", &ev->arg) < 0)
		return -1;
	return str_field(p, s->text, "child_comm", "child_pid", &ev->name);
}

static int k_exec(struct tl_perf_parser *p, struct sample *s, struct tl_event *ev)
{
	if (tid_field(s->text, "pid", &ev->tid) < 0 || tid_field(s->text, "old_pid", &ev->arg) < 0)
		return -1;
	return str_field(p, s->text, "filename", "pid", &ev->name);
}

static int k_pid(struct tl_perf_parser *p, struct sample *s, struct tl_event *ev)
{
	return tid_field(s->text, "pid", &ev->tid);
}

/*
 * sched_stat_runtime fires at every tick and switch; like the recorder, keep
 * it only when it shows a task on a CPU that no switch put there (see the
 * RUNTIME note in event.h).  Returns 1 to drop the line silently.
 */
static int k_runtime(struct tl_perf_parser *p, struct sample *s, struct tl_event *ev)
{
	if (tid_field(s->text, "pid", &ev->tid) < 0 || int_field(s->text, "runtime", &ev->a) < 0)
		return -1;
	if (p->oncpu[s->cpu] == ev->tid || ev->tid != s->tid)
		return 1;
	p->oncpu[s->cpu] = ev->tid;
	return 0;
}

static int k_current(struct tl_perf_parser *p, struct sample *s, struct tl_event *ev)
{
	ev->tid = s->tid;
	return 0;
}

static int k_migrate(struct tl_perf_parser *p, struct sample *s, struct tl_event *ev)
{
	if (tid_field(s->text, "pid", &ev->tid) < 0 || int_field(s->text, "orig_cpu", &ev->a) < 0 ||
	    int_field(s->text, "dest_cpu", &ev->b) < 0)
		return -1;
	return 0;
}

static int k_rename(struct tl_perf_parser *p, struct sample *s, struct tl_event *ev)
{
	if (tid_field(s->text, "pid", &ev->tid) < 0)
		return -1;
	return str_field(p, s->text, "newcomm", "oom_score_adj", &ev->name);
}

static int k_irq_entry(struct tl_perf_parser *p, struct sample *s, struct tl_event *ev)
{
	ev->tid = s->tid;
	if (int_field(s->text, "irq", &ev->a) < 0)
		return -1;
	return str_field(p, s->text, "name", NULL, &ev->name);
}

static int k_irq_exit(struct tl_perf_parser *p, struct sample *s, struct tl_event *ev)
{
	const char *ret = find_key(s->text, "ret");
	ev->tid = s->tid;
	if (int_field(s->text, "irq", &ev->a) < 0 || !ret)
		return -1;
	ev->b = !strncmp(ret, "handled", 7);
	return 0;
}

/* irq_vectors:NAME_entry/exit (x86): the local timer and the IPIs, as the recorder writes them (trace/event.h). */
static int k_vector(struct tl_perf_parser *p, struct sample *s, struct tl_event *ev)
{
	const char *name = strchr(s->event, ':') + 1; /* the table's names all have one */
	size_t n = strlen(name);

	n -= n > 6 && !strcmp(name + n - 6, "_entry") ? 6 : n > 5 && !strcmp(name + n - 5, "_exit") ? 5 : 0;
	ev->tid = s->tid;
	ev->flags = TL_EVF_VECTOR;
	for (int k = 1; k < TL_VEC__COUNT; k++)
		if (strlen(tl_vector_name(k)) == n && !strncmp(name, tl_vector_name(k), n))
			ev->c = k;
	if (ev->type == TL_EV_IRQ_ENTRY && !(ev->name = p->sink.intern(p->sink.ctx, tl_vector_name(ev->c))))
		return -2;
	return int_field(s->text, "vector", &ev->a);
}

static int k_softirq(struct tl_perf_parser *p, struct sample *s, struct tl_event *ev)
{
	ev->tid = s->tid;
	return int_field(s->text, "vec", &ev->a);
}

static int k_futex_enter(struct tl_perf_parser *p, struct sample *s, struct tl_event *ev)
{
	ev->tid = s->tid;
	if (hex_after(s->text, "op: ", &ev->a) < 0 || hex_after(s->text, "uaddr: ", &ev->b) < 0)
		return -1;
	return 0;
}

static int k_futex_waitv(struct tl_perf_parser *p, struct sample *s, struct tl_event *ev)
{
	ev->tid = s->tid;
	ev->a = TL_FUTEX_WAITV;
	return hex_after(s->text, "waiters: ", &ev->b);
}

static int k_futex_exit(struct tl_perf_parser *p, struct sample *s, struct tl_event *ev)
{
	ev->tid = s->tid;
	return hex_after(s->text, "", &ev->a); /* "0xfffffffffffffff5" is -11 */
}

/* "8,0 W 4096 () 123456 + 8 ..." (issue) or "8,0 W () 123456 + 8 ..." (complete). */
static int k_block(struct tl_perf_parser *p, struct sample *s, struct tl_event *ev)
{
	unsigned maj, min;
	unsigned long long bytes = 0, sector, nr;
	int n = 0;
	const char *paren;

	ev->tid = s->tid;
	if (sscanf(s->text, "%u,%u %*s %n", &maj, &min, &n) < 2 || !n)
		return -1;
	if (s->text[n] != '(' && sscanf(s->text + n, "%llu", &bytes) != 1)
		return -1;
	paren = strchr(s->text + n, ')');
	if (!paren || sscanf(paren + 1, " %llu + %llu", &sector, &nr) != 2)
		return -1;
	ev->a = (int64_t)maj << 20 | min;
	ev->b = (int64_t)sector;
	ev->c = bytes ? (int64_t)bytes : (int64_t)(nr * 512);
	return 0;
}

static const struct kind {
	const char *name;
	uint16_t type;
	kind_fn fn;
} kinds[] = {
	{ "sched:sched_switch", TL_EV_SWITCH, k_switch },
	{ "sched:sched_waking", TL_EV_WAKING, k_wake },
	{ "sched:sched_wakeup", TL_EV_WAKEUP, k_wake },
	{ "sched:sched_wakeup_new", TL_EV_WAKEUP_NEW, k_wake },
	{ "sched:sched_process_fork", TL_EV_FORK, k_fork },
	{ "sched:sched_process_exec", TL_EV_EXEC, k_exec },
	{ "sched:sched_process_exit", TL_EV_EXIT, k_pid },
	{ "sched:sched_process_free", TL_EV_FREE, k_pid },
	{ "sched:sched_migrate_task", TL_EV_MIGRATE, k_migrate },
	{ "task:task_rename", TL_EV_RENAME, k_rename },
	{ "irq:irq_handler_entry", TL_EV_IRQ_ENTRY, k_irq_entry },
	{ "irq:irq_handler_exit", TL_EV_IRQ_EXIT, k_irq_exit },
	{ "irq:softirq_entry", TL_EV_SOFTIRQ_ENTRY, k_softirq },
	{ "irq:softirq_exit", TL_EV_SOFTIRQ_EXIT, k_softirq },
	{ "irq_vectors:local_timer_entry", TL_EV_IRQ_ENTRY, k_vector },
	{ "irq_vectors:local_timer_exit", TL_EV_IRQ_EXIT, k_vector },
	{ "irq_vectors:reschedule_entry", TL_EV_IRQ_ENTRY, k_vector },
	{ "irq_vectors:reschedule_exit", TL_EV_IRQ_EXIT, k_vector },
	{ "irq_vectors:call_function_entry", TL_EV_IRQ_ENTRY, k_vector },
	{ "irq_vectors:call_function_exit", TL_EV_IRQ_EXIT, k_vector },
	{ "irq_vectors:call_function_single_entry", TL_EV_IRQ_ENTRY, k_vector },
	{ "irq_vectors:call_function_single_exit", TL_EV_IRQ_EXIT, k_vector },
	{ "irq_vectors:x86_platform_ipi_entry", TL_EV_IRQ_ENTRY, k_vector },
	{ "irq_vectors:x86_platform_ipi_exit", TL_EV_IRQ_EXIT, k_vector },
	{ "syscalls:sys_enter_futex", TL_EV_FUTEX_ENTER, k_futex_enter },
	{ "syscalls:sys_exit_futex", TL_EV_FUTEX_EXIT, k_futex_exit },
	{ "syscalls:sys_enter_futex_waitv", TL_EV_FUTEX_ENTER, k_futex_waitv },
	{ "syscalls:sys_exit_futex_waitv", TL_EV_FUTEX_EXIT, k_futex_exit },
	{ "block:block_rq_issue", TL_EV_BLOCK_ISSUE, k_block },
	{ "block:block_rq_complete", TL_EV_BLOCK_COMPLETE, k_block },
	{ "sched:sched_stat_runtime", TL_EV_RUNTIME, k_runtime },
	{ "syscalls:sys_enter_sched_yield", TL_EV_YIELD_ENTER, k_current },
	{ "syscalls:sys_exit_sched_yield", TL_EV_YIELD_EXIT, k_current },
};

/* A thread or process id of the line head: digits, or -1. */
static int parse_id(const char *p, long *v, char **end)
{
	if (!isdigit((unsigned char)*p) && !(*p == '-' && p[1] == '1' && !isdigit((unsigned char)p[2])))
		return -1;
	errno = 0;
	*v = strtol(p, end, 10);
	return errno || *v > INT32_MAX ? -1 : 0;
}

/* Anchor on "pid/tid [cpu] secs.frac:"; see the file comment. */
static int parse_head(char *line, struct sample *s)
{
	for (char *b = strchr(line, '['); b; b = strchr(b + 1, '[')) {
		char *q = b + 1, *e = b, *st, *end;
		uint64_t secs = 0, frac = 0;
		int digits = 0;

		if (b == line || b[-1] != ' ' || !isdigit((unsigned char)*q))
			continue;
		s->cpu = (int)strtol(q, &end, 10);
		if (*end != ']' || end - q > 5 || end[1] != ' ' || s->cpu >= MAX_CPUS)
			continue;
		for (q = end + 1; *q == ' '; q++)
			;
		if (!isdigit((unsigned char)*q))
			continue;
		for (; isdigit((unsigned char)*q) && secs < 10000000000ull; q++)
			secs = secs * 10 + (uint64_t)(*q - '0');
		if (*q++ != '.')
			continue;
		for (; isdigit((unsigned char)*q) && digits < 9; q++, digits++)
			frac = frac * 10 + (uint64_t)(*q - '0');
		if (*q != ':' || !digits)
			continue;
		for (; digits < 9; digits++)
			frac *= 10;
		s->ts = secs * 1000000000ull + frac;
		q++;

		while (e > line && e[-1] == ' ')
			e--;
		/* perf prints -1 for ids of threads it lost track of. */
		for (st = e; st > line && (isdigit((unsigned char)st[-1]) || st[-1] == '/' || st[-1] == '-'); st--)
			;
		if (st == e || (st > line && st[-1] != ' '))
			continue;
		char *slash = memchr(st, '/', (size_t)(e - st));
		long a, t;
		if (parse_id(st, &a, &end) < 0)
			continue;
		if (slash) {
			if (end != slash || parse_id(slash + 1, &t, &end) < 0)
				continue;
		} else {
			t = a;
			a = -1;
		}
		if (end != e)
			continue;
		s->pid = (int32_t)a;
		s->tid = (int32_t)t;
		while (st > line && st[-1] == ' ')
			st--;
		*st = 0;
		for (s->comm = line; *s->comm == ' '; s->comm++)
			;

		/* "  sched:sched_switch: fields" */
		while (*q == ' ')
			q++;
		s->event = q;
		q += strcspn(q, " ");
		if (q == s->event || q[-1] != ':')
			return -1;
		q[-1] = 0;
		while (*q == ' ')
			q++;
		s->text = q;
		return 0;
	}
	return -1;
}

static struct tid_slot *tid_lookup(struct tl_perf_parser *p, int32_t tid)
{
	int created = 0;
	struct tid_slot *t = tl_tidmap_put(&p->tids, tid, &created);

	if (t && created) {
		t->pid = -1;
		p->res.threads = p->tids.count;
	}
	return t;
}

static int emit(struct tl_perf_parser *p, const struct tl_event *ev)
{
	if (p->sink.event(p->sink.ctx, ev) < 0)
		return -1;
	p->res.events++;
	return 0;
}

/* A THREAD event when the line shows a thread under a new identity. */
static int note_identity(struct tl_perf_parser *p, struct sample *s)
{
	struct tid_slot *slot;
	struct tl_event ev;
	uint32_t comm;

	if (s->tid <= 0 || s->pid <= 0)
		return 0;
	if (!strcmp(s->comm, "perf-exec") && !p->system_wide && !p->pid_mode && !p->info.ntargets) {
		/* perf forks "perf-exec", which execs the command: its pid is the target. */
		p->info.targets[0] = s->pid;
		p->info.ntargets = 1;
	}
	comm = *s->comm ? p->sink.intern(p->sink.ctx, s->comm) : 0;
	if (*s->comm && !comm)
		return -1;
	slot = tid_lookup(p, s->tid);
	if (!slot)
		return tl_error("out of memory");
	if (slot->pid == s->pid && slot->comm == comm)
		return 0;
	slot->pid = s->pid;
	slot->comm = comm;
	memset(&ev, 0, sizeof(ev));
	ev.ts = s->ts;
	ev.type = TL_EV_THREAD;
	ev.cpu = -1;
	ev.tid = s->tid;
	ev.arg = s->pid;
	ev.name = comm;
	return emit(p, &ev);
}

static void count_skipped(struct tl_perf_parser *p, const char *event)
{
	struct tl_import_result *r = &p->res;
	int i;

	r->skipped++;
	for (i = 0; i < r->nkinds; i++)
		if (!strcmp(r->kinds[i].name, event))
			break;
	if (i == r->nkinds) {
		if (r->nkinds < TL_IMPORT_MAX_KINDS - 1) {
			snprintf(r->kinds[i].name, sizeof(r->kinds[0].name), "%s", event);
			r->nkinds++;
		} else {
			/* The last slot collects the rest. */
			i = TL_IMPORT_MAX_KINDS - 1;
			snprintf(r->kinds[i].name, sizeof(r->kinds[0].name), "other");
			r->nkinds = TL_IMPORT_MAX_KINDS;
		}
	}
	r->kinds[i].count++;
}

static void malformed(struct tl_perf_parser *p)
{
	if (!p->res.malformed++)
		p->res.first_malformed = p->res.lines;
}

/* "# key : value" lines of perf script --header. */
static void header_line(struct tl_perf_parser *p, char *line)
{
	struct tl_trace_info *in = &p->info;
	char *colon = strstr(line, " : "), *key = line + 1, *val;
	const char *c;

	if (!colon)
		return;
	*colon = 0;
	val = colon + 3;
	while (*key == ' ')
		key++;
	p->res.header_lines++;
	if (!strcmp(key, "hostname"))
		snprintf(in->hostname, sizeof(in->hostname), "%s", val);
	else if (!strcmp(key, "os release"))
		snprintf(in->kernel, sizeof(in->kernel), "%s", val);
	else if (!strcmp(key, "cpudesc"))
		snprintf(in->cpu_model, sizeof(in->cpu_model), "%s", val);
	else if (!strcmp(key, "nrcpus online") && atoi(val) > 0 && atoi(val) <= 4096) {
		in->ncpus = atoi(val);
		if (in->ncpus > p->res.ncpus)
			p->res.ncpus = in->ncpus;
	} else if (!strcmp(key, "event")) {
		if ((c = strstr(val, "clockid = ")) && atoi(c + 10) == 1) {
			snprintf(in->clock, sizeof(in->clock), "monotonic"); /* perf record -k mono */
			snprintf(p->res.clock, sizeof(p->res.clock), "monotonic");
		}
		if (!strncmp(val, "name = irq_vectors:local_timer_entry,", 37)) /* util: timer time is irq time */
			snprintf(in->irq_vectors, sizeof(in->irq_vectors), "recorded");
	} else if (!strcmp(key, "cmdline")) {
		const char *cmd = strstr(val, " -- ");
		p->system_wide = strstr(val, " -a") || strstr(val, " --all-cpus");
		p->pid_mode = strstr(val, " -p ") || strstr(val, " --pid");
		in->target_mode = p->system_wide ? TL_TARGET_SYSTEM : p->pid_mode ? TL_TARGET_PIDS : TL_TARGET_COMMAND;
		snprintf(in->command, sizeof(in->command), "%s", cmd ? cmd + 4 : val);
		/* trailing blank of perf's header line */
		for (size_t n = strlen(in->command); n && in->command[n - 1] == ' ';)
			in->command[--n] = 0;
		if (p->pid_mode && (c = strstr(val, " -p ")))
			for (c += 4; in->ntargets < TL_TRACE_MAX_TARGETS && isdigit((unsigned char)*c);) {
				in->targets[in->ntargets++] = (int)strtol(c, (char **)&c, 10);
				if (*c == ',')
					c++;
			}
	}
}

int tl_perf_parser_line(struct tl_perf_parser *p, const char *text, size_t len)
{
	struct sample s;
	struct tl_event ev;
	const struct kind *k = NULL;
	int r;

	p->res.lines++;
	if (len > MAX_LINE) {
		malformed(p);
		return 0;
	}
	memcpy(p->line, text, len);
	p->line[len] = 0;
	if (memchr(p->line, 0, len)) {
		malformed(p);
		return 0;
	}
	while (len && (p->line[len - 1] == '\r' || p->line[len - 1] == ' '))
		p->line[--len] = 0;
	if (!len)
		return 0;
	if (p->line[0] == '#') {
		header_line(p, p->line);
		return 0;
	}
	if (parse_head(p->line, &s) < 0) {
		malformed(p);
		return 0;
	}
	p->res.samples++;
	if (!p->res.first_ts)
		p->res.first_ts = s.ts;
	p->res.last_ts = s.ts;
	if (s.cpu + 1 > p->res.ncpus)
		p->res.ncpus = s.cpu + 1;
	if (note_identity(p, &s) < 0)
		return -1;
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (!strcmp(s.event, kinds[i].name))
			k = &kinds[i];
	if (!k) {
		count_skipped(p, s.event);
		return 0;
	}
	memset(&ev, 0, sizeof(ev));
	ev.ts = s.ts;
	ev.type = k->type;
	ev.cpu = (int16_t)s.cpu;
	r = k->fn(p, &s, &ev);
	if (r == -2)
		return -1;
	if (r < 0)
		malformed(p);
	if (r)
		return 0;
	if (ev.type == TL_EV_RENAME && !strncmp(s.text, "pid=", 4) && strstr(s.text, "oldcomm=perf-exec ") &&
	    !p->system_wide && !p->pid_mode && !p->info.ntargets) {
		p->info.targets[0] = ev.tid;
		p->info.ntargets = 1;
	}
	return emit(p, &ev);
}

struct tl_perf_parser *tl_perf_parser_new(const struct tl_perf_sink *sink)
{
	struct tl_perf_parser *p = calloc(1, sizeof(*p));
	if (!p) {
		tl_error("out of memory");
		return NULL;
	}
	if (tl_tidmap_init(&p->tids, sizeof(struct tid_slot)) < 0) {
		free(p);
		return NULL;
	}
	p->sink = *sink;
	snprintf(p->info.clock, sizeof(p->info.clock), "perf");
	snprintf(p->res.clock, sizeof(p->res.clock), "perf");
	snprintf(p->info.source, sizeof(p->info.source), "import perf-script");
#ifdef TL_VERSION
	snprintf(p->info.tool_version, sizeof(p->info.tool_version), "%s", TL_VERSION);
#endif
	return p;
}

const struct tl_trace_info *tl_perf_parser_info(const struct tl_perf_parser *p)
{
	return &p->info;
}

const struct tl_import_result *tl_perf_parser_result(const struct tl_perf_parser *p)
{
	return &p->res;
}

void tl_perf_parser_free(struct tl_perf_parser *p)
{
	if (!p)
		return;
	tl_tidmap_release(&p->tids);
	free(p);
}
