/*
 * fuzz_ldconf.c - libFuzzer target: arbitrary bytes as the lines of an
 * ld.so.conf into tl_elfneed_conf_line() (symbols/elfneed.h), which must
 * never crash or read outside a line; what it gives back must lie inside
 * the line, be non-empty, hold no '#' and have no blank at either end.
 *
 * Each input is split at newlines; every line is copied into an
 * exact-size heap buffer so that AddressSanitizer sees a read past it.
 */
#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "symbols/elfneed.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t at = 0;

	while (at < size) {
		const uint8_t *nl = memchr(data + at, '\n', size - at);
		size_t len = (nl ? (size_t)(nl - data) + 1 : size) - at;
		char *line = malloc(len ? len : 1);
		const char *out = NULL;
		size_t n = 0;
		int kind;

		if (!line)
			return 0;
		memcpy(line, data + at, len);
		kind = tl_elfneed_conf_line(line, len, &out, &n);
		if (kind < 0 || kind > 2)
			abort();
		if (kind) {
			if (out < line || out + n > line + len || !n)
				abort();
			if (memchr(out, '#', n) || isspace((unsigned char)out[0]) || isspace((unsigned char)out[n - 1]))
				abort();
		}
		free(line);
		at += len;
	}
	return 0;
}
