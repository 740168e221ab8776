/*
 * record_uprobes.c - the recorder's uprobes on the eBPF back end
 * (capture/bpf_rec.h): the marker library's calls in processes it did not
 * start (record -p, -a), the regions of OpenMP outlined functions, and the
 * functions of --func.  What they are on, and the names of the probed
 * functions, live in rc->um (capture/umarks.h) for the whole recording:
 * the drain names a probed function's events from it (tl_bpf_event.span).
 *
 * Markers and OpenMP regions are extras: what cannot be probed costs them
 * only, with a warning.  A --func that cannot be probed fails the
 * recording, as with the perf back end (uprobes.c).
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/errors.h"
#include "capture/record_int.h"
#include "capture/perf_ring.h"

/* The marker library's calls in processes the recorder did not start (record -p, -a). */
static void attach_umarks(struct rec *rc, struct tl_umarks *u)
{
	if (rc->o->system_wide && tl_umarks_find_all(u))
		tl_rec_warn(rc->res, "markers are not recorded: %s", tl_error_msg());
	for (int i = 0; !rc->o->system_wide && i < rc->nfilter_tgids; i++)
		if (tl_umarks_find(u, rc->filter_tgids[i]))
			tl_rec_warn(rc->res, "markers of process %d are not recorded: %s", (int)rc->filter_tgids[i],
			            tl_error_msg());
	for (int i = 0; i < u->n; i++)
		if (tl_bpf_rec_attach_marks(rc->bpf, &u->files[i]))
			tl_rec_warn(rc->res, "markers are not recorded: %s", tl_error_msg());
	if (u->left_out)
		tl_rec_warn(rc->res,
		            "markers of %llu more files that hold the marker library are not recorded (%d at most)",
		            (unsigned long long)u->left_out, TL_UMARKS_MAX_FILES);
}

/* The -p processes: as the eBPF filter has them (tgids), or as given (the perf back end has no filter). */
static int ntargets(const struct rec *rc)
{
	return rc->o->argv || rc->o->system_wide ? 0 : rc->bpf ? rc->nfilter_tgids : rc->o->npids;
}

static int32_t target(const struct rec *rc, int i)
{
	return rc->bpf ? rc->filter_tgids[i] : rc->o->pids[i];
}

/*
 * The OpenMP regions of the recorded program (a command, or -p processes):
 * uprobes on the entry and return of the functions its compiler outlined
 * from OpenMP constructs (capture/umarks.h) make regions named after them,
 * in the executable and in its shared libraries (a command's as the loader
 * will find them, a -p process's as it maps them now; under -a, those of
 * every process running when the recording starts).  A program that is
 * no ELF file (a script) or has none has nothing to probe.
 */
static void find_omp(struct rec *rc, struct tl_umarks *u)
{
	char exe[1024];
	ssize_t n;

	if (rc->o->argv && !tl_uprobes_command_path(rc->o->argv[0], exe, sizeof(exe))) {
		tl_umarks_omp(u, exe);
		tl_umarks_omp_libs(u, exe);
	}
	for (int i = 0; i < ntargets(rc); i++) {
		char p[64];

		snprintf(p, sizeof(p), "/proc/%d/exe", (int)target(rc, i));
		/*
		 * The maps hold the executable and its libraries; a binary replaced since it started is
		 * "(deleted)" there and passed over, so the one that runs is read through the link (as uprobes.c)
		 */
		if ((n = readlink(p, exe, sizeof(exe) - 1)) > 10 && !strncmp(exe + n - 10, " (deleted)", 10))
			tl_umarks_omp(u, p);
		tl_umarks_omp_maps(u, target(rc, i));
	}
	if (rc->o->system_wide && tl_umarks_omp_all(u) < 0)
		tl_rec_warn(rc->res, "OpenMP regions are not recorded: %s", tl_error_msg());
}

/* A program with an OpenMP runtime but no outlined function found: stripped, most likely; told. */
static void told_stripped(struct rec *rc, const struct tl_umarks *u)
{
	if (u->omp_runtime[0] && u->nspans == u->nbarriers && !rc->o->system_wide)
		tl_rec_warn(rc->res,
		            "the program uses OpenMP (%s) but no function outlined from an OpenMP construct was found "
		            "by name (stripped files have none): no OpenMP region is recorded; keep the symbols, or "
		            "mark the regions (docs/MARKERS.md)",
		            u->omp_runtime);
}

static void attach_omp(struct rec *rc, struct tl_umarks *u)
{
	int first = u->nspans;

	find_omp(rc, u);
	told_stripped(rc, u);
	for (int i = first; i < u->nspans; i++) {
		/* a runtime's barrier is a function: its calls split the regions' instances into parts */
		if (tl_bpf_rec_attach_span(rc->bpf, u->spans[i].path, u->spans[i].offset,
		                           (uint64_t)i << 2 | (u->spans[i].barrier ? TL_BPF_SPAN_FUNC : 0))) {
			tl_rec_warn(rc->res, "OpenMP regions are not recorded: %s", tl_error_msg());
			break;
		}
		rc->res->omp_functions += !u->spans[i].barrier;
	}
	if (u->spans_left_out)
		tl_rec_warn(rc->res, "%llu more OpenMP functions are not recorded as regions (%d at most)",
		            (unsigned long long)u->spans_left_out, TL_UMARKS_MAX_SPANS);
}

/*
 * The perf back end probes --func only (uprobes.c, through tracefs): what
 * the eBPF back end would have probed besides is told, not left out
 * silently.
 */
static void told_not_probed(struct rec *rc, struct tl_umarks *u)
{
	if (!rc->o->no_omp) {
		find_omp(rc, u);
		if (u->nspans > u->nbarriers)
			tl_rec_warn(rc->res,
			            "%d OpenMP functions are not recorded as regions: the perf back end does not "
			            "probe them (--backend bpf does)",
			            u->nspans - u->nbarriers + (int)u->spans_left_out);
	}
	for (int i = 0; i < ntargets(rc); i++)
		tl_umarks_find(u, target(rc, i));
	if (!rc->o->argv && rc->o->system_wide)
		tl_umarks_find_all(u);
	if (u->n)
		tl_rec_warn(rc->res,
		            "markers of processes threadlens did not start are not recorded: the perf back end "
		            "reads a command's only (--backend bpf reads them through uprobes)");
}

/*
 * --func on the eBPF back end: the functions as uprobes.c resolves them
 * (inlined copies included, with their note), each a span of the list; a
 * tracefs probe a dead recorder left behind is removed as the perf back
 * end does.
 */
static int attach_funcs(struct rec *rc, struct tl_umarks *u, const struct tl_uprobes_spec *spec)
{
	struct tl_uprobes *p = tl_uprobes_plan(spec);
	char tracing[256];
	int ret = 0;

	if (!p)
		return -1;
	if (!tl_tracefs_dir(tracing, sizeof(tracing)))
		tl_uprobes_clean_stale(tracing);
	for (int i = 0; i < tl_uprobes_count(p) && !ret; i++) {
		const struct tl_uprobe_func *f = tl_uprobes_func(p, i);
		int k = tl_umarks_add_span(u, f->path, f->label, f->offset);

		if (f->note[0]) /* a function DWARF found inlined */
			tl_rec_warn(rc->res, "%s", f->note);
		if (k < 0)
			ret = tl_error("too many functions to probe (at most %d, inlined copies and OpenMP's included)",
			               TL_UMARKS_MAX_SPANS);
		else
			ret = tl_bpf_rec_attach_span(rc->bpf, f->path, f->offset,
			                             (uint64_t)k << 2 | TL_BPF_SPAN_FUNC |
			                                     (f->inlined ? TL_BPF_SPAN_INLINED : 0));
	}
	tl_uprobes_close(p, NULL, NULL);
	return ret;
}

int tl_rec_attach_uprobes(struct rec *rc, const struct tl_uprobes_spec *spec)
{
	const struct tl_record_opts *o = rc->o;

	if (!(rc->um = tl_umarks_new()))
		return -1;
	if (!rc->bpf) {
		told_not_probed(rc, rc->um);
		return 0;
	}
	if (o->nfuncs && attach_funcs(rc, rc->um, spec))
		return -1;
	if (!o->argv)
		attach_umarks(rc, rc->um);
	if (!o->no_omp)
		attach_omp(rc, rc->um);
	return 0;
}
