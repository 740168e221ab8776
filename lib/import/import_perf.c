/*
 * import_perf.c - `perf sched record` data (perf.data, or the text of
 * `perf script`) into a threadlens trace (see import.h).
 *
 * perf.data is never parsed here: `perf script --header --ns -F comm,tid,
 * pid,cpu,time,event,trace` renders it as text, using the kernel's own
 * format files for the field layouts, and the text goes through the line
 * parser of perf_script.c.  Text input is told from perf.data by perf's
 * magic, and from other files by the absence of NUL bytes and, within the
 * first DETECT_LINES lines, of any sample or perf header line.
 *
 * Invariants: memory is bounded by the number of threads (the parser's tid
 * map), a fixed line buffer and PREFIX_EVENTS held-back events: the first
 * events wait until the trace file is created, so that its metadata can
 * name the CPUs and the traced command's pid.  perf script prints samples
 * in time order, so every flush can use the last timestamp as watermark.
 * On failure no output file is left behind.
 */
#include "import/import.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/errors.h"
#include "base/strtab.h"

#define MAX_LINE TL_PERF_MAX_LINE
#define PREFIX_EVENTS 4096
#define DETECT_LINES 1000

struct importer {
	const struct tl_import_opts *opts;
	struct tl_perf_parser *parser;
	struct tl_trace_writer *w;
	struct tl_strtab strings; /* ids handed out before the writer exists */
	struct tl_event *prefix;  /* events held back until the writer exists */
	size_t nprefix;
	uint64_t last_ts, unflushed;
};

static int imp_create_writer(struct importer *im)
{
	struct tl_trace_info info = *tl_perf_parser_info(im->parser);
	const struct tl_import_result *res = tl_perf_parser_result(im->parser);

	info.start_ns = res->first_ts;
	if (res->ncpus > info.ncpus)
		info.ncpus = res->ncpus;
	im->w = tl_trace_writer_create(im->opts->output, &info);
	if (!im->w)
		return -1;
	/* Interning in the same order gives the same ids. */
	for (uint32_t id = 1; id < tl_strtab_next_id(&im->strings); id++)
		if (tl_trace_writer_intern(im->w, tl_strtab_get(&im->strings, id)) != id)
			return tl_error("cannot write '%s': string table mismatch", im->opts->output);
	for (size_t i = 0; i < im->nprefix; i++)
		if (tl_trace_writer_add(im->w, &im->prefix[i]) < 0)
			return -1;
	free(im->prefix);
	im->prefix = NULL;
	return 0;
}

static int imp_event(void *ctx, const struct tl_event *ev)
{
	struct importer *im = ctx;

	im->last_ts = ev->ts;
	if (!im->w) {
		if (!im->prefix && !(im->prefix = malloc(PREFIX_EVENTS * sizeof(*im->prefix))))
			return tl_error("out of memory");
		im->prefix[im->nprefix++] = *ev;
		return im->nprefix < PREFIX_EVENTS ? 0 : imp_create_writer(im);
	}
	if (tl_trace_writer_add(im->w, ev) < 0)
		return -1;
	/* perf script output is sorted: nothing later can be older. */
	if (++im->unflushed >= 65536) {
		im->unflushed = 0;
		return tl_trace_writer_flush(im->w, ev->ts);
	}
	return 0;
}

static uint32_t imp_intern(void *ctx, const char *s)
{
	struct importer *im = ctx;
	if (im->w)
		return tl_trace_writer_intern(im->w, s);
	return tl_strtab_intern(&im->strings, s, strlen(s));
}

/* Feed every line of fd to the parser; give up early on text that is not perf's. */
static int imp_read_lines(struct importer *im, int fd, const char *what)
{
	size_t cap = 4 * MAX_LINE, start = 0, end = 0;
	char *buf = malloc(cap);
	int skipping = 0, ret = 0;

	if (!buf)
		return tl_error("out of memory");
	for (;;) {
		char *nl = memchr(buf + start, '\n', end - start);
		if (!nl && end - start > MAX_LINE) {
			/* An endless line: count it once, drop it up to its newline. */
			if (!skipping)
				tl_perf_parser_line(im->parser, buf + start, MAX_LINE + 1);
			skipping = 1;
			start = end;
			continue;
		}
		if (nl) {
			size_t len = (size_t)(nl - (buf + start));
			if (!skipping && tl_perf_parser_line(im->parser, buf + start, len) < 0) {
				ret = -1;
				break;
			}
			skipping = 0;
			start += len + 1;
			const struct tl_import_result *r = tl_perf_parser_result(im->parser);
			if (r->lines == DETECT_LINES && !r->samples && !r->header_lines) {
				ret = tl_error("cannot import '%s': neither a perf.data file nor 'perf script' output",
				               what);
				break;
			}
			continue;
		}
		/* Need more input: keep the partial line at the front. */
		memmove(buf, buf + start, end - start);
		end -= start;
		start = 0;
		ssize_t n = read(fd, buf + end, cap - end);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			ret = tl_error_errno("cannot read '%s'", what);
			break;
		}
		if (n == 0) {
			if (end && !skipping && tl_perf_parser_line(im->parser, buf, end) < 0)
				ret = -1;
			break;
		}
		end += (size_t)n;
	}
	free(buf);
	return ret;
}

/*
 * Run perf script on a perf.data; *out_fd gets its stdout, *err_fd a memory
 * file with its stderr.  from_path: perf was looked up in PATH (not given).
 */
static int spawn_perf(const char *perf, int from_path, const char *input, pid_t *pid, int *out_fd, int *err_fd)
{
	int out[2], ep[2], code = 0;
	int errmem = memfd_create("perf-stderr", MFD_CLOEXEC);

	if (errmem < 0 || pipe2(out, O_CLOEXEC) < 0 || pipe2(ep, O_CLOEXEC) < 0)
		return tl_error_errno("cannot run perf");
	*pid = fork();
	if (*pid < 0)
		return tl_error_errno("cannot run perf");
	if (*pid == 0) {
		char *argv[] = { (char *)perf, "script",      "--header",
			         "--ns",       "-F",          "comm,tid,pid,cpu,time,event,trace",
			         "-i",         (char *)input, NULL };
		if (dup2(out[1], 1) < 0 || dup2(errmem, 2) < 0)
			_exit(127);
		execvp(perf, argv);
		code = errno;
		if (write(ep[1], &code, sizeof(code)) < 0)
			_exit(127);
		_exit(127);
	}
	close(out[1]);
	close(ep[1]);
	ssize_t n = read(ep[0], &code, sizeof(code)); /* EOF: the exec worked */
	close(ep[0]);
	if (n == sizeof(code)) {
		close(out[0]);
		close(errmem);
		waitpid(*pid, NULL, 0);
		if (code == ENOENT && from_path)
			return tl_error("cannot import '%s': perf is not installed (it reads perf.data; install "
			                "linux-perf, or import 'perf script' text)",
			                input);
		errno = code;
		return tl_error_errno("cannot import '%s': cannot run '%s'", input, perf);
	}
	*out_fd = out[0];
	*err_fd = errmem;
	return 0;
}

/* The first line of perf's stderr that is not one of its routine notes. */
static void perf_complaint(int fd, char *msg, size_t cap)
{
	char buf[4096], *line, *save = NULL;
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);

	msg[0] = 0;
	if (n <= 0)
		return;
	buf[n] = 0;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (strstr(line, "not valid for") || !*line)
			continue;
		snprintf(msg, cap, ": %s", line);
		return;
	}
}

int tl_import_perf(const struct tl_import_opts *opts, struct tl_import_result *res)
{
	struct importer im = { .opts = opts };
	struct tl_perf_sink sink = { imp_event, imp_intern, &im };
	const char *perf = opts->perf ? opts->perf : "perf";
	char head[4096];
	int fd, err_fd = -1, ret = -1;
	pid_t pid = -1;
	ssize_t n;

	memset(res, 0, sizeof(*res));
	tl_strtab_init(&im.strings);
	fd = strcmp(opts->input, "-") ? open(opts->input, O_RDONLY | O_CLOEXEC) : 0;
	if (fd < 0)
		return tl_error_errno("cannot open '%s'", opts->input);
	/* Peek without consuming, so text is then read from its start (pipes: no peek). */
	n = pread(fd, head, sizeof(head), 0);
	if (n == 0) {
		ret = tl_error("cannot import '%s': the file is empty", opts->input);
		goto out;
	}
	im.parser = tl_perf_parser_new(&sink);
	if (!im.parser)
		goto out;
	if (n >= 8 && (!memcmp(head, "PERFILE2", 8) || !memcmp(head, "PERFFILE", 8))) {
		int data_fd = -1;
		res->from_perf_data = 1;
		if (spawn_perf(perf, !opts->perf, opts->input, &pid, &data_fd, &err_fd) < 0)
			goto out;
		if (fd)
			close(fd);
		fd = data_fd;
	} else if (n > 0 && memchr(head, 0, (size_t)n)) {
		ret = tl_error("cannot import '%s': neither a perf.data file nor 'perf script' output", opts->input);
		goto out;
	}

	ret = imp_read_lines(&im, fd, opts->input);
	if (pid > 0) {
		int status = 0;
		char why[256];
		close(fd);
		fd = -1;
		waitpid(pid, &status, 0);
		if (!ret && (!WIFEXITED(status) || WEXITSTATUS(status))) {
			perf_complaint(err_fd, why, sizeof(why));
			ret = tl_error("cannot import '%s': perf script failed (%s %d)%s", opts->input,
			               WIFEXITED(status) ? "exit status" : "signal",
			               WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status), why);
		}
	}
	if (!ret) {
		const struct tl_import_result *r = tl_perf_parser_result(im.parser);
		if (!r->samples && !r->header_lines)
			ret = tl_error("cannot import '%s': neither a perf.data file nor 'perf script' output",
			               opts->input);
	}
	if (!ret && !im.w)
		ret = imp_create_writer(&im);
	if (!ret) {
		const struct tl_import_result *r = tl_perf_parser_result(im.parser);
		struct tl_trace_end end = { .end_ns = r->last_ts, .events = r->events, .ncpus = 0 };
		ret = tl_trace_writer_close(im.w, &end);
		im.w = NULL;
	}

out:
	if (im.parser) {
		int from = res->from_perf_data;
		*res = *tl_perf_parser_result(im.parser);
		res->from_perf_data = from;
		tl_perf_parser_free(im.parser);
	}
	if (im.w) {
		tl_trace_writer_abort(im.w);
		if (strcmp(opts->output, "-"))
			unlink(opts->output);
	}
	if (fd > 0)
		close(fd);
	if (err_fd >= 0)
		close(err_fd);
	free(im.prefix);
	tl_strtab_release(&im.strings);
	return ret;
}
