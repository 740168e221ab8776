/*
 * attach.c - how the instrumentation library finds the recorder: the
 * THREADLENS_MARKS=fd:N variable, the checks on the memory behind it, the
 * process-wide name table, and fork().
 *
 * A constructor attaches before main() runs, so the hot path needs no
 * "attached yet?" test: tl_instr_g.on is set once, here, and only if every
 * offset and size in the header fits the memory (the header is read with
 * pread() before anything is mapped).  Without the variable, or with a bad
 * one, the library stays off and every call is one branch.
 *
 * Names: the table maps a name's contents to its string-area offset.  It is
 * used only when a thread's pointer cache misses, under `lock`; entries go
 * into the shared string area with an atomic reservation, because the area
 * is shared with other processes of the recording (children that inherited
 * the variable) that have their own tables.  Two processes may thus store
 * the same name twice; the recorder maps both to one trace string.
 *
 * fork(): the child gets a copy of the parent's thread state, which points
 * at a slot that the parent thread still owns.  The child handler drops it,
 * so the child claims its own slot; the lock is held across fork() so that
 * the child's copy of the table is consistent.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "instr.h"

struct tl_instr tl_instr_g = { .fd = -1, .wake_fd = -1, .lock = PTHREAD_MUTEX_INITIALIZER };

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int key_ok;

static void at_prepare(void)
{
	pthread_mutex_lock(&tl_instr_g.lock);
}

static void at_parent(void)
{
	pthread_mutex_unlock(&tl_instr_g.lock);
}

static void at_child(void)
{
	pthread_mutex_unlock(&tl_instr_g.lock);
	tl_instr_forget_thread();
}

static void setup_once(void)
{
	key_ok = !pthread_key_create(&tl_instr_g.key, tl_instr_thread_gone);
	if (key_ok)
		pthread_atfork(at_prepare, at_parent, at_child);
}

/* Every region inside the memory, in the order the recorder lays them out. */
static int layout_ok(const struct tl_marks_hdr *h, uint64_t size)
{
	uint64_t table_end, strings_end, slots_end;

	if (h->magic != TL_MARKS_MAGIC || h->version_major != TL_MARKS_VERSION_MAJOR ||
	    h->header_size != TL_MARKS_HDR_SIZE || h->total_size != size || h->rec_size != sizeof(struct tl_marks_rec))
		return 0;
	if (!h->nslots || h->nslots > 65536 || h->ring_cap < 2 || h->ring_cap > (1u << 24) ||
	    (h->ring_cap & (h->ring_cap - 1)) || h->slot_size % 64 ||
	    h->slot_size < TL_MARKS_RING_OFFSET + (uint64_t)h->ring_cap * sizeof(struct tl_marks_rec))
		return 0;
	if (h->strings_size < 8 || h->strings_size >= TL_MARKS_NAME_FULL || h->strings_offset % 8 ||
	    h->table_offset % 8 || h->slots_offset % 64)
		return 0;
	table_end = h->table_offset + (uint64_t)h->nslots * sizeof(struct tl_marks_entry);
	strings_end = h->strings_offset + h->strings_size;
	slots_end = h->slots_offset + (uint64_t)h->nslots * h->slot_size;
	return h->table_offset >= TL_MARKS_HDR_SIZE && table_end <= h->strings_offset &&
	       strings_end <= h->slots_offset && slots_end <= size;
}

/*
 * The wake-up fd is written to, so it must really be the recorder's
 * eventfd: a number that the program reused for a file must not get our
 * bytes.  Without /proc to tell, there is no wake-up (the recorder's timer
 * still drains).
 */
static int is_eventfd(int fd)
{
	char path[64], link[64];
	ssize_t n;

	if (fd < 0)
		return 0;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	n = readlink(path, link, sizeof(link) - 1);
	if (n <= 0)
		return 0;
	link[n] = 0;
	return !strcmp(link, "anon_inode:[eventfd]");
}

int tl_instr_attach_fd(int fd)
{
	struct tl_instr *g = &tl_instr_g;
	struct tl_marks_hdr hdr;
	struct stat st;
	void *p;

	if (g->on || fd < 0 || fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size < (off_t)TL_MARKS_HDR_SIZE ||
	    pread(fd, &hdr, sizeof(hdr), 0) != (ssize_t)sizeof(hdr) || !layout_ok(&hdr, (uint64_t)st.st_size))
		return -1;
	pthread_once(&once, setup_once);
	if (!key_ok)
		return -1;
	p = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return -1;
	g->fd = fd;
	g->base = p;
	g->size = (uint64_t)st.st_size;
	g->hdr = p;
	g->table = (struct tl_marks_entry *)(g->base + hdr.table_offset);
	g->strings = (char *)g->base + hdr.strings_offset;
	g->strings_size = hdr.strings_size;
	g->slots = g->base + hdr.slots_offset;
	/* The values checked above, not the shared copy that anyone could change since. */
	g->nslots = hdr.nslots;
	g->slot_size = hdr.slot_size;
	g->ring_cap = hdr.ring_cap;
	g->wake_fd = is_eventfd(hdr.wake_fd) ? hdr.wake_fd : -1;
	__atomic_store_n(&g->on, 1, __ATOMIC_RELEASE);
	return 0;
}

int tl_instr_attach_env(const char *value)
{
	char *end;
	long fd;

	if (strncmp(value, "fd:", 3) || value[3] < '0' || value[3] > '9')
		return -1;
	fd = strtol(value + 3, &end, 10);
	if (*end || fd > 1 << 20)
		return -1;
	return tl_instr_attach_fd((int)fd);
}

void tl_instr_detach(void)
{
	struct tl_instr *g = &tl_instr_g;

	if (!g->on)
		return;
	__atomic_store_n(&g->on, 0, __ATOMIC_RELEASE);
	tl_instr_forget_thread();
	munmap(g->base, (size_t)g->size);
	pthread_mutex_lock(&g->lock);
	while (g->names) {
		struct tl_instr_names *older = g->names->older;
		free(g->names);
		g->names = older;
	}
	g->names_n = 0;
	g->names_full = 0;
	pthread_mutex_unlock(&g->lock);
	g->base = NULL;
	g->hdr = NULL;
	g->fd = g->wake_fd = -1;
}

/* Before main(): markers are on from the first line of the program. */
__attribute__((constructor)) static void tl_instr_init(void)
{
	const char *v = getenv(TL_MARKS_ENV);

	if (v)
		tl_instr_attach_env(v);
}

/* ---- names ---- */

static uint32_t hash_name(const char *s, size_t n)
{
	uint32_t h = 2166136261u; /* FNV-1a */

	for (size_t i = 0; i < n; i++)
		h = (h ^ (uint8_t)s[i]) * 16777619u;
	return h;
}

static uint32_t stored_len(uint32_t off)
{
	uint32_t len;

	memcpy(&len, tl_instr_g.strings + off, sizeof(len));
	return len;
}

/*
 * Where (s, n) is in t: the index of its entry, or of the empty slot where
 * it goes, with the value read there (*off: the entry, or 0).  Safe without
 * the lock, as long as the caller keeps *off: an empty slot may be filled
 * with another name at any moment (reading the slot again gave a marker
 * that name, which the race test names_looked_up_while_the_table_grows caught).
 */
static uint32_t probe(struct tl_instr_names *t, const char *s, size_t n, uint32_t h, uint32_t *off)
{
	uint32_t mask = t->cap - 1;

	for (uint32_t i = h & mask;; i = (i + 1) & mask) {
		*off = __atomic_load_n(&t->slot[i], __ATOMIC_ACQUIRE);
		if (!*off || (stored_len(*off) == n && !memcmp(tl_instr_g.strings + *off + 4, s, n)))
			return i;
	}
}

/* The entry of (s, n) in t, 0 when it is not there.  Without the lock. */
static uint32_t find(struct tl_instr_names *t, const char *s, size_t n, uint32_t h)
{
	uint32_t off;

	probe(t, s, n, h, &off);
	return off;
}

/* The table slot of (s, n) in t: its entry, or the empty slot where it goes.  Under the lock (the writers'). */
static uint32_t *lookup(struct tl_instr_names *t, const char *s, size_t n, uint32_t h)
{
	uint32_t off;

	return &t->slot[probe(t, s, n, h, &off)];
}

/* Under the lock: a table twice as big, filled, then published; the old one stays for its readers. */
static int grow(void)
{
	struct tl_instr *g = &tl_instr_g;
	struct tl_instr_names *old = g->names, *t;
	uint32_t cap = old ? 2 * old->cap : 256;

	if (!(t = calloc(1, sizeof(*t) + (size_t)cap * sizeof(t->slot[0]))))
		return -1;
	t->cap = cap;
	t->older = old;
	for (uint32_t i = 0; old && i < old->cap; i++)
		if (old->slot[i]) {
			uint32_t off = old->slot[i], n = stored_len(off);
			*lookup(t, g->strings + off + 4, n, hash_name(g->strings + off + 4, n)) = off;
		}
	__atomic_store_n(&g->names, t, __ATOMIC_RELEASE);
	return 0;
}

/* Room for an entry of n bytes in the shared area: its offset, or 0. */
static uint32_t reserve(size_t n)
{
	struct tl_instr *g = &tl_instr_g;
	uint64_t need = (4 + n + 1 + 3) & ~(uint64_t)3;
	uint64_t off = __atomic_fetch_add(&g->hdr->strings_used, need, __ATOMIC_RELAXED);

	if (off < 4 || off % 4 || off + need > g->strings_size)
		return 0;
	return (uint32_t)off;
}

/* Remember name's id in the thread's cache, unless it was cut to NAME_MAX (it would never compare equal). */
static void cache_put(struct tl_instr_cache *c, const char *name, size_t n, uint32_t id)
{
	if (n < TL_MARKS_NAME_MAX || !name[n]) {
		c->p = name;
		c->id = id;
	}
}

uint32_t tl_instr_intern(struct tl_instr_cache *c, const char *name)
{
	struct tl_instr *g = &tl_instr_g;
	size_t n = strnlen(name, TL_MARKS_NAME_MAX + 1);
	uint32_t id = TL_MARKS_NAME_FULL, *slot, h, len;
	struct tl_instr_names *t;
	int can_add;

	if (!n)
		return 0;
	if (n > TL_MARKS_NAME_MAX)
		n = TL_MARKS_NAME_MAX;
	h = hash_name(name, n);
	/* Known names, the common case, without the lock. */
	t = __atomic_load_n(&g->names, __ATOMIC_ACQUIRE);
	if (t && (id = find(t, name, n, h))) {
		cache_put(c, name, n, id);
		return id;
	}
	id = TL_MARKS_NAME_FULL;
	pthread_mutex_lock(&g->lock);
	/* Out of memory for a bigger table: the names already in it still work. */
	can_add = !((!g->names || 2 * (g->names_n + 1) > g->names->cap) && grow()) && !g->names_full;
	if (!g->names)
		goto out;
	slot = lookup(g->names, name, n, h);
	if (*slot) {
		id = *slot;
	} else {
		uint32_t off = can_add ? reserve(n) : 0;
		if (!off) {
			g->names_full |= can_add;
			goto out;
		}
		len = (uint32_t)n;
		memcpy(g->strings + off, &len, sizeof(len));
		memcpy(g->strings + off + 4, name, n);
		g->strings[off + 4 + n] = 0;
		__atomic_store_n(slot, off, __ATOMIC_RELEASE); /* after the bytes: readers see it whole */
		id = off;
		g->names_n++;
	}
	cache_put(c, name, n, id);
out:
	pthread_mutex_unlock(&g->lock);
	return id;
}
