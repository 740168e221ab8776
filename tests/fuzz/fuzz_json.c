/*
 * fuzz_json.c - libFuzzer target: arbitrary bytes as a JSON document (the
 * platform file of predict --platform): tl_json_check() must never crash,
 * and on a document it accepts tl_json_get_number() must never crash
 * either, whatever the key path.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "output/json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const paths[][3] = {
		{ "costs_ns", "barrier", "median" },
		{ "version", "", "" },
		{ "a", "b", "c" },
		{ "", "", "" },
	};
	char *buf = malloc(size ? size : 1);
	double v;

	if (!buf)
		return 0;
	memcpy(buf, data, size);
	if (tl_json_check(buf, size) == 0)
		for (int k = 0; k < 4; k++)
			for (int d = 0; d <= 3; d++)
				tl_json_get_number(buf, size, paths[k], d, &v);
	free(buf);
	return 0;
}
