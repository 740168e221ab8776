/*
 * callsite.h - whether a return address read off a stack can be one:
 * x86-64 code returns to the instruction after a call, so the bytes just
 * before a true return address end with a call instruction.
 *
 * A frame-pointer walk through code built without frame pointers reads
 * saved registers and locals as return addresses.  Those that point into
 * no code are easy to drop; those that happen to point into code are not,
 * and this test catches most of them.  Measured on Debian 12's libc.so.6,
 * libpython3.11 and gcc's cc1 (objdump -d; every call instruction, every
 * instruction, 200,000 random offsets in each one's code): all 435,718
 * return addresses pass; an instruction's start (a function pointer, a
 * stale address) passes 4.3%, 8.1% and 7.8% of the time; a random byte of
 * code 1.2%, 2.3% and 2.1%.  Pure on bytes.
 *
 * The calls recognised (Intel SDM vol. 2, CALL): E8 rel32 (5 bytes), and
 * FF /2 in every addressing form (register, [reg], [reg+disp8],
 * [reg+disp32], SIB with or without displacement, [rip+disp32]) after up to
 * three prefixes a compiler emits there (3E notrack, 2E, 64/65 segment, 67
 * address size, F2 bnd) and one REX prefix (40-4F): 2 to 10 bytes.
 */
#ifndef TL_CALLSITE_H
#define TL_CALLSITE_H

#include <stddef.h>
#include <stdint.h>

/* The most bytes before an address that tl_call_ends_here() looks at. */
#define TL_CALLSITE_MAX 10

/*
 * 1 if some call instruction's last byte is b[n - 1], so that b + n can be
 * a return address; 0 if none is.  b holds the n bytes just before the
 * address (n <= TL_CALLSITE_MAX is all it reads; fewer when the code starts
 * closer than that).
 */
int tl_call_ends_here(const uint8_t *b, size_t n);

#endif
