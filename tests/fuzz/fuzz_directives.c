/*
 * fuzz_directives.c - libFuzzer target: arbitrary bytes as a directives
 * file (analysis/predict: tl_directives_parse) must never crash; a parsed
 * file has at least one directive, each with a task name, a known kind,
 * a schedule and counts in range, and a line within the text.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/predict/predict.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	struct tl_directives d;
	int lines = 1;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = 0; /* a file's text stops at its first NUL (tl_directives_load refuses one) */
	for (size_t i = 0; text[i]; i++)
		lines += text[i] == '\n';
	if (tl_directives_parse(text, "fuzz", &d) == 0) {
		if (!d.n)
			abort();
		for (size_t i = 0; i < d.n; i++) {
			const struct tl_directive *x = &d.d[i];
			if (!x->task[0] || !x->kinds || x->kinds > 31 || x->schedule < 0 ||
			    x->schedule > TL_SCHED_GUIDED || x->num_threads < 0 || x->chunk < 0 || x->line < 1 ||
			    x->line > lines)
				abort();
		}
		tl_directives_release(&d);
	}
	free(text);
	return 0;
}
