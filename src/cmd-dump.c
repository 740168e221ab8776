/*
 * cmd-dump.c - `threadlens dump`: a trace's events as text, one per line.
 *
 * A debugging and scripting aid: the header describes the trace, then each
 * event is printed with its time relative to the trace start, its CPU, its
 * type and its fields, named as in the table of lib/trace/event.h.  Thread ids are
 * followed by the thread's name once a THREAD, FORK or RENAME event has
 * named it.  Filters only select what is printed; every event still feeds
 * the name table, so names stay right inside a window.  The reader's
 * warnings (damage, truncation) go to stderr at the end.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "output/fmt.h"
#include "base/errors.h"
#include "base/tidmap.h"
#include "trace/event.h"
#include "trace/trace.h"

struct dump_opts {
	uint64_t limit;         /* 0: no limit */
	uint64_t types;         /* bit per event type; 0: all */
	int32_t tid;            /* -1: all */
	int64_t from_ns, to_ns; /* relative to the trace start; to_ns -1: no end */
	int header;
};

/* tid -> name, as the trace's string ids; tid 0 (the idle tasks) apart, as the map keeps tids > 0. */
struct name_row {
	int32_t tid; /* the tidmap key */
	uint32_t id;
};

struct names {
	struct tl_tidmap map;
	uint32_t idle; /* tid 0's name */
};

/* The name slot of tid (created if `add`), or NULL: unknown, a negative tid, or no memory (add). */
static uint32_t *names_slot(struct names *nm, int32_t tid, int add)
{
	struct name_row *r;

	if (tid == 0)
		return &nm->idle;
	if (tid < 0)
		return NULL;
	r = add ? tl_tidmap_put(&nm->map, tid, NULL) : tl_tidmap_get(&nm->map, tid);
	return r ? &r->id : NULL;
}

/* KSTAT.arg as dump prints it. */
static const char *kstat_point(int32_t point)
{
	switch (point) {
	case TL_KSTAT_AT_START: return "start";
	case TL_KSTAT_AT_END: return "end";
	case TL_KSTAT_AT_EXIT: return "exit";
	default: return "?";
	}
}

/* " cpus=0-3,6" for the bits of word `word` of an affinity mask (AFFINITY). */
static void print_cpu_ranges(int64_t word, uint64_t bits)
{
	const char *sep = "=";

	printf(" cpus");
	for (int c = 0; c < 64; c++) {
		int e = c;
		if (!(bits >> c & 1))
			continue;
		while (e + 1 < 64 && (bits >> (e + 1) & 1))
			e++;
		if (e > c)
			printf("%s%" PRId64 "-%" PRId64, sep, word * 64 + c, word * 64 + e);
		else
			printf("%s%" PRId64, sep, word * 64 + c);
		sep = ",";
		c = e;
	}
}

static void print_tid(struct tl_trace *t, struct names *nm, const char *key, int32_t tid)
{
	uint32_t *id = names_slot(nm, tid, 0);
	char clean[4 * 256 + 8];

	if (id && *id) { /* names are the traced program's: cleaned for the terminal */
		tl_fmt_clean_name(tl_trace_string(t, *id), clean, sizeof(clean));
		printf(" %s=%d(%s)", key, tid, clean);
	} else {
		printf(" %s=%d", key, tid);
	}
}

static void print_str(struct tl_trace *t, const char *key, uint32_t id)
{
	char s[4 * 4096 + 8];

	tl_fmt_clean_name(tl_trace_string(t, id), s, sizeof(s));
	printf(strchr(s, ' ') || !*s ? " %s=\"%s\"" : " %s=%s", key, s);
}

/* A SAMPLE's stack (format 1.5): its id, its depth and its frames, innermost first. */
static void print_stack(struct tl_trace *t, uint32_t id)
{
	unsigned n;
	const uint64_t *f = tl_trace_stack(t, id, &n);

	if (!id)
		return;
	printf(" stack=%u frames=%u", id, n);
	for (unsigned i = 0; i < n; i++)
		printf("%s%" PRIx64, i ? "," : " 0x", f[i]);
}

static void print_event(struct tl_trace *t, struct names *nm, const struct tl_event *e, uint64_t start)
{
	char buf[32];
	int64_t rel = (int64_t)(e->ts - start);
	uint64_t mag = rel < 0 ? -(uint64_t)rel : (uint64_t)rel;

	printf("%s%" PRIu64 ".%09" PRIu64, rel < 0 ? "-" : " ", mag / 1000000000, mag % 1000000000);
	if (e->cpu < 0)
		printf("   -  ");
	else
		printf(" [%03d]", e->cpu);
	printf(" %-14s", tl_event_type_name(e->type));
	switch (e->type) {
	case TL_EV_SWITCH:
		print_tid(t, nm, "prev", e->tid);
		print_tid(t, nm, "next", e->arg);
		printf(" prev_state=%s prev_prio=%" PRId64 " next_prio=%" PRId64,
		       tl_prev_state_str(e->a, buf, sizeof(buf)), e->b, e->c);
		break;
	case TL_EV_WAKING:
	case TL_EV_WAKEUP:
	case TL_EV_WAKEUP_NEW:
		print_tid(t, nm, "woken", e->tid);
		print_tid(t, nm, "waker", e->arg);
		printf(" target_cpu=%" PRId64 " prio=%" PRId64, e->a, e->b);
		break;
	case TL_EV_FORK:
		print_tid(t, nm, "child", e->tid);
		print_tid(t, nm, "parent", e->arg);
		print_str(t, "child_comm", e->name);
		break;
	case TL_EV_EXEC:
		print_tid(t, nm, "pid", e->tid);
		printf(" old_pid=%d", e->arg);
		print_str(t, "filename", e->name);
		break;
	case TL_EV_MIGRATE:
		print_tid(t, nm, "tid", e->tid);
		printf(" orig_cpu=%" PRId64 " dest_cpu=%" PRId64, e->a, e->b);
		break;
	case TL_EV_RENAME:
		print_tid(t, nm, "tid", e->tid);
		print_str(t, "new_comm", e->name);
		break;
	case TL_EV_IRQ_ENTRY:
		print_tid(t, nm, "tid", e->tid);
		print_str(t, "handler", e->name);
		if (e->flags & TL_EVF_VECTOR) /* format 1.4: the local timer or an IPI */
			printf(" vector=%" PRId64 " kind=%s", e->a, tl_vector_name(e->c));
		else
			printf(" irq=%" PRId64, e->a);
		break;
	case TL_EV_IRQ_EXIT:
		print_tid(t, nm, "tid", e->tid);
		if (e->flags & TL_EVF_VECTOR)
			printf(" vector=%" PRId64 " kind=%s%s", e->a, tl_vector_name(e->c),
			       e->b == 1 ? " tick" : ""); /* the scheduler tick ran in it (1.6) */
		else
			printf(" irq=%" PRId64 " ret=%" PRId64, e->a, e->b);
		break;
	case TL_EV_SOFTIRQ_ENTRY:
	case TL_EV_SOFTIRQ_EXIT:
		print_tid(t, nm, "tid", e->tid);
		printf(" vec=%" PRId64, e->a);
		break;
	case TL_EV_FUTEX_ENTER:
		print_tid(t, nm, "tid", e->tid);
		printf(" op=%" PRId64 "%s uaddr=0x%" PRIx64, e->a, tl_futex_op_waits(e->a) ? "(wait)" : "",
		       (uint64_t)e->b);
		if (e->c) /* format 1.11: a wait's expected value */
			printf(" val=%" PRId64 "%s", e->c, tl_futex_wait_locks(e->a, e->c) ? "(lock)" : "");
		break;
	case TL_EV_FUTEX_EXIT:
		print_tid(t, nm, "tid", e->tid);
		printf(" ret=%" PRId64, e->a);
		break;
	case TL_EV_BLOCK_ISSUE:
	case TL_EV_BLOCK_COMPLETE:
		print_tid(t, nm, e->type == TL_EV_BLOCK_ISSUE ? "submitter" : "tid", e->tid);
		printf(" dev=%" PRId64 ":%" PRId64 " sector=%" PRIu64 " bytes=%" PRId64, e->a >> 20, e->a & 0xfffff,
		       (uint64_t)e->b, e->c);
		break;
	case TL_EV_THREAD:
		print_tid(t, nm, "tid", e->tid);
		printf(" tgid=%d", e->arg);
		print_str(t, "comm", e->name);
		if (e->a)
			printf(" snap_state=%s%s", tl_prev_state_str(e->a, buf, sizeof(buf)),
			       e->a & TL_PS_SNAPSHOT ? "(snapshot)" : "");
		break;
	case TL_EV_LOST:
		if (e->flags & TL_EVF_DAMAGE) /* the reader's: a damaged block of the file was skipped */
			printf(" count=unknown damaged-block");
		else
			printf(" count=%" PRId64, e->a);
		break;
	case TL_EV_RUNTIME:
		print_tid(t, nm, "tid", e->tid);
		printf(" runtime_ns=%" PRId64, e->a);
		break;
	case TL_EV_FUNC_ENTRY:
	case TL_EV_FUNC_EXIT:
		print_tid(t, nm, "tid", e->tid);
		print_str(t, "func", e->name);
		if (e->flags & TL_EVF_INLINED) /* format 1.4: an inlined copy's entry, no exit follows */
			printf(" inlined");
		break;
	case TL_EV_FRAME_BEGIN:
	case TL_EV_FRAME_END:
		print_tid(t, nm, "tid", e->tid);
		printf(" frame=%" PRId64, e->a);
		break;
	case TL_EV_REGION_BEGIN:
	case TL_EV_TASK_BEGIN:
		print_tid(t, nm, "tid", e->tid);
		print_str(t, "name", e->name);
		printf(" frame=%" PRId64, e->a);
		break;
	case TL_EV_REGION_END:
	case TL_EV_TASK_END:
		print_tid(t, nm, "tid", e->tid);
		print_str(t, "name", e->name);
		break;
	case TL_EV_INSTANT:
		print_tid(t, nm, "tid", e->tid);
		print_str(t, "name", e->name);
		printf(" value=%" PRId64, e->a);
		break;
	case TL_EV_MARKS_LOST:
		print_tid(t, nm, "tid", e->tid);
		printf(" count=%" PRId64, e->a);
		break;
	case TL_EV_KSTAT:
		print_tid(t, nm, "tid", e->tid);
		printf(" at=%s run_ns=%" PRId64 " wait_ns=%" PRId64 " blkio_ns=%" PRId64, kstat_point(e->arg), e->a,
		       e->b, e->c);
		break;
	case TL_EV_KSTAT_CPU:
		printf(" cpu=%d at=%s steal_ns=%" PRId64 " tick_ns=%" PRId64, (int)e->arg, kstat_point((int32_t)e->a),
		       e->b, e->c);
		break;
	case TL_EV_KSTAT_CSW:
		print_tid(t, nm, "tid", e->tid);
		printf(" at=%s voluntary=%" PRId64 " involuntary=%" PRId64, kstat_point(e->arg), e->a, e->b);
		break;
	case TL_EV_FILTERED:
		if (e->arg == TL_FILT_CPU_TIME) {
			printf(" busy_ns=%" PRId64 " idle_ns=%" PRId64 " switches=%" PRId64, e->a, e->b, e->c);
		} else if (e->arg == TL_FILT_CPU_INTR) {
			printf(" irq_ns=%" PRId64 " softirq_ns=%" PRId64 " unknown_ns=%" PRId64, e->a, e->b, e->c);
		} else {
			printf(" pid=%d", (int)e->tid);
			print_str(t, "process", e->name);
			printf(" ns=%" PRId64, e->a);
		}
		break;
	case TL_EV_KSYM:
		printf(" start=0x%" PRIx64 " end=0x%" PRIx64, (uint64_t)e->a, (uint64_t)e->b);
		print_str(t, "function", e->name);
		break;
	case TL_EV_CLOCK_TAKEN:
		print_tid(t, nm, "tid", e->tid);
		printf(" taken=%" PRId64 "ns", e->a);
		break;
	case TL_EV_JSYM:
		printf(" pid=%d start=0x%" PRIx64 " end=0x%" PRIx64, e->tid, (uint64_t)e->a, (uint64_t)e->b);
		print_str(t, "function", e->name);
		break;
	case TL_EV_MAP:
		printf(" pid=%d", e->tid);
		printf(" start=0x%" PRIx64 " end=0x%" PRIx64 " offset=0x%" PRIx64, (uint64_t)e->a, (uint64_t)e->b,
		       (uint64_t)e->c);
		print_str(t, "file", e->name);
		if (e->arg > 0)
			print_str(t, "build_id", (uint32_t)e->arg);
		break;
	case TL_EV_SAMPLE:
		print_tid(t, nm, "tid", e->tid);
		printf(" pid=%d", e->arg);
		print_str(t, "event", e->name);
		printf(" ip=0x%" PRIx64 " period=%" PRId64, (uint64_t)e->b, e->c);
		print_stack(t, (uint32_t)e->a);
		break;
	case TL_EV_FUTEX_WAIT:
		print_tid(t, nm, "tid", e->tid);
		printf(" uaddr=0x%" PRIx64, (uint64_t)e->a);
		break;
	case TL_EV_FUTEX_NAME:
		printf(" pid=%d uaddr=0x%" PRIx64, e->tid, (uint64_t)e->a);
		print_str(t, "name", e->name);
		break;
	case TL_EV_YIELD_SPIN:
		print_tid(t, nm, "tid", e->tid);
		printf(" calls=%" PRId64 " span_ns=%" PRId64 " ended_ns_ago=%" PRId64, e->a, e->b, e->c);
		break;
	case TL_EV_AFFINITY:
		print_tid(t, nm, "tid", e->tid);
		print_cpu_ranges(e->a, (uint64_t)e->b);
		printf(" allowed=%" PRId64, e->c);
		break;
	case TL_EV_EXIT:
		print_tid(t, nm, "tid", e->tid);
		if (e->b > 0) /* format 1.12: its run total at the EXIT */
			printf(" run_total=%" PRId64 "ns", e->b);
		break;
	case TL_EV_FREE:
	case TL_EV_YIELD_ENTER:
	case TL_EV_YIELD_EXIT:
	default: print_tid(t, nm, "tid", e->tid); break;
	}
	if (e->lag) /* the kernel dates the event that long before it (trace/event.h) */
		printf(" clock_lag=%" PRIu64 "ns", tl_event_lag_ns(e));
	if (e->lag_end) /* and prev's run ended that much earlier still */
		printf(" clock_lag_end=%" PRIu64 "ns", tl_event_lag_end_ns(e));
	if (e->flags & (TL_EVF_WAIT_FUTEX | TL_EVF_WAIT_YIELD))
		printf(" wait=%s",
		       e->flags & TL_EVF_WAIT_FUTEX ? (e->flags & TL_EVF_WAIT_LOCK ? "futex-lock" : "futex") : "yield");
	if (e->flags & (TL_EVF_OTHER_TID | TL_EVF_OTHER_ARG)) { /* a filtered recording: not recorded threads */
		int sw = e->type == TL_EV_SWITCH;

		printf(" other=%s%s%s", e->flags & TL_EVF_OTHER_TID ? (sw ? "prev" : "tid") : "",
		       (e->flags & TL_EVF_OTHER_TID) && (e->flags & TL_EVF_OTHER_ARG) ? "|" : "",
		       e->flags & TL_EVF_OTHER_ARG ? (sw ? "next" : "waker") : "");
	}
	if (e->flags & TL_EVF_CTX)
		printf(" ctx=%s%s%s", e->flags & TL_EVF_HARDIRQ ? "hardirq" : "",
		       e->flags & TL_EVF_SOFTIRQ ? (e->flags & TL_EVF_HARDIRQ ? "|softirq" : "softirq") : "",
		       e->flags & TL_EVF_NMI ? "|nmi" : "");
	putchar('\n');
}

/* Events that name a thread update the table after they are printed. */
static int learn_name(struct names *nm, const struct tl_event *e)
{
	uint32_t *id;
	if ((e->type != TL_EV_THREAD && e->type != TL_EV_FORK && e->type != TL_EV_RENAME) || !e->name || e->tid < 0)
		return 0;
	id = names_slot(nm, e->tid, 1);
	if (!id)
		return -1;
	*id = e->name;
	return 0;
}

static int about_tid(const struct tl_event *e, int32_t tid)
{
	if (e->tid == tid)
		return 1;
	switch (e->type) {
	case TL_EV_SWITCH:
	case TL_EV_WAKING:
	case TL_EV_WAKEUP:
	case TL_EV_WAKEUP_NEW:
	case TL_EV_FORK: return e->arg == tid;
	default: return 0;
	}
}

static void print_header(const char *path, const struct tl_trace_info *in)
{
	static const char *const modes[] = { "command", "pids", "system" };
	printf("# trace: %s\n", path);
	printf("# source: %s, threadlens %s\n", in->source, in->tool_version[0] ? in->tool_version : "?");
	printf("# host: %s, kernel %s, %d cpus, %s\n", in->hostname, in->kernel, in->ncpus, in->cpu_model);
	printf("# target: %s", in->target_mode >= 0 && in->target_mode <= 2 ? modes[in->target_mode] : "?");
	for (int i = 0; i < in->ntargets && i < TL_TRACE_MAX_TARGETS; i++)
		printf("%s%d", i ? "," : " ", in->targets[i]);
	printf(", command: %s\n", in->command);
	printf("# start: %" PRIu64 ".%09" PRIu64 " s on clock %s\n", in->start_ns / 1000000000,
	       in->start_ns % 1000000000, in->clock);
	printf("#   time(s)     cpu  event          fields\n");
}

static int parse_types(const char *list, uint64_t *types)
{
	char *dup = strdup(list), *save = NULL, *tok;
	int ret = 0;

	if (!dup)
		return -1;
	for (tok = strtok_r(dup, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		unsigned i;
		for (i = 1; i < TL_EV__COUNT; i++)
			if (!strcmp(tok, tl_event_type_name(i)))
				break;
		if (i == TL_EV__COUNT) {
			cli_error("unknown event type '%s'; known types:", tok);
			for (i = 1; i < TL_EV__COUNT; i++)
				fprintf(stderr, "%s%s", i > 1 ? ", " : "  ", tl_event_type_name(i));
			fputc('\n', stderr);
			ret = -1;
			break;
		}
		*types |= 1ull << i;
	}
	free(dup);
	return ret;
}

static void usage(FILE *out)
{
	fprintf(out, "usage: threadlens dump [options] FILE\n"
	             "\n"
	             "Print a trace's events in time order, one per line: the time in seconds since\n"
	             "the trace started, the CPU ('-' for none), the event type and its fields.\n"
	             "\n"
	             "options:\n"
	             "  -n, --limit N        print at most N events\n"
	             "  -t, --type T[,T]     only these event types (switch, waking, wakeup, ...)\n"
	             "      --tid N          only events about thread N\n"
	             "      --from TIME      start TIME after the trace start (1.5, 250ms, 10us)\n"
	             "      --to TIME        stop TIME after the trace start\n"
	             "      --no-header      leave out the description of the trace\n"
	             "  -h, --help           this help\n"
	             "\n"
	             "example:\n"
	             "  threadlens dump --type switch,wakeup --tid 1234 --from 1s --to 1.5s app.tl\n");
}

static int run(const char *path, const struct dump_opts *o)
{
	struct tl_trace *t = tl_trace_open(path);
	const struct tl_trace_stats *st;
	struct names nm = { 0 };
	struct tl_event e;
	uint64_t printed = 0, start;
	int r, ret = 0;

	if (!t)
		return cli_lib_error();
	if (tl_tidmap_init(&nm.map, sizeof(struct name_row)) < 0) {
		tl_trace_close(t);
		return cli_lib_error();
	}
	start = tl_trace_info(t)->start_ns;
	if (o->header)
		print_header(path, tl_trace_info(t));
	while ((r = tl_trace_next(t, &e)) == 1) {
		int64_t rel = (int64_t)(e.ts - start);
		if (o->to_ns >= 0 && rel > o->to_ns)
			break;
		if (rel >= o->from_ns && (!o->types || (e.type < 64 && (o->types >> e.type & 1))) &&
		    (o->tid < 0 || about_tid(&e, o->tid))) {
			print_event(t, &nm, &e, start);
			if (o->limit && ++printed >= o->limit)
				break;
		}
		if (learn_name(&nm, &e) < 0) {
			ret = cli_error("out of memory");
			break;
		}
	}
	if (r < 0)
		ret = cli_lib_error();
	if (fflush(stdout) != 0)
		ret = cli_error("cannot write the output");
	st = tl_trace_stats(t);
	for (int i = 0; i < st->nwarnings; i++)
		cli_warn("%s", st->warnings[i]);
	tl_tidmap_release(&nm.map);
	tl_trace_close(t);
	return ret;
}

int cmd_dump(int argc, char **argv)
{
	enum { OPT_TID = 256, OPT_FROM, OPT_TO, OPT_NO_HEADER };
	static const struct option longopts[] = {
		{ "limit", required_argument, NULL, 'n' },   { "type", required_argument, NULL, 't' },
		{ "tid", required_argument, NULL, OPT_TID }, { "from", required_argument, NULL, OPT_FROM },
		{ "to", required_argument, NULL, OPT_TO },   { "no-header", no_argument, NULL, OPT_NO_HEADER },
		{ "help", no_argument, NULL, 'h' },          { NULL, 0, NULL, 0 },
	};
	struct dump_opts o = { .tid = -1, .to_ns = -1, .header = 1 };
	char *end;
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "n:t:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'n':
			o.limit = strtoull(optarg, &end, 10);
			if (*end || !*optarg || optarg[0] == '-') {
				cli_error("--limit wants a number, not '%s'", optarg);
				return cli_usage_error("dump");
			}
			break;
		case 't':
			if (parse_types(optarg, &o.types) < 0)
				return cli_usage_error("dump");
			break;
		case OPT_TID:
			o.tid = (int32_t)strtol(optarg, &end, 10);
			if (*end || !*optarg || o.tid < 0) {
				cli_error("--tid wants a thread id, not '%s'", optarg);
				return cli_usage_error("dump");
			}
			break;
		case OPT_FROM:
		case OPT_TO:
			if (cli_parse_time_ns(optarg, c == OPT_FROM ? &o.from_ns : &o.to_ns) < 0) {
				cli_error("--%s wants a time such as 1.5, 250ms or 10us, not '%s'",
				          c == OPT_FROM ? "from" : "to", optarg);
				return cli_usage_error("dump");
			}
			break;
		case OPT_NO_HEADER: o.header = 0; break;
		case 'h': usage(stdout); return 0;
		default: return cli_usage_error("dump");
		}
	}
	if (optind != argc - 1) {
		cli_error(optind == argc ? "dump needs a trace file" : "dump takes one trace file");
		return cli_usage_error("dump");
	}
	return run(argv[optind], &o) ? 1 : 0;
}
