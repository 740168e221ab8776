/*
 * uprobes.c - uprobes for `record --func` through tracefs (see uprobes.h).
 *
 * Invariants:
 * - Every probe written to uprobe_events is in u->funcs with its event
 *   name before the write, so tl_uprobes_close() (and the failure path of
 *   tl_uprobes_open()) removes exactly what was made, and only that.
 * - uprobe_events is only ever opened with O_APPEND: opening it for
 *   writing without O_APPEND truncates it, which deletes every probe on
 *   the system (and fails while any is in use).
 * - Nothing here runs per event: after attach, the kernel and the decode
 *   table do the work.
 */
#include "capture/uprobes.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "symbols/dwinline.h"
#include "symbols/elfsym.h"
#include "base/errors.h"
#include "base/grow.h"
#include "trace/event.h"
#include "capture/perf_ring.h"
#include "capture/tp_decode.h"

#define GROUP_PREFIX "threadlens_"
#define MAX_FUNCS (TL_TP_MAX_DYNAMIC / 2)
#define REMOVE_TRIES 50 /* x 20 ms: the kernel frees a closed perf event's probe reference soon after */

struct tl_uprobes {
	char tracing[256];
	char group[32];
	int n;
	size_t cap;
	struct tl_uprobe_func *funcs;
	int made; /* funcs[0..made) have both probes in tracefs (the last may have one) */
	int half; /* funcs[made] has its entry probe only */
};

/* ---- pure parts ---- */

static int same_file(const char *a, const char *b)
{
	struct stat sa, sb;

	return a && b && !stat(a, &sa) && !stat(b, &sb) && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* The ':' of FILE:SYMBOL: the last one that is not part of a C++ "::" (ns::work, lib.so:ns::work). */
static const char *file_colon(const char *item)
{
	const char *c = NULL;

	for (const char *p = item; *p; p++)
		if (*p == ':' && p[1] != ':' && (p == item || p[-1] != ':'))
			c = p;
	return c;
}

/* tl_uprobes_resolve() up to the symbol: path, symbol and label. */
static int resolve_file(const char *item, const char *default_file, struct tl_uprobe_func *f)
{
	const char *colon = file_colon(item), *sym = colon ? colon + 1 : item;
	char given[1024], found[1024], *real;

	memset(f, 0, sizeof(*f));
	f->entry_id = f->exit_id = -1;
	if (!*sym)
		return tl_error("no function name in '%s'", item);
	if (strlen(sym) >= sizeof(f->symbol))
		return tl_error("function name '%.40s...' is too long", sym);
	snprintf(f->symbol, sizeof(f->symbol), "%s", sym);
	if (colon) {
		if ((size_t)(colon - item) >= sizeof(given))
			return tl_error("file name in '%.40s...' is too long", item);
		memcpy(given, item, (size_t)(colon - item));
		given[colon - item] = 0;
		if (tl_elfsym_find_file(given, found, sizeof(found)))
			return -1;
	} else {
		if (!default_file)
			return tl_error("no file to look up '%s' in: without a command or -p, give it as "
			                "--func FILE:%s",
			                sym, sym);
		snprintf(found, sizeof(found), "%s", default_file);
	}
	real = realpath(found, NULL);
	if (!real)
		return tl_error_errno("cannot open '%s'", found);
	if (strlen(real) >= sizeof(f->path) || strpbrk(real, " \t\n")) {
		tl_error("cannot probe a file whose path is long or has spaces ('%s')", real);
		free(real);
		return -1;
	}
	snprintf(f->path, sizeof(f->path), "%s", real);
	free(real);
	if (!colon || same_file(f->path, default_file)) {
		snprintf(f->label, sizeof(f->label), "%s", sym);
	} else {
		const char *base = strrchr(found, '/');
		snprintf(f->label, sizeof(f->label), "%.60s:%s", base ? base + 1 : found, sym);
	}
	return 0;
}

int tl_uprobes_resolve(const char *item, const char *default_file, struct tl_uprobe_func *f)
{
	struct tl_elfsym es;

	if (resolve_file(item, default_file, f) || tl_elfsym_lookup(f->path, f->symbol, &es))
		return -1;
	f->offset = es.offset;
	return 0;
}

int tl_uprobes_command_path(const char *argv0, char *out, size_t len)
{
	const char *path = getenv("PATH");
	char buf[PATH_MAX], *real;

	if (!argv0 || !*argv0)
		return tl_error("no command");
	if (strchr(argv0, '/')) {
		snprintf(buf, sizeof(buf), "%s", argv0);
	} else {
		const char *p = path && *path ? path : "/bin:/usr/bin";
		int found = 0;

		while (!found) {
			const char *end = strchr(p, ':');
			size_t n = end ? (size_t)(end - p) : strlen(p);
			struct stat st;

			/* an empty PATH entry is the current directory, as for execvp() */
			snprintf(buf, sizeof(buf), "%.*s%s%s", (int)n, p, n ? "/" : "", argv0);
			found = !stat(buf, &st) && S_ISREG(st.st_mode) && !access(buf, X_OK);
			if (!end)
				break;
			p = end + 1;
		}
		if (!found)
			return tl_error("cannot find '%s' in PATH to look up its functions", argv0);
	}
	real = realpath(buf, NULL);
	if (!real)
		return tl_error_errno("cannot open '%s'", buf);
	snprintf(out, len, "%s", real);
	free(real);
	return 0;
}

void tl_uprobes_event_name(const char *label, char *out, size_t len)
{
	char base[49];
	size_t k = 0;

	for (const char *p = label; *p && k < sizeof(base) - 1; p++) {
		unsigned char c = (unsigned char)*p;
		base[k++] = isalnum(c) && c < 128 ? (char)c : '_';
	}
	base[k] = 0;
	if (!k || isdigit((unsigned char)base[0])) {
		memmove(base + 1, base, k < sizeof(base) - 2 ? k + 1 : sizeof(base) - 2);
		base[0] = 'f';
		base[sizeof(base) - 1] = 0;
	}
	snprintf(out, len, "%s", base);
}

int tl_uprobes_stale(const char *text, int self, int (*is_alive)(int pid), void (*fn)(const char *ge, void *ctx),
                     void *ctx)
{
	int count = 0;

	for (const char *line = text; line && *line;) {
		const char *nl = strchr(line, '\n'), *g, *sp;
		size_t n = nl ? (size_t)(nl - line) : strlen(line);
		char ge[160];
		char *end;
		long pid;

		/* "p:threadlens_1234/name /path:0x..." (or "r:") */
		g = line + 2;
		if (n > 2 + strlen(GROUP_PREFIX) && (line[0] == 'p' || line[0] == 'r') && line[1] == ':' &&
		    !strncmp(g, GROUP_PREFIX, strlen(GROUP_PREFIX))) {
			pid = strtol(g + strlen(GROUP_PREFIX), &end, 10);
			sp = memchr(g, ' ', n - 2);
			if (*end == '/' && pid > 0 && pid <= INT_MAX && sp && sp > end + 1 &&
			    (size_t)(sp - g) < sizeof(ge) && (pid == self || !is_alive((int)pid))) {
				memcpy(ge, g, (size_t)(sp - g));
				ge[sp - g] = 0;
				fn(ge, ctx);
				count++;
			}
		}
		line = nl ? nl + 1 : NULL;
	}
	return count;
}

/* ---- tracefs ---- */

/* One command to uprobe_events.  0, or -1 with errno set. */
static int write_cmd(const char *tracing, const char *cmd)
{
	char path[512];
	size_t len = strlen(cmd);
	ssize_t w;
	int fd, e;

	snprintf(path, sizeof(path), "%s/uprobe_events", tracing);
	fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
	if (fd < 0)
		return -1;
	do
		w = write(fd, cmd, len);
	while (w < 0 && errno == EINTR);
	e = errno;
	close(fd);
	errno = e;
	return w == (ssize_t)len ? 0 : -1;
}

/* The kernel's reason for the last failed command, from tracefs' error_log, into buf ("" if none). */
static void last_kernel_error(const char *tracing, char *buf, size_t len)
{
	char path[512], line[512];
	FILE *f;

	buf[0] = 0;
	snprintf(path, sizeof(path), "%s/error_log", tracing);
	f = fopen(path, "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *e = strstr(line, "error: ");
		if (e) {
			e += 7;
			e[strcspn(e, "\n")] = 0;
			snprintf(buf, len, "%s", e);
		}
	}
	fclose(f);
}

static int pid_alive(int pid)
{
	char path[64], comm[32] = "";
	FILE *f;

	if (kill(pid, 0) && errno == ESRCH)
		return 0;
	/* A live process of another program has reused the pid of a dead recorder. */
	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	f = fopen(path, "re");
	if (!f)
		return 1;
	if (!fgets(comm, sizeof(comm), f))
		comm[0] = 0;
	fclose(f);
	return !strncmp(comm, "threadlens", 10) || !comm[0];
}

static void remove_stale_one(const char *ge, void *ctx)
{
	char cmd[192];

	snprintf(cmd, sizeof(cmd), "-:%s\n", ge);
	(void)write_cmd(ctx, cmd); /* in use or already gone: nothing to do about it */
}

/* Remove the groups of recorders that are gone. */
static void remove_stale(const char *tracing)
{
	char path[512];
	size_t len = 0;
	char *text;
	FILE *f;

	snprintf(path, sizeof(path), "%s/uprobe_events", tracing);
	f = fopen(path, "re");
	if (!f)
		return;
	text = NULL;
	if (getdelim(&text, &len, 0, f) > 0)
		tl_uprobes_stale(text, (int)getpid(), pid_alive, remove_stale_one, (void *)tracing);
	free(text);
	fclose(f);
}

void tl_uprobes_clean_stale(const char *tracing)
{
	remove_stale(tracing);
}

static int remove_event(const struct tl_uprobes *u, const char *event, char *err, size_t errlen)
{
	char cmd[192];

	snprintf(cmd, sizeof(cmd), "-:%s/%s\n", u->group, event);
	for (int i = 0; i < REMOVE_TRIES; i++) {
		struct timespec ts = { 0, 20000000 };
		if (!write_cmd(u->tracing, cmd) || errno == ENOENT)
			return 0;
		if (errno != EBUSY)
			break;
		nanosleep(&ts, NULL);
	}
	snprintf(err, errlen, "%s", strerror(errno));
	return -1;
}

static int make_probe(struct tl_uprobes *u, const struct tl_uprobe_func *f, int ret)
{
	char cmd[1300], why[256];
	int e;

	snprintf(cmd, sizeof(cmd), "%c:%s/%s%s %s:0x%llx\n", ret ? 'r' : 'p', u->group, f->event, ret ? "_ret" : "",
	         f->path, (unsigned long long)f->offset);
	if (!write_cmd(u->tracing, cmd))
		return 0;
	e = errno;
	cmd[strlen(cmd) - 1] = 0;
	if (e == EACCES || e == EPERM)
		return tl_error("cannot write '%s/uprobe_events': %s; --func needs root", u->tracing, strerror(e));
	if (e == ENOENT && access(u->tracing, F_OK) == 0) {
		char path[512];
		snprintf(path, sizeof(path), "%s/uprobe_events", u->tracing);
		if (access(path, F_OK))
			return tl_error("this kernel has no uprobes ('%s' is missing: CONFIG_UPROBE_EVENTS)", path);
	}
	last_kernel_error(u->tracing, why, sizeof(why));
	return tl_error("cannot create the uprobe '%s': %s%s%s", cmd, strerror(e), why[0] ? ": " : "", why);
}

/* Read a created event's format and teach it to the decode table. */
static int learn_probe(struct tl_uprobes *u, struct tl_tp_table *t, const struct tl_uprobe_func *f, int ret, int *id)
{
	char name[80];
	size_t len = 0;
	char *text;

	snprintf(name, sizeof(name), "%s%s", f->event, ret ? "_ret" : "");
	text = tl_tracefs_format(u->tracing, u->group, name, &len);
	if (!text)
		return tl_error_errno("cannot read the format of the uprobe '%s/%s'", u->group, name);
	*id = tl_tp_table_add_dynamic(t, text, len, ret ? TL_EV_FUNC_EXIT : TL_EV_FUNC_ENTRY,
	                              f->inlined ? TL_EVF_INLINED : 0, f->label);
	free(text);
	return *id < 0 ? -1 : 0;
}

/* 1 if event name e, or its return probe's e_ret, is one of the probes' names already. */
static int name_taken(const struct tl_uprobes *u, const char *e)
{
	size_t n = strlen(e);

	for (int i = 0; i < u->n; i++) {
		const char *o = u->funcs[i].event;
		size_t on = strlen(o);
		if (!strcmp(o, e) || (n == on + 4 && !strncmp(e, o, on) && !strcmp(e + on, "_ret")) ||
		    (on == n + 4 && !strncmp(o, e, n) && !strcmp(o + n, "_ret")))
			return 1;
	}
	return 0;
}

/* One probe more (an out-of-line function, or an inlined copy), with an event name of its own. */
static int push_func(struct tl_uprobes *u, struct tl_uprobe_func *f, const char *suffix)
{
	for (int i = 0; i < u->n; i++)
		if (u->funcs[i].offset == f->offset && !strcmp(u->funcs[i].path, f->path) &&
		    !strcmp(u->funcs[i].label, f->label) && u->funcs[i].inlined == f->inlined)
			return 0; /* named twice: one probe */
	if (u->n >= MAX_FUNCS)
		return tl_error("too many functions to probe (at most %d, inlined copies included)", MAX_FUNCS);
	if (TL_GROW(u->funcs, u->cap, (size_t)u->n + 1) < 0)
		return -1;
	/* Labels differ, but sanitized names can clash ("a.b", "a_b"; "f_ret" and f's return probe). */
	tl_uprobes_event_name(f->label, f->event, sizeof(f->event));
	if (*suffix || name_taken(u, f->event)) {
		char base[41];
		size_t bl = strnlen(f->event, sizeof(base) - 1);
		memcpy(base, f->event, bl);
		base[bl] = 0;
		snprintf(f->event, sizeof(f->event), "%s%s", base, suffix);
		if (name_taken(u, f->event))
			snprintf(f->event, sizeof(f->event), "%s%s_%d", base, suffix, u->n);
	}
	u->funcs[u->n++] = *f;
	return 0;
}

/*
 * One --func item: its symbol's entry and return, and the entry of every
 * copy DWARF says was inlined (symbols/dwinline.h), with a note that says
 * so.  An item with neither is the symbol's error.
 */
static int add_func(struct tl_uprobes *u, const char *item, const char *default_file)
{
	struct tl_uprobe_func f;
	struct tl_inline_sites in;
	struct tl_elfsym es;
	char sym_err[512] = "", where[160];
	int have_sym, first = u->n;

	memset(&f, 0, sizeof(f));
	if (resolve_file(item, default_file, &f))
		return -1;
	f.entry_id = f.exit_id = -1;
	have_sym = !tl_elfsym_lookup(f.path, f.symbol, &es);
	if (have_sym)
		f.offset = es.offset;
	else
		snprintf(sym_err, sizeof(sym_err), "%s", tl_error_msg());
	if (tl_inline_find(f.path, f.symbol, &in)) {
		if (!have_sym)
			return tl_error("%s", sym_err);
		memset(&in, 0, sizeof(in)); /* broken DWARF: the symbol alone, as without DWARF */
	}
	if (!have_sym && !in.n) {
		tl_inline_sites_free(&in);
		return tl_error("%s", sym_err);
	}
	if (have_sym && push_func(u, &f, "")) {
		tl_inline_sites_free(&in);
		return -1;
	}
	for (size_t i = 0; i < in.n; i++) {
		struct tl_uprobe_func g = f;
		char suffix[16];

		g.inlined = 1;
		g.offset = in.v[i].offset;
		snprintf(suffix, sizeof(suffix), "_i%u", (unsigned)i % 10000);
		if (push_func(u, &g, suffix)) {
			tl_inline_sites_free(&in);
			return -1;
		}
	}
	if (in.n && u->n > first && /* a note cut short is still the note */
	    snprintf(u->funcs[first].note, sizeof(u->funcs[first].note),
	             "function '%s' %s inlined at %s: %zu cop%s probed at %s entry; %s calls are counted, "
	             "without durations%s",
	             f.label, have_sym ? "is also" : "has no symbol of its own; it is",
	             tl_inline_where(&in, where, sizeof(where)), in.n, in.n == 1 ? "y" : "ies",
	             in.n == 1 ? "its" : "their", in.n == 1 ? "its" : "their",
	             in.more ? "; more copies than can be probed: some calls are not counted" : "") >=
	            (int)sizeof(u->funcs[first].note))
		memcpy(u->funcs[first].note + sizeof(u->funcs[first].note) - 4, "...", 4);
	tl_inline_sites_free(&in);
	return 0;
}

/* The file that plain SYMBOL items refer to: the command's or the first -p process's executable. */
static int default_file(const struct tl_uprobes_spec *o, char *out, size_t len)
{
	if (o->command)
		return tl_uprobes_command_path(o->command, out, len) ? -1 : 1;
	if (o->pid > 0) {
		char link[64];
		ssize_t n;

		snprintf(link, sizeof(link), "/proc/%d/exe", o->pid);
		n = readlink(link, out, len - 1);
		if (n < 0)
			return tl_error_errno("cannot find the executable of process %d", o->pid);
		out[n] = 0;
		/* A binary replaced since it started: probe the one that runs. */
		if (n > 10 && !strcmp(out + n - 10, " (deleted)"))
			snprintf(out, len, "%s", link);
		return 1;
	}
	return 0;
}

static int parse_all(struct tl_uprobes *u, const struct tl_uprobes_spec *o)
{
	char def[PATH_MAX], def_err[512] = "";
	int have_def;

	/* Looked up first, so that the program named as FILE is recognised as the program. */
	have_def = default_file(o, def, sizeof(def));
	if (have_def < 0)
		snprintf(def_err, sizeof(def_err), "%s", tl_error_msg()); /* an error only if it is needed */
	for (int i = 0; i < o->nfuncs; i++) {
		char *list = strdup(o->funcs[i] ? o->funcs[i] : ""), *save = NULL;
		int items = 0, bad = 0;

		if (!list)
			return tl_error("out of memory");
		for (char *item = strtok_r(list, ",", &save); item && !bad; item = strtok_r(NULL, ",", &save)) {
			items++;
			if (!strchr(item, ':') && have_def < 0)
				bad = tl_error("%s", def_err);
			else
				bad = add_func(u, item, have_def > 0 ? def : NULL);
		}
		free(list);
		if (bad)
			return -1;
		if (!items)
			return tl_error("no function in --func '%s'", o->funcs[i] ? o->funcs[i] : "");
	}
	return 0;
}

struct tl_uprobes *tl_uprobes_open(const char *tracing, const struct tl_uprobes_spec *o, struct tl_tp_table *t)
{
	struct tl_uprobes *u = calloc(1, sizeof(*u));

	if (!u) {
		tl_error("out of memory");
		return NULL;
	}
	snprintf(u->tracing, sizeof(u->tracing), "%s", tracing);
	snprintf(u->group, sizeof(u->group), GROUP_PREFIX "%d", (int)getpid());
	if (parse_all(u, o))
		goto fail;
	if (!u->n)
		return u;
	remove_stale(tracing);
	for (int i = 0; i < u->n; i++) {
		struct tl_uprobe_func *f = &u->funcs[i];

		if (make_probe(u, f, 0))
			goto fail;
		u->half = 1;
		if (!f->inlined && make_probe(u, f, 1))
			goto fail;
		u->half = 0;
		u->made = i + 1;
		if (learn_probe(u, t, f, 0, &f->entry_id) || (!f->inlined && learn_probe(u, t, f, 1, &f->exit_id)))
			goto fail;
	}
	return u;
fail : {
	char msg[512];
	snprintf(msg, sizeof(msg), "%s", tl_error_msg());
	tl_uprobes_close(u, NULL, NULL);
	tl_error("%s", msg);
	return NULL;
}
}

struct tl_uprobes *tl_uprobes_plan(const struct tl_uprobes_spec *o)
{
	struct tl_uprobes *u = calloc(1, sizeof(*u));

	if (!u) {
		tl_error("out of memory");
		return NULL;
	}
	if (parse_all(u, o)) {
		char msg[512];

		snprintf(msg, sizeof(msg), "%s", tl_error_msg());
		tl_uprobes_close(u, NULL, NULL);
		tl_error("%s", msg);
		return NULL;
	}
	return u; /* nothing made in tracefs: close only frees it */
}

int tl_uprobes_count(const struct tl_uprobes *u)
{
	return u ? u->n : 0;
}

const struct tl_uprobe_func *tl_uprobes_func(const struct tl_uprobes *u, int i)
{
	return u && i >= 0 && i < u->n ? &u->funcs[i] : NULL;
}

/* Two more fds per function and CPU than the recorder planned for. */
static void raise_fd_limit(size_t more)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur >= rl.rlim_max)
		return;
	rl.rlim_cur =
	        rl.rlim_max == RLIM_INFINITY || rl.rlim_cur + more < rl.rlim_max ? rl.rlim_cur + more : rl.rlim_max;
	setrlimit(RLIMIT_NOFILE, &rl);
}

int tl_uprobes_attach(struct tl_uprobes *u, struct tl_perf_set *set)
{
	if (!u || !u->n)
		return 0;
	raise_fd_limit((size_t)u->n * 2 * (size_t)set->nrings);
	for (int r = 0; r < set->nrings; r++) {
		struct tl_perf_ring *ring = set->rings[r];
		int cpu = tl_perf_ring_cpu(ring);
		unsigned wake = (unsigned)(tl_perf_ring_size(ring) / 4);

		for (int i = 0; i < u->n; i++) {
			for (int ret = 0; ret < 2 - u->funcs[i].inlined; ret++) {
				const struct tl_uprobe_func *f = &u->funcs[i];
				int fd = tl_perf_tp_open((uint64_t)(ret ? f->exit_id : f->entry_id), cpu, wake);

				if (fd < 0)
					return tl_error("cannot open the uprobe of '%s' on cpu %d: %s", f->label, cpu,
					                strerror(errno));
				if (tl_perf_ring_attach(ring, fd)) {
					close(fd);
					return -1;
				}
			}
		}
	}
	return 0;
}

void tl_uprobes_close(struct tl_uprobes *u, void (*warn)(void *ctx, const char *msg), void *ctx)
{
	if (!u)
		return;
	for (int i = 0; i < u->made + u->half && i < u->n; i++) {
		for (int ret = 0; ret < 2; ret++) {
			char name[80], err[128], msg[320];

			if (ret && (i == u->made || u->funcs[i].inlined))
				break; /* its return probe was never made (or it has none) */
			snprintf(name, sizeof(name), "%s%s", u->funcs[i].event, ret ? "_ret" : "");
			if (remove_event(u, name, err, sizeof(err)) && warn) {
				snprintf(msg, sizeof(msg),
				         "cannot remove the uprobe '%s/%s': %s; the next recording removes it",
				         u->group, name, err);
				warn(ctx, msg);
			}
		}
	}
	free(u->funcs);
	free(u);
}
