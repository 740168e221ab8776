/*
 * fuzz_spec.c - libFuzzer target: arbitrary bytes as a campaign
 * specification (analysis/sweep/spec: tl_spec_parse) must never crash;
 * a parsed one keeps spec.h's invariants (every attribute has a value, a
 * line within the text and a series in range; the combinations are within
 * the limit), and every combination's values and RUN command can be made.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/sweep/spec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	const struct tl_spec_value **vals;
	struct tl_spec s;
	size_t n;
	int lines = 1;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = 0; /* a file's text stops at its first NUL (tl_spec_load refuses one) */
	for (size_t i = 0; text[i]; i++)
		lines += text[i] == '\n';
	if (tl_spec_parse(text, "fuzz", &s) == 0) {
		n = tl_spec_combinations(&s);
		if (!n || n > TL_SPEC_MAX_COMBOS || !s.run || s.repeat < 1)
			abort();
		for (size_t i = 0; i < s.nattrs; i++)
			if (!s.attrs[i].nv || s.attrs[i].line < 1 || s.attrs[i].line > lines ||
			    s.attrs[i].series >= s.nseries || s.attrs[i].series < -1)
				abort();
		vals = calloc(s.nattrs + 1, sizeof(*vals));
		for (size_t i = 0; vals && i < n && i < 64; i++) {
			tl_spec_combination(&s, i, vals);
			free(tl_spec_command(&s, vals, 1));
		}
		free(vals);
		tl_spec_release(&s);
	}
	free(text);
	return 0;
}
