/*
 * cmd-record.c - `threadlens record`: options into struct tl_record_opts,
 * SIGINT/SIGTERM/SIGHUP into its stop flag, progress and the summary onto
 * stderr.  The recording itself is lib/capture/record.c.
 *
 * The stop flag is the one piece of global state: a signal handler can
 * reach nothing else.  It holds the signal's number, which the recorder
 * forwards to a command that is still running.
 */
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "cli.h"
#include "base/errors.h"
#include "capture/bpf_probe.h"
#include "capture/record.h"
#include "capture/sample_events.h"
#include "trace/trace.h"

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	stop_signal = sig;
}

static void usage(FILE *out)
{
	fprintf(out, "usage: threadlens record [options] -- COMMAND [ARGS...]\n"
	             "   or: threadlens record [options] -p PID[,PID...]\n"
	             "   or: threadlens record [options] -a --duration TIME\n"
	             "   or: threadlens record --list-events\n"
	             "\n"
	             "Records the scheduler events of a program (all its threads and children), of\n"
	             "running processes, or of the whole system into a trace file.  Needs root, or\n"
	             "CAP_PERFMON and read access to /sys/kernel/tracing.\n"
	             "\n"
	             "A command that uses the marker library (threadlens.h: frames, regions,\n"
	             "tasks, instants) has its markers recorded too, and so have its children; with -p\n"
	             "and -a they are read through uprobes (eBPF back end; docs/MARKERS.md).\n"
	             "\n"
	             "options:\n"
	             "  -o, --output FILE      the trace file (default: threadlens.tl; - for stdout)\n"
	             "  -p, --pid PID[,PID]    attach to running processes; record until they are gone\n"
	             "  -a, --all              record the whole system (until Ctrl-C or --duration)\n"
	             "  -d, --duration TIME    stop after TIME (\"10\", \"2.5s\", \"500ms\")\n"
	             "  -m, --mmap-pages N     ring buffer pages per CPU, a power of two (default 1024\n"
	             "                         on up to 8 CPUs, down to 256 on 32 and more)\n"
	             "      --backend NAME     how events leave the kernel: bpf (eBPF raw tracepoints,\n"
	             "                         sees every switch) or perf (perf_event_open); default:\n"
	             "                         bpf where it loads, else perf with a line saying why\n"
	             "      --no-irq           leave out interrupt, softirq, timer and IPI events\n"
	             "      --no-futex         leave out futex syscalls (no lock-wait state)\n"
	             "      --no-block         leave out block I/O events\n"
	             "      --no-yield         leave out sched_yield syscalls (no READY_YIELD state)\n"
	             "      --no-omp           no OpenMP regions: by default each function that\n"
	             "                         the compiler outlined from an OpenMP construct is a\n"
	             "                         region (uprobes, eBPF back end; about 1.5 us per\n"
	             "                         region and thread)\n"
	             "      --func FUNC[,FUNC] also record entry and return of these functions\n"
	             "                         (uprobes, either back end; root): SYMBOL in the\n"
	             "                         command's (or -p process's) binary, or FILE:SYMBOL\n"
	             "                         in a library or another file; repeatable\n"
	             "      --sample           also sample where the threads run (eBPF back end): call\n"
	             "                         stacks of cpu-clock at 997 Hz; -F, -e, --stack imply it\n"
	             "  -F, --freq HZ          samples per second and CPU (default 997)\n"
	             "  -e, --event NAME[,NAME] the events to sample, as perf names them (default\n"
	             "                         cpu-clock; cycles... need a hardware PMU; one the\n"
	             "                         machine lacks is skipped with a warning); repeatable\n"
	             "      --stack N          frames kept of each stack part, kernel and user (1-64,\n"
	             "                         default 64; user frames need frame pointers)\n"
	             "      --stack dwarf      user stacks unwound with the files' DWARF call-frame\n"
	             "                         information: callers of code without frame pointers\n"
	             "      --no-stack         keep only the sampled address\n"
	             "      --no-buildid-cache keep no copy of the sampled files: by default each one\n"
	             "                         new to ~/.debug is linked (or copied) there by its\n"
	             "                         build ID, as perf does, so that profile names its\n"
	             "                         samples after the program is rebuilt\n"
	             "      --runs N           run the command N times, run K into FILE.K.tl\n"
	             "                         (-o FILE.tl), to see how much runs vary (profile\n"
	             "                         FILE.*.tl, diff)\n"
	             "      --list-events      which tracepoints this kernel has, and which are used\n"
	             "  -h, --help             this text\n"
	             "\n"
	             "examples:\n"
	             "  threadlens record -o app.tl -- ./app --frames 100\n"
	             "  threadlens record -p 1234 --duration 5s\n"
	             "  threadlens record -a -d 500ms -o system.tl\n"
	             "  threadlens record --backend perf -o app.tl -- ./app\n"
	             "  threadlens record --func decode_frame,libc:usleep -o app.tl -- ./app\n"
	             "  threadlens record --sample -F 499 -o app.tl -- ./app\n"
	             "  threadlens record -e cpu-clock,page-faults -o app.tl -- ./app\n");
}

static void show_progress(const struct tl_record_progress *p, void *ctx)
{
	int *shown = ctx;

	fprintf(stderr, "\rthreadlens: recording %.1f s, %llu events, %llu lost, %.1f MB written\033[K", p->elapsed_s,
	        (unsigned long long)p->events, (unsigned long long)p->lost, (double)p->bytes_written / 1e6);
	*shown = 1;
}

static void list_one(const struct tl_record_tp_status *st, void *ctx)
{
	static const char *const groups[] = { "--no-irq", "--no-futex", "--no-block", "--no-yield" };
	const char *off = "";
	char name[96], id[16];
	int *header_done = ctx;

	if (!*header_done)
		printf("%-34s %6s  %s\n", "tracepoint", "id", "status");
	*header_done = 1;
	for (int i = 0; i < 4; i++)
		if (st->group == 1u << i)
			off = groups[i];
	snprintf(name, sizeof(name), "%s:%s", st->system, st->name);
	snprintf(id, sizeof(id), st->id >= 0 ? "%d" : "-", st->id);
	printf("%-34s %6s  ", name, id);
	if (st->id < 0)
		printf("missing%s\n", st->required ? " (required!)" : "");
	else if (st->used)
		printf("used%s\n", st->required ? " (required)" : "");
	else
		printf("off (%s)\n", off);
}

/*
 * The recording back ends: perf_event_open (what record uses today) and
 * eBPF, probed for 200 ms: whether its sched_switch program loads, and
 * whether it sees the switches out of idle that perf delivery can miss.
 */
static void list_backends(void)
{
	struct tl_bpf_probe p;

	printf("\nback end  status\n");
	printf("perf      used: perf_event_open on the tracepoints above\n");
	if (tl_bpf_probe(200, &p) < 0) {
		printf("bpf       not available: %s\n", tl_error_msg());
		return;
	}
	printf("bpf       available, not yet used: its sched_switch program loaded; in 200 ms it saw\n");
	for (int c = 0; c < p.ncpus; c++)
		printf("          CPU %d: %" PRIu64 " switches out of idle, %" PRIu64 " into idle\n", c,
		       p.out_of_idle[c], p.into_idle[c]);
}

static int list_events(unsigned groups)
{
	char desc[256] = "";
	int header_done = 0;

	if (tl_record_list_events(groups, list_one, &header_done, desc, sizeof(desc)))
		return cli_lib_error();
	printf("\nsched_switch prev_state bits: %s\n", desc);
	list_backends();
	return 0;
}

/* What became of the command, as a note; nothing if it exited with 0. */
static void child_note(const char *cmd, int status)
{
	if (WIFEXITED(status) && WEXITSTATUS(status))
		fprintf(stderr, "threadlens: note: '%s' exited with status %d\n", cmd, WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		fprintf(stderr, "threadlens: note: '%s' was killed by signal %d (%s)\n", cmd, WTERMSIG(status),
		        strsignal(WTERMSIG(status)));
}

static void catch_signals(void)
{
	struct sigaction sa, old;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal; /* no SA_RESTART: poll() must return to see the flag */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	/* A shell that starts us in the background with SIGINT ignored means it. */
	if (!sigaction(SIGINT, NULL, &old) && old.sa_handler != SIG_IGN)
		sigaction(SIGINT, &sa, NULL);
	/*
	 * SIGPIPE keeps its default: an ignored signal would be inherited by the
	 * command across exec.  If the reader of -o - goes away, the trace has
	 * nowhere to go; the command then gets its parent-death signal.
	 */
}

enum {
	OPT_NO_IRQ = 256,
	OPT_NO_FUTEX,
	OPT_NO_BLOCK,
	OPT_NO_YIELD,
	OPT_LIST,
	OPT_FUNC,
	OPT_BACKEND,
	OPT_SAMPLE,
	OPT_STACK,
	OPT_NO_STACK,
	OPT_RUNS,
	OPT_NO_OMP,
	OPT_NO_BUILDID_CACHE
};

#define MAX_FUNC_OPTS 64 /* --func options; each may list many functions */

/* One recording into o->output, then its summary line.  0, or the exit status of its error. */
static int record_once(struct tl_record_opts *o, int *shown)
{
	struct tl_record_result res;
	int c;

	c = tl_record(o, &res);
	if (*shown)
		fputs("\r\033[K", stderr);
	if (c) /* one clear line: the error, not the notes about a recording that did not happen */
		return cli_lib_error();
	for (int i = 0; i < res.nwarnings; i++)
		cli_warn("%s", res.warnings[i]);
	if (res.lost)
		cli_warn("the kernel dropped %llu events; a larger ring (-m %u) or fewer event groups (--no-futex, "
		         "--no-irq) may help",
		         (unsigned long long)res.lost, o->ring_pages ? 2 * o->ring_pages : 2048);
	if (res.marks_lost)
		cli_warn("the program dropped %llu markers: a thread made them faster than they were "
		         "collected, or all marker slots were taken",
		         (unsigned long long)res.marks_lost);
	fprintf(stderr, "threadlens: recorded %llu events (%llu lost) with %s in %.2f s into '%s' (%.1f %s)",
	        (unsigned long long)res.events, (unsigned long long)res.lost, res.backend, res.elapsed_s, o->output,
	        res.bytes < 1000000 ? (double)res.bytes / 1e3 : (double)res.bytes / 1e6,
	        res.bytes < 1000000 ? "kB" : "MB");
	if (res.left_out)
		fprintf(stderr, ", %llu events of other processes left in the kernel",
		        (unsigned long long)res.left_out);
	if (o->sample)
		fprintf(stderr, ", %llu samples", (unsigned long long)res.samples);
	if (res.jit_functions) /* JIT code the samples hit, named from the programs' /tmp/perf-PID.map */
		fprintf(stderr, " (%llu JIT function%s named from perf maps)", (unsigned long long)res.jit_functions,
		        res.jit_functions > 1 ? "s" : "");
	if (res.kept_files) /* copies of the sampled files added to the build-ID cache */
		fprintf(stderr, " (%llu file%s kept by build ID in ~/.debug)", (unsigned long long)res.kept_files,
		        res.kept_files > 1 ? "s" : "");
	if (res.omp_functions) /* regions the eBPF back end made of OpenMP's outlined functions (--no-omp: none) */
		fprintf(stderr, ", %llu OpenMP region instances (%d function%s)", (unsigned long long)res.omp_regions,
		        res.omp_functions, res.omp_functions > 1 ? "s" : "");
	if (res.marks || res.marks_lost) /* after the events, last: scripts parse "N events (M lost)" */
		fprintf(stderr, ", %llu markers (%llu lost)", (unsigned long long)res.marks,
		        (unsigned long long)res.marks_lost);
	fputc('\n', stderr);
	if (res.child_ran)
		child_note(o->argv[0], res.child_status);
	return 0;
}

/*
 * --runs N: the command N times, run K into "BASE.K.tl" (BASE: -o without
 * its ".tl"), stopping at the first failure or signal.
 */
static int record_runs(struct tl_record_opts *o, int runs, int *shown)
{
	const char *base = o->output;
	size_t blen = strlen(base);
	char path[4096];
	int rc = 0;

	if (runs == 1)
		return record_once(o, shown);
	if (blen > 3 && !strcmp(base + blen - 3, ".tl"))
		blen -= 3;
	for (int k = 1; k <= runs && !rc && !stop_signal; k++) {
		snprintf(path, sizeof(path), "%.*s.%d.tl", (int)blen, base, k);
		o->output = path;
		fprintf(stderr, "threadlens: run %d of %d\n", k, runs);
		rc = record_once(o, shown);
	}
	o->output = base;
	if (!rc)
		fprintf(stderr,
		        "threadlens: %d runs in %.*s.1.tl .. %.*s.%d.tl; compare them with threadlens profile or "
		        "diff\n",
		        runs, (int)blen, base, (int)blen, base, runs);
	return rc;
}

int cmd_record(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "pid", required_argument, NULL, 'p' },
		{ "all", no_argument, NULL, 'a' },
		{ "duration", required_argument, NULL, 'd' },
		{ "mmap-pages", required_argument, NULL, 'm' },
		{ "no-irq", no_argument, NULL, OPT_NO_IRQ },
		{ "no-futex", no_argument, NULL, OPT_NO_FUTEX },
		{ "no-block", no_argument, NULL, OPT_NO_BLOCK },
		{ "no-yield", no_argument, NULL, OPT_NO_YIELD },
		{ "list-events", no_argument, NULL, OPT_LIST },
		{ "func", required_argument, NULL, OPT_FUNC },
		{ "backend", required_argument, NULL, OPT_BACKEND },
		{ "sample", no_argument, NULL, OPT_SAMPLE },
		{ "freq", required_argument, NULL, 'F' },
		{ "event", required_argument, NULL, 'e' },
		{ "stack", required_argument, NULL, OPT_STACK },
		{ "no-stack", no_argument, NULL, OPT_NO_STACK },
		{ "runs", required_argument, NULL, OPT_RUNS },
		{ "no-omp", no_argument, NULL, OPT_NO_OMP },
		{ "no-buildid-cache", no_argument, NULL, OPT_NO_BUILDID_CACHE },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct tl_record_opts o;
	int pids[TL_TRACE_MAX_TARGETS], npids = 0, list = 0, shown = 0, runs = 1, c;
	const char *funcs[MAX_FUNC_OPTS];
	unsigned off = 0;
	int64_t ns;
	char *end;
	static char events[256]; /* -e's names, comma-separated */

	memset(&o, 0, sizeof(o));
	o.output = "threadlens.tl";
	optind = 1;
	while ((c = getopt_long(argc, argv, "+o:p:ad:m:hF:e:", longopts, NULL)) != -1) {
		switch (c) {
		case 'o': o.output = optarg; break;
		case 'p': {
			int n = cli_parse_int_list(optarg, pids + npids, TL_TRACE_MAX_TARGETS - npids);
			if (n < 0) {
				cli_error("invalid process id list '%s' (at most %d ids)", optarg,
				          TL_TRACE_MAX_TARGETS);
				return cli_usage_error("record");
			}
			npids += n;
			break;
		}
		case 'a': o.system_wide = 1; break;
		case 'd':
			ns = cli_parse_duration_ns(optarg);
			if (ns <= 0) {
				cli_error("invalid duration '%s' (e.g. 10, 2.5s, 500ms)", optarg);
				return cli_usage_error("record");
			}
			o.duration_s = (double)ns / 1e9;
			break;
		case 'm': {
			unsigned long v = strtoul(optarg, &end, 10);
			if (*end || !v || v > (1ul << 20) || (v & (v - 1))) {
				cli_error("invalid ring size '%s': a power of two number of pages", optarg);
				return cli_usage_error("record");
			}
			o.ring_pages = (unsigned)v;
			break;
		}
		case OPT_SAMPLE: o.sample = 1; break;
		case 'F': {
			unsigned long v = strtoul(optarg, &end, 10);
			if (*end || !v || v > TL_SAMPLE_MAX_HZ) {
				cli_error("invalid sampling frequency '%s': 1 to %d samples per second", optarg,
				          TL_SAMPLE_MAX_HZ);
				return cli_usage_error("record");
			}
			o.sample_hz = (unsigned)v;
			o.sample = 1;
			break;
		}
		case 'e': {
			/* a list, or -e given again: one list, in order */
			const struct tl_sample_event *ev[TL_SAMPLE_MAX_EVENTS];
			size_t n = strlen(events);
			snprintf(events + n, sizeof(events) - n, "%s%s", n ? "," : "", optarg);
			if (strlen(events) >= sizeof(events) - 1 || tl_sample_events_parse(events, ev) < 0) {
				cli_error("%s", tl_error_msg());
				return cli_usage_error("record");
			}
			o.sample_event = events;
			o.sample = 1;
			break;
		}
		case OPT_STACK: {
			unsigned long v = strtoul(optarg, &end, 10);
			if (!strcmp(optarg, "dwarf")) {
				o.sample_dwarf = 1;
				o.sample = 1;
				break;
			}
			if (*end || !v || v > 64) {
				cli_error("invalid stack depth '%s': 1 to 64 frames, or dwarf", optarg);
				return cli_usage_error("record");
			}
			o.sample_frames = (int)v;
			o.sample = 1;
			break;
		}
		case OPT_RUNS: {
			unsigned long v = strtoul(optarg, &end, 10);
			if (*end || !v || v > 100) {
				cli_error("invalid number of runs '%s': 1 to 100", optarg);
				return cli_usage_error("record");
			}
			runs = (int)v;
			break;
		}
		case OPT_NO_STACK:
			o.sample_frames = 1;
			o.sample = 1;
			break;
		case OPT_NO_IRQ: off |= TL_REC_IRQ; break;
		case OPT_NO_FUTEX: off |= TL_REC_FUTEX; break;
		case OPT_NO_BLOCK: off |= TL_REC_BLOCK; break;
		case OPT_NO_YIELD: off |= TL_REC_YIELD; break;
		case OPT_NO_OMP: o.no_omp = 1; break;
		case OPT_NO_BUILDID_CACHE: o.no_buildid_cache = 1; break;
		case OPT_LIST: list = 1; break;
		case OPT_FUNC:
			if (!*optarg || o.nfuncs == MAX_FUNC_OPTS) {
				if (*optarg)
					cli_error("too many --func options (at most %d; list functions with commas)",
					          MAX_FUNC_OPTS);
				else
					cli_error("empty function list in --func");
				return cli_usage_error("record");
			}
			funcs[o.nfuncs++] = optarg;
			break;
		case OPT_BACKEND:
			if (!strcmp(optarg, "bpf")) {
				o.backend = TL_BACKEND_BPF;
			} else if (!strcmp(optarg, "perf")) {
				o.backend = TL_BACKEND_PERF;
			} else {
				cli_error("unknown back end '%s' (bpf or perf)", optarg);
				return cli_usage_error("record");
			}
			break;
		case 'h': usage(stdout); return 0;
		default: return cli_usage_error("record");
		}
	}
	o.groups = (TL_REC_ALL & ~off) | TL_REC_EXPLICIT;
	if (list)
		return list_events(o.groups);
	if (optind < argc)
		o.argv = argv + optind;
	o.pids = pids;
	o.npids = npids;
	o.funcs = funcs;
	if (!!o.argv + !!npids + o.system_wide > 1) {
		cli_error("give one of a command, -p or -a, not several");
		return cli_usage_error("record");
	}
	if (!o.argv && !npids && !o.system_wide) {
		cli_error("nothing to record: give a command after '--', -p PID or -a");
		return cli_usage_error("record");
	}

	catch_signals();
	o.stop = &stop_signal;
	if (cli_stderr_is_tty()) {
		o.progress = show_progress;
		o.progress_ctx = &shown;
	}
	if (runs > 1 && (!o.argv || !strcmp(o.output, "-"))) {
		cli_error(!o.argv ? "--runs repeats a command: give one after '--'"
		                  : "--runs writes a file per run: give -o FILE, not -");
		return cli_usage_error("record");
	}
	return record_runs(&o, runs, &shown);
}
