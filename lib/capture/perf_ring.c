/*
 * perf_ring.c - perf_event_open() tracepoints, per-CPU mmap rings and the
 * tracefs files that name the tracepoints (see perf_ring.h).
 *
 * Invariants: r->tail is the position up to which records were handed out;
 * the kernel's data_tail is only moved forward to it in end(), after the
 * records were used.  r->head is the snapshot taken in begin(); next() never
 * reads past it.  Positions are free-running 64-bit byte counters; the
 * offset in the ring is pos & (size - 1).
 */
#include "capture/perf_ring.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <linux/perf_event.h>
#include <tracefs/tracefs.h>

#include "base/errors.h"
#include "base/grow.h"
#include "capture/procsnap.h"
#include "capture/tp_decode.h"

#define MAX_RECORD 65536 /* perf_event_header.size is 16 bits */
#define MIN_PAGES 8
#define PAGES_TOTAL 8192 /* default ring size: shared among the CPUs, 256 to 1024 pages (1-4 MB) each */
#define MAX_CPUS 4096

struct tl_perf_ring {
	int cpu;
	int nfds;
	size_t capfds;
	int *fds;  /* fds[0] owns the mapping */
	void *map; /* control page + data area */
	size_t map_len;
	uint8_t *data;
	uint64_t size; /* power of two */
	uint64_t head; /* snapshot from begin() */
	uint64_t tail; /* next record to hand out */
	uint64_t corrupt;
	uint8_t *bounce; /* MAX_RECORD bytes, for records that wrap */
};

int tl_perf_tp_open(uint64_t tp_id, int cpu, unsigned wakeup_bytes)
{
	struct perf_event_attr attr;
	int fd;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_TRACEPOINT;
	attr.config = tp_id;
	attr.sample_period = 1;
	attr.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_RAW;
	attr.disabled = 1;
	/* The same clock as the markers a program writes with clock_gettime(). */
	attr.use_clockid = 1;
	attr.clockid = CLOCK_MONOTONIC;
	/* LOST records then carry pid/tid and a timestamp too. */
	attr.sample_id_all = 1;
	attr.watermark = 1;
	attr.wakeup_watermark = wakeup_bytes ? wakeup_bytes : 1;
	fd = (int)syscall(SYS_perf_event_open, &attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0) {
		int e = errno;
		tl_error_errno("perf_event_open");
		errno = e;
		return -1;
	}
	return fd;
}

static int add_fd(struct tl_perf_ring *r, int fd)
{
	if (TL_GROW(r->fds, r->capfds, (size_t)r->nfds + 1) < 0)
		return -1;
	r->fds[r->nfds++] = fd;
	return 0;
}

struct tl_perf_ring *tl_perf_ring_new(int fd, int cpu, unsigned pages)
{
	long page = sysconf(_SC_PAGESIZE);
	struct perf_event_mmap_page *meta;
	struct tl_perf_ring *r;
	int e;

	if (!pages || (pages & (pages - 1))) {
		tl_error("ring size of %u pages is not a power of two", pages);
		errno = EINVAL;
		return NULL;
	}
	r = calloc(1, sizeof(*r));
	if (!r || !(r->bounce = malloc(MAX_RECORD))) {
		free(r);
		tl_error("out of memory");
		errno = ENOMEM;
		return NULL;
	}
	r->cpu = cpu;
	r->map_len = (size_t)(pages + 1) * (size_t)page;
	r->map = mmap(NULL, r->map_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (r->map == MAP_FAILED) {
		e = errno;
		tl_error_errno("cannot map a ring of %u pages on cpu %d", pages, cpu);
		free(r->bounce);
		free(r);
		errno = e;
		return NULL;
	}
	meta = r->map;
	/* Kernels since 4.1 say where the data area is; older ones put it after the first page. */
	if (meta->data_offset && meta->data_size) {
		r->data = (uint8_t *)r->map + meta->data_offset;
		r->size = meta->data_size;
	} else {
		r->data = (uint8_t *)r->map + page;
		r->size = (uint64_t)pages * (uint64_t)page;
	}
	r->tail = r->head = __atomic_load_n(&meta->data_tail, __ATOMIC_RELAXED);
	if (add_fd(r, fd)) {
		munmap(r->map, r->map_len);
		free(r->bounce);
		free(r);
		errno = ENOMEM;
		return NULL;
	}
	return r;
}

int tl_perf_ring_attach(struct tl_perf_ring *r, int fd)
{
	if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, r->fds[0]))
		return tl_error_errno("cannot redirect an event into the ring of cpu %d", r->cpu);
	return add_fd(r, fd);
}

int tl_perf_ring_fd(const struct tl_perf_ring *r)
{
	return r->fds[0];
}

int tl_perf_ring_cpu(const struct tl_perf_ring *r)
{
	return r->cpu;
}

size_t tl_perf_ring_size(const struct tl_perf_ring *r)
{
	return (size_t)r->size;
}

int tl_perf_ring_enable(struct tl_perf_ring *r, int on)
{
	unsigned long req = on ? PERF_EVENT_IOC_ENABLE : PERF_EVENT_IOC_DISABLE;

	for (int i = 0; i < r->nfds; i++)
		if (ioctl(r->fds[i], req, 0))
			return tl_error_errno("cannot %s the events of cpu %d", on ? "enable" : "disable", r->cpu);
	return 0;
}

size_t tl_perf_ring_begin(struct tl_perf_ring *r)
{
	struct perf_event_mmap_page *meta = r->map;

	/* Acquire pairs with the kernel's store of data_head after writing the records. */
	r->head = __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE);
	return (size_t)(r->head - r->tail);
}

/* Copy n bytes starting at ring position pos, across the wrap if needed. */
static const uint8_t *ring_bytes(struct tl_perf_ring *r, uint64_t pos, size_t n)
{
	uint64_t off = pos & (r->size - 1);

	if (off + n <= r->size)
		return r->data + off;
	memcpy(r->bounce, r->data + off, (size_t)(r->size - off));
	memcpy(r->bounce + (r->size - off), r->data, n - (size_t)(r->size - off));
	return r->bounce;
}

int tl_perf_ring_next(struct tl_perf_ring *r, struct tl_perf_rec *rec)
{
	for (;;) {
		struct perf_event_header h;
		const uint8_t *p;
		uint32_t raw_size;

		if (r->head - r->tail < sizeof(h))
			return 0;
		memcpy(&h, ring_bytes(r, r->tail, sizeof(h)), sizeof(h));
		if (h.size < sizeof(h) || h.size > r->head - r->tail) {
			/* Cannot find the next record boundary: drop the batch, not the recording. */
			r->corrupt++;
			r->tail = r->head;
			return 0;
		}
		p = ring_bytes(r, r->tail, h.size);
		r->tail += h.size;
		switch (h.type) {
		case PERF_RECORD_SAMPLE:
			/* u32 pid, tid; u64 time; u32 size; u8 raw[size] */
			if (h.size < sizeof(h) + 20)
				continue;
			memcpy(&rec->pid, p + 8, 4);
			memcpy(&rec->tid, p + 12, 4);
			memcpy(&rec->ts, p + 16, 8);
			memcpy(&raw_size, p + 24, 4);
			if (raw_size > h.size - 28u)
				continue;
			rec->type = TL_PERF_REC_SAMPLE;
			rec->raw = p + 28;
			rec->raw_size = raw_size;
			rec->lost = 0;
			return 1;
		case PERF_RECORD_LOST:
			/* u64 id, lost; then sample_id: u32 pid, tid; u64 time */
			if (h.size < sizeof(h) + 32)
				continue;
			memcpy(&rec->lost, p + 16, 8);
			memcpy(&rec->pid, p + 24, 4);
			memcpy(&rec->tid, p + 28, 4);
			memcpy(&rec->ts, p + 32, 8);
			rec->type = TL_PERF_REC_LOST;
			rec->raw = NULL;
			rec->raw_size = 0;
			return 1;
		default: continue; /* THROTTLE and friends carry nothing we use */
		}
	}
}

void tl_perf_ring_end(struct tl_perf_ring *r)
{
	struct perf_event_mmap_page *meta = r->map;

	/* Release: our reads of the records happen before the kernel may overwrite them. */
	__atomic_store_n(&meta->data_tail, r->tail, __ATOMIC_RELEASE);
}

uint64_t tl_perf_ring_corrupt(const struct tl_perf_ring *r)
{
	return r->corrupt;
}

void tl_perf_ring_free(struct tl_perf_ring *r)
{
	if (!r)
		return;
	if (r->map && r->map != MAP_FAILED)
		munmap(r->map, r->map_len);
	for (int i = r->nfds - 1; i >= 0; i--)
		close(r->fds[i]);
	free(r->fds);
	free(r->bounce);
	free(r);
}

/* ---- a set of tracepoints on every online CPU ---- */

static void raise_fd_limit(size_t need)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur >= need)
		return;
	rl.rlim_cur = rl.rlim_max == RLIM_INFINITY || rl.rlim_max > need ? need : rl.rlim_max;
	setrlimit(RLIMIT_NOFILE, &rl);
}

static int open_failed(const struct tl_perf_tp *tp, int cpu, int err)
{
	tl_error("cannot open tracepoint '%s' on cpu %d: %s", tp->name, cpu, strerror(err));
	errno = err;
	return -1;
}

/* The ring of one CPU with every tracepoint attached. */
static struct tl_perf_ring *open_cpu(struct tl_perf_set *set, struct tl_perf_tp *tps, int ntps, int cpu)
{
	struct tl_perf_ring *ring = NULL;
	long page = sysconf(_SC_PAGESIZE);

	for (int k = 0; k < ntps; k++) {
		if (tps[k].dropped)
			continue;
		for (;;) {
			/* Wake the reader at a quarter full: it has three quarters of slack to catch up. */
			unsigned wake = (unsigned)((size_t)set->pages * (size_t)page / 4);
			int fd = tl_perf_tp_open(tps[k].id, cpu, wake), e = errno;

			/* A filter only saves work; a kernel that refuses it gets every sample. */
			if (fd >= 0 && tps[k].filter)
				(void)ioctl(fd, PERF_EVENT_IOC_SET_FILTER, tps[k].filter);

			if (fd < 0) {
				if (tps[k].optional && (e == ENOENT || e == ENODEV || e == EINVAL || e == EOPNOTSUPP)) {
					tps[k].dropped = e;
					break;
				}
				tl_perf_ring_free(ring);
				open_failed(&tps[k], cpu, e);
				return NULL;
			}
			if (ring) {
				if (tl_perf_ring_attach(ring, fd)) {
					e = errno;
					close(fd);
					tl_perf_ring_free(ring);
					errno = e;
					return NULL;
				}
				break;
			}
			ring = tl_perf_ring_new(fd, cpu, set->pages);
			if (ring)
				break;
			e = errno;
			close(fd);
			/* Over RLIMIT_MEMLOCK or perf_event_mlock_kb: try a smaller ring (new fd: new wakeup). */
			if ((e != EPERM && e != ENOMEM) || set->pages <= MIN_PAGES) {
				errno = e;
				return NULL;
			}
			set->pages /= 2;
		}
	}
	if (!ring) {
		tl_error("no tracepoint could be opened on cpu %d", cpu);
		errno = ENOENT;
	}
	return ring;
}

int tl_perf_set_open(struct tl_perf_set *set, struct tl_perf_tp *tps, int ntps, const int *cpus, int ncpus,
                     unsigned pages)
{
	memset(set, 0, sizeof(*set));
	set->pages = pages;
	set->rings = calloc(ncpus > 0 ? (size_t)ncpus : 1, sizeof(*set->rings));
	if (!set->rings) {
		tl_error("out of memory");
		errno = ENOMEM;
		return -1;
	}
	raise_fd_limit((size_t)ntps * (size_t)ncpus + 64);
	for (int i = 0; i < ncpus; i++) {
		struct tl_perf_ring *r = open_cpu(set, tps, ntps, cpus[i]);
		if (!r) {
			int e = errno;
			tl_perf_set_release(set);
			errno = e;
			return -1;
		}
		set->rings[set->nrings++] = r;
	}
	return 0;
}

int tl_perf_set_open_table(struct tl_perf_set *set, const struct tl_tp_table *t, int *used, unsigned pages,
                           const char *tracing, void (*warn)(void *ctx, const char *msg), void *ctx, int *ncpus)
{
	struct tl_perf_tp tps[TL_TP__COUNT];
	unsigned kinds[TL_TP__COUNT];
	char names[TL_TP__COUNT][64], msg[512];
	int *cpus = malloc(MAX_CPUS * sizeof(int));
	int n, ntps = 0, e, failed;

	memset(set, 0, sizeof(*set));
	if (!cpus)
		return tl_error("out of memory");
	n = tl_procsnap_online_cpus(cpus, MAX_CPUS);
	if (n <= 0) {
		free(cpus);
		return -1;
	}
	*ncpus = cpus[n - 1] + 1;
	if (!pages) /* a busy CPU fills 1 MB in about 10 ms; small machines can afford more */
		for (pages = 1024; pages > 256 && pages * (unsigned)n > PAGES_TOTAL; pages /= 2)
			;
	for (unsigned k = 0; k < TL_TP__COUNT; k++) {
		const struct tl_tp_desc *d = tl_tp_desc(k);
		if (!used[k])
			continue;
		snprintf(names[ntps], sizeof(names[ntps]), "%s:%s", d->system, d->name);
		tps[ntps] =
		        (struct tl_perf_tp){ (uint64_t)tl_tp_table_id(t, k), names[ntps], !d->required, d->filter, 0 };
		kinds[ntps++] = k;
	}
	failed = tl_perf_set_open(set, tps, ntps, cpus, n, pages);
	e = errno;
	free(cpus);
	if (failed && (e == EACCES || e == EPERM)) {
		snprintf(msg, sizeof(msg), "%s", tl_error_msg());
		return tl_perf_priv_error(msg, tracing);
	}
	if (failed && (e == EMFILE || e == ENFILE))
		return tl_error_prefix("too many open files (raise 'ulimit -n')");
	if (failed)
		return -1;
	for (int i = 0; i < ntps; i++) {
		if (!tps[i].dropped)
			continue;
		used[kinds[i]] = 0;
		snprintf(msg, sizeof(msg), "cannot open tracepoint '%s': %s; recording without it", tps[i].name,
		         strerror(tps[i].dropped));
		if (warn)
			warn(ctx, msg);
	}
	if (set->pages != pages && warn) {
		snprintf(msg, sizeof(msg),
		         "ring buffers reduced to %u pages per cpu (locked memory limit); events may be lost",
		         set->pages);
		warn(ctx, msg);
	}
	return 0;
}

int tl_perf_set_enable(struct tl_perf_set *set, int on)
{
	for (int i = 0; i < set->nrings; i++)
		if (tl_perf_ring_enable(set->rings[i], on))
			return -1;
	return 0;
}

void tl_perf_set_release(struct tl_perf_set *set)
{
	for (int i = 0; i < set->nrings; i++)
		tl_perf_ring_free(set->rings[i]);
	free(set->rings);
	set->rings = NULL;
	set->nrings = 0;
}

/* ---- tracefs ---- */

int tl_tracefs_dir(char *out, size_t len)
{
	const char *dir = tracefs_tracing_dir();

	if (!dir && geteuid() == 0) {
		/* Root on a system that has tracefs but did not mount it: do what the admin would. */
		if (mount("nodev", "/sys/kernel/tracing", "tracefs", 0, NULL) && errno != EBUSY)
			return tl_error_errno("cannot mount tracefs on '/sys/kernel/tracing'");
		dir = "/sys/kernel/tracing";
	}
	if (!dir)
		return tl_error("tracefs is not mounted (as root: mount -t tracefs nodev /sys/kernel/tracing)");
	snprintf(out, len, "%s", dir);
	return 0;
}

char *tl_tracefs_format(const char *tracing, const char *system, const char *name, size_t *len)
{
	char path[512], *buf = NULL;
	size_t cap = 0, n = 0;
	int fd, e;

	snprintf(path, sizeof(path), "%s/events/%s/%s/format", tracing, system, name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	for (;;) {
		ssize_t r;
		if (cap - n < 2 && TL_GROW(buf, cap, cap ? 2 * cap : 8192) < 0) {
			e = ENOMEM;
			break;
		}
		r = read(fd, buf + n, cap - n - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			e = errno;
			break;
		}
		if (!r) {
			close(fd);
			buf[n] = 0;
			*len = n;
			return buf;
		}
		n += (size_t)r;
	}
	free(buf);
	close(fd);
	errno = e;
	return NULL;
}

static int perf_paranoid(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
	int v = 2;

	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = 2;
		fclose(f);
	}
	return v;
}

/*
 * The kernel's rules for the events we open (kernel/events/core.c,
 * kernel/trace/trace_event_perf.c): a CPU-wide event needs paranoid <= 0,
 * kernel tracepoints <= 1, raw tracepoint samples <= -1, all waived by
 * CAP_PERFMON (CAP_SYS_ADMIN before Linux 5.8).  Formats and ids come from
 * tracefs, which is root-only (mode 700) on most systems.
 */
int tl_perf_priv_error(const char *what, const char *tracing)
{
	return tl_error("%s; recording needs root, or CAP_PERFMON (or kernel.perf_event_paranoid = -1, it is %d) "
	                "and read access to %s",
	                what, perf_paranoid(), tracing);
}

int tl_tracefs_load(const char *tracing, unsigned groups, struct tl_tp_table *t, int *used,
                    void (*warn)(void *ctx, const char *msg), void *ctx)
{
	char msg[512];

	for (unsigned k = 0; k < TL_TP__COUNT; k++) {
		const struct tl_tp_desc *d = tl_tp_desc(k);
		size_t len = 0;
		char *text;

		used[k] = 0;
		if (d->group && !(groups & d->group))
			continue;
		text = tl_tracefs_format(tracing, d->system, d->name, &len);
		if (!text) {
			int e = errno;
			if (e == EACCES || e == EPERM) {
				snprintf(msg, sizeof(msg), "cannot read '%s/events/%s/%s/format': %s", tracing,
				         d->system, d->name, strerror(e));
				return tl_perf_priv_error(msg, tracing);
			}
			if (d->required)
				return tl_error(
				        "cannot read the format of tracepoint '%s:%s', which recording needs: %s",
				        d->system, d->name, strerror(e));
			/*
			 * futex_waitv came in Linux 5.16: a kernel without it has no program
			 * using it.  irq_vectors are x86's: elsewhere the report says that
			 * timer and IPI time is not recorded (META irq_vectors).
			 */
			if (warn && k != TL_TP_FUTEX_WAITV_ENTER && k != TL_TP_FUTEX_WAITV_EXIT &&
			    (k < TL_TP_VEC_TIMER_ENTRY || k > TL_TP_VEC_PLATFORM_EXIT)) {
				snprintf(msg, sizeof(msg),
				         "tracepoint '%s:%s' is not available (%s); recording without it", d->system,
				         d->name, strerror(e));
				warn(ctx, msg);
			}
			continue;
		}
		if (tl_tp_table_add(t, k, text, len) < 0) {
			free(text);
			if (d->required)
				return -1;
			if (warn) {
				snprintf(msg, sizeof(msg), "%s; recording without it", tl_error_msg());
				warn(ctx, msg);
			}
			continue;
		}
		free(text);
		used[k] = 1;
	}
	if (warn && tl_tp_table_state_fallback(t))
		warn(ctx,
		     "cannot derive the prev_state bits from sched_switch's print fmt; assuming those of Linux 4.14+");
	return 0;
}
