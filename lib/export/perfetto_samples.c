/*
 * perfetto_samples.c - the recording's CPU samples (`record --sample`) in
 * the Perfetto export (export_int.h): a PerfSample packet per sample (its
 * time, CPU, process, thread and call stack), with the stacks interned on
 * a packet sequence of their own, as Perfetto's own sampler (traced_perf)
 * writes them: the UI shows each process's samples on its timeline and
 * the flame graph of any selection of them.
 *
 * The names are profile's (analysis/profile.h: symbols, JIT maps, kernel
 * functions; stacks cut where they turn to noise), read in one more pass
 * over the trace.  Perfetto wants every frame in a mapping: one Mapping
 * per module (its name as the one path component), one Frame per function
 * (rel_pc 0: threadlens resolved functions, not addresses), one Callstack
 * per distinct stack, outermost frame first (Perfetto's trace processor
 * makes the first frame the root).  All of it goes in the sequence's first
 * packet, which clears its state; the sample packets then need it.
 */
#include <stdlib.h>
#include <string.h>

#include "analysis/profile/profile.h"
#include "base/errors.h"
#include "export/export_int.h"
#include "export/pb.h"

enum {
	TRACE_PACKET = 1,
	PKT_TIMESTAMP = 8,
	PKT_SEQUENCE_ID = 10,
	PKT_INTERNED_DATA = 12,
	PKT_SEQUENCE_FLAGS = 13,
	PKT_PERF_SAMPLE = 66,
	SEQ_INCREMENTAL_STATE_CLEARED = 1,
	SEQ_NEEDS_INCREMENTAL_STATE = 2,
	SAMPLES_SEQUENCE = 2, /* perfetto.c's track events are on 1 */
	/* InternedData */
	ID_FUNCTION_NAMES = 5,
	ID_FRAMES = 6,
	ID_CALLSTACKS = 7,
	ID_MAPPING_PATHS = 17,
	ID_MAPPINGS = 19,
	/* InternedString; Mapping; Frame; Callstack */
	IS_IID = 1,
	IS_STR = 2,
	MAP_IID = 1,
	MAP_PATH_STRING_IDS = 7,
	FR_IID = 1,
	FR_FUNCTION_NAME_ID = 2,
	FR_MAPPING_ID = 3,
	FR_REL_PC = 4,
	CS_IID = 1,
	CS_FRAME_IDS = 2,
	/* PerfSample */
	PS_CPU = 1,
	PS_PID = 2,
	PS_TID = 3,
	PS_CALLSTACK_IID = 4,
	PS_CPU_MODE = 5,
	MODE_KERNEL = 1,
	MODE_USER = 2,
};

static const char *module_of(const struct tl_profile_func *f)
{
	return f->module[0] ? f->module : "[unknown]";
}

/*
 * The first packet: the modules as mappings, the functions as frames, the
 * stacks.  mod[i]: the mapping iid of function i.  0 or -1.
 */
static int interned(struct tl_pb *b, const struct tl_profile_result *r, uint32_t *mod, uint64_t ts)
{
	const char **names = calloc(r->nfuncs ? r->nfuncs : 1, sizeof(*names));
	uint32_t nm = 0;

	if (!names)
		return tl_error("out of memory");
	tl_pb_begin(b, TRACE_PACKET);
	tl_pb_varint(b, PKT_TIMESTAMP, ts);
	tl_pb_varint(b, PKT_SEQUENCE_ID, SAMPLES_SEQUENCE);
	tl_pb_varint(b, PKT_SEQUENCE_FLAGS, SEQ_INCREMENTAL_STATE_CLEARED);
	tl_pb_begin(b, PKT_INTERNED_DATA);
	for (size_t i = 0; i < r->nfuncs; i++) {
		const char *m = module_of(&r->funcs[i]);
		uint32_t k = 0;

		while (k < nm && strcmp(names[k], m))
			k++;
		mod[i] = k + 1;
		if (k < nm)
			continue;
		names[nm++] = m;
		tl_pb_begin(b, ID_MAPPING_PATHS);
		tl_pb_varint(b, IS_IID, k + 1);
		tl_pb_string(b, IS_STR, m);
		tl_pb_end(b);
		tl_pb_begin(b, ID_MAPPINGS);
		tl_pb_varint(b, MAP_IID, k + 1);
		tl_pb_varint(b, MAP_PATH_STRING_IDS, k + 1);
		tl_pb_end(b);
	}
	free(names);
	for (size_t i = 0; i < r->nfuncs; i++) {
		tl_pb_begin(b, ID_FUNCTION_NAMES);
		tl_pb_varint(b, IS_IID, i + 1);
		tl_pb_string(b, IS_STR, r->funcs[i].name);
		tl_pb_end(b);
		tl_pb_begin(b, ID_FRAMES);
		tl_pb_varint(b, FR_IID, i + 1);
		tl_pb_varint(b, FR_FUNCTION_NAME_ID, i + 1);
		tl_pb_varint(b, FR_MAPPING_ID, mod[i]);
		tl_pb_varint(b, FR_REL_PC, 0);
		tl_pb_end(b);
	}
	for (size_t i = 0; i < r->nstacks; i++) {
		tl_pb_begin(b, ID_CALLSTACKS);
		tl_pb_varint(b, CS_IID, i + 1);
		for (uint32_t k = 0; k < r->stacks[i].n; k++)
			tl_pb_varint(b, CS_FRAME_IDS, (uint64_t)r->stacks[i].frames[k] + 1);
		tl_pb_end(b);
	}
	tl_pb_end(b);
	return 0;
}

int tl_pf_samples(struct tl_run *run, FILE *out, uint64_t *written)
{
	struct tl_profile_opts po = { .cpu = -1, .cells = 1, .each = 1 };
	struct tl_profile_result r = { 0 };
	struct tl_pb b = { 0 };
	uint32_t *mod = NULL;
	int all = run->all_threads, ntids = run->ntids, rc = -1;
	const char *comm = run->comm;

	/* every thread's samples, as the rest of the export (its thread filters do not apply) */
	run->all_threads = 1;
	run->ntids = 0;
	run->comm = NULL;
	if (tl_run_reopen(run) < 0 || tl_profile_analyze(run, &po, &r) < 0)
		goto out;
	if (!r.neach) {
		rc = 0;
		goto out;
	}
	if (!(mod = calloc(r.nfuncs ? r.nfuncs : 1, sizeof(*mod)))) {
		tl_error("out of memory");
		goto out;
	}
	if (interned(&b, &r, mod, r.each[0].ts) < 0 || tl_pf_put(&b, out) < 0)
		goto out;
	for (size_t i = 0; i < r.neach; i++) {
		const struct tl_profile_each *e = &r.each[i];
		const struct tl_profile_stack *s = &r.stacks[e->stack];
		int kernel = s->n && !strcmp(r.funcs[s->frames[s->n - 1]].module, "[kernel]");

		tl_pb_begin(&b, TRACE_PACKET);
		tl_pb_varint(&b, PKT_TIMESTAMP, e->ts);
		tl_pb_varint(&b, PKT_SEQUENCE_ID, SAMPLES_SEQUENCE);
		tl_pb_varint(&b, PKT_SEQUENCE_FLAGS, SEQ_NEEDS_INCREMENTAL_STATE);
		tl_pb_begin(&b, PKT_PERF_SAMPLE);
		tl_pb_varint(&b, PS_CPU, (uint32_t)(e->cpu > 0 ? e->cpu : 0));
		tl_pb_varint(&b, PS_PID, (uint32_t)(e->pid > 0 ? e->pid : 0));
		tl_pb_varint(&b, PS_TID, (uint32_t)(e->tid > 0 ? e->tid : 0));
		tl_pb_varint(&b, PS_CALLSTACK_IID, (uint64_t)e->stack + 1);
		tl_pb_varint(&b, PS_CPU_MODE, kernel ? MODE_KERNEL : MODE_USER);
		tl_pb_end(&b);
		if (tl_pf_put(&b, out) < 0)
			goto out;
	}
	*written = r.neach;
	rc = 0;
out:
	run->all_threads = all;
	run->ntids = ntids;
	run->comm = comm;
	free(mod);
	tl_pb_release(&b);
	tl_profile_release(&r);
	return rc;
}
