/*
 * marks.c - the recorder's end of the user markers (marks.h): create the
 * shared memory, read the threads' rings, turn records into events.
 *
 * The program on the other side is not trusted to be correct: every offset,
 * count and name read from the shared memory is checked against the layout
 * this side created (kept in struct tl_marks, never read back), so a program
 * that scribbles over the memory gets odd markers, never a crashed recorder.
 *
 * Invariants:
 *  - m->ev[0..n) holds the markers read but not yet handed to the writer,
 *    all with ts >= the watermark of the last drain (except late ones, see
 *    below); after a drain they are sorted by time.
 *  - Only this side moves a slot to FREE, and only after taking every
 *    record up to the head it read after it saw the slot RELEASED (or its
 *    owner dead).  Before it frees a slot it clears tid and pid, so that a
 *    new owner that has claimed the slot but not yet written its tid is
 *    never mistaken for the dead one.
 *  - seen_dropped[i] is the slot's `dropped` counter as last reported; the
 *    counter only grows, across owners too.
 *
 * A record whose timestamp is below a watermark that was already handed to
 * the writer (its thread was preempted between reading the clock and
 * publishing, for longer than the recorder's slack) still goes to the
 * writer with its own time; the reader then counts it as late.
 */
#include "capture/marks.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "base/errors.h"
#include "base/grow.h"
#include "capture/marks_shm.h"

#define RECLAIM_NS 1000000000ull /* how often slots of dead owners are looked for */

struct namemap {
	uint32_t *key, *val; /* key: string-area offset (0 = empty); val: writer id */
	uint32_t cap, n;
};

struct tl_marks {
	int fd, wake_fd;
	uint8_t *base;
	uint64_t size;
	struct tl_marks_hdr *hdr;
	struct tl_marks_entry *table;
	const char *strings;
	uint64_t strings_size;
	uint8_t *slots;
	uint32_t nslots, slot_size, ring_cap;
	uint64_t *seen_dropped;
	uint64_t seen_noslot;
	struct namemap names;
	uint32_t id_lost, id_bad;  /* writer ids of "(name lost)", "(bad name)"; 0 = not yet */
	struct tl_event *ev, *tmp; /* waiting markers; tmp: merge buffer of the same size */
	size_t n, cap;
	size_t *runs;
	size_t runs_cap;
	uint64_t emitted_upto; /* the highest watermark handed to the writer */
	uint64_t last_reclaim;
	struct tl_marks_stats st;
	char env[32];
};

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t align_up(uint64_t v, uint64_t a)
{
	return (v + a - 1) / a * a;
}

struct tl_marks *tl_marks_new_sized(uint32_t nslots, uint32_t ring_cap, uint32_t strings_size)
{
	struct tl_marks *m;
	struct tl_marks_hdr *h;
	uint64_t table_off = TL_MARKS_HDR_SIZE, strings_off, slots_off, slot_size, size;

	if (!nslots || nslots > 65536 || ring_cap < 2 || ring_cap > (1u << 24) || (ring_cap & (ring_cap - 1)) ||
	    strings_size < 8 || strings_size >= TL_MARKS_NAME_FULL) {
		tl_error("invalid marker memory layout (%u slots of %u records, %u bytes of names)", nslots, ring_cap,
		         strings_size);
		return NULL;
	}
	strings_off = align_up(table_off + (uint64_t)nslots * sizeof(struct tl_marks_entry), 64);
	slots_off = align_up(strings_off + strings_size, 4096);
	slot_size = align_up(TL_MARKS_RING_OFFSET + (uint64_t)ring_cap * sizeof(struct tl_marks_rec), 64);
	size = align_up(slots_off + nslots * slot_size, 4096);
	m = calloc(1, sizeof(*m));
	if (!m || !(m->seen_dropped = calloc(nslots, sizeof(*m->seen_dropped)))) {
		free(m);
		tl_error("out of memory");
		return NULL;
	}
	/* Close-on-exec here: only the recorded command gets them (tl_marks_export). */
	m->wake_fd = -1;
	m->fd = memfd_create("threadlens-marks", MFD_CLOEXEC);
	if (m->fd < 0) {
		tl_error_errno("cannot create the marker memory");
		goto fail;
	}
	m->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (m->wake_fd < 0) {
		tl_error_errno("cannot create the marker wake-up eventfd");
		goto fail;
	}
	/* The pages stay holes until a thread's records touch them. */
	if (ftruncate(m->fd, (off_t)size)) {
		tl_error_errno("cannot size the marker memory (%llu bytes)", (unsigned long long)size);
		goto fail;
	}
	m->base = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, m->fd, 0);
	if (m->base == MAP_FAILED) {
		m->base = NULL;
		tl_error_errno("cannot map the marker memory");
		goto fail;
	}
	m->size = size;
	m->hdr = h = (struct tl_marks_hdr *)m->base;
	m->table = (struct tl_marks_entry *)(m->base + table_off);
	m->strings = (const char *)m->base + strings_off;
	m->strings_size = strings_size;
	m->slots = m->base + slots_off;
	m->nslots = nslots;
	m->slot_size = (uint32_t)slot_size;
	m->ring_cap = ring_cap;
	h->version_major = TL_MARKS_VERSION_MAJOR;
	h->version_minor = TL_MARKS_VERSION_MINOR;
	h->header_size = TL_MARKS_HDR_SIZE;
	h->total_size = size;
	h->nslots = nslots;
	h->slot_size = (uint32_t)slot_size;
	h->ring_cap = ring_cap;
	h->rec_size = sizeof(struct tl_marks_rec);
	h->table_offset = table_off;
	h->strings_offset = strings_off;
	h->strings_size = strings_size;
	h->slots_offset = slots_off;
	h->strings_used = 4; /* offset 0 means "no name" */
	h->creator_pid = (uint64_t)getpid();
	h->wake_fd = m->wake_fd;
	h->magic = TL_MARKS_MAGIC;
	snprintf(m->env, sizeof(m->env), "fd:%d", m->fd);
	m->last_reclaim = mono_ns();
	return m;
fail:
	tl_marks_free(m);
	return NULL;
}

struct tl_marks *tl_marks_new(void)
{
	return tl_marks_new_sized(TL_MARKS_DEFAULT_SLOTS, TL_MARKS_DEFAULT_RING, TL_MARKS_DEFAULT_STRINGS);
}

int tl_marks_fd(const struct tl_marks *m)
{
	return m ? m->fd : -1;
}

void tl_marks_export(const struct tl_marks *m)
{
	if (!m) {
		unsetenv(TL_MARKS_ENV);
		return;
	}
	fcntl(m->fd, F_SETFD, 0);
	fcntl(m->wake_fd, F_SETFD, 0);
	setenv(TL_MARKS_ENV, m->env, 1);
}

void tl_marks_free(struct tl_marks *m)
{
	if (!m)
		return;
	if (m->base)
		munmap(m->base, m->size);
	if (m->fd >= 0)
		close(m->fd);
	if (m->wake_fd >= 0)
		close(m->wake_fd);
	free(m->seen_dropped);
	free(m->names.key);
	free(m->names.val);
	free(m->ev);
	free(m->tmp);
	free(m->runs);
	free(m);
}

void tl_marks_get_stats(const struct tl_marks *m, struct tl_marks_stats *st)
{
	if (m)
		*st = m->st;
	else
		memset(st, 0, sizeof(*st));
}

int tl_marks_wake_fd(const struct tl_marks *m)
{
	return m ? m->wake_fd : -1;
}

/* ---- names ---- */

static uint32_t *map_find(struct namemap *nm, uint32_t key)
{
	uint32_t mask = nm->cap - 1;

	for (uint32_t i = (key * 2654435761u) & mask;; i = (i + 1) & mask)
		if (nm->key[i] == key || !nm->key[i])
			return &nm->key[i];
}

static int map_grow(struct namemap *nm)
{
	struct namemap big = { .cap = nm->cap ? 2 * nm->cap : 256 };

	big.key = calloc(big.cap, sizeof(*big.key));
	big.val = calloc(big.cap, sizeof(*big.val));
	if (!big.key || !big.val) {
		free(big.key);
		free(big.val);
		return tl_error("out of memory");
	}
	for (uint32_t i = 0; i < nm->cap; i++)
		if (nm->key[i]) {
			uint32_t *k = map_find(&big, nm->key[i]);
			*k = nm->key[i];
			big.val[k - big.key] = nm->val[i];
		}
	big.n = nm->n;
	free(nm->key);
	free(nm->val);
	*nm = big;
	return 0;
}

static uint32_t intern_fixed(struct tl_trace_writer *w, uint32_t *id, const char *s)
{
	if (!*id)
		*id = tl_trace_writer_intern(w, s);
	return *id ? *id : (uint32_t)-1;
}

/* The writer id for a string-area offset; (uint32_t)-1 on a writer failure. */
static uint32_t name_id(struct tl_marks *m, struct tl_trace_writer *w, uint32_t off)
{
	char buf[TL_MARKS_NAME_MAX + 1];
	uint32_t *k, len, id;

	if (!off)
		return 0;
	if (off == TL_MARKS_NAME_FULL)
		return intern_fixed(w, &m->id_lost, "(name lost)");
	if (2 * (m->names.n + 1) > m->names.cap && map_grow(&m->names))
		return (uint32_t)-1;
	k = map_find(&m->names, off);
	if (*k)
		return m->names.val[k - m->names.key];
	if (off % 4 || off < 4 || (uint64_t)off + 4 >= m->strings_size)
		return intern_fixed(w, &m->id_bad, "(bad name)");
	memcpy(&len, m->strings + off, sizeof(len));
	if (!len || len > TL_MARKS_NAME_MAX || (uint64_t)off + 4 + len >= m->strings_size)
		return intern_fixed(w, &m->id_bad, "(bad name)");
	memcpy(buf, m->strings + off + 4, len);
	buf[len] = 0; /* the copy decides, not the NUL in shared memory */
	id = tl_trace_writer_intern(w, buf);
	if (!id)
		return buf[0] ? (uint32_t)-1 : 0;
	*k = off;
	m->names.val[k - m->names.key] = id;
	m->names.n++;
	return id;
}

/* ---- the waiting markers ---- */

static int reserve(struct tl_marks *m, size_t more)
{
	size_t cap = m->cap, tmp_cap = m->cap;

	/* ev and tmp (the merge's scratch) share one capacity, m->cap: the smaller of the two */
	if (TL_GROW(m->ev, cap, m->n + more) < 0 || TL_GROW(m->tmp, tmp_cap, cap) < 0)
		return -1;
	m->cap = cap;
	return 0;
}

/* Stable by time: the array is a few sorted runs (the markers that waited, then each thread's). */
static int sort_waiting(struct tl_marks *m)
{
	size_t n = m->n, nr = 0;
	struct tl_event *swap;

	if (n < 2)
		return 0;
	if (m->runs_cap < n + 1) {
		if (TL_GROW(m->runs, m->runs_cap, n + 1) < 0)
			return -1;
	}
	m->runs[nr++] = 0;
	for (size_t i = 1; i < n; i++)
		if (m->ev[i].ts < m->ev[i - 1].ts)
			m->runs[nr++] = i;
	m->runs[nr] = n;
	while (nr > 1) {
		size_t k = 0;
		for (size_t r = 0; r < nr; r += 2) {
			size_t lo = m->runs[r], mid = m->runs[r + 1], hi = r + 2 <= nr ? m->runs[r + 2] : mid;
			size_t i = lo, j = mid, o = lo;
			while (i < mid && j < hi)
				m->tmp[o++] = m->ev[j].ts < m->ev[i].ts ? m->ev[j++] : m->ev[i++];
			while (i < mid)
				m->tmp[o++] = m->ev[i++];
			while (j < hi)
				m->tmp[o++] = m->ev[j++];
			m->runs[k++] = lo;
		}
		m->runs[k] = n;
		nr = k;
		swap = m->ev;
		m->ev = m->tmp;
		m->tmp = swap;
	}
	return 0;
}

static int push_lost(struct tl_marks *m, int32_t tid, uint64_t count, uint64_t ts, uint64_t now)
{
	if (reserve(m, 1))
		return -1;
	/* The time of the last drop, or now; never behind what the writer has been promised. */
	if (!ts || ts > now)
		ts = now;
	if (ts < m->emitted_upto)
		ts = m->emitted_upto;
	m->ev[m->n++] =
	        (struct tl_event){ .ts = ts, .type = TL_EV_MARKS_LOST, .cpu = -1, .tid = tid, .a = (int64_t)count };
	m->st.lost += count;
	return 0;
}

/* One record into m->ev; 0, or -1 on a writer or memory failure.  Nonsense is counted and skipped. */
static int push_rec(struct tl_marks *m, struct tl_trace_writer *w, const struct tl_marks_rec *r, int32_t tid)
{
	static const uint16_t types[] = {
		[TL_MK_FRAME_BEGIN] = TL_EV_FRAME_BEGIN,   [TL_MK_FRAME_END] = TL_EV_FRAME_END,
		[TL_MK_REGION_BEGIN] = TL_EV_REGION_BEGIN, [TL_MK_REGION_END] = TL_EV_REGION_END,
		[TL_MK_TASK_BEGIN] = TL_EV_TASK_BEGIN,     [TL_MK_TASK_END] = TL_EV_TASK_END,
		[TL_MK_INSTANT] = TL_EV_INSTANT,
	};
	struct tl_event *ev;
	uint32_t name = 0;

	if (r->type >= sizeof(types) / sizeof(types[0]) || !types[r->type]) {
		m->st.malformed++;
		return 0;
	}
	if (r->type != TL_MK_FRAME_BEGIN && r->type != TL_MK_FRAME_END) {
		name = name_id(m, w, r->name);
		if (name == (uint32_t)-1)
			return -1;
	}
	ev = &m->ev[m->n++];
	*ev = (struct tl_event){ .ts = r->ts, .type = types[r->type], .cpu = -1, .tid = tid, .name = name };
	/* Ends carry nothing in a: fields a type does not use are zero (event.h). */
	if (r->type != TL_MK_REGION_END && r->type != TL_MK_TASK_END)
		ev->a = r->a;
	return 0;
}

/* 1 if the thread is known to be gone (its process exited or was killed: no destructor ran). */
static int owner_dead(const struct tl_marks_entry *e)
{
	int32_t pid = __atomic_load_n(&e->pid, __ATOMIC_RELAXED), tid = __atomic_load_n(&e->tid, __ATOMIC_RELAXED);

	return pid > 0 && tid > 0 && syscall(SYS_tgkill, pid, tid, 0) < 0 && errno == ESRCH;
}

/* Take slot i's records; give the slot back if its owner is gone. */
static int drain_slot(struct tl_marks *m, struct tl_trace_writer *w, uint32_t i, int reclaim, uint64_t now)
{
	struct tl_marks_entry *e = &m->table[i];
	struct tl_marks_slot *s = (struct tl_marks_slot *)(m->slots + (uint64_t)i * m->slot_size);
	const struct tl_marks_rec *ring = (const struct tl_marks_rec *)((const uint8_t *)s + TL_MARKS_RING_OFFSET);
	uint32_t state = __atomic_load_n(&e->state, __ATOMIC_ACQUIRE);
	uint64_t head, tail, dropped;
	int32_t tid;

	if (state == TL_MARKS_FREE)
		return 0;
	if (state == TL_MARKS_OWNED && reclaim && owner_dead(e))
		state = TL_MARKS_RELEASED;
	/* After the state: a RELEASED owner published its last head before it said so. */
	head = __atomic_load_n(&s->head, __ATOMIC_ACQUIRE);
	tail = __atomic_load_n(&s->tail, __ATOMIC_RELAXED);
	tid = __atomic_load_n(&e->tid, __ATOMIC_RELAXED);
	if (head - tail > m->ring_cap) {
		/* Only a program that wrote over its ring gets here: take the newest ring_cap. */
		m->st.malformed += head < tail ? 0 : head - tail - m->ring_cap;
		tail = head < tail ? head : head - m->ring_cap;
	}
	if (reserve(m, head - tail))
		return -1;
	for (uint64_t k = tail; k != head; k++) {
		struct tl_marks_rec r;
		memcpy(&r, &ring[k & (m->ring_cap - 1)], sizeof(r));
		if (push_rec(m, w, &r, tid))
			return -1;
	}
	__atomic_store_n(&s->tail, head, __ATOMIC_RELEASE);
	dropped = __atomic_load_n(&s->dropped, __ATOMIC_ACQUIRE);
	if (dropped != m->seen_dropped[i]) {
		if (push_lost(m, tid, dropped - m->seen_dropped[i], __atomic_load_n(&s->drop_ts, __ATOMIC_RELAXED),
		              now))
			return -1;
		m->seen_dropped[i] = dropped;
	}
	if (state != TL_MARKS_OWNED) {
		__atomic_store_n(&e->tid, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&e->pid, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&e->state, TL_MARKS_FREE, __ATOMIC_RELEASE);
	}
	return 0;
}

int64_t tl_marks_drain(struct tl_marks *m, struct tl_trace_writer *w, uint64_t watermark)
{
	uint64_t now, noslot, kicks;
	uint32_t hw;
	size_t j = 0;
	int reclaim;

	if (!m)
		return 0;
	now = mono_ns();
	reclaim = now - m->last_reclaim >= RECLAIM_NS;
	if (reclaim)
		m->last_reclaim = now;
	/* Reset the wake-up before reading: a kick after this point fires the next poll. */
	if (read(m->wake_fd, &kicks, sizeof(kicks)) < 0)
		kicks = 0;
	hw = __atomic_load_n(&m->hdr->slots_hiwater, __ATOMIC_ACQUIRE);
	if (hw > m->nslots)
		hw = m->nslots;
	for (uint32_t i = 0; i < hw; i++)
		if (drain_slot(m, w, i, reclaim, now))
			return -1;
	noslot = __atomic_load_n(&m->hdr->noslot_dropped, __ATOMIC_ACQUIRE);
	if (noslot != m->seen_noslot) {
		if (push_lost(m, -1, noslot - m->seen_noslot, __atomic_load_n(&m->hdr->noslot_ts, __ATOMIC_RELAXED),
		              now))
			return -1;
		m->seen_noslot = noslot;
	}
	if (sort_waiting(m))
		return -1;
	while (j < m->n && m->ev[j].ts < watermark)
		j++;
	for (size_t k = 0; k < j; k++) {
		if (tl_trace_writer_add(w, &m->ev[k]))
			return -1;
		m->st.markers += m->ev[k].type != TL_EV_MARKS_LOST;
	}
	if (j) {
		memmove(m->ev, m->ev + j, (m->n - j) * sizeof(*m->ev));
		m->n -= j;
	}
	if (watermark > m->emitted_upto)
		m->emitted_upto = watermark;
	return (int64_t)j;
}
