/*
 * marks_shm.h - the layout of the marker shared memory: the contract
 * between the instrumentation library (instr/, running inside the recorded
 * program) and the recorder (lib/capture/marks.c).  docs/MARKERS.md describes the
 * protocol around it.
 *
 * The recorder creates the memory (a memfd) before it starts the command and
 * hands it over as an inherited file descriptor named by the environment
 * variable THREADLENS_MARKS=fd:N.  Everything is native-endian; both sides
 * run on the same machine.  All offsets are from the start of the memory.
 *
 *   offset                       size                 what
 *   0                            TL_MARKS_HDR_SIZE    struct tl_marks_hdr
 *   table_offset                 nslots * 16          struct tl_marks_entry[nslots]
 *   strings_offset               strings_size         the string area
 *   slots_offset + i * slot_size slot_size            slot i: struct tl_marks_slot, then the ring
 *
 * Slot i's ring holds ring_cap records of struct tl_marks_rec (24 bytes)
 * from byte TL_MARKS_RING_OFFSET of the slot on.  Each ring has one
 * producer (the thread that owns the slot) and one consumer (the recorder):
 *
 *  - head counts the records the producer published since the slot was
 *    created; record k lives at index k & (ring_cap - 1).  The producer
 *    writes the record, then stores head + 1 with release order.
 *  - tail counts the records the consumer took.  The consumer copies the
 *    records in [tail, head) (head loaded with acquire order), then stores
 *    the new tail with release order.  The producer may overwrite a record
 *    only once tail has passed it: it publishes only while head - tail <
 *    ring_cap, and otherwise drops the marker and adds one to `dropped`.
 *  - head, tail and dropped only grow and survive a change of owner, so a
 *    new owner simply continues at the old head.
 *
 * A slot's owner is recorded in the slot table (struct tl_marks_entry):
 *
 *  - FREE -> OWNED: a thread claims a free slot with a compare-and-swap on
 *    `state`, then writes tid and pid before it publishes its first record
 *    (the consumer reads them after an acquire load of head).
 *  - OWNED -> RELEASED: the thread exited (a pthread key destructor): it
 *    publishes nothing more.
 *  - RELEASED -> FREE: only the consumer, after it drained the ring; also
 *    OWNED -> FREE when the owner is dead (killed, or its process exited:
 *    no destructor ran), which the consumer checks with tgkill(pid, tid, 0).
 *
 * Names: a marker's `name` is the byte offset, within the string area, of an
 * entry { u32 len; char s[len]; char nul; } padded to 4 bytes; 0 means no
 * name (offset 0 of the area is never handed out).  The producer reserves an
 * entry with an atomic add on strings_used, writes it, and only then
 * publishes a marker that names it, so the consumer's acquire of head also
 * makes the string visible.  Entries are never changed or freed.  When the
 * area is full, markers carry name TL_MARKS_NAME_FULL.
 *
 * Markers of threads that found every slot taken count in noslot_dropped
 * (the consumer reports them as lost, with tid -1).
 *
 * Wake-up: the consumer drains on its own schedule (every 100 ms when
 * nothing else wakes it).  A producer whose ring is half full and that has
 * not told the consumer since the consumer last moved its tail writes 1 to
 * the eventfd wake_fd (an 8-byte write), which the consumer polls.  This is
 * the only system call of the protocol: at most once per ring_cap / 2
 * markers of a thread, and only when the consumer is behind.
 *
 * Compatibility: a reader accepts a memory only with the magic, the same
 * major version and a header_size it knows, and checks every offset and size
 * against total_size.  New fields go into the reserved space and bump the
 * minor version.
 */
#ifndef TL_MARKS_SHM_H
#define TL_MARKS_SHM_H

#include <stdint.h>

#define TL_MARKS_ENV "THREADLENS_MARKS"
#define TL_MARKS_MAGIC 0x0031534b52414d54ull /* "TMARKS1\0" in memory order */
#define TL_MARKS_VERSION_MAJOR 1
#define TL_MARKS_VERSION_MINOR 0
#define TL_MARKS_HDR_SIZE 4096u
#define TL_MARKS_RING_OFFSET 128u
#define TL_MARKS_NAME_FULL 0xffffffffu /* the string area was full: the name is lost */
#define TL_MARKS_NAME_MAX 1023u        /* longer names are cut to this many bytes */

/* Defaults the recorder uses; the library reads the real values from the header. */
#define TL_MARKS_DEFAULT_SLOTS 512u
#define TL_MARKS_DEFAULT_RING 8192u /* records per thread: 192 KiB */
#define TL_MARKS_DEFAULT_STRINGS (1u << 20)

/* struct tl_marks_entry.state */
enum tl_marks_slot_state {
	TL_MARKS_FREE = 0,
	TL_MARKS_OWNED = 1,
	TL_MARKS_RELEASED = 2,
};

/* struct tl_marks_rec.type */
enum tl_marks_type {
	TL_MK_FRAME_BEGIN = 1,  /* a = frame id */
	TL_MK_FRAME_END = 2,    /* a = frame id */
	TL_MK_REGION_BEGIN = 3, /* name, a = the thread's current frame or -1 */
	TL_MK_REGION_END = 4,   /* name */
	TL_MK_TASK_BEGIN = 5,   /* name, a = the thread's current frame or -1 */
	TL_MK_TASK_END = 6,     /* name */
	TL_MK_INSTANT = 7,      /* name, a = value */
};

/* Bytes 0..4095.  Fields marked (atomic) change while both sides run. */
struct tl_marks_hdr {
	uint64_t magic;          /*   0: TL_MARKS_MAGIC */
	uint16_t version_major;  /*   8 */
	uint16_t version_minor;  /*  10 */
	uint32_t header_size;    /*  12: TL_MARKS_HDR_SIZE */
	uint64_t total_size;     /*  16: bytes of the whole memory (the memfd's size) */
	uint32_t nslots;         /*  24 */
	uint32_t slot_size;      /*  28: bytes per slot, a multiple of 64 */
	uint32_t ring_cap;       /*  32: records per ring, a power of two */
	uint32_t rec_size;       /*  36: sizeof(struct tl_marks_rec) = 24 */
	uint64_t table_offset;   /*  40 */
	uint64_t strings_offset; /*  48 */
	uint64_t strings_size;   /*  56 */
	uint64_t slots_offset;   /*  64 */
	uint64_t strings_used;   /*  72: (atomic) bytes of the string area handed out, from 4 */
	uint32_t slots_hiwater;  /*  80: (atomic) highest slot index ever claimed + 1 */
	int32_t wake_fd;         /*  84: an eventfd open in the program (inherited), or -1 */
	uint64_t noslot_dropped; /*  88: (atomic) markers dropped for want of a slot */
	uint64_t noslot_ts;      /*  96: time of the last such drop */
	uint64_t creator_pid;    /* 104: the recorder's pid, for diagnostics */
	uint8_t reserved[TL_MARKS_HDR_SIZE - 112];
};

/* One per slot, in the slot table. */
struct tl_marks_entry {
	uint32_t state; /*  0: (atomic) enum tl_marks_slot_state */
	int32_t tid;    /*  4: the owner's kernel thread id (gettid()) */
	int32_t pid;    /*  8: the owner's process id */
	uint32_t reserved;
};

/* The start of a slot; the ring follows at TL_MARKS_RING_OFFSET. */
struct tl_marks_slot {
	/* written by the producer (its own cache line) */
	uint64_t head;    /*   0: (atomic) records published */
	uint64_t dropped; /*   8: (atomic) markers dropped because the ring was full */
	uint64_t drop_ts; /*  16: time of the last drop */
	uint64_t prod_reserved[5];
	/* written by the consumer */
	uint64_t tail; /*  64: (atomic) records consumed */
	uint64_t cons_reserved[7];
};

/* One marker, 24 bytes. */
struct tl_marks_rec {
	uint64_t ts;   /*  0: CLOCK_MONOTONIC ns, read just before publishing */
	int64_t a;     /*  8: see enum tl_marks_type */
	uint32_t name; /* 16: string-area offset, 0 = none */
	uint32_t type; /* 20: enum tl_marks_type */
};

_Static_assert(sizeof(struct tl_marks_hdr) == TL_MARKS_HDR_SIZE, "marker header is one page");
_Static_assert(sizeof(struct tl_marks_entry) == 16, "slot table entries are 16 bytes");
_Static_assert(sizeof(struct tl_marks_slot) == TL_MARKS_RING_OFFSET, "slot header is two cache lines");
_Static_assert(sizeof(struct tl_marks_rec) == 24, "marker records are 24 bytes");

#endif
