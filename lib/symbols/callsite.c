/*
 * callsite.c - does a call instruction end just before an address (see
 * callsite.h).  Each candidate start is decoded forward and must end
 * exactly at the address: a decode never reads past b[n - 1].
 */
#include "symbols/callsite.h"

static int call_prefix(uint8_t c)
{
	return c == 0x3e || c == 0x2e || c == 0x64 || c == 0x65 || c == 0x67 || c == 0xf2;
}

/* The length of the FF /2 call that starts at p and fits in n bytes, or 0 if p holds none. */
static size_t ff2_len(const uint8_t *p, size_t n)
{
	size_t k = 0;
	uint8_t modrm, mod, rm;

	while (k < n && k < 3 && call_prefix(p[k]))
		k++;
	if (k < n && (p[k] & 0xf0) == 0x40) /* REX */
		k++;
	if (k + 2 > n || p[k] != 0xff || ((p[k + 1] >> 3) & 7) != 2)
		return 0;
	modrm = p[k + 1];
	mod = modrm >> 6;
	rm = modrm & 7;
	k += 2;
	if (mod == 3) /* call *%reg */
		return k;
	if (rm == 4) { /* a SIB byte; base 101 with mod 00: disp32, no base */
		if (k >= n)
			return 0;
		if (mod == 0 && (p[k] & 7) == 5)
			k += 4;
		k++;
	} else if (mod == 0 && rm == 5) { /* [rip + disp32] */
		k += 4;
	}
	if (mod == 1)
		k += 1;
	else if (mod == 2)
		k += 4;
	return k <= n ? k : 0;
}

int tl_call_ends_here(const uint8_t *b, size_t n)
{
	if (n > TL_CALLSITE_MAX) {
		b += n - TL_CALLSITE_MAX;
		n = TL_CALLSITE_MAX;
	}
	if (n >= 5 && b[n - 5] == 0xe8)
		return 1;
	for (size_t len = 2; len <= n; len++)
		if (ff2_len(b + n - len, len) == len)
			return 1;
	return 0;
}
