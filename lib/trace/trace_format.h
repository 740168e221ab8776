/*
 * trace_format.h - constants of the .tl file format, private to the trace
 * writer and reader.  docs/FORMAT.md is the normative description; keep the
 * two in step.  All fixed-size integers are little-endian.
 *
 * File:    header (TLF_HEADER_SIZE bytes), then blocks until END or EOF.
 * Header:  magic[8] major:u16 minor:u16 header_len:u32 flags:u64
 *          reserved:u32 hcrc:u32 (CRC-32C of bytes 0..27)
 * Block:   type:u8 flags:u8 reserved:u16 stored_len:u32 raw_len:u32
 *          crc:u32 (CRC-32C of bytes 0..11 and the stored payload)
 *          hcrc:u32 (CRC-32C of bytes 0..15), then stored_len payload bytes
 */
#ifndef TL_TRACE_FORMAT_H
#define TL_TRACE_FORMAT_H

#include <stdint.h>

#define TLF_MAGIC "TLTRACE\0"
#define TLF_MAGIC_LEN 8
#define TLF_MAJOR 1  /* readers reject a newer major */
#define TLF_MINOR 15 /* readers accept any minor */
#define TLF_HEADER_SIZE 32
#define TLF_HEADER_MAX 4096 /* header_len beyond this is damage, not a future header */

#define TLF_BLOCK_HEADER_SIZE 20

enum tlf_block_type {
	TLF_BLOCK_META = 1,
	TLF_BLOCK_STRINGS = 2,
	TLF_BLOCK_EVENTS = 3,
	TLF_BLOCK_END = 4,
	TLF_BLOCK_STACKS = 5, /* format 1.5: call stacks of SAMPLE events (trace/trace_tables.h) */
	                      /* other values: blocks of newer minor versions, skipped by readers */
};

enum tlf_block_flags {
	TLF_BF_ZSTD = 1 << 0, /* the payload is one or more zstd frames */
	TLF_BF_KNOWN = TLF_BF_ZSTD,
};

/*
 * Limits.  A reader treats a length past these as damage, so a corrupt or
 * hostile length field can never make it allocate much.
 */
#define TLF_MAX_BLOCK (32u << 20) /* stored_len and raw_len */
#define TLF_MAX_CPUS 4096         /* section cpu ids are -1 .. TLF_MAX_CPUS-1 */
#define TLF_MAX_META_VALUE 65536
#define TLF_MAX_STRING 4095

/* Writer defaults. */
#define TLF_CHUNK_LIMIT (1u << 20) /* raw section bytes that trigger an auto-flush */
#define TLF_ZSTD_LEVEL 3

/*
 * Event coding inside a section.  First byte: bits 0-4 type (31: a varint
 * type follows), bit 5 a flags varint follows, bit 6 a field-mask byte
 * follows, bit 7 the timestamp delta is negative.  Then |ts delta| as a
 * varint, the flags varint, and the fields of the mask in this order:
 *   tid   zigzag(tid - cur)       cur = the last SWITCH's next tid in the
 *   arg   zigzag(arg - cur)             section (0 at its start)
 *   name  varint string id
 *   a b c zigzag(v - bias)        bias 120 (the default nice-0 priority)
 *                                       for priority fields, else 0
 *   res   varint lag_end, varint lag (reserved, reserved2 before 1.6)
 * Without an explicit mask a type uses tlf_default_mask[type].
 */
#define TLF_EV_TYPE_MASK 0x1f
#define TLF_EV_TYPE_ESCAPE 0x1f
#define TLF_EV_HAS_FLAGS 0x20
#define TLF_EV_HAS_MASK 0x40
#define TLF_EV_TS_NEG 0x80

enum tlf_field {
	TLF_F_TID = 1 << 0,
	TLF_F_ARG = 1 << 1,
	TLF_F_NAME = 1 << 2,
	TLF_F_A = 1 << 3,
	TLF_F_B = 1 << 4,
	TLF_F_C = 1 << 5,
	TLF_F_RES = 1 << 6,
	TLF_F_ALL = 0x7f,
};

/* Fields each type stores by default: the table in event.h. */
static const uint8_t tlf_default_mask[] = {
	[0] = 0,                                                                 /* TL_EV_NONE */
	[1] = TLF_F_TID | TLF_F_ARG | TLF_F_A | TLF_F_B | TLF_F_C,               /* SWITCH */
	[2] = TLF_F_TID | TLF_F_ARG | TLF_F_A | TLF_F_B,                         /* WAKING */
	[3] = TLF_F_TID | TLF_F_ARG | TLF_F_A | TLF_F_B,                         /* WAKEUP */
	[4] = TLF_F_TID | TLF_F_ARG | TLF_F_A | TLF_F_B,                         /* WAKEUP_NEW */
	[5] = TLF_F_TID | TLF_F_ARG | TLF_F_NAME,                                /* FORK */
	[6] = TLF_F_TID | TLF_F_ARG | TLF_F_NAME,                                /* EXEC */
	[7] = TLF_F_TID,                                                         /* EXIT */
	[8] = TLF_F_TID,                                                         /* FREE */
	[9] = TLF_F_TID | TLF_F_A | TLF_F_B,                                     /* MIGRATE */
	[10] = TLF_F_TID | TLF_F_NAME,                                           /* RENAME */
	[11] = TLF_F_TID | TLF_F_NAME | TLF_F_A,                                 /* IRQ_ENTRY */
	[12] = TLF_F_TID | TLF_F_A | TLF_F_B,                                    /* IRQ_EXIT */
	[13] = TLF_F_TID | TLF_F_A,                                              /* SOFTIRQ_ENTRY */
	[14] = TLF_F_TID | TLF_F_A,                                              /* SOFTIRQ_EXIT */
	[15] = TLF_F_TID | TLF_F_A | TLF_F_B,                                    /* FUTEX_ENTER */
	[16] = TLF_F_TID | TLF_F_A,                                              /* FUTEX_EXIT */
	[17] = TLF_F_TID | TLF_F_A | TLF_F_B | TLF_F_C,                          /* BLOCK_ISSUE */
	[18] = TLF_F_TID | TLF_F_A | TLF_F_B | TLF_F_C,                          /* BLOCK_COMPLETE */
	[19] = TLF_F_TID | TLF_F_ARG | TLF_F_NAME | TLF_F_A,                     /* THREAD */
	[20] = TLF_F_A,                                                          /* LOST */
	[21] = TLF_F_TID | TLF_F_A,                                              /* RUNTIME */
	[22] = TLF_F_TID,                                                        /* YIELD_ENTER */
	[23] = TLF_F_TID,                                                        /* YIELD_EXIT */
	[24] = TLF_F_TID | TLF_F_A,                                              /* FRAME_BEGIN */
	[25] = TLF_F_TID | TLF_F_A,                                              /* FRAME_END */
	[26] = TLF_F_TID | TLF_F_NAME | TLF_F_A,                                 /* REGION_BEGIN */
	[27] = TLF_F_TID | TLF_F_NAME,                                           /* REGION_END */
	[28] = TLF_F_TID | TLF_F_NAME | TLF_F_A,                                 /* TASK_BEGIN */
	[29] = TLF_F_TID | TLF_F_NAME,                                           /* TASK_END */
	[30] = TLF_F_TID | TLF_F_NAME | TLF_F_A,                                 /* INSTANT */
	[31] = TLF_F_TID | TLF_F_NAME,                                           /* FUNC_ENTRY */
	[32] = TLF_F_TID | TLF_F_NAME,                                           /* FUNC_EXIT */
	[33] = TLF_F_TID | TLF_F_A,                                              /* MARKS_LOST */
	[34] = TLF_F_TID | TLF_F_ARG | TLF_F_A | TLF_F_B | TLF_F_C,              /* KSTAT (1.1) */
	[35] = TLF_F_TID | TLF_F_ARG | TLF_F_A | TLF_F_B,                        /* KSTAT_CSW (1.1) */
	[36] = TLF_F_ARG | TLF_F_A | TLF_F_B | TLF_F_C,                          /* KSTAT_CPU (1.1) */
	[37] = TLF_F_TID | TLF_F_ARG | TLF_F_NAME | TLF_F_A | TLF_F_B | TLF_F_C, /* FILTERED (1.2) */
	[38] = TLF_F_TID | TLF_F_A | TLF_F_B | TLF_F_C,                          /* AFFINITY (1.3) */
	[39] = TLF_F_TID | TLF_F_ARG | TLF_F_NAME | TLF_F_A | TLF_F_B | TLF_F_C, /* SAMPLE (1.5) */
	[40] = TLF_F_TID | TLF_F_NAME | TLF_F_A | TLF_F_B | TLF_F_C,             /* MAP (1.5) */
	[41] = TLF_F_NAME | TLF_F_A | TLF_F_B,                                   /* KSYM (1.5) */
	[42] = TLF_F_TID | TLF_F_A | TLF_F_B | TLF_F_C,                          /* YIELD_SPIN (1.8) */
	[43] = TLF_F_TID | TLF_F_A,                                              /* FUTEX_WAIT (1.9) */
	[44] = TLF_F_TID | TLF_F_NAME | TLF_F_A,                                 /* FUTEX_NAME (1.10) */
	[45] = TLF_F_TID | TLF_F_NAME | TLF_F_A | TLF_F_B,                       /* JSYM (1.13) */
	[46] = TLF_F_TID | TLF_F_A,                                              /* CLOCK_TAKEN (1.15) */
};

/*
 * Types from this one on were added after 1.0: the writer always gives
 * them an explicit field mask, so a 1.0 reader can skip them.
 */
#define TLF_EV_FIRST_1_1 34

/* Fields holding a kernel priority: stored as zigzag(prio - TLF_PRIO_BIAS). */
#define TLF_PRIO_BIAS 120
static const uint8_t tlf_prio_mask[] = {
	[1] = TLF_F_B | TLF_F_C, /* SWITCH: prev_prio, next_prio */
	[2] = TLF_F_B,           /* WAKING: prio */
	[3] = TLF_F_B,           /* WAKEUP */
	[4] = TLF_F_B,           /* WAKEUP_NEW */
	[20] = 0,
	[21] = 0,
	[22] = 0,
	[23] = 0,
	[24] = 0,
	[25] = 0,
	[26] = 0,
	[27] = 0,
	[28] = 0,
	[29] = 0,
	[30] = 0,
	[31] = 0,
	[32] = 0,
	[33] = 0,
	[34] = 0,
	[35] = 0,
	[36] = 0,
	[37] = 0,
	[38] = 0,
	[39] = 0,
	[40] = 0,
	[41] = 0,
	[42] = 0,
	[43] = 0,
	[44] = 0,
	[45] = 0,
	[46] = 0,
};

/* The longest event coding: byte, type, mask, ts, flags, 2x5 + 5 + 3x10 + 3 + 5. */
#define TLF_EV_MAX_BYTES 80

#endif
