/*
 * instr.h - internals of the instrumentation library (libthreadlens), shared
 * by its two files: threadlens.c (the public calls, the per-thread rings)
 * and attach.c (finding and checking the shared memory, the name table).
 *
 * Nothing here is exported from the shared library: the build uses
 * -fvisibility=hidden and only the calls of include/threadlens.h carry
 * TL_EXPORT.  The unit test links the static library and uses
 * tl_instr_attach_fd() and tl_instr_detach() to drive both ends of the ring
 * protocol in one process.
 *
 * Invariants:
 *  - tl_instr_g.on is 0 until attach validated the whole layout, and every
 *    pointer below is valid while it is 1.  It is written only by attach
 *    and detach (the constructor, the tests), never while markers fly.
 *  - A struct tl_instr_thread belongs to one thread; it is reached through
 *    a thread-local pointer, and a slot of the shared memory is owned by at
 *    most one of them (a forked child drops its copy: see attach.c).
 */
#ifndef TL_INSTR_H
#define TL_INSTR_H

#include <pthread.h>
#include <stdint.h>

#include "capture/marks_shm.h"

#define TL_EXPORT __attribute__((visibility("default")))
#define TL_INSTR_CACHE 32          /* per-thread name cache entries, a power of two */
#define TL_INSTR_NOSLOT_RETRY 4096 /* calls between two attempts of a slotless thread */

/* The library's one global state: the attachment to the recorder's memory. */
struct tl_instr {
	int on; /* the branch that every call takes first */
	int fd;
	uint8_t *base;
	uint64_t size;
	struct tl_marks_hdr *hdr;
	struct tl_marks_entry *table;
	char *strings;
	uint64_t strings_size;
	uint8_t *slots;
	uint32_t nslots, slot_size, ring_cap;
	int wake_fd;       /* the recorder's eventfd, -1: none (or not an eventfd) */
	pthread_key_t key; /* its destructor releases a thread's slot */
	/*
	 * The name table: name contents -> string-area offset.  Read without a
	 * lock (attach.c, tl_instr_intern); the lock orders the writers.
	 */
	pthread_mutex_t lock;
	struct tl_instr_names *names; /* the current table, published with a release store */
	uint32_t names_n;
	int names_full; /* the string area ran out */
};

/*
 * An open-addressing table of string-area offsets (0 = empty).  Slots are
 * only ever filled, each with a release store after the string's bytes
 * are written; a bigger table replaces it whole, and the old ones stay
 * (chained by `older`) until tl_instr_detach(), so a reader that loaded
 * one never sees it freed.
 */
struct tl_instr_names {
	uint32_t cap; /* a power of two */
	struct tl_instr_names *older;
	uint32_t slot[];
};

extern struct tl_instr tl_instr_g;

struct tl_instr_cache {
	const char *p;
	uint32_t id;
};

/* What a thread needs on the hot path; malloc'ed on its first marker. */
struct tl_instr_thread {
	struct tl_marks_rec *ring; /* NULL: the thread has no slot */
	struct tl_marks_slot *slot;
	uint64_t head;   /* the next record to write (= slot->head) */
	uint64_t limit;  /* the hot path goes on while head < limit (see room()) */
	uint64_t kicked; /* the tail at which we last woke the recorder, + 1; 0 none */
	uint32_t mask;
	uint32_t index; /* slot index */
	uint32_t retry; /* slotless: calls until the next attempt */
	int32_t tid;
	struct tl_instr_cache cache[TL_INSTR_CACHE];
};

/*
 * Attach to the memory described by the value of THREADLENS_MARKS ("fd:N").
 * Returns 0 and turns markers on, or -1 (nothing changes) if the value or
 * the memory is not valid.
 */
int tl_instr_attach_env(const char *value);

/* Attach to the marker memory open on fd (not closed, not duplicated).  0 or -1. */
int tl_instr_attach_fd(int fd);

/*
 * For tests: turn markers off, unmap and forget the names.  Only valid when
 * no thread will call a marker again without first ending (threads that
 * used markers must have exited).
 */
void tl_instr_detach(void);

/*
 * The string-area offset for name, interned in the process-wide table:
 * looked up without a lock (a thread-cache miss costs a hash and a
 * compare); only a name seen for the first time takes the lock.  Fills *c
 * on success.  Returns 0 for "" and TL_MARKS_NAME_FULL if the area is full
 * or memory ran out.
 */
uint32_t tl_instr_intern(struct tl_instr_cache *c, const char *name);

/* The calling thread's state after fork() in a child: forget it (threadlens.c). */
void tl_instr_forget_thread(void);

/* The key's destructor (threadlens.c): a thread ends, its slot is released. */
void tl_instr_thread_gone(void *p);

#endif
