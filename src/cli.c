/*
 * cli.c - helpers shared by the subcommands (see cli.h).
 */
#include "cli.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "base/errors.h"
#include "timeline/run.h"

int cli_error(const char *fmt, ...)
{
	va_list ap;
	fputs("threadlens: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return 1;
}

int cli_lib_error(void)
{
	return cli_error("%s", tl_error_msg());
}

void cli_warn(const char *fmt, ...)
{
	va_list ap;
	fputs("threadlens: warning: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int cli_usage_error(const char *cmd)
{
	fprintf(stderr, "threadlens: see 'threadlens %s --help'\n", cmd);
	return 2;
}

int64_t cli_parse_duration_ns(const char *s)
{
	char *end;
	double v, mult = 1e9;

	if (!s || !*s)
		return -1;
	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || v < 0)
		return -1;
	if (!strcmp(end, "") || !strcmp(end, "s"))
		mult = 1e9;
	else if (!strcmp(end, "ms"))
		mult = 1e6;
	else if (!strcmp(end, "us"))
		mult = 1e3;
	else if (!strcmp(end, "ns"))
		mult = 1;
	else
		return -1;
	if (v * mult > 9e18)
		return -1;
	return (int64_t)(v * mult + 0.5);
}

int cli_parse_time_ns(const char *s, int64_t *out)
{
	int64_t v = cli_parse_duration_ns(s);
	if (v < 0)
		return -1;
	*out = v;
	return 0;
}

int cli_parse_int_list(const char *s, int *out, int max)
{
	int n = 0;
	const char *p = s;

	while (*p) {
		char *end;
		long v;
		if (!isdigit((unsigned char)*p))
			return -1;
		errno = 0;
		v = strtol(p, &end, 10);
		if (errno || v <= 0 || v > 0x7fffffff || n >= max)
			return -1;
		out[n++] = (int)v;
		p = end;
		if (*p == ',')
			p++;
		else if (*p)
			return -1;
	}
	return n ? n : -1;
}

int cli_stderr_is_tty(void)
{
	return isatty(2);
}

int cli_bad_value(const char *cmd, const char *opt, const char *value, const char *want)
{
	cli_error("invalid %s '%s' (%s)", opt, value, want);
	return cli_usage_error(cmd);
}

int cli_window_arg(const char *cmd, int is_to, const char *arg, struct tl_run *run)
{
	if (cli_parse_time_ns(arg, is_to ? &run->to_ns : &run->from_ns))
		return cli_bad_value(cmd, is_to ? "--to time" : "--from time", arg,
		                     "seconds from the trace start, like 1.5 or 250ms");
	return 0;
}

int cli_ids_arg(const char *cmd, int is_tid, const char *arg, struct tl_run *run, struct cli_ids *ids)
{
	int *to = is_tid ? ids->tids : ids->pids;
	int n = cli_parse_int_list(arg, to, CLI_MAX_IDS);

	if (n < 0)
		return cli_bad_value(cmd, is_tid ? "--tid list" : "--pid list", arg,
		                     is_tid ? "thread ids separated by commas" : "process ids separated by commas");
	if (is_tid) {
		run->tids = to;
		run->ntids = n;
	} else {
		run->pids = to;
		run->npids = n;
	}
	return 0;
}

int cli_preempt_window_arg(const char *cmd, const char *arg, struct tl_run *run)
{
	int64_t v = cli_parse_duration_ns(arg);

	if (v <= 0)
		return cli_bad_value(cmd, "--preempt-window", arg, "a duration like 1ms or 500us");
	run->preempt_window_ns = (uint64_t)v;
	return 0;
}

int cli_trace_args(const char *cmd, int argc, char **argv, int first, int64_t from_ns, int64_t to_ns, const char **path)
{
	if (first >= argc) {
		cli_error("%s needs a trace file", cmd);
		return cli_usage_error(cmd);
	}
	if (first + 1 < argc) {
		cli_error("%s reads one trace file, but got '%s' too", cmd, argv[first + 1]);
		return cli_usage_error(cmd);
	}
	if (to_ns >= 0 && to_ns <= from_ns) {
		cli_error("the window is empty: --to must be after --from");
		return cli_usage_error(cmd);
	}
	*path = argv[first];
	return 0;
}

void cli_progress_show(double fraction, void *ctx)
{
	struct cli_progress *p = ctx;
	unsigned pass = p->passes && p->run ? p->run->passes : 0;
	int pct = (int)(fraction * 100), key = (int)pass * 1000 + pct;

	if (key == p->last)
		return;
	p->last = key;
	p->shown = 1;
	if (pass)
		fprintf(stderr, "\rthreadlens: %s, pass %u %3d%%", p->what, pass, pct);
	else
		fprintf(stderr, "\rthreadlens: %s %3d%%", p->what, pct);
}

void cli_run_progress(struct tl_run *run, struct cli_progress *p)
{
	p->run = run;
	if (cli_stderr_is_tty()) {
		run->progress = cli_progress_show;
		run->progress_ctx = p;
	}
}

void cli_run_warnings(const struct tl_run *run, const char *lost_note)
{
	for (int i = 0; i < run->read.nwarnings && i < TL_TRACE_MAX_WARNINGS; i++)
		cli_warn("%s", run->read.warnings[i]);
	if (run->lost_total && lost_note)
		cli_warn("the kernel dropped %" PRIu64 " events; %s", run->lost_total, lost_note);
}

int cli_inlined_calls(const struct tl_run *run, const char *name, int have_spans, int fatal)
{
	uint64_t n = tl_span_inlined_calls(&run->spans, name);

	if (!n)
		return 0;
	if (have_spans) {
		cli_warn("'%s' also ran %" PRIu64 " times in inlined copies: counted at their entry, not timed, not in "
		         "this output",
		         name, n);
		return 0;
	}
	if (fatal)
		cli_error("no span '%s' in '%s': its %" PRIu64 " calls all ran in inlined copies, which have no "
		          "duration (build it with __attribute__((noinline)) to time it)",
		          name, run->path, n);
	else
		cli_warn("no span '%s' in '%s': its %" PRIu64 " calls all ran in inlined copies, without durations",
		         name, run->path, n);
	return 1;
}

void cli_progress_end(struct cli_progress *p)
{
	if (p->shown)
		fputs("\r\033[K", stderr);
	p->shown = 0;
}

FILE *cli_output_open(const char *path)
{
	FILE *f;

	if (!path)
		return stdout;
	f = fopen(path, "w");
	if (!f)
		cli_error("cannot write '%s': %s", path, strerror(errno));
	return f;
}

int cli_output_close(FILE *out, const char *path, int write_failed)
{
	int rc = 0;

	if (write_failed) {
		if (out != stdout)
			fclose(out);
		rc = cli_error("cannot write '%s': %s", path ? path : "stdout", tl_error_msg());
	} else if (out != stdout && fclose(out)) {
		rc = cli_error("cannot write '%s': %s", path, strerror(errno));
	}
	if (rc && out != stdout)
		unlink(path); /* half a document is worse than none */
	return rc;
}

void cli_output_abandon(FILE *out, const char *path)
{
	if (out == stdout)
		return;
	fclose(out);
	unlink(path);
}

char *cli_output_beside(const char *cmd, const char *trace, const char *ext)
{
	size_t n = strlen(trace), size;
	char *s;

	if (!strcmp(trace, "-")) {
		cli_error("%s: give the output with -o when the trace comes from stdin", cmd);
		return NULL;
	}
	if (n > 3 && !strcmp(trace + n - 3, ".tl"))
		n -= 3;
	size = n + strlen(ext) + 1;
	if (!(s = malloc(size))) {
		cli_error("out of memory");
		return NULL;
	}
	snprintf(s, size, "%.*s%s", (int)n, trace, ext);
	return s;
}

int cli_width_arg(const char *cmd, const char *arg, int *width)
{
	long long v = strtoll(arg, NULL, 10);

	if (!*arg || strspn(arg, "0123456789") != strlen(arg) || v < 60 || v > 1000)
		return cli_bad_value(cmd, "--width", arg, "a number of columns, 60 to 1000");
	*width = (int)v;
	return 0;
}

int cli_terminal_width(const char *output)
{
	struct winsize ws;

	if (output || !isatty(1) || ioctl(1, TIOCGWINSZ, &ws) || !ws.ws_col)
		return 0;
	return ws.ws_col;
}
