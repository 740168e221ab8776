/*
 * fuzz_import.c - libFuzzer target: any text given to the perf script
 * line parser must never crash, hang or read out of bounds.
 *
 * The input is split at newlines and fed line by line, as the importer
 * does; events go to a sink that checks them (type in range, strings
 * interned) and drops them.  Seeds (tests/fuzz/corpus/fuzz_import/) are
 * pieces of real perf script output, header included.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "import/import.h"
#include "base/strtab.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct sink_state {
	struct tl_strtab strings;
	uint64_t events;
};

static int on_event(void *ctx, const struct tl_event *ev)
{
	struct sink_state *s = ctx;
	if (ev->type == TL_EV_NONE || ev->type >= TL_EV__COUNT || ev->name >= tl_strtab_next_id(&s->strings))
		__builtin_trap();
	s->events++;
	return 0;
}

static uint32_t on_intern(void *ctx, const char *str)
{
	struct sink_state *s = ctx;
	return tl_strtab_intern(&s->strings, str, strlen(str));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sink_state st = { .events = 0 };
	struct tl_perf_sink sink = { on_event, on_intern, &st };
	struct tl_perf_parser *p;
	const char *text = (const char *)data, *end = text + size;

	tl_strtab_init(&st.strings);
	p = tl_perf_parser_new(&sink);
	if (!p)
		return 0;
	while (text < end) {
		const char *nl = memchr(text, '\n', (size_t)(end - text));
		size_t len = nl ? (size_t)(nl - text) : (size_t)(end - text);
		tl_perf_parser_line(p, text, len);
		text += len + (nl ? 1 : 0);
	}
	if (tl_perf_parser_result(p)->events != st.events)
		__builtin_trap();
	(void)tl_perf_parser_info(p);
	tl_perf_parser_free(p);
	tl_strtab_release(&st.strings);
	return 0;
}
