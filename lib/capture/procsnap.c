/*
 * procsnap.c - the /proc thread snapshot and the thread identity table
 * (see procsnap.h).
 *
 * The snapshot reads only small per-thread files (stat, wchan) and never
 * fails because a thread went away in between: /proc is a moving target.
 *
 * The identity table is open addressing with linear probing on the tid,
 * kept at most half full, with backward-shift deletion so that no
 * tombstones pile up: lookups stay short however many threads come and go
 * during a long recording, and memory follows the number of live threads.
 */
#include "capture/procsnap.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "base/errors.h"
#include "base/grow.h"
#include "trace/event.h"
#include "base/tidmap.h"
#include "trace/trace.h"

int64_t tl_procsnap_state_bits(char letter)
{
	switch (letter) {
	case 'S': return TL_PS_S;
	case 'D': return TL_PS_D;
	case 'T': return TL_PS_T;
	case 't': return TL_PS_TRACED;
	case 'Z': return TL_PS_Z;
	case 'X':
	case 'x': return TL_PS_X;
	case 'P': return TL_PS_P;
	case 'I': return TL_PS_I;
	default: return TL_PS_RUNNING; /* R, and letters of old kernels (W: waking) that mean runnable */
	}
}

unsigned tl_procsnap_wchan_hint(const char *wchan)
{
	/* Kernel functions a thread sleeps in while it waits for block I/O. */
	static const char *const io[] = { "io_schedule", "folio_wait", "wait_on_page", "bit_wait_io", "blk_" };
	unsigned hint = 0;

	if (strstr(wchan, "futex"))
		hint |= TL_WCHAN_FUTEX;
	for (size_t i = 0; i < sizeof(io) / sizeof(io[0]); i++)
		if (strstr(wchan, io[i]))
			hint |= TL_WCHAN_IO;
	return hint;
}

int tl_read_small(int dirfd, const char *path, char *buf, size_t len)
{
	int fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = 0;
	return 0;
}

static int is_number(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return 0;
	return 1;
}

/*
 * comm as the scheduler tracepoints show it.  /proc may show more than the
 * 15 bytes of task->comm: kernel threads their full name, workqueue workers
 * "kworker/0:1-events".  Cutting keeps the first THREAD event of a thread
 * equal to what its sched_switch events will say.
 */
static void set_comm(struct tl_procsnap_thread *t, const char *s, size_t len)
{
	if (len >= sizeof(t->comm))
		len = sizeof(t->comm) - 1;
	memcpy(t->comm, s, len);
	t->comm[len] = 0;
	if (!strncmp(t->comm, "kworker/", 8))
		t->comm[strcspn(t->comm + 8, "-+") + 8] = 0;
}

int tl_procsnap_identity(int tid, int *tgid, char comm[16])
{
	struct tl_procsnap_thread t;
	char path[64], buf[1024];
	const char *name, *tg;

	snprintf(path, sizeof(path), "/proc/%d/status", tid);
	if (tl_read_small(AT_FDCWD, path, buf, sizeof(buf)))
		return -1;
	name = strncmp(buf, "Name:\t", 6) ? NULL : buf + 6;
	tg = strstr(buf, "\nTgid:");
	if (!name || !tg)
		return -1;
	set_comm(&t, name, strcspn(name, "\n"));
	memcpy(comm, t.comm, sizeof(t.comm));
	*tgid = atoi(tg + 6);
	return 0;
}

/* Fill *t from the files of one thread directory.  -1 if it vanished. */
static int read_thread(int taskfd, const char *name, int tgid, struct tl_procsnap_thread *t)
{
	char stat[1024], path[sizeof(((struct dirent *)0)->d_name) + 8], wchan[128];
	const char *open_paren, *close_paren;

	memset(t, 0, sizeof(*t));
	t->tid = atoi(name);
	t->tgid = tgid;
	snprintf(path, sizeof(path), "%s/stat", name);
	if (tl_read_small(taskfd, path, stat, sizeof(stat)))
		return -1;
	/* "tid (comm) S ...": comm may hold spaces and parentheses, so search from both ends. */
	open_paren = strchr(stat, '(');
	close_paren = strrchr(stat, ')');
	if (!open_paren || !close_paren || close_paren < open_paren || close_paren[1] != ' ' || !close_paren[2])
		return -1;
	set_comm(t, open_paren + 1, (size_t)(close_paren - open_paren - 1));
	t->state = close_paren[2];
	t->ps_bits = tl_procsnap_state_bits(t->state) | TL_PS_SNAPSHOT;
	snprintf(path, sizeof(path), "%s/wchan", name);
	if (!tl_read_small(taskfd, path, wchan, sizeof(wchan)))
		t->wchan = tl_procsnap_wchan_hint(wchan);
	tl_affinity_read(t->tid, &t->aff);
	return 0;
}

int tl_procsnap_scan(const char *proc_root, int (*fn)(const struct tl_procsnap_thread *t, void *ctx), void *ctx)
{
	DIR *proc = opendir(proc_root);
	struct dirent *pe;
	int ret = 0;

	if (!proc)
		return tl_error_errno("cannot read '%s'", proc_root);
	while (!ret && (pe = readdir(proc))) {
		char path[sizeof(pe->d_name) + 8];
		DIR *task;
		struct dirent *te;
		int taskfd;

		if (!is_number(pe->d_name))
			continue;
		snprintf(path, sizeof(path), "%s/task", pe->d_name);
		taskfd = openat(dirfd(proc), path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (taskfd < 0)
			continue; /* the process is gone */
		task = fdopendir(taskfd);
		if (!task) {
			close(taskfd);
			continue;
		}
		while (!ret && (te = readdir(task))) {
			struct tl_procsnap_thread t;
			if (!is_number(te->d_name) || read_thread(taskfd, te->d_name, atoi(pe->d_name), &t))
				continue;
			ret = fn(&t, ctx);
		}
		closedir(task);
	}
	closedir(proc);
	return ret;
}

/* ---- the machine ---- */

int tl_procsnap_online_cpus(int *cpus, int max)
{
	FILE *f = fopen("/sys/devices/system/cpu/online", "r");
	char buf[4096], *p = buf;
	int n = 0;

	if (!f || !fgets(buf, sizeof(buf), f)) {
		long c = sysconf(_SC_NPROCESSORS_ONLN);
		if (f)
			fclose(f);
		if (c <= 0)
			return tl_error("cannot find the online cpus");
		for (int i = 0; i < c && n < max; i++)
			cpus[n++] = i;
		return n;
	}
	fclose(f);
	while (*p && *p != '\n') {
		char *end;
		long a = strtol(p, &end, 10), b = a;
		if (end == p || a < 0)
			return tl_error("cannot parse '/sys/devices/system/cpu/online'");
		p = end;
		if (*p == '-')
			b = strtol(p + 1, &p, 10);
		for (long c = a; c <= b && n < max; c++)
			cpus[n++] = (int)c;
		if (*p == ',')
			p++;
	}
	return n ? n : tl_error("no cpu is online");
}

void tl_procsnap_machine(struct tl_trace_info *in)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[512], *out = in->cpu_model;
	size_t len = sizeof(in->cpu_model);
	struct utsname u;

	if (!uname(&u))
		snprintf(in->kernel, sizeof(in->kernel), "%s", u.release);
	if (gethostname(in->hostname, sizeof(in->hostname) - 1))
		in->hostname[0] = 0;
	snprintf(out, len, "unknown");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');
		int model = !strncmp(line, "model name", 10);

		if (!colon || !(model || !strncmp(line, "Hardware", 8) || !strncmp(line, "Processor", 9)))
			continue;
		colon++;
		colon += strspn(colon, " \t");
		colon[strcspn(colon, "\n")] = 0;
		snprintf(out, len, "%s", colon);
		if (model)
			break;
	}
	fclose(f);
}

/* ---- identity table ---- */

struct tl_threads {
	struct tl_tidmap map; /* tid -> struct tl_thread_id */
	int32_t *retired;     /* tids waiting for tl_threads_sweep() */
	size_t nretired, capretired;
};

struct tl_threads *tl_threads_new(void)
{
	struct tl_threads *t = calloc(1, sizeof(*t));

	if (!t || tl_tidmap_init(&t->map, sizeof(struct tl_thread_id)) < 0) {
		free(t);
		tl_error("out of memory");
		return NULL;
	}
	return t;
}

void tl_threads_free(struct tl_threads *t)
{
	if (!t)
		return;
	tl_tidmap_release(&t->map);
	free(t->retired);
	free(t);
}

struct tl_thread_id *tl_threads_get(struct tl_threads *t, int32_t tid, int create, int *created)
{
	struct tl_thread_id *e;
	int made = 0;

	if (created)
		*created = 0;
	if (tid <= 0)
		return NULL;
	if (!create)
		return tl_tidmap_get(&t->map, tid);
	e = tl_tidmap_put(&t->map, tid, &made);
	if (e && made) {
		e->tgid = -1;
		if (created)
			*created = 1;
	}
	return e;
}

void tl_threads_remove(struct tl_threads *t, int32_t tid)
{
	tl_tidmap_remove(&t->map, tid);
}

size_t tl_threads_count(const struct tl_threads *t)
{
	return t->map.count;
}

int tl_threads_retire(struct tl_threads *t, int32_t tid, uint64_t ts)
{
	struct tl_thread_id *e = tl_threads_get(t, tid, 0, NULL);

	if (!e)
		return 0;
	if (TL_GROW(t->retired, t->capretired, t->nretired + 1) < 0)
		return -1;
	e->retired = ts ? ts : 1;
	t->retired[t->nretired++] = tid;
	return 0;
}

void tl_threads_sweep(struct tl_threads *t, uint64_t before)
{
	size_t keep = 0;

	for (size_t i = 0; i < t->nretired; i++) {
		struct tl_thread_id *e = tl_threads_get(t, t->retired[i], 0, NULL);
		if (!e || !e->retired)
			continue; /* already gone, or revived by a fork */
		if (e->retired >= before) {
			t->retired[keep++] = t->retired[i];
			continue;
		}
		if (e->since <= e->retired) /* nothing newer than its death: it is over */
			tl_threads_remove(t, t->retired[i]);
		else
			e->retired = 0;
	}
	t->nretired = keep;
}

int tl_threads_recheck_affinity(struct tl_threads *t, int (*fn)(void *ctx, int32_t tid, const struct tl_affinity *a),
                                void *ctx)
{
	struct tl_thread_id *e;
	size_t pos = 0;
	int r;

	while ((e = tl_tidmap_next(&t->map, &pos))) {
		struct tl_affinity a;
		uint64_t h;
		if (e->retired || !e->aff || tl_affinity_read(e->tid, &a) < 0 || (h = tl_affinity_hash(&a)) == e->aff)
			continue;
		e->aff = h;
		e->ncpus = a.count;
		if ((r = fn(ctx, e->tid, &a)))
			return r;
	}
	return 0;
}

/* ---- learning identities while recording ---- */

static int intern_comm(struct tl_trace_writer *w, const char *s, size_t len, uint32_t *id)
{
	char buf[32];

	if (len >= sizeof(buf))
		len = sizeof(buf) - 1;
	memcpy(buf, s, len);
	buf[len] = 0;
	*id = tl_trace_writer_intern(w, buf);
	return !*id && buf[0] ? tl_error_prefix("cannot store the name '%s'", buf) : 0;
}

int tl_threads_learn(struct tl_threads *t, struct tl_trace_writer *w, const struct tl_event *at, int32_t tid,
                     int32_t tgid, const char *comm, size_t comm_len, struct tl_event *th, struct tl_affinity *aff)
{
	struct tl_thread_id *e;
	char proc_comm[16];
	int created, changed, stale;

	aff->count = aff->nwords = 0;
	if (tid <= 0)
		return 0;
	e = tl_threads_get(t, tid, 1, &created);
	if (!e)
		return -1;
	changed = created;
	stale = !created && at->ts < e->since;
	if (created) {
		int ptgid;
		/* Once per thread, not per event: spares THREAD events that say "unknown" until it runs. */
		tl_affinity_read(tid, aff);
		e->ncpus = aff->count;
		e->aff = tl_affinity_hash(aff);
		if ((tgid <= 0 || !comm_len) && !tl_procsnap_identity(tid, &ptgid, proc_comm)) {
			if (tgid <= 0)
				tgid = ptgid;
			if (!comm_len) {
				comm = proc_comm;
				comm_len = strlen(proc_comm);
			}
		}
	}
	if (comm_len > sizeof(e->comm))
		comm_len = sizeof(e->comm);
	if (tgid > 0 && e->tgid != tgid && (!stale || e->tgid <= 0)) {
		e->tgid = tgid;
		changed = 1;
	}
	if (comm_len && (comm_len != e->comm_len || memcmp(comm, e->comm, comm_len)) && (!stale || !e->name)) {
		if (intern_comm(w, comm, comm_len, &e->name))
			return -1;
		e->comm_len = (uint8_t)comm_len;
		memcpy(e->comm, comm, comm_len);
		changed = 1;
	}
	if (!changed)
		return 0;
	if (at->ts > e->since)
		e->since = at->ts;
	memset(th, 0, sizeof(*th));
	th->ts = at->ts;
	th->type = TL_EV_THREAD;
	th->cpu = at->cpu;
	th->tid = tid;
	th->arg = e->tgid > 0 ? e->tgid : 0;
	th->name = e->name;
	th->c = e->ncpus;
	return 1;
}

struct snap_ctx {
	struct tl_trace_writer *w;
	struct tl_threads *ids;
	uint64_t ts, added;
	const int32_t *only; /* NULL: every process */
	int nonly;
};

static int snap_one(const struct tl_procsnap_thread *t, void *ctx)
{
	struct snap_ctx *c = ctx;
	struct tl_thread_id *e;
	struct tl_event ev = { .ts = c->ts,
		               .type = TL_EV_THREAD,
		               .cpu = -1,
		               .tid = t->tid,
		               .arg = t->tgid,
		               .a = t->ps_bits,
		               .b = t->wchan,
		               .c = t->aff.count };
	size_t len = strlen(t->comm);

	if (c->only) {
		int i = 0;
		while (i < c->nonly && c->only[i] != t->tgid)
			i++;
		if (i == c->nonly)
			return 0;
	}
	e = tl_threads_get(c->ids, t->tid, 1, NULL);

	if (!e || intern_comm(c->w, t->comm, len, &ev.name))
		return -1;
	e->tgid = t->tgid;
	e->name = ev.name;
	e->ncpus = t->aff.count;
	e->aff = tl_affinity_hash(&t->aff);
	e->since = c->ts;
	e->comm_len = (uint8_t)len;
	memcpy(e->comm, t->comm, len);
	if (tl_trace_writer_add(c->w, &ev))
		return -1;
	c->added++;
	{
		struct tl_event aff[TL_AFFINITY_WORDS];
		int n = tl_affinity_events(&t->aff, t->tid, c->ts, -1, aff, TL_AFFINITY_WORDS);
		for (int i = 0; i < n; i++) {
			if (tl_trace_writer_add(c->w, &aff[i]))
				return -1;
			c->added++;
		}
	}
	return 0;
}

int tl_procsnap_write(const char *proc_root, struct tl_trace_writer *w, struct tl_threads *ids, uint64_t ts,
                      const int32_t *only, int nonly, uint64_t *added)
{
	struct snap_ctx c = { w, ids, ts, 0, only, nonly };
	int ret = tl_procsnap_scan(proc_root, snap_one, &c);

	*added = c.added;
	return ret ? -1 : 0;
}
