/*
 * threadlens.c - the marker calls of include/threadlens.h: each thread
 * appends 24-byte records to its own single-producer ring in the memory
 * that `threadlens record` shares with the program (lib/capture/marks_shm.h).
 *
 * The hot path of a recorded call: the `on` test, the thread's state
 * through an initial-exec TLS pointer, a name lookup in the thread's
 * pointer cache (checked against the interned copy, so a reused buffer with
 * new contents cannot pick up a stale name), a clock_gettime() through the
 * vDSO, four stores and a release store of head.  No lock, no allocation,
 * and no system call but the rare wake-up of a lagging recorder (below).
 * The first marker of a thread claims a slot (an atomic
 * compare-and-swap on the slot table) and allocates the thread's state; a
 * new name takes the process-wide name lock once (attach.c).
 *
 * Invariants:
 *  - Only the thread that owns a slot writes its ring, head, dropped and
 *    drop_ts.  The timestamp is read after everything else that can take
 *    time (the name lookup), right before head is published, so records
 *    reach the recorder in at most a few instructions after their time
 *    unless the thread is preempted right there (docs/MARKERS.md).
 *  - t->head == slot->head after every call; head <= limit <= tail + cap,
 *    where tail is the recorder's tail as last read.  limit is tail + cap/2
 *    first, so that a thread that gets ahead of the recorder looks at the
 *    tail once in the middle of the ring and wakes the recorder (one
 *    eventfd write, only while the recorder lags), then tail + cap.
 *  - A thread without a slot (all taken) has ring == NULL and head == limit
 *    == 0, so the full-ring test sends it to the slow path, which counts its
 *    markers as lost and retries a claim every TL_INSTR_NOSLOT_RETRY calls.
 */
#include "threadlens.h"

#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "instr.h"

#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)

/*
 * A marker function of a process that `record -p` attaches to is seen by a
 * uprobe on its entry (lib/capture/umarks.h).  The kernel emulates a nop
 * or a push there, but single-steps most others out of line, which costs
 * ten times more on a virtual machine (measured, a recorded tl_frame_begin:
 * 9.5 us when the function began with its `lea` of tl_instr_g, 0.85 us with
 * this nop).  One nop costs the unrecorded call nothing measurable.
 */
#if defined(__x86_64__)
#define TL_MARKER TL_EXPORT __attribute__((patchable_function_entry(1, 0)))
#else
#define TL_MARKER TL_EXPORT
#endif

/* initial-exec: a %fs-relative load, where the default model calls __tls_get_addr. */
static __thread struct tl_instr_thread *me __attribute__((tls_model("initial-exec")));
static __thread int64_t cur_frame __attribute__((tls_model("initial-exec"))) = -1;

static inline uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* A free slot for t, or none (then t counts its markers as lost for a while). */
static void take_slot(struct tl_instr_thread *t)
{
	struct tl_instr *g = &tl_instr_g;

	for (uint32_t i = 0; i < g->nslots; i++) {
		struct tl_marks_entry *e = &g->table[i];
		uint32_t want = TL_MARKS_FREE, hw;
		struct tl_marks_slot *s;

		if (__atomic_load_n(&e->state, __ATOMIC_RELAXED) != TL_MARKS_FREE ||
		    !__atomic_compare_exchange_n(&e->state, &want, TL_MARKS_OWNED, 0, __ATOMIC_ACQUIRE,
		                                 __ATOMIC_RELAXED))
			continue;
		/* Read by the recorder after it acquired head, which we publish later. */
		__atomic_store_n(&e->tid, t->tid, __ATOMIC_RELAXED);
		__atomic_store_n(&e->pid, (int32_t)getpid(), __ATOMIC_RELAXED);
		s = (struct tl_marks_slot *)(g->slots + (uint64_t)i * g->slot_size);
		t->slot = s;
		t->ring = (struct tl_marks_rec *)((uint8_t *)s + TL_MARKS_RING_OFFSET);
		t->mask = g->ring_cap - 1;
		t->index = i;
		/* The last owner's final head: the recorder drained it before it freed the slot. */
		t->head = __atomic_load_n(&s->head, __ATOMIC_RELAXED);
		t->limit = __atomic_load_n(&s->tail, __ATOMIC_ACQUIRE) + g->ring_cap / 2;
		t->kicked = 0;
		hw = __atomic_load_n(&g->hdr->slots_hiwater, __ATOMIC_RELAXED);
		while (hw < i + 1 && !__atomic_compare_exchange_n(&g->hdr->slots_hiwater, &hw, i + 1, 1,
		                                                  __ATOMIC_RELAXED, __ATOMIC_RELAXED))
			;
		return;
	}
	t->ring = NULL;
	t->slot = NULL;
	t->head = t->limit = 0;
	t->retry = TL_INSTR_NOSLOT_RETRY;
}

/* The pthread key's destructor: the thread ends, its slot goes back once drained. */
void tl_instr_thread_gone(void *p)
{
	struct tl_instr_thread *t = p;

	if (t->slot)
		__atomic_store_n(&tl_instr_g.table[t->index].state, TL_MARKS_RELEASED, __ATOMIC_RELEASE);
	if (me == t)
		me = NULL;
	free(t);
}

void tl_instr_forget_thread(void)
{
	struct tl_instr_thread *t = me;

	/* The parent still owns the slot; the child claims its own on its next marker. */
	me = NULL;
	if (tl_instr_g.on)
		pthread_setspecific(tl_instr_g.key, NULL);
	free(t);
}

static void drop(struct tl_instr_thread *t)
{
	uint64_t ts = now_ns();

	if (t->slot) {
		__atomic_store_n(&t->slot->drop_ts, ts, __ATOMIC_RELAXED);
		__atomic_store_n(&t->slot->dropped, __atomic_load_n(&t->slot->dropped, __ATOMIC_RELAXED) + 1,
		                 __ATOMIC_RELEASE);
	} else {
		__atomic_store_n(&tl_instr_g.hdr->noslot_ts, ts, __ATOMIC_RELAXED);
		__atomic_fetch_add(&tl_instr_g.hdr->noslot_dropped, 1, __ATOMIC_RELEASE);
	}
}

/* The thread's first marker. */
static struct tl_instr_thread *claim(void)
{
	struct tl_instr_thread *t = calloc(1, sizeof(*t));

	if (!t) {
		__atomic_fetch_add(&tl_instr_g.hdr->noslot_dropped, 1, __ATOMIC_RELEASE);
		return NULL;
	}
	t->tid = (int32_t)syscall(SYS_gettid);
	take_slot(t);
	me = t;
	pthread_setspecific(tl_instr_g.key, t);
	return t;
}

/* head reached limit: see how far the recorder got; 1 if there is room now. */
static int room(struct tl_instr_thread *t)
{
	uint32_t cap = tl_instr_g.ring_cap;
	uint64_t tail;

	if (!t->ring) {
		if (--t->retry)
			return 0;
		take_slot(t);
		return t->ring != NULL;
	}
	tail = __atomic_load_n(&t->slot->tail, __ATOMIC_ACQUIRE);
	if (t->head - tail < cap / 2) {
		t->limit = tail + cap / 2;
		return 1;
	}
	/* Half full and the recorder has not moved since we last told it: tell it now. */
	if (t->kicked != tail + 1 && tl_instr_g.wake_fd >= 0) {
		uint64_t one = 1;
		t->kicked = tail + 1;
		if (write(tl_instr_g.wake_fd, &one, sizeof(one)) < 0) {
			/* Nothing to do: the recorder's timer drains anyway. */
		}
	}
	t->limit = tail + cap;
	return t->head < t->limit;
}

static inline uint32_t cache_index(const char *p)
{
	return (uint32_t)(((uintptr_t)p * 0x9e3779b97f4a7c15ull) >> 32) & (TL_INSTR_CACHE - 1);
}

static inline __attribute__((always_inline)) void put(uint32_t type, const char *name, int64_t a)
{
	struct tl_instr_thread *t = me;
	struct tl_marks_rec *r;
	uint32_t id = 0;
	uint64_t h;

	if (unlikely(!t) && !(t = claim()))
		return;
	if (name) {
		struct tl_instr_cache *c = &t->cache[cache_index(name)];
		if (likely(c->p == name) && likely(!strcmp(name, tl_instr_g.strings + c->id + 4)))
			id = c->id;
		else
			id = tl_instr_intern(c, name);
	}
	h = t->head;
	if (unlikely(h >= t->limit)) {
		if (!room(t)) {
			drop(t);
			return;
		}
		h = t->head; /* a slotless thread may just have got a slot */
	}
	r = &t->ring[h & t->mask];
	r->a = a;
	r->name = id;
	r->type = type;
	r->ts = now_ns();
	__atomic_store_n(&t->slot->head, h + 1, __ATOMIC_RELEASE);
	t->head = h + 1;
}

TL_MARKER void tl_frame_begin(uint64_t frame_id)
{
	if (likely(!tl_instr_g.on))
		return;
	cur_frame = (int64_t)frame_id;
	put(TL_MK_FRAME_BEGIN, NULL, (int64_t)frame_id);
}

TL_MARKER void tl_frame_end(uint64_t frame_id)
{
	if (likely(!tl_instr_g.on))
		return;
	put(TL_MK_FRAME_END, NULL, (int64_t)frame_id);
	/* Regions after the frame left this thread belong to no frame until the next join. */
	if (cur_frame == (int64_t)frame_id)
		cur_frame = -1;
}

TL_MARKER void tl_frame_join(uint64_t frame_id)
{
	if (likely(!tl_instr_g.on))
		return;
	cur_frame = (int64_t)frame_id;
}

TL_MARKER void tl_region_begin(const char *name)
{
	if (likely(!tl_instr_g.on))
		return;
	put(TL_MK_REGION_BEGIN, name, cur_frame);
}

TL_MARKER void tl_region_end(const char *name)
{
	if (likely(!tl_instr_g.on))
		return;
	put(TL_MK_REGION_END, name, 0);
}

TL_MARKER void tl_task_begin(const char *label)
{
	if (likely(!tl_instr_g.on))
		return;
	put(TL_MK_TASK_BEGIN, label, cur_frame);
}

TL_MARKER void tl_task_end(const char *label)
{
	if (likely(!tl_instr_g.on))
		return;
	put(TL_MK_TASK_END, label, 0);
}

TL_MARKER void tl_instant(const char *name, int64_t value)
{
	if (likely(!tl_instr_g.on))
		return;
	put(TL_MK_INSTANT, name, value);
}

TL_EXPORT int tl_recording(void)
{
	return tl_instr_g.on;
}
