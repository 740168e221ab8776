/*
 * fuzz_procmaps.c - libFuzzer target: arbitrary bytes as a line of
 * /proc/PID/maps into tl_procmaps_parse_line() must never crash or read
 * past the line; an accepted line has end > start and its path inside it.
 * The line is copied into an exact-size heap buffer (no NUL), so that
 * AddressSanitizer sees any read past its end.  The same bytes as a JIT's
 * perf map (tl_perfmap_parse): sorted, one symbol a start, each found.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "capture/locknames.h"
#include "capture/procmaps.h"
#include "symbols/perfmap.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const struct tl_symfile *no_file(void *ctx, const char *path, size_t len)
{
	(void)ctx, (void)path, (void)len;
	return NULL;
}

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
	/* the input as a whole maps text: a lock's name at the first mapping's start, with no file readable */
	{
		char name[TL_LOCKNAME_MAX];
		uint64_t addr = 0;

		if (size >= 8)
			memcpy(&addr, data + size - 8, 8);
		if (tl_locknames_resolve(line, size, addr, no_file, NULL, name, sizeof(name)) == 1 &&
		    strnlen(name, sizeof(name)) >= sizeof(name))
			abort();
	}
	/* the same bytes as a JIT's perf map (symbols/perfmap.h): sorted, one per start, names inside */
	{
		struct tl_perfmap pm;
		uint64_t ip = 0;

		if (!tl_perfmap_parse(line, size, &pm)) {
			for (size_t i = 0; i < pm.nsyms; i++)
				if ((i && pm.syms[i - 1].start >= pm.syms[i].start) ||
				    pm.syms[i].name >= pm.names_len || !pm.syms[i].size)
					abort();
			if (size >= 8)
				memcpy(&ip, data, 8);
			tl_perfmap_lookup(&pm, ip);
			for (size_t i = 0; i < pm.nsyms && i < 16; i++)
				if (!tl_perfmap_lookup(&pm, pm.syms[i].start))
					abort();
			tl_perfmap_release(&pm);
		}
	}
	free(line);
	return 0;
}
