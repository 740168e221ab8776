/*
 * fuzz_marks.c - libFuzzer target: whatever the recorded program leaves in
 * the marker shared memory (lib/capture/marks_shm.h), the recorder's drain
 * (lib/capture/marks.c) must not crash, read out of bounds, hang or allocate
 * without bound.
 *
 * Each input is copied over a fresh, small marker memory (2 slots of 16
 * records, 256 bytes of names), from its first byte on: header fields the
 * recorder reads (slots_hiwater, noslot_*), the slot table (states, tids),
 * the string area and the rings.  Then two drains with a watermark and a
 * final one take everything to a trace writer on /dev/null.
 *
 * Checked beyond crashes: the markers the drain reports never exceed the
 * records the rings can hold over the three drains.
 *
 * The seed tests/fuzz/corpus/fuzz_marks/layout_2x16 is such a memory with
 * two claimed slots (one released), two names, nine records of every type
 * and some drops, so that mutations start inside the rings rather than in
 * the header page.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "capture/marks.h"
#include "capture/marks_shm.h"
#include "trace/trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tl_marks *m = tl_marks_new_sized(2, 16, 256);
	struct tl_trace_info info;
	struct tl_trace_writer *w;
	struct tl_marks_stats st;
	struct stat sb;
	uint8_t *p;

	if (!m)
		return 0;
	if (fstat(tl_marks_fd(m), &sb) ||
	    (p = mmap(NULL, (size_t)sb.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, tl_marks_fd(m), 0)) == MAP_FAILED) {
		tl_marks_free(m);
		return 0;
	}
	memcpy(p, data, size < (size_t)sb.st_size ? size : (size_t)sb.st_size);
	memset(&info, 0, sizeof(info));
	w = tl_trace_writer_create("/dev/null", &info);
	if (w) {
		tl_trace_writer_set_level(w, 0);
		tl_marks_drain(m, w, 1000);
		tl_marks_drain(m, w, UINT64_MAX - 1);
		tl_marks_drain(m, w, TL_MARKS_ALL);
		tl_marks_get_stats(m, &st);
		if (st.markers > 3 * 2 * 16)
			abort();
		tl_trace_writer_close(w, NULL);
	}
	munmap(p, (size_t)sb.st_size);
	tl_marks_free(m);
	return 0;
}
