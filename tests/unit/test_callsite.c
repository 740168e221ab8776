/*
 * test_callsite.c - does a call instruction end just before an address
 * (lib/symbols/callsite.c).
 *
 * Each encoding is hand-assembled from the Intel SDM's tables (CALL: E8
 * cd, FF /2 with every ModRM/SIB form) and checked with the call as the
 * last bytes, behind filler, and without its first byte; each copy is an
 * exact-size heap buffer, so AddressSanitizer sees a read outside it.
 * Real code: the return addresses of this program's own calls
 * (__builtin_return_address), through a direct call and a pointer.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symbols/callsite.h"
#include "harness.h"

/* tl_call_ends_here() on an exact-size copy of filler bytes then b[n] */
static int ends(const uint8_t *b, size_t n, size_t filler)
{
	uint8_t *c = malloc(n + filler + 1);
	int r;

	if (!c)
		return -1;
	memset(c, 0x90, filler);
	if (n)
		memcpy(c + filler, b, n);
	r = tl_call_ends_here(c, n + filler);
	free(c);
	return r;
}

struct enc {
	const char *what;
	uint8_t b[10];
	size_t n;
};

static const struct enc calls[] = {
	{ "call rel32", { 0xe8, 0x18, 0x01, 0x00, 0x00 }, 5 },
	{ "call *%rax", { 0xff, 0xd0 }, 2 },
	{ "call *%r12 (REX.B)", { 0x41, 0xff, 0xd4 }, 3 },
	{ "notrack call *%rax", { 0x3e, 0xff, 0xd0 }, 3 },
	{ "notrack call *%r11", { 0x3e, 0x41, 0xff, 0xd3 }, 4 },
	{ "call *(%rax)", { 0xff, 0x10 }, 2 },
	{ "call *(%rsp) (SIB)", { 0xff, 0x14, 0x24 }, 3 },
	{ "call *0x1000(,%rax,8) (SIB, no base)", { 0xff, 0x14, 0xc5, 0x00, 0x10, 0x00, 0x00 }, 7 },
	{ "call *0x2f0f(%rip)", { 0xff, 0x15, 0x0f, 0x2f, 0x00, 0x00 }, 6 },
	{ "call *0x8(%rax)", { 0xff, 0x50, 0x08 }, 3 },
	{ "call *0x8(%rsp) (SIB, disp8)", { 0xff, 0x54, 0x24, 0x08 }, 4 },
	{ "call *0x100(%rbx)", { 0xff, 0x93, 0x00, 0x01, 0x00, 0x00 }, 6 },
	{ "call *0x100(%rbx,%rax,8) (SIB, disp32)", { 0xff, 0x94, 0xc3, 0x00, 0x01, 0x00, 0x00 }, 7 },
	{ "call *0x100(%r13,%r14,8) (REX.XB, SIB, disp32)", { 0x43, 0xff, 0x94, 0xf5, 0x00, 0x01, 0x00, 0x00 }, 8 },
	{ "notrack call *0x8(%r12,%rax,8)", { 0x3e, 0x41, 0xff, 0x54, 0xc4, 0x08 }, 6 },
	{ "call *%fs:0x28", { 0x64, 0xff, 0x14, 0x25, 0x28, 0x00, 0x00, 0x00 }, 8 },
	{ "bnd call *%rax", { 0xf2, 0xff, 0xd0 }, 3 },
};

/* What no call ends: the last byte of each is at the address. */
static const struct enc not_calls[] = {
	{ "jmp *%rax (FF /4)", { 0xff, 0xe0 }, 2 },
	{ "push 0x8(%rax) (FF /6)", { 0xff, 0x70, 0x08 }, 3 },
	{ "inc %eax (FF /0)", { 0xff, 0xc0 }, 2 },
	{ "ret", { 0xc3 }, 1 },
	{ "nops", { 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90 }, 10 },
	{ "int3 padding", { 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc }, 8 },
	{ "E8 four bytes back", { 0xe8, 0x00, 0x00, 0x00 }, 4 },
	{ "E8 six bytes back", { 0xe8, 0x00, 0x00, 0x00, 0x00, 0x00 }, 6 },
	{ "call *0x8(%rax) with a byte more", { 0xff, 0x50, 0x08, 0x90 }, 4 },
	{ "add %edi,%eax; ... (inline.elf's main at 0x1060)", { 0x89, 0xf8, 0x83, 0xd0, 0x00, 0x0f, 0xaf, 0xc0 }, 8 },
};

TEST(call_encodings)
{
	for (size_t i = 0; i < sizeof(calls) / sizeof(calls[0]); i++) {
		const struct enc *e = &calls[i];
		int whole = ends(e->b, e->n, 0), behind = ends(e->b, e->n, 12), cut = ends(e->b + 1, e->n - 1, 0);

		if (whole != 1 || behind != 1)
			printf("  not seen: %s (%d, behind filler %d)\n", e->what, whole, behind);
		CHECK_EQ_INT(whole, 1);
		CHECK_EQ_INT(behind, 1);
		/* without its first byte it is no call of the same end, unless that is a prefix */
		if (e->b[0] == 0xe8 || e->b[0] == 0xff)
			CHECK_EQ_INT(cut, 0);
	}
	for (size_t i = 0; i < sizeof(not_calls) / sizeof(not_calls[0]); i++) {
		const struct enc *e = &not_calls[i];
		int r = ends(e->b, e->n, 0);

		if (r != 0)
			printf("  seen as a call: %s\n", e->what);
		CHECK_EQ_INT(r, 0);
	}
	/* nothing to read: no call */
	CHECK_EQ_INT(ends(NULL, 0, 0), 0);
	CHECK_EQ_INT(ends((const uint8_t[]){ 0xd0 }, 1, 0), 0);
	/* only the last TL_CALLSITE_MAX bytes count */
	CHECK_EQ_INT(ends((const uint8_t[]){ 0xe8, 0, 0, 0, 0 }, 5, 40), 1);
}

static __attribute__((noinline)) const void *return_address(void)
{
	const void *r = __builtin_return_address(0);
	__asm__ volatile("" ::: "memory");
	return r;
}

static const void *(*volatile via_pointer)(void) = return_address;

TEST(own_return_addresses)
{
	const uint8_t *direct = return_address();
	const uint8_t *indirect = via_pointer();

	CHECK_EQ_INT(tl_call_ends_here(direct - TL_CALLSITE_MAX, TL_CALLSITE_MAX), 1);
	CHECK_EQ_INT(tl_call_ends_here(indirect - TL_CALLSITE_MAX, TL_CALLSITE_MAX), 1);
}

int main(void)
{
	RUN_TESTS(call_encodings, own_return_addresses);
}
