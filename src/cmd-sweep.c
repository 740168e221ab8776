/*
 * cmd-sweep.c - `threadlens sweep SPEC`: a measurement campaign
 * (docs/SWEEP.md).  For every combination of the specification's
 * parameters and every repetition: the RUN command recorded with its
 * markers (tl_record, the command under /bin/sh -c, its output to a log),
 * the trace measured (analysis/sweep/measure.h), the run stored in the
 * results database (analysis/sweep/db.h), the trace dropped or kept.
 *
 * A run whose command fails (exit status not 0, a signal) or whose trace
 * cannot be read is stored as failed with its reason, and the sweep goes
 * on.  SIGINT/SIGTERM stop the run under way, which is not stored; the
 * same command resumes.  Exit status: 0 when every run is stored (done or
 * failed), 1 when the specification or the database cannot be used or a
 * run cannot be recorded at all (no privilege...), 2 for bad usage, 130
 * when interrupted.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

#include "analysis/sweep/db.h"
#include "analysis/sweep/measure.h"
#include "analysis/sweep/spec.h"
#include "base/errors.h"
#include "base/readfile.h"
#include "capture/record.h"

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	stop_signal = sig;
}

struct sweep_args {
	const char *spec, *output, *traces;
	int backend, dry_run;
};

enum { OPT_TRACES = 256, OPT_BACKEND, OPT_DRY_RUN };

static const struct option long_options[] = {
	{ "help", no_argument, NULL, 'h' },
	{ "output", required_argument, NULL, 'o' },
	{ "keep-traces", required_argument, NULL, OPT_TRACES },
	{ "backend", required_argument, NULL, OPT_BACKEND },
	{ "dry-run", no_argument, NULL, OPT_DRY_RUN },
	{ NULL, 0, NULL, 0 },
};

static void usage(FILE *out)
{
	fputs("usage: threadlens sweep [options] SPEC\n"
	      "\n"
	      "Run a measurement campaign: the specification's RUN command under every\n"
	      "combination of its attributes, REPEAT times each, each run recorded and\n"
	      "measured (its MODULE spans' CPU use as util does, their lengths as hist does,\n"
	      "frames, each thread's states), every result stored in an SQLite database.\n"
	      "Run it again to resume an interrupted sweep. docs/SWEEP.md.\n"
	      "\n"
	      "options:\n"
	      "  -o, --output FILE      the results database (default: SPEC with .db)\n"
	      "      --keep-traces DIR  keep each run's trace in DIR (default: dropped)\n"
	      "      --backend NAME     record's back end: bpf or perf (default: as record)\n"
	      "      --dry-run          list the runs and their commands, run nothing\n"
	      "\n"
	      "examples:\n"
	      "  threadlens sweep mcast.spec\n"
	      "  threadlens sweep --keep-traces traces -o mcast.db mcast.spec\n"
	      "  sqlite3 mcast.db 'SELECT num, avg(cpu_mean_ns) FROM params\n"
	      "                    JOIN modules USING (run) GROUP BY num'\n",
	      out);
}

/* Returns 0 to go on, or the exit status (2 usage, -1 after --help). */
static int parse_args(int argc, char **argv, struct sweep_args *a)
{
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "ho:", long_options, NULL)) != -1) {
		switch (c) {
		case 'h': usage(stdout); return -1;
		case 'o': a->output = optarg; break;
		case OPT_TRACES: a->traces = optarg; break;
		case OPT_DRY_RUN: a->dry_run = 1; break;
		case OPT_BACKEND:
			if (!strcmp(optarg, "bpf"))
				a->backend = TL_BACKEND_BPF;
			else if (!strcmp(optarg, "perf"))
				a->backend = TL_BACKEND_PERF;
			else
				return cli_bad_value("sweep", "--backend", optarg, "bpf or perf");
			break;
		default: return cli_usage_error("sweep");
		}
	}
	if (optind != argc - 1) {
		cli_error(optind == argc ? "sweep needs a specification file" : "sweep takes one specification file");
		return cli_usage_error("sweep");
	}
	a->spec = argv[optind];
	return 0;
}

/* The combination's parameters, "a=1 b=x", into buf. */
static void params_text(const struct tl_spec *s, const struct tl_spec_value **vals, char *buf, size_t cap)
{
	size_t n = 0;

	buf[0] = 0;
	for (size_t i = 0; i < s->nattrs && n < cap; i++)
		if (vals[i] && s->attrs[i].series >= 0)
			n += (size_t)snprintf(buf + n, cap - n, "%s%s=%s", n ? " " : "", s->attrs[i].name,
			                      vals[i]->str);
}

/* The last line of the file at path (the command's output), into buf; "" if none. */
static void last_line(const char *path, char *buf, size_t cap)
{
	char *text, *end, *start;
	size_t n;

	buf[0] = 0;
	if (tl_read_file(path, 1 << 24, &text, &n))
		return;
	end = text + n;
	while (end > text && (end[-1] == '\n' || end[-1] == '\r'))
		end--;
	*end = 0;
	start = strrchr(text, '\n');
	snprintf(buf, cap, "%.200s", start ? start + 1 : text);
	free(text);
}

struct sweep {
	struct sweep_args *a;
	struct tl_spec spec;
	struct tl_sweep_db *db;
	const struct tl_spec_value **vals;
	char host[65], kernel[65];
	char log[4096];
	uint64_t done, failed, skipped, total;
	double t0, run_s; /* the sweep's start; seconds spent on runs */
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void progress(struct sweep *sw, size_t c, long rep, const char *params)
{
	uint64_t ran = sw->done + sw->failed, left = sw->total - sw->skipped - ran;
	double eta = ran ? sw->run_s / (double)ran * (double)left : 0;
	char line[512], left_s[48] = "";

	if (ran) /* no estimate before the first run */
		snprintf(left_s, sizeof(left_s), ", about %.0f s left", eta);
	snprintf(line, sizeof(line), "sweep: combination %zu/%zu (%s), repetition %ld/%ld, %llu failed%s", c + 1,
	         tl_spec_combinations(&sw->spec), params, rep, sw->spec.repeat, (unsigned long long)sw->failed, left_s);
	if (cli_stderr_is_tty())
		fprintf(stderr, "\r\033[K%.*s", 100, line);
	else
		fprintf(stderr, "%s\n", line);
}

/*
 * Record the command into trace, its output into the log.  0 and the wait
 * status in *status, or -1 with tl_error set (the recording failed).
 */
static int record(struct sweep *sw, const char *cmd, const char *trace, struct tl_record_result *res)
{
	char *argv[] = { "/bin/sh", "-c", (char *)cmd, NULL };
	struct tl_record_opts o = { .output = trace, .backend = sw->a->backend, .argv = argv, .stop = &stop_signal };
	int fd = open(sw->log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600), out = dup(1), err = dup(2), rc;

	if (fd < 0 || out < 0 || err < 0) {
		rc = tl_error_errno("%s", sw->log);
	} else {
		fflush(stdout);
		fflush(stderr);
		dup2(fd, 1);
		dup2(fd, 2);
		rc = tl_record(&o, res);
		fflush(stdout);
		fflush(stderr);
		dup2(out, 1);
		dup2(err, 2);
	}
	if (fd >= 0)
		close(fd);
	if (out >= 0)
		close(out);
	if (err >= 0)
		close(err);
	return rc;
}

/* One run: recorded, measured, stored.  0 (stored, done or failed), 1 interrupted, -1 fatal (message given). */
static int one_run(struct sweep *sw, size_t c, long rep)
{
	struct tl_sweep_run_info ri = {
		.combination = c, .rep = rep, .exit_status = -1, .host = sw->host, .kernel = sw->kernel
	};
	struct tl_record_result res = { 0 };
	struct tl_sweep_measure m = { 0 };
	char trace[4200], started[32], error[320], params[160];
	char *cmd = tl_spec_command(&sw->spec, sw->vals, rep);
	time_t t = time(NULL);
	double t0 = now_s();
	int rc = 0, measured = 0;

	if (!cmd)
		return cli_lib_error();
	params_text(&sw->spec, sw->vals, params, sizeof(params));
	progress(sw, c, rep, params);
	strftime(started, sizeof(started), "%Y-%m-%dT%H:%M:%SZ", gmtime(&t));
	if (sw->a->traces)
		snprintf(trace, sizeof(trace), "%s/sweep%lld-c%zu-r%ld.tl", sw->a->traces,
		         (long long)tl_sweep_db_sweep(sw->db), c + 1, rep);
	else
		snprintf(trace, sizeof(trace), "%s.tl", sw->log);
	ri.command = cmd;
	ri.started = started;
	if (record(sw, cmd, trace, &res) < 0) {
		if (stop_signal)
			goto interrupted;
		rc = cli_lib_error(); /* no privilege, no tracepoint: every run would fail alike */
		goto out;
	}
	if (stop_signal)
		goto interrupted;
	ri.elapsed_ns = (uint64_t)(res.elapsed_s * 1e9);
	ri.events = res.events;
	ri.marks = res.marks;
	if (res.child_ran && WIFEXITED(res.child_status))
		ri.exit_status = WEXITSTATUS(res.child_status);
	else if (res.child_ran && WIFSIGNALED(res.child_status))
		ri.exit_status = 128 + WTERMSIG(res.child_status);
	if (ri.exit_status != 0) {
		char out[256];
		last_line(sw->log, out, sizeof(out));
		snprintf(error, sizeof(error), "the command exited with status %d%s%s", ri.exit_status,
		         out[0] ? ": " : "", out);
		ri.failed = 1;
	} else if (tl_sweep_measure(trace, &sw->spec, &m) < 0) {
		snprintf(error, sizeof(error), "its trace cannot be measured: %s", tl_error_msg());
		ri.failed = 1;
	} else {
		measured = 1;
	}
	ri.error = ri.failed ? error : NULL;
	ri.trace = sw->a->traces ? trace : NULL;
	if (tl_sweep_db_add(sw->db, &sw->spec, sw->vals, &ri, measured ? &m : NULL) < 0) {
		rc = cli_lib_error();
		goto out;
	}
	sw->failed += ri.failed;
	sw->done += !ri.failed;
	sw->run_s += now_s() - t0;
	goto out;
interrupted:
	rc = 1;
out:
	if (!sw->a->traces)
		unlink(trace);
	tl_sweep_measure_release(&m);
	free(cmd);
	return rc;
}

static int dry_run(struct sweep *sw)
{
	size_t n = tl_spec_combinations(&sw->spec);

	for (size_t c = 0; c < n; c++) {
		char params[160], *cmd;
		tl_spec_combination(&sw->spec, c, sw->vals);
		params_text(&sw->spec, sw->vals, params, sizeof(params));
		if (!(cmd = tl_spec_command(&sw->spec, sw->vals, 1)))
			return cli_lib_error();
		printf("%zu\t%s\t%s\n", c + 1, params, cmd);
		free(cmd);
	}
	printf("%zu combinations x %ld repetitions = %zu runs\n", n, sw->spec.repeat, n * (size_t)sw->spec.repeat);
	return ferror(stdout) ? 1 : 0;
}

static int sweep_all(struct sweep *sw)
{
	size_t n = tl_spec_combinations(&sw->spec);
	int rc = 0;

	sw->total = n * (uint64_t)sw->spec.repeat;
	for (size_t c = 0; c < n && !rc; c++) {
		tl_spec_combination(&sw->spec, c, sw->vals);
		for (long rep = 1; rep <= sw->spec.repeat && !rc; rep++) {
			int has = tl_sweep_db_has(sw->db, c, rep);
			if (has < 0)
				return cli_lib_error();
			if (has) {
				sw->skipped++;
				continue;
			}
			rc = one_run(sw, c, rep);
		}
	}
	if (cli_stderr_is_tty())
		fputs("\r\033[K", stderr);
	if (rc == 1) {
		fprintf(stderr, "threadlens: sweep interrupted after %llu of %llu runs; run it again to resume\n",
		        (unsigned long long)(sw->done + sw->failed + sw->skipped), (unsigned long long)sw->total);
		return 130;
	}
	if (rc)
		return rc;
	fprintf(stderr,
	        "threadlens: sweep of %llu runs (%zu combinations x %ld): %llu done, %llu failed, "
	        "%llu stored before; results in '%s' (sweep %lld)\n",
	        (unsigned long long)sw->total, n, sw->spec.repeat, (unsigned long long)sw->done,
	        (unsigned long long)sw->failed, (unsigned long long)sw->skipped, sw->a->output,
	        (long long)tl_sweep_db_sweep(sw->db));
	return 0;
}

static void catch_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal; /* no SA_RESTART: the recorder's poll() must return to see the flag */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

int cmd_sweep(int argc, char **argv)
{
	struct sweep_args a = { 0 };
	struct sweep sw = { .a = &a };
	struct utsname u;
	char *text = NULL, *db_path = NULL;
	int rc, fd;

	rc = parse_args(argc, argv, &a);
	if (rc)
		return rc < 0 ? 0 : rc;
	if (tl_read_text(a.spec, 1 << 20, "the specification", &text) < 0 ||
	    tl_spec_parse(text, a.spec, &sw.spec) < 0) {
		free(text);
		return cli_lib_error();
	}
	if (!(sw.vals = calloc(sw.spec.nattrs + 1, sizeof(*sw.vals)))) {
		rc = cli_error("out of memory");
		goto out;
	}
	if (a.dry_run) {
		rc = dry_run(&sw);
		goto out;
	}
	if (!sw.spec.run[0]) {
		rc = cli_error("the specification %s has no RUN line: sweep needs the command to measure", a.spec);
		goto out;
	}
	if (a.traces && mkdir(a.traces, 0755) < 0 && errno != EEXIST) {
		rc = cli_error("%s: %s", a.traces, strerror(errno));
		goto out;
	}
	if (!a.output) { /* SPEC without its extension, plus .db */
		const char *base = strrchr(a.spec, '/'), *dot;
		size_t n = strlen(a.spec);
		base = base ? base + 1 : a.spec;
		if ((dot = strrchr(base, '.')) && dot > base)
			n = (size_t)(dot - a.spec);
		if (!(db_path = malloc(n + 4))) {
			rc = cli_error("out of memory");
			goto out;
		}
		memcpy(db_path, a.spec, n);
		memcpy(db_path + n, ".db", 4);
		a.output = db_path;
	}
	if (tl_sweep_db_open(a.output, a.spec, text, &sw.spec, &sw.db) < 0) {
		rc = cli_lib_error();
		goto out;
	}
	snprintf(sw.log, sizeof(sw.log), "%s/threadlens-sweep-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if ((fd = mkstemp(sw.log)) < 0) {
		rc = cli_error("%s: %s", sw.log, strerror(errno));
		goto out;
	}
	close(fd);
	if (uname(&u) == 0) {
		snprintf(sw.host, sizeof(sw.host), "%s", u.nodename);
		snprintf(sw.kernel, sizeof(sw.kernel), "%s", u.release);
	}
	catch_signals();
	sw.t0 = now_s();
	rc = sweep_all(&sw);
	unlink(sw.log);
out:
	tl_sweep_db_close(sw.db);
	tl_spec_release(&sw.spec);
	free(sw.vals);
	free(text);
	free(db_path);
	return rc;
}
