/*
 * fuzz_kallsyms.c - libFuzzer target: arbitrary bytes as a line of
 * /proc/kallsyms into tl_kallsyms_parse_line() must never crash or read
 * past the line; an accepted line's name (and module) lie inside it.  The
 * line is copied into an exact-size heap buffer (no NUL).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "capture/kallsyms.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *line = malloc(size ? size : 1), t;
	const char *n, *m;
	size_t nl, ml;
	uint64_t a;

	if (!line)
		return 0;
	memcpy(line, data, size);
	if (tl_kallsyms_parse_line(line, size, &a, &t, &n, &nl, &m, &ml)) {
		if (!nl || n < line || n + nl > line + size || (m && (m < line || m + ml > line + size)))
			abort();
	}
	free(line);
	return 0;
}
