/*
 * fuzz_procmaps.c - libFuzzer target: arbitrary bytes as a line of
 * /proc/PID/maps into tl_procmaps_parse_line() must never crash or read
 * past the line; an accepted line has end > start and its path inside it.
 * The line is copied into an exact-size heap buffer (no NUL), so that
 * AddressSanitizer sees any read past its end.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "capture/procmaps.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *line = malloc(size ? size : 1);
	struct tl_map m;

	if (!line)
		return 0;
	memcpy(line, data, size);
	if (tl_procmaps_parse_line(line, size, &m)) {
		if (m.end <= m.start || m.path < line || m.path + m.path_len > line + size)
			abort();
	}
	free(line);
	return 0;
}
