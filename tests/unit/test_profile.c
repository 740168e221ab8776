/*
 * test_profile.c - the profile analysis (analysis/profile/profile.h) and
 * the symbols behind it (symbols/symfile.h), with exact expectations: a
 * hand-built trace of SAMPLE, MAP and EXEC events whose addresses fall in
 * the committed fixture tests/data/elf/inline.elf (main 0x1040, twice
 * 0x1180, never_inlined 0x1190; README.md there), and its stripped copy.
 * Run from the repository root.
 */
#include <limits.h>
#include <math.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "event_build.h"
#include "harness.h"

#include "analysis/diff/diff.h"
#include "analysis/profile/profile.h"
#include "analysis/profile/profile_runs.h"
#include "base/errors.h"
#include "capture/buildids.h"
#include "symbols/symfile.h"

#define FIXTURE "tests/data/elf/inline.elf"
#define STRIPPED "tests/data/elf/inline-stripped.elf"

TEST(symbols_by_offset)
{
	struct tl_symfile f;
	uint64_t into = 0;

	CHECK_EQ_INT(tl_symfile_load(&f, FIXTURE), 0);
	CHECK_EQ_INT(f.loaded, 1);
	CHECK_EQ_INT(f.symtab, 1);
	CHECK_EQ_STR(tl_symfile_lookup(&f, 0x1182, &into), "twice");
	CHECK_EQ_INT(into, 2);
	CHECK_EQ_STR(tl_symfile_lookup(&f, 0x1190, &into), "never_inlined");
	CHECK_EQ_INT(into, 0);
	CHECK_EQ_STR(tl_symfile_lookup(&f, 0x1051, &into), "main"); /* the inlined sq is main's code */
	CHECK(tl_symfile_lookup(&f, 0x10, &into) == NULL);          /* the ELF header: no function */
	/* _init has no size: the PLT after it (its own function in the unwind table) is not _init's */
	CHECK_EQ_STR(tl_symfile_lookup(&f, 0x1000, &into), "_init");
	CHECK(tl_symfile_lookup(&f, 0x1024, &into) == NULL);
	CHECK_EQ_INT(tl_symfile_unwind_func(&f, 0x1024, &into), 0);
	CHECK_EQ_INT(into, 0x1020);
	CHECK_EQ_STR(tl_symfile_lookup(&f, 0x10d0, &into), "deregister_tm_clones"); /* no size, no FDE: as before */
	/* the PLT stub that jumps through __cxa_finalize's GOT slot (.plt.got, GLOB_DAT), as objdump names it */
	CHECK_EQ_STR(tl_symfile_lookup(&f, 0x1034, &into), "__cxa_finalize@plt");
	CHECK_EQ_INT(into, 4);
	CHECK(tl_symfile_lookup(&f, 0x10000000, &into) == NULL); /* in no segment */
	tl_symfile_release(&f);
	/* stripped: no .symtab, and its .dynsym exports no function */
	CHECK_EQ_INT(tl_symfile_load(&f, STRIPPED), 0);
	CHECK_EQ_INT(f.symtab, 0);
	CHECK(tl_symfile_lookup(&f, 0x1182, &into) == NULL);
	CHECK_EQ_STR(tl_symfile_lookup(&f, 0x1030, &into),
	             "__cxa_finalize@plt"); /* relocations stay in a stripped file */
	/*
	 * its unwind table still bounds its functions (readelf --debug-dump=frames: six FDEs, among them
	 * 0x1040..0x1081 main, 0x1180..0x1184 twice, 0x1190..0x1194 never_inlined, 0x1020..0x1030 the PLT)
	 */
	CHECK_EQ_INT(f.nfuncs, 6);
	CHECK_EQ_INT(tl_symfile_unwind_func(&f, 0x1182, &into), 0);
	CHECK_EQ_INT(into, 0x1180);
	CHECK_EQ_INT(tl_symfile_unwind_func(&f, 0x1050, &into), 0);
	CHECK_EQ_INT(into, 0x1040);
	CHECK_EQ_INT(tl_symfile_unwind_func(&f, 0x1193, &into), 0);
	CHECK_EQ_INT(into, 0x1190);
	CHECK_EQ_INT(tl_symfile_unwind_func(&f, 0x1184, &into), -1);     /* past twice: padding */
	CHECK_EQ_INT(tl_symfile_unwind_func(&f, 0x1000, &into), -1);     /* _init has no FDE */
	CHECK_EQ_INT(tl_symfile_unwind_func(&f, 0x10000000, &into), -1); /* in no segment */
	tl_symfile_release(&f);
	CHECK_EQ_INT(tl_symfile_load_data(&f, STRIPPED), 0); /* data objects: no unwind table */
	CHECK_EQ_INT(f.nfuncs, 0);
	tl_symfile_release(&f);
	CHECK_EQ_INT(tl_symfile_load(&f, "tests/data/elf/inline.c"), -1);
	CHECK_EQ_STR(tl_error_msg(), "cannot read 'tests/data/elf/inline.c': not an ELF file");
	CHECK(tl_symfile_lookup(&f, 0x1182, &into) == NULL);
	tl_symfile_release(&f);
}

static char tpath[] = "/tmp/tl-test-profile-XXXXXX";

/* The profile's text (malloc'd), or NULL. */
static char *profile_text(const struct tl_profile_result *r)
{
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);

	if (!m)
		return NULL;
	if (tl_profile_write_text(m, r)) {
		fclose(m);
		free(text);
		return NULL;
	}
	fclose(m);
	return text;
}

/*
 * A stripped library's samples: those in one function (by its unwind
 * table) are one name, its entry; one in no function keeps its offset.
 * Process 100 maps the stripped copy at 0x7f0000000000: samples at +0x1182
 * and +0x1183 (twice, 0x1180..0x1184), +0x1050 (main, 0x1040..0x1081) and
 * +0x1185 (between two functions).
 */
static void write_stripped(char *path, const char *str);

/* One sample of thread tid (process 100) at us on cpu, with a stack of up to 3 frames (0 ends it). */
static void sample(struct tl_trace_writer *w, uint64_t us, int cpu, int32_t tid, uint64_t f0, uint64_t f1, uint64_t f2)
{
	uint64_t f[3] = { f0, f1, f2 };
	unsigned n = f2 ? 3 : f1 ? 2 : 1;
	struct tl_event e = event_us(us, cpu, TL_EV_SAMPLE, tid, 100, 0, (int64_t)f0, 1000000, 0);

	e.name = tl_trace_writer_intern(w, "cpu-clock");
	e.a = n > 1 ? tl_trace_writer_stack(w, f, n) : 0;
	tl_trace_writer_add(w, &e);
}

static void map(struct tl_trace_writer *w, uint64_t us, const char *file, uint64_t start, uint64_t end, uint64_t off)
{
	struct tl_event e = event_us(us, -1, TL_EV_MAP, 100, 0, (int64_t)start, (int64_t)end, (int64_t)off, 0);

	e.name = tl_trace_writer_intern(w, file);
	tl_trace_writer_add(w, &e);
}

/*
 * Process 100 maps the fixture at 0x555500000000 (offset 0) and the
 * stripped copy at 0x7f0000000000.  Samples (base B = 0x555500000000):
 *   t101: B+0x1182 (twice) <- B+0x1070 (main, after its call *%rax)      x3
 *   t101: B+0x1190 (never_inlined) <- B+0x1078 (main) <- B+0x10b1 (_start) x1
 *   t102: 0xffffffff81000000 (kernel: KSYM do_syscall_64) <- B+0x1182  x2, cpu 1
 *   t102: 0x7f0000001185 (stripped: no symbol)               x1, after 1 s
 *   t102: 0x10 (no mapping)                                  x1
 * Process 100 forks process 300, which has no mapping of its own: its
 * sample at B+0x1182 (twice) resolves with its parent's.  Then process 100
 * execs: a sample at B+0x1182 finds no mapping of the new image (a MAP
 * read after the exec would).
 */
TEST(profile_counts)
{
	char fix[PATH_MAX], str[PATH_MAX];
	struct tl_trace_writer *w;
	struct tl_run run = { 0 };
	struct tl_profile_opts o = { .cpu = -1 };
	struct tl_profile_result r;
	const uint64_t B = 0x555500000000ull;

	CHECK(realpath(FIXTURE, fix) && realpath(STRIPPED, str));
	w = program_trace_open(tpath, 100, 1000);
	CHECK(w != NULL);
	if (!w)
		return;
	map(w, 1001, fix, B + 0x1000, B + 0x2000, 0x1000);
	map(w, 1001, str, 0x7f0000001000ull, 0x7f0000002000ull, 0x1000);
	{
		/* the kernel function the recorder named (at the end in a recording; anywhere here) */
		struct tl_event e = event_us(1001, -1, TL_EV_KSYM, 0, 0, (int64_t)0xffffffff81000000ull,
		                             (int64_t)0xffffffff81000100ull, 0, 0);
		e.name = tl_trace_writer_intern(w, "do_syscall_64");
		tl_trace_writer_add(w, &e);
	}
	for (int i = 0; i < 3; i++)
		sample(w, 1010 + (uint64_t)i, 0, 101, B + 0x1182, B + 0x1070, 0);
	sample(w, 1020, 0, 101, B + 0x1190, B + 0x1078, B + 0x10b1);
	sample(w, 1030, 1, 102, 0xffffffff81000000ull, B + 0x1182, 0);
	sample(w, 1031, 1, 102, 0xffffffff81000000ull, B + 0x1182, 0);
	sample(w, 1001040, 1, 102, 0x7f0000001185ull, 0, 0);
	sample(w, 1001041, 1, 102, 0x10, 0, 0);
	{
		/* process 300, forked by 100 before its exec, has no mapping read: it runs 100's first image */
		struct tl_event e = event_us(1001045, 0, TL_EV_FORK, 300, 101, 0, 0, 0, 0);
		tl_trace_writer_add(w, &e);
		e = event_us(1001050, 0, TL_EV_EXEC, 100, 100, 0, 0, 0, 0);
		tl_trace_writer_add(w, &e);
	}
	sample(w, 1001060, 0, 101, B + 0x1182, 0, 0);
	{
		struct tl_event e = event_us(1001080, 0, TL_EV_SAMPLE, 300, 300, 0, (int64_t)(B + 0x1182), 1000000, 0);
		e.name = tl_trace_writer_intern(w, "cpu-clock");
		tl_trace_writer_add(w, &e);
	}
	CHECK_EQ_INT(program_trace_close(w, 1001100), 0);

	run.path = tpath;
	run.to_ns = -1;
	run.all_threads = 1;
	CHECK_EQ_INT(tl_profile_analyze(&run, &o, &r), 0);
	CHECK_EQ_INT(r.samples, 10);
	CHECK_EQ_INT(r.period, 10000000);
	CHECK_EQ_INT(r.kernel, 2);
	CHECK_EQ_INT(r.unresolved, 2); /* 0x10, and the sample after the exec */
	CHECK_EQ_INT(r.no_stack, 4);
	{
		/*
		 * 4 of 10 samples without a stack: no word about unwinding; 2 of
		 * 10 in no mapping: a word about JIT code and its perf map
		 */
		char *text = profile_text(&r);

		CHECK(text &&
		      strstr(text, "4 without a stack\n\n20.0% of the samples are in no file's mapping: JIT code, "
		                   "or code mapped after the recorder\n"));
		CHECK(text && strstr(text, "perf map agent (Java)\n\nfunctions (by self)"));
		free(text);
	}
	CHECK_EQ_STR(r.event, "cpu-clock");
	CHECK(r.nfuncs >= 6);
	if (r.nfuncs >= 6) {
		/* by self: twice 4, then 2 each ([unknown], do_syscall_64), then 1 each by name */
		CHECK_EQ_STR(r.funcs[0].name, "twice");
		CHECK_EQ_INT(r.funcs[0].self, 4); /* the forked process's sample too */
		CHECK_EQ_INT(r.funcs[0].total, 6);
		CHECK_EQ_STR(r.funcs[0].module, "inline.elf");
		CHECK_EQ_STR(r.funcs[1].name, "[unknown]");
		CHECK_EQ_INT(r.funcs[1].self, 2);
		CHECK_EQ_STR(r.funcs[2].name, "do_syscall_64");
		CHECK_EQ_STR(r.funcs[2].module, "[kernel]");
		CHECK_EQ_INT(r.funcs[2].self, 2);
		CHECK_EQ_STR(r.funcs[3].name, "inline-stripped.elf+0x1185");
		CHECK_EQ_STR(r.funcs[4].name, "never_inlined");
		CHECK_EQ_INT(r.funcs[4].total, 1);
		CHECK_EQ_STR(r.funcs[5].name, "main");
		CHECK_EQ_INT(r.funcs[5].self, 0);
		CHECK_EQ_INT(r.funcs[5].total, 4);
	}
	CHECK_EQ_INT(r.nthreads, 3);
	if (r.nthreads == 3) {
		CHECK_EQ_INT(r.threads[0].tid, 101);
		CHECK_EQ_INT(r.threads[0].samples, 5);
		CHECK(r.threads[0].top < r.nfuncs && !strcmp(r.funcs[r.threads[0].top].name, "twice"));
		CHECK_EQ_INT(r.threads[1].samples, 4);
		CHECK(r.threads[1].top < r.nfuncs && !strcmp(r.funcs[r.threads[1].top].name, "do_syscall_64"));
		CHECK_EQ_INT(r.threads[2].tid, 300);
	}
	CHECK_EQ_INT(r.per_cpu[0], 6);
	CHECK_EQ_INT(r.per_cpu[1], 4);
	CHECK_EQ_INT(r.nseconds, 2);
	CHECK_EQ_INT(r.per_second[0], 6);
	CHECK_EQ_INT(r.per_second[1], 4);
	/* folded, outermost first, sorted */
	CHECK_EQ_INT(r.nfolded, 6);
	if (r.nfolded == 6) {
		CHECK_EQ_STR(r.folded[0].stack, "?;[unknown]");
		CHECK_EQ_INT(r.folded[0].count, 2);
		CHECK_EQ_STR(r.folded[1].stack, "?;_start;main;never_inlined");
		CHECK_EQ_STR(r.folded[2].stack, "?;inline-stripped.elf+0x1185");
		CHECK_EQ_STR(r.folded[3].stack, "?;main;twice");
		CHECK_EQ_INT(r.folded[3].count, 3);
		CHECK_EQ_STR(r.folded[4].stack, "?;twice");
		CHECK_EQ_INT(r.folded[4].count, 1);
		CHECK_EQ_STR(r.folded[5].stack, "?;twice;do_syscall_64");
		CHECK_EQ_INT(r.folded[5].count, 2);
	}
	CHECK(r.cells == NULL && r.ncells == 0); /* only asked for */
	tl_profile_release(&r);
	/* cells: the same samples by (bin, CPU, thread, stack); stacks numbered as first seen */
	tl_run_close(&run);
	o.cells = 1;
	o.each = 1;
	CHECK_EQ_INT(tl_profile_analyze(&run, &o, &r), 0);
	CHECK_EQ_INT(r.neach, 10); /* every sample counted, in time order, with its stack */
	if (r.neach == 10) {
		CHECK(r.each[0].ts == 1010 * 1000ull && r.each[0].tid == 101 && r.each[0].pid == 100);
		CHECK_EQ_INT(r.each[0].stack, 0);
		CHECK(r.each[3].ts == 1020 * 1000ull && r.each[3].stack == 1 && r.each[3].cpu == 0);
		CHECK(r.each[4].tid == 102 && r.each[4].cpu == 1 && r.each[4].stack == 2);
		CHECK(r.each[9].tid == 300 && r.each[9].pid == 300);
		for (size_t i = 1; i < r.neach; i++)
			CHECK(r.each[i].ts >= r.each[i - 1].ts);
	}
	CHECK_EQ_INT(r.bin_ns, 10000000); /* 1.0001 s: 101 bins of 10 ms */
	CHECK_EQ_INT(r.nbins, 101);
	CHECK_EQ_INT(r.nstacks, 6);
	CHECK_EQ_INT(r.ncells, 7);
	if (r.nstacks == 6 && r.ncells == 7) {
		static const struct tl_profile_cell want[7] = {
			{ 0, 0, 101, 0, 3 },   { 1, 0, 101, 0, 1 },   { 2, 0, 102, 1, 2 },   { 4, 100, 101, 0, 1 },
			{ 5, 100, 300, 0, 1 }, { 3, 100, 102, 1, 1 }, { 4, 100, 102, 1, 1 },
		};
		for (int i = 0; i < 7; i++) {
			CHECK_EQ_INT(r.cells[i].stack, want[i].stack);
			CHECK_EQ_INT(r.cells[i].bin, want[i].bin);
			CHECK_EQ_INT(r.cells[i].tid, want[i].tid);
			CHECK_EQ_INT(r.cells[i].cpu, want[i].cpu);
			CHECK_EQ_INT(r.cells[i].count, want[i].count);
		}
		CHECK_EQ_INT(r.stacks[1].n, 3); /* _start <- main <- never_inlined, outermost first */
		if (r.stacks[1].n == 3) {
			CHECK_EQ_STR(r.funcs[r.stacks[1].frames[0]].name, "_start");
			CHECK_EQ_STR(r.funcs[r.stacks[1].frames[1]].name, "main");
			CHECK_EQ_STR(r.funcs[r.stacks[1].frames[2]].name, "never_inlined");
		}
		CHECK_EQ_INT(r.stacks[4].n, 1);
		CHECK_EQ_STR(r.funcs[r.stacks[4].frames[0]].name, "[unknown]");
	}
	tl_profile_release(&r);
	o.cells = 0;
	o.each = 0;
	/* a CPU filter, on a second reading */
	tl_run_close(&run);
	o.cpu = 1;
	CHECK_EQ_INT(tl_profile_analyze(&run, &o, &r), 0);
	CHECK_EQ_INT(r.samples, 4);
	tl_profile_release(&r);
	/* a window after the mappings were read: they still resolve its samples */
	tl_run_close(&run);
	o.cpu = -1;
	run.from_ns = 1000000000;
	CHECK_EQ_INT(tl_profile_analyze(&run, &o, &r), 0);
	CHECK_EQ_INT(r.samples, 4);
	CHECK_EQ_INT(r.unresolved, 2);
	CHECK(r.nfuncs >= 2 && !strcmp(r.funcs[1].name, "inline-stripped.elf+0x1185"));
	tl_profile_release(&r);
	tl_run_release(&run);
	unlink(tpath);
}

/* One sample of event `name` at address ip (no stack), with its period. */
static void sample_ev(struct tl_trace_writer *w, uint64_t us, const char *name, uint64_t ip, int64_t period)
{
	struct tl_event e = event_us(us, 0, TL_EV_SAMPLE, 101, 100, 0, (int64_t)ip, period, 0);

	e.name = tl_trace_writer_intern(w, name);
	tl_trace_writer_add(w, &e);
}

/*
 * Two events: cpu-clock (named first) 3 samples of 1 ms in twice;
 * page-faults 2 samples of 10 faults in twice, 1 of 5 in never_inlined.
 * cpu-clock is counted; page-faults gives counts per function and the
 * ratio "page faults per ms of CPU": 25 / 3 ms in all, 20 / 3 ms in twice,
 * none in never_inlined (no CPU time sampled there).
 */
TEST(profile_events)
{
	char fix[PATH_MAX], path[] = "/tmp/tl-test-pevents-XXXXXX";
	struct tl_trace_writer *w = program_trace_open(path, 100, 1000);
	struct tl_run run = { .path = path, .to_ns = -1, .all_threads = 1 };
	struct tl_profile_opts o = { .cpu = -1 };
	struct tl_profile_result r;
	const uint64_t B = 0x555500000000ull;
	size_t nq;
	const struct tl_profile_ratio *q = tl_profile_ratios(&nq);

	CHECK(w && realpath(FIXTURE, fix));
	if (!w)
		return;
	tl_trace_writer_intern(w, "cpu-clock"); /* named first, as record names -e's list */
	map(w, 1001, fix, B + 0x1000, B + 0x2000, 0x1000);
	sample_ev(w, 1010, "page-faults", B + 0x1182, 10);
	for (int i = 0; i < 3; i++)
		sample_ev(w, 1020 + (uint64_t)i, "cpu-clock", B + 0x1182, 1000000);
	sample_ev(w, 1030, "page-faults", B + 0x1182, 10);
	sample_ev(w, 1040, "page-faults", B + 0x1190, 5);
	CHECK_EQ_INT(program_trace_close(w, 1100), 0);
	CHECK_EQ_INT(tl_profile_analyze(&run, &o, &r), 0);
	CHECK_EQ_STR(r.event, "cpu-clock");
	CHECK_EQ_INT(r.samples, 3);
	CHECK_EQ_INT(r.period, 3000000);
	CHECK_EQ_INT(r.nevents, 2);
	CHECK_EQ_STR(r.events[0].name, "cpu-clock");
	CHECK(r.events[0].samples == 3 && r.events[0].period == 3000000);
	CHECK_EQ_STR(r.events[1].name, "page-faults");
	CHECK(r.events[1].samples == 3 && r.events[1].period == 25);
	CHECK_EQ_INT(r.nfuncs, 2); /* never_inlined: only page faults, self 0 */
	if (r.nfuncs == 2) {
		CHECK_EQ_STR(r.funcs[0].name, "twice");
		CHECK_EQ_INT(r.funcs[0].self, 3);
		CHECK(r.fperiod[0] == 3000000 && r.fperiod[1] == 20);
		CHECK_EQ_STR(r.funcs[1].name, "never_inlined");
		CHECK_EQ_INT(r.funcs[1].self, 0);
		CHECK(r.fperiod[2] == 0 && r.fperiod[3] == 5);
	}
	CHECK_EQ_INT(r.nthreads, 1);
	CHECK(r.nthreads == 1 && r.threads[0].samples == 3);
	for (size_t k = 0; k < nq; k++)
		if (!strcmp(q[k].num, "page-faults") && !strcmp(q[k].den, "cpu-clock"))
			CHECK_EQ_STR(q[k].name, "page faults per ms of CPU");
	tl_profile_release(&r);
	/* --event page-faults: only its samples */
	tl_run_close(&run);
	o.event = "page-faults";
	CHECK_EQ_INT(tl_profile_analyze(&run, &o, &r), 0);
	CHECK_EQ_STR(r.event, "page-faults");
	CHECK_EQ_INT(r.samples, 3);
	CHECK_EQ_INT(r.period, 25);
	CHECK_EQ_INT(r.nevents, 1);
	CHECK(r.nfuncs >= 2 && r.funcs[0].self == 2 && r.funcs[1].self == 1);
	tl_profile_release(&r);
	tl_run_release(&run);
	unlink(path);
}

/* A trace of process 100 whose thread 101 has n_twice samples in twice() and n_never in never_inlined(), on CPU 0. */
static void two_funcs(char *path, int n_twice, int n_never)
{
	char fix[PATH_MAX];
	struct tl_trace_writer *w = program_trace_open(path, 100, 1000);
	const uint64_t B = 0x555500000000ull;

	CHECK(w && realpath(FIXTURE, fix));
	if (!w)
		return;
	map(w, 1001, fix, B + 0x1000, B + 0x2000, 0x1000);
	for (int i = 0; i < n_twice + n_never; i++)
		sample(w, 1010 + 10 * (uint64_t)i, 0, 101, i < n_twice ? B + 0x1182 : B + 0x1190, 0, 0);
	CHECK_EQ_INT(program_trace_close(w, 1010 + 10 * (uint64_t)(n_twice + n_never)), 0);
}

/*
 * diff of two sampled traces: before 300 samples in twice and 100 in
 * never_inlined, after 100 and 100.  One recording a side: a count is
 * flagged past 10% and 3 sqrt(a + b): twice (200 > 60) and the samples
 * (200 > 73), not never_inlined (no change).  Against a trace without
 * samples there is no profile to compare.
 */
TEST(diff_profiles)
{
	char pa[] = "/tmp/tl-test-dprof-a-XXXXXX", pb[] = "/tmp/tl-test-dprof-b-XXXXXX";
	char pc[] = "/tmp/tl-test-dprof-c-XXXXXX";
	const char *a[1] = { pa }, *b[1] = { pb }, *c[1] = { pc };
	struct tl_diff_result r;

	two_funcs(pa, 300, 100);
	two_funcs(pb, 100, 100);
	two_funcs(pc, 0, 0);
	CHECK_EQ_INT(tl_diff_analyze(a, 1, b, 1, &r), 0);
	CHECK_EQ_INT(r.prof.have, 1);
	CHECK_EQ_STR(r.prof.event, "cpu-clock");
	CHECK(r.prof.samples.a == 400 && r.prof.samples.b == 200 && r.prof.samples.change == -0.5);
	CHECK_EQ_INT(r.prof.samples.flagged, 1);
	CHECK(r.prof.period.a == 400e6 && r.prof.period.b == 200e6); /* 1 ms each */
	CHECK_EQ_INT(r.prof.ncpus, 2);
	if (r.prof.ncpus == 2) {
		CHECK(r.prof.cpus[0].a == 400 && r.prof.cpus[0].b == 200 && r.prof.cpus[0].flagged);
		CHECK(r.prof.cpus[1].a == 0 && r.prof.cpus[1].b == 0 && !r.prof.cpus[1].flagged);
	}
	CHECK_EQ_INT(r.prof.nfuncs, 2);
	if (r.prof.nfuncs == 2) {
		const struct tl_diff_func *f = r.prof.funcs;
		CHECK_EQ_STR(f[0].name, "twice");
		CHECK_EQ_STR(f[0].module, "inline.elf");
		CHECK(f[0].self.a == 300 && f[0].self.b == 100 && f[0].self.flagged);
		CHECK(fabs(f[0].self.change + 2.0 / 3) < 1e-12);
		CHECK(f[0].share.a == 75 && f[0].share.b == 50 && f[0].share.change == -25);
		CHECK_EQ_STR(f[1].name, "never_inlined");
		CHECK(f[1].self.a == 100 && f[1].self.b == 100 && !f[1].self.flagged);
		CHECK(f[1].share.a == 25 && f[1].share.b == 50);
	}
	tl_diff_release(&r);
	CHECK_EQ_INT(tl_diff_analyze(a, 1, c, 1, &r), 0);
	CHECK_EQ_INT(r.prof.have, 0);
	tl_diff_release(&r);
	unlink(pa);
	unlink(pb);
	unlink(pc);
}

/*
 * Runs side by side: run 1 has A 75 and B 25 of 100 samples (and D, only
 * sampled by another event: left out), run 2 A 70, B 20 and C 10 of 100.
 * A: mean 72.5, sd 3.536 (sqrt 12.5); C: 0 and 10, mean 5, sd 7.071.
 */
static void write_stripped(char *path, const char *str)
{
	struct tl_trace_writer *w = program_trace_open(path, 100, 1000);

	CHECK(w != NULL);
	if (!w)
		return;
	map(w, 1001, str, 0x7f0000001000ull, 0x7f0000002000ull, 0x1000);
	sample(w, 1010, 0, 101, 0x7f0000001182ull, 0, 0);
	sample(w, 1011, 0, 101, 0x7f0000001183ull, 0, 0);
	sample(w, 1012, 0, 101, 0x7f0000001050ull, 0, 0);
	sample(w, 1013, 0, 101, 0x7f0000001185ull, 0, 0);
	CHECK_EQ_INT(program_trace_close(w, 1100), 0);
}

TEST(stripped_functions)
{
	char str[PATH_MAX], p[] = "/tmp/tl-test-stripped-XXXXXX";
	struct tl_run run = { .to_ns = -1, .path = p };
	struct tl_profile_opts o = { .cpu = -1 };
	struct tl_profile_result r;

	CHECK(realpath(STRIPPED, str) != NULL);
	write_stripped(p, str);
	CHECK_EQ_INT(tl_profile_analyze(&run, &o, &r), 0);
	CHECK_EQ_INT(r.samples, 4);
	CHECK_EQ_INT(r.nfuncs, 3);
	if (r.nfuncs == 3) {
		CHECK_EQ_STR(r.funcs[0].name, "inline-stripped.elf+0x1180");
		CHECK_EQ_INT(r.funcs[0].self, 2);
		CHECK_EQ_STR(r.funcs[0].module, "inline-stripped.elf");
		/* one sample each, by name */
		CHECK_EQ_STR(r.funcs[1].name, "inline-stripped.elf+0x1040");
		CHECK_EQ_STR(r.funcs[2].name, "inline-stripped.elf+0x1185");
	}
	{
		/* no sample has a stack: the text says why that may be, and what unwinds such code */
		char *text = profile_text(&r);

		CHECK(text && strstr(text, "\n0 in the kernel, 0 in no mapping, 4 without a stack (total = self)\n\n"
		                           "most samples have no call stack beyond their function: record's "
		                           "frame-pointer walk stops at\n"));
		CHECK(text && strstr(text, "record --sample --stack dwarf\nunwinds it"));
		free(text);
	}
	tl_profile_release(&r);
	tl_run_release(&run);
	unlink(p);
}

/* Copy file from to file to: 0, or -1. */
static int copy_file(const char *from, const char *to)
{
	FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
	char buf[4096];
	size_t n;
	int rc = in && out ? 0 : -1;

	while (!rc && (n = fread(buf, 1, sizeof(buf), in)) > 0)
		rc = fwrite(buf, 1, n, out) == n ? 0 : -1;
	if (in)
		fclose(in);
	if (out && fclose(out))
		rc = -1;
	return rc;
}

/*
 * A stripped file's separate debug file (symfile.h): inline-stripped.elf
 * has no .symtab and exports no function; with a copy of inline.elf (the
 * same build ID) at DEBUG_ROOT/.build-id/0f/e4d5...debug, its functions
 * are named from that copy's .symtab; without it, not.
 */
TEST(debug_file_by_build_id)
{
	char root[] = "/tmp/tl-test-dbg-XXXXXX", dir[PATH_MAX], dbg[PATH_MAX + 64];
	struct tl_symfile f;
	uint64_t into;

	CHECK(mkdtemp(root) != NULL);
	snprintf(dir, sizeof(dir), "%s/.build-id", root);
	CHECK(mkdir(dir, 0700) == 0);
	snprintf(dir, sizeof(dir), "%s/.build-id/0f", root);
	CHECK(mkdir(dir, 0700) == 0);
	snprintf(dbg, sizeof(dbg), "%s/e4d54d18d2651fbb54043e8367c52ca67371c9.debug", dir);
	tl_symfile_debug_root(root);
	CHECK_EQ_INT(tl_symfile_load(&f, STRIPPED), 0);
	CHECK(f.debug == 0 && f.symtab == 0 && tl_symfile_lookup(&f, 0x1040, &into) == NULL);
	tl_symfile_release(&f);
	CHECK_EQ_INT(copy_file(FIXTURE, dbg), 0);
	CHECK_EQ_INT(tl_symfile_load(&f, STRIPPED), 0);
	CHECK(f.debug == 1 && f.symtab == 1);
	CHECK_EQ_STR(tl_symfile_lookup(&f, 0x1040, &into), "main");
	CHECK_EQ_INT(into, 0);
	CHECK_EQ_STR(tl_symfile_lookup(&f, 0x1190, &into), "never_inlined");
	tl_symfile_release(&f);
	tl_symfile_debug_root(NULL);
	unlink(dbg);
	rmdir(dir);
	snprintf(dir, sizeof(dir), "%s/.build-id", root);
	rmdir(dir);
	rmdir(root);
}

/*
 * Build IDs (format 1.14): a file's, as readelf -n prints it; none for a
 * file that is not ELF or is missing.  The recorder's (capture/buildids.h):
 * the mapped file through /proc/PID/map_files (this test's own executable,
 * a mapping of it), else the path (pid 0 has no map_files); nothing for
 * a pseudo-file or an anonymous mapping.
 */
TEST(build_ids)
{
	char hex[TL_BUILD_ID_HEX], self[TL_BUILD_ID_HEX], line[4096], abs[PATH_MAX];
	struct tl_symfile f;
	struct tl_map m;
	struct tl_buildids *b = tl_buildids_new(0);
	FILE *maps = fopen("/proc/self/maps", "r");

	CHECK_EQ_INT(tl_symfile_build_id(FIXTURE, hex), 40);
	CHECK_EQ_STR(hex, "0fe4d54d18d2651fbb54043e8367c52ca67371c9");
	CHECK_EQ_INT(tl_symfile_build_id("tests/data/elf/noreturn.elf", hex), 40);
	CHECK_EQ_STR(hex, "d7af9c775e6634f320fe169e6fbd4ef40cf5723d");
	CHECK_EQ_INT(tl_symfile_build_id("tests/data/elf/inline.c", hex), -1);
	CHECK_EQ_STR(hex, "");
	CHECK_EQ_INT(tl_symfile_build_id("tests/data/elf/no-such.elf", hex), -1);
	CHECK_EQ_INT(tl_symfile_load(&f, STRIPPED), 0);
	CHECK_EQ_STR(f.build_id, "0fe4d54d18d2651fbb54043e8367c52ca67371c9");
	tl_symfile_release(&f);

	CHECK(b != NULL && maps != NULL);
	CHECK(realpath(FIXTURE, abs) != NULL);
	m = (struct tl_map){ .start = 0x1000, .end = 0x2000, .path = abs, .path_len = strlen(abs) };
	CHECK_EQ_INT(tl_buildids_of(b, 0, &m, hex), 40);
	CHECK_EQ_STR(hex, "0fe4d54d18d2651fbb54043e8367c52ca67371c9");
	CHECK_EQ_INT(tl_buildids_of(b, 0, &m, hex), 40); /* known by its inode: the same */
	CHECK_EQ_STR(hex, "0fe4d54d18d2651fbb54043e8367c52ca67371c9");
	m.path = "[vdso]";
	m.path_len = 6;
	CHECK_EQ_INT(tl_buildids_of(b, 0, &m, hex), 0);
	m.path_len = 0;
	CHECK_EQ_INT(tl_buildids_of(b, 0, &m, hex), 0);
	CHECK_EQ_STR(hex, "");
	while (fgets(line, sizeof(line), maps) && !strstr(line, "/test_profile\n"))
		;
	CHECK_EQ_INT(tl_procmaps_parse_line(line, strlen(line), &m), 1);
	CHECK_EQ_INT(tl_symfile_build_id("/proc/self/exe", self), 40);
	CHECK_EQ_INT(tl_buildids_of(b, (int32_t)getpid(), &m, hex), 40);
	CHECK_EQ_STR(hex, self);
	fclose(maps);
	tl_buildids_free(b);
}

/*
 * The recorder's copies (capture/buildids.h, keep): a file is kept only
 * when a sample's address lies in a mapping of it; in perf's layout
 * (HOME/.debug/PATH/ID/elf, HOME/.debug/.build-id/0f/e4d5... ->
 * ../../PATH/ID), the same bytes; a build ID there already is not kept
 * again.
 */
TEST(keep_build_ids)
{
	char d[] = "/tmp/tl-test-keep-XXXXXX", abs[PATH_MAX], path[2 * PATH_MAX], target[2 * PATH_MAX],
	     cmd[5 * PATH_MAX];
	const char *id = "0fe4d54d18d2651fbb54043e8367c52ca67371c9";
	uint64_t in[] = { 0x10, 0x1500 }, out[] = { 0x10, 0x3000 };
	char hex[TL_BUILD_ID_HEX];
	struct tl_map m;
	size_t kept = 99;
	ssize_t n;

	CHECK(mkdtemp(d) != NULL);
	CHECK(realpath(FIXTURE, abs) != NULL);
	m = (struct tl_map){ .start = 0x1000, .end = 0x2000, .path = abs, .path_len = strlen(abs) };
	for (int round = 0; round < 3; round++) {
		struct tl_buildids *b = tl_buildids_new(1);
		CHECK(b != NULL);
		if (!b)
			return;
		CHECK_EQ_INT(tl_buildids_of(b, 0, &m, hex), 40);
		CHECK_EQ_INT(tl_buildids_keep(b, d, round ? in : out, 2, &kept), 0);
		CHECK_EQ_INT(kept, round == 1);
		tl_buildids_free(b);
		snprintf(path, sizeof(path), "%s/.debug", d);
		CHECK_EQ_INT(access(path, F_OK) == 0, round > 0);
	}
	snprintf(path, sizeof(path), "%s/.debug%s/%s/elf", d, abs, id);
	snprintf(cmd, sizeof(cmd), "cmp -s '%s' '%s'", path, abs);
	CHECK_EQ_INT(system(cmd), 0);
	snprintf(path, sizeof(path), "%s/.debug/.build-id/0f/%s", d, id + 2);
	CHECK((n = readlink(path, target, sizeof(target) - 1)) > 0);
	target[n > 0 ? n : 0] = 0;
	snprintf(path, sizeof(path), "../..%s/%s", abs, id);
	CHECK_EQ_STR(target, path);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", d);
	CHECK_EQ_INT(system(cmd), 0);
}

/*
 * A trace of process 100 mapping `file` at B = 0x555500000000 with build
 * ID `id` ("": none recorded, as before format 1.14), and three samples:
 * B+0x1040 (main in inline.elf), B+0x1190 (never_inlined) called from
 * B+0x1078 (main, after a call), and B+0x1190 with B+0x1041 as caller (no
 * call ends there: the stack is cut when the file's bytes can be read).
 */
static void write_built(char *path, const char *file, const char *id)
{
	struct tl_trace_writer *w = program_trace_open(path, 100, 1000);
	struct tl_event e = event_us(1001, -1, TL_EV_MAP, 100, 0, 0x555500000000ll, 0x555500002000ll, 0, 0);

	CHECK(w != NULL);
	if (!w)
		return;
	e.name = tl_trace_writer_intern(w, file);
	e.arg = id[0] ? (int32_t)tl_trace_writer_intern(w, id) : 0;
	tl_trace_writer_add(w, &e);
	sample(w, 1010, 0, 101, 0x555500001040ull, 0, 0);
	sample(w, 1011, 0, 101, 0x555500001190ull, 0x555500001078ull, 0);
	sample(w, 1012, 0, 101, 0x555500001190ull, 0x555500001041ull, 0);
	CHECK_EQ_INT(program_trace_close(w, 1100), 0);
}

/* The names of r's functions, sorted, joined by spaces. */
static void func_names(const struct tl_profile_result *r, char *out, size_t cap)
{
	const char *n[8];
	size_t k = r->nfuncs < 8 ? r->nfuncs : 8, len = 0;

	for (size_t i = 0; i < k; i++)
		n[i] = r->funcs[i].name;
	for (size_t i = 1; i < k; i++)
		for (size_t j = i; j > 0 && strcmp(n[j - 1], n[j]) > 0; j--) {
			const char *t = n[j];
			n[j] = n[j - 1];
			n[j - 1] = t;
		}
	out[0] = 0;
	for (size_t i = 0; i < k && len < cap; i++)
		len += (size_t)snprintf(out + len, cap - len, "%s%s", i ? " " : "", n[i]);
}

/*
 * Format 1.14: the MAP's build ID says which build ran.  The file at the
 * path is that build: its names.  Another build there (noreturn.elf): no
 * names from it, offsets instead, each sample counted as rebuilt and the
 * file listed; with a copy of the build that ran in perf's cache
 * ($HOME/.debug/.build-id/0f/e4d5.../elf), its names again.  No build ID
 * recorded (an older trace): the file at the path, as before.  The file
 * gone, and no copy: unreadable, counted and listed the same way.
 */
TEST(rebuilt_files)
{
	char d[] = "/tmp/tl-test-rebuilt-XXXXXX", app[PATH_MAX], tr[PATH_MAX], dir[PATH_MAX], elf[PATH_MAX + 64],
	     names[512], *old_home = getenv("HOME") ? strdup(getenv("HOME")) : NULL;
	const char *id = "0fe4d54d18d2651fbb54043e8367c52ca67371c9";
	struct tl_profile_opts o = { .cpu = -1 };
	struct tl_profile_result r;

	CHECK(mkdtemp(d) != NULL);
	snprintf(app, sizeof(app), "%s/app", d);
	setenv("HOME", d, 1);
	/* the build that ran, at its path */
	CHECK_EQ_INT(copy_file(FIXTURE, app), 0);
	snprintf(tr, sizeof(tr), "%s/t-XXXXXX", d);
	write_built(tr, app, id);
	{
		struct tl_run run = { .to_ns = -1, .path = tr };
		CHECK_EQ_INT(tl_profile_analyze(&run, &o, &r), 0);
		func_names(&r, names, sizeof(names));
		CHECK_EQ_STR(names, "main never_inlined");
		CHECK_EQ_INT(r.rebuilt.samples, 0);
		CHECK_EQ_INT(r.rebuilt.n, 0);
		CHECK_EQ_INT(r.stacks_cut, 1);
		tl_profile_release(&r);
		tl_run_release(&run);
	}
	/* rebuilt: another build at the path */
	CHECK_EQ_INT(copy_file("tests/data/elf/noreturn.elf", app), 0);
	{
		struct tl_run run = { .to_ns = -1, .path = tr };
		CHECK_EQ_INT(tl_profile_analyze(&run, &o, &r), 0);
		func_names(&r, names, sizeof(names));
		CHECK_EQ_STR(names, "app+0x1040 app+0x1041 app+0x1078 app+0x1190");
		CHECK_EQ_INT(r.rebuilt.samples, 3);
		CHECK_EQ_INT(r.stacks_cut, 0); /* no bytes of the build that ran: no caller is doubted */
		CHECK_EQ_INT(r.rebuilt.n, 1);
		if (r.rebuilt.n == 1)
			CHECK_EQ_STR(r.rebuilt.paths[0], app);
		char *text = profile_text(&r);
		CHECK(text && strstr(text, "\n3 samples (100.0%) have frames in files rebuilt since the recording (the "
		                           "build ID\ndiffers), named by offset: "));
		CHECK(text && strstr(text, "profile looks):\n  /tmp/tl-test-rebuilt-"));
		free(text);
		tl_profile_release(&r);
		tl_run_release(&run);
	}
	/* no build ID recorded: the file at the path, whatever it is */
	snprintf(tr, sizeof(tr), "%s/t-XXXXXX", d);
	write_built(tr, app, "");
	{
		struct tl_run run = { .to_ns = -1, .path = tr };
		CHECK_EQ_INT(tl_profile_analyze(&run, &o, &r), 0);
		CHECK_EQ_INT(r.rebuilt.samples, 0);
		CHECK_EQ_INT(r.rebuilt.n, 0);
		tl_profile_release(&r);
		tl_run_release(&run);
	}
	/* the build that ran in perf's cache */
	snprintf(tr, sizeof(tr), "%s/t-XXXXXX", d);
	write_built(tr, app, id);
	snprintf(dir, sizeof(dir), "%s/.debug/.build-id/0f/%s", d, id + 2);
	{
		char cmd[PATH_MAX + 32];
		snprintf(cmd, sizeof(cmd), "mkdir -p '%s'", dir);
		CHECK_EQ_INT(system(cmd), 0);
	}
	snprintf(elf, sizeof(elf), "%s/elf", dir);
	CHECK_EQ_INT(copy_file(FIXTURE, elf), 0);
	{
		struct tl_run run = { .to_ns = -1, .path = tr };
		CHECK_EQ_INT(tl_profile_analyze(&run, &o, &r), 0);
		func_names(&r, names, sizeof(names));
		CHECK_EQ_STR(names, "main never_inlined");
		CHECK_EQ_INT(r.rebuilt.samples, 0);
		CHECK_EQ_INT(r.stacks_cut,
		             1); /* the callers' bytes read in the cached copy: B+0x1041 follows no call */
		tl_profile_release(&r);
		tl_run_release(&run);
	}
	unlink(elf);
	/* gone, and no copy: unreadable, named by offset, counted and listed */
	unlink(app);
	{
		struct tl_run run = { .to_ns = -1, .path = tr };
		CHECK_EQ_INT(tl_profile_analyze(&run, &o, &r), 0);
		func_names(&r, names, sizeof(names));
		CHECK_EQ_STR(names, "app+0x1040 app+0x1041 app+0x1078 app+0x1190");
		CHECK_EQ_INT(r.rebuilt.samples, 0);
		CHECK_EQ_INT(r.rebuilt.n, 0);
		CHECK_EQ_INT(r.unreadable.samples, 3);
		CHECK_EQ_INT(r.unreadable.n, 1);
		if (r.unreadable.n == 1)
			CHECK_EQ_STR(r.unreadable.paths[0], app);
		char *text = profile_text(&r);
		CHECK(text && strstr(text, "\n3 samples (100.0%) have frames in files profile cannot read (gone, "
		                           "moved, or\nanother machine's), named by offset:\n  /tmp/tl-test-rebuilt-"));
		free(text);
		tl_profile_release(&r);
		tl_run_release(&run);
	}
	if (old_home)
		setenv("HOME", old_home, 1);
	else
		unsetenv("HOME");
	free(old_home);
	{
		char cmd[PATH_MAX + 32];
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", d);
		CHECK_EQ_INT(system(cmd), 0);
	}
}

/*
 * The debug file a .gnu_debuglink names (objcopy --only-keep-debug, then
 * --add-gnu-debuglink: a build of one's own): tests/data/elf/inline-linked.elf
 * is the stripped copy with a link to "inline-linked.debug".  Copied as
 * DIR/app: nothing named without the debug file; with another build's
 * file (noreturn.elf) at DIR/inline-linked.debug, still nothing; with
 * inline.elf at DIR/.debug/inline-linked.debug, main.
 */
TEST(debug_file_by_debuglink)
{
	char dir[] = "/tmp/tl-test-dlink-XXXXXX", app[64], other[96], dotdebug[80], dbg[128];
	struct tl_symfile f;
	uint64_t into;

	CHECK(mkdtemp(dir) != NULL);
	snprintf(app, sizeof(app), "%s/app", dir);
	snprintf(other, sizeof(other), "%s/inline-linked.debug", dir);
	snprintf(dotdebug, sizeof(dotdebug), "%s/.debug", dir);
	snprintf(dbg, sizeof(dbg), "%s/inline-linked.debug", dotdebug);
	CHECK_EQ_INT(copy_file("tests/data/elf/inline-linked.elf", app), 0);
	tl_symfile_debug_root(dir); /* no .build-id there */
	CHECK_EQ_INT(tl_symfile_load(&f, app), 0);
	CHECK(f.debug == 0 && tl_symfile_lookup(&f, 0x1040, &into) == NULL);
	tl_symfile_release(&f);
	CHECK_EQ_INT(copy_file("tests/data/elf/noreturn.elf", other), 0);
	CHECK_EQ_INT(tl_symfile_load(&f, app), 0);
	CHECK(f.debug == 0 && tl_symfile_lookup(&f, 0x1040, &into) == NULL); /* its build ID is another's */
	tl_symfile_release(&f);
	unlink(other);
	CHECK(mkdir(dotdebug, 0700) == 0);
	CHECK_EQ_INT(copy_file(FIXTURE, dbg), 0);
	CHECK_EQ_INT(tl_symfile_load(&f, app), 0);
	CHECK(f.debug == 1);
	CHECK_EQ_STR(tl_symfile_lookup(&f, 0x1040, &into), "main");
	tl_symfile_release(&f);
	tl_symfile_debug_root(NULL);
	unlink(dbg);
	rmdir(dotdebug);
	unlink(app);
	rmdir(dir);
}

TEST(profile_runs)
{
	struct tl_profile_func f1[3] = { { .name = "A", .module = "m", .self = 75 },
		                         { .name = "B", .module = "m", .self = 25 },
		                         { .name = "D", .module = "m", .self = 0 } };
	struct tl_profile_func f2[3] = { { .name = "A", .module = "m", .self = 70 },
		                         { .name = "B", .module = "m", .self = 20 },
		                         { .name = "C", .module = "m", .self = 10 } };
	struct tl_profile_result r1 = {
		.event = "cpu-clock", .samples = 100, .period = 100000000, .funcs = f1, .nfuncs = 3
	};
	struct tl_profile_result r2 = {
		.event = "cpu-clock", .samples = 100, .period = 100000000, .funcs = f2, .nfuncs = 3
	};
	struct tl_profile_runs R = { 0 };

	CHECK_EQ_INT(tl_profile_runs_add(&R, "a.1.tl", &r1), 0);
	CHECK_EQ_INT(tl_profile_runs_add(&R, "a.2.tl", &r2), 0);
	tl_profile_runs_finish(&R);
	CHECK_EQ_INT(R.nruns, 2);
	CHECK_EQ_STR(R.event, "cpu-clock");
	CHECK(R.samples_mean == 100 && R.samples_sd == 0);
	CHECK_EQ_INT(R.nfuncs, 3);
	if (R.nfuncs == 3) {
		CHECK_EQ_STR(R.funcs[0].name, "A");
		CHECK(R.funcs[0].mean == 72.5 && fabs(R.funcs[0].sd - sqrt(12.5)) < 1e-12);
		CHECK(R.funcs[0].min == 70 && R.funcs[0].max == 75);
		CHECK_EQ_STR(R.funcs[1].name, "B");
		CHECK(R.funcs[1].mean == 22.5);
		CHECK_EQ_STR(R.funcs[2].name, "C");
		CHECK(R.funcs[2].share[0] == 0 && R.funcs[2].share[1] == 10);
		CHECK(R.funcs[2].mean == 5 && fabs(R.funcs[2].sd - sqrt(50)) < 1e-12 && R.funcs[2].min == 0);
	}
	tl_profile_runs_release(&R);
}

/*
 * A frame-pointer walk through code without frame pointers reads a saved
 * register as the next frame: a caller that is no return address ends the
 * stack there, and is counted.  The first user frame is where the CPU was
 * and stays, mapped or not.  Base B = 0x555500000000 (the fixture; main
 * calls at 0x106e and 0x1073, returning to 0x1070 and 0x1078), T = a file
 * of nops with the signal trampoline's bytes at 0x1100:
 *   B+0x1182 (twice) <- 0x7ffd00001000 (the stack: no code) <- B+0x1070   x2: "twice", cut
 *   kernel <- B+0x1182 <- 0x10 <- B+0x1070                                x1: "twice;kernel", cut
 *   0x10 (no mapping: the CPU was there) <- B+0x1070 (main)               x1: kept whole
 *   B+0x1182 <- B+0x1060 (in main, but no call ends before it)            x1: "twice", cut
 *   B+0x1190 <- B+0x1078 (main) <- 0x8badf00dbadc0ffe (the kernel's half) x1: "main;never_inlined", cut
 *   B+0x1190 <- T+0x1100 (a signal handler's return) <- B+0x1070          x1: kept whole
 */
TEST(stacks_cut_at_unmapped_caller)
{
	char fix[PATH_MAX], path[] = "/tmp/tl-test-pcut-XXXXXX", tramp[] = "/tmp/tl-test-tramp-XXXXXX", want[128];
	static const uint8_t sigreturn[9] = { 0x48, 0xc7, 0xc0, 0x0f, 0x00, 0x00, 0x00, 0x0f, 0x05 };
	uint8_t code[0x2000];
	struct tl_trace_writer *w;
	struct tl_run run = { 0 };
	struct tl_profile_opts o = { .cpu = -1 };
	struct tl_profile_result r;
	const uint64_t B = 0x555500000000ull, T = 0x7f0000000000ull;
	int fd = mkstemp(tramp);

	CHECK(fd >= 0);
	memset(code, 0x90, sizeof(code));
	memcpy(code + 0x1100, sigreturn, sizeof(sigreturn));
	CHECK(fd >= 0 && write(fd, code, sizeof(code)) == (ssize_t)sizeof(code));
	if (fd >= 0)
		close(fd);
	CHECK(realpath(FIXTURE, fix) != NULL);
	w = program_trace_open(path, 100, 1000);
	CHECK(w != NULL);
	if (!w)
		return;
	map(w, 1001, fix, B + 0x1000, B + 0x2000, 0x1000);
	map(w, 1001, tramp, T + 0x1000, T + 0x2000, 0x1000);
	{
		/* a thread that names itself with an escape sequence: the text shows it inert */
		struct tl_event e = event_us(1005, -1, TL_EV_THREAD, 101, 100, 0, 0, 0, 0);

		e.name = tl_trace_writer_intern(w, "evil\x1b[2J");
		tl_trace_writer_add(w, &e);
	}
	sample(w, 1010, 0, 101, B + 0x1182, 0x7ffd00001000ull, B + 0x1070);
	sample(w, 1011, 0, 101, B + 0x1182, 0x7ffd00001000ull, B + 0x1070);
	{
		uint64_t f[4] = { 0xffffffff81000000ull, B + 0x1182, 0x10, B + 0x1070 };
		struct tl_event e = event_us(1012, 0, TL_EV_SAMPLE, 101, 100, 0, (int64_t)f[0], 1000000, 0);

		e.name = tl_trace_writer_intern(w, "cpu-clock");
		e.a = tl_trace_writer_stack(w, f, 4);
		tl_trace_writer_add(w, &e);
	}
	sample(w, 1013, 0, 101, 0x10, B + 0x1070, 0);
	sample(w, 1014, 0, 101, B + 0x1182, B + 0x1060, 0);
	sample(w, 1015, 0, 101, B + 0x1190, B + 0x1078, 0x8badf00dbadc0ffeull);
	sample(w, 1016, 0, 101, B + 0x1190, T + 0x1100, B + 0x1070);
	CHECK_EQ_INT(program_trace_close(w, 1100), 0);
	run.path = path;
	run.to_ns = -1;
	run.all_threads = 1;
	CHECK_EQ_INT(tl_profile_analyze(&run, &o, &r), 0);
	CHECK_EQ_INT(r.samples, 7);
	CHECK_EQ_INT(r.stacks_cut, 5);
	CHECK_EQ_INT(r.unresolved, 1);
	CHECK_EQ_INT(r.nfolded, 5);
	snprintf(want, sizeof(want), "evil?[2J;main;%s+0x1100;never_inlined", strrchr(tramp, '/') + 1);
	if (r.nfolded == 5) {
		CHECK_EQ_STR(r.folded[0].stack, "evil?[2J;main;[unknown]");
		CHECK_EQ_STR(r.folded[1].stack, "evil?[2J;main;never_inlined");
		CHECK_EQ_STR(r.folded[2].stack, want);
		CHECK_EQ_STR(r.folded[3].stack, "evil?[2J;twice");
		CHECK_EQ_INT(r.folded[3].count, 3);
		CHECK_EQ_STR(r.folded[4].stack, "evil?[2J;twice;[kernel]");
	}
	/* main is in three stacks: the cut ones lost it with the noise */
	for (size_t i = 0; i < r.nfuncs; i++)
		if (!strcmp(r.funcs[i].name, "main"))
			CHECK_EQ_INT(r.funcs[i].total, 3);
	{
		char *text = profile_text(&r);

		CHECK(text && strstr(text, "5 stacks (71.4%) were cut at a caller that is no return address"));
		CHECK(text && strstr(text, "\n  evil?[2J (101) ") && !strchr(text, '\x1b'));
		free(text);
	}
	tl_profile_release(&r);
	tl_run_release(&run);
	unlink(path);
	unlink(tramp);
}

/*
 * JIT code (symbols/perfmap.h): process 100's perf map names 0x7e0000001000
 * (size 0x40) "JS:hot"; that code is in no mapping.  A sample there is
 * named from the map, module "[jit]", and not counted in no mapping; as a
 * caller it does not cut the stack; an address the map does not hold
 * stays [unknown].
 */
TEST(jit_perf_map)
{
	char fix[PATH_MAX], path[] = "/tmp/tl-test-pjit-XXXXXX", dir[] = "/tmp/tl-test-pjitd-XXXXXX", mapf[160];
	struct tl_trace_writer *w;
	struct tl_run run = { 0 };
	struct tl_profile_opts o = { .cpu = -1 };
	struct tl_profile_result r;
	const uint64_t B = 0x555500000000ull, J = 0x7e0000001000ull;
	FILE *f;

	CHECK(realpath(FIXTURE, fix) != NULL && mkdtemp(dir) != NULL);
	snprintf(mapf, sizeof(mapf), "%s/perf-100.map", dir);
	CHECK((f = fopen(mapf, "w")) != NULL);
	if (f) {
		fputs("7e0000001000 40 JS:hot\n", f);
		fclose(f);
	}
	w = program_trace_open(path, 100, 1000);
	CHECK(w != NULL);
	if (!w)
		return;
	map(w, 1001, fix, B + 0x1000, B + 0x2000, 0x1000);
	sample(w, 1010, 0, 101, J + 0x10, 0, 0);
	sample(w, 1011, 0, 101, B + 0x1190, J + 0x20, B + 0x1070);
	sample(w, 1012, 0, 101, J + 0x40, 0, 0);
	CHECK_EQ_INT(program_trace_close(w, 1100), 0);
	run.path = path;
	run.to_ns = -1;
	run.all_threads = 1;
	o.perfmap_dir = dir;
	CHECK_EQ_INT(tl_profile_analyze(&run, &o, &r), 0);
	CHECK_EQ_INT(r.samples, 3);
	CHECK_EQ_INT(r.unresolved, 1); /* J + 0x40: past JS:hot */
	CHECK_EQ_INT(r.stacks_cut, 0);
	CHECK_EQ_INT(r.nfolded, 3);
	if (r.nfolded == 3) {
		CHECK_EQ_STR(r.folded[0].stack, "?;JS:hot");
		CHECK_EQ_STR(r.folded[1].stack, "?;[unknown]");
		CHECK_EQ_STR(r.folded[2].stack, "?;main;JS:hot;never_inlined");
	}
	for (size_t i = 0; i < r.nfuncs; i++)
		if (!strcmp(r.funcs[i].name, "JS:hot")) {
			CHECK_EQ_STR(r.funcs[i].module, "[jit]");
			CHECK_EQ_INT(r.funcs[i].self, 1);
			CHECK_EQ_INT(r.funcs[i].total, 2);
		}
	tl_profile_release(&r);
	tl_run_release(&run);
	unlink(path);
	unlink(mapf);
	rmdir(dir);
}

/*
 * Callers are named where their call is (return address - 1).  In the
 * fixture tests/data/elf/noreturn.elf, fail (0x1152) ends with a call of
 * stop (0x1150), which does not return: its return address 0x115a is the
 * first byte of after.  main calls fail at 0x104e (returning to 0x1053).
 * In the kernel, KSYM a = [K, K+0x100) ends the same way before b.
 *   B+0x1150 (stop) <- B+0x115a (fail, not after) <- B+0x1053 (main)     x2
 *   K+0x150 (b) <- K+0x100 (a, not b) <- B+0x1150 (the CPU was in stop)  x1
 */
TEST(callers_named_at_their_call)
{
	char fix[PATH_MAX], path[] = "/tmp/tl-test-pnoret-XXXXXX";
	struct tl_trace_writer *w;
	struct tl_run run = { 0 };
	struct tl_profile_opts o = { .cpu = -1 };
	struct tl_profile_result r;
	const uint64_t B = 0x555500000000ull, K = 0xffffffff81000000ull;

	CHECK(realpath("tests/data/elf/noreturn.elf", fix) != NULL);
	w = program_trace_open(path, 100, 1000);
	CHECK(w != NULL);
	if (!w)
		return;
	map(w, 1001, fix, B + 0x1000, B + 0x2000, 0x1000);
	for (int i = 0; i < 2; i++) {
		struct tl_event e = event_us(1001, -1, TL_EV_KSYM, 0, 0, (int64_t)(K + 0x100 * (uint64_t)i),
		                             (int64_t)(K + 0x100 * (uint64_t)i + 0x100), 0, 0);
		e.name = tl_trace_writer_intern(w, i ? "b" : "a");
		tl_trace_writer_add(w, &e);
	}
	sample(w, 1010, 0, 101, B + 0x1150, B + 0x115a, B + 0x1053);
	sample(w, 1011, 0, 101, B + 0x1150, B + 0x115a, B + 0x1053);
	sample(w, 1012, 0, 101, K + 0x150, K + 0x100, B + 0x1150);
	CHECK_EQ_INT(program_trace_close(w, 1100), 0);
	run.path = path;
	run.to_ns = -1;
	run.all_threads = 1;
	CHECK_EQ_INT(tl_profile_analyze(&run, &o, &r), 0);
	CHECK_EQ_INT(r.samples, 3);
	CHECK_EQ_INT(r.stacks_cut, 0);
	CHECK_EQ_INT(r.nfolded, 2);
	if (r.nfolded == 2) {
		CHECK_EQ_STR(r.folded[0].stack, "?;main;fail;stop");
		CHECK_EQ_INT(r.folded[0].count, 2);
		CHECK_EQ_STR(r.folded[1].stack, "?;stop;a;b");
	}
	for (size_t i = 0; i < r.nfuncs; i++)
		CHECK(strcmp(r.funcs[i].name, "after") != 0);
	tl_profile_release(&r);
	tl_run_release(&run);
	unlink(path);
}

/*
 * JIT functions kept in the trace (JSYM, format 1.13): process 100's JSYM
 * names J (size 0x40) "JS:traced", and its perf map file, which says
 * "JS:file" there, is not read; process 200 has no JSYM, so its file
 * names its code.  A JSYM of a size 0 or of no process is ignored.
 */
TEST(jit_names_from_the_trace)
{
	char path[] = "/tmp/tl-test-pjsym-XXXXXX", dir[] = "/tmp/tl-test-pjsymd-XXXXXX", mapf[2][160];
	struct tl_trace_writer *w;
	struct tl_run run = { 0 };
	struct tl_profile_opts o = { .cpu = -1 };
	struct tl_profile_result r;
	const uint64_t J = 0x7e0000001000ull;
	FILE *f;

	CHECK(mkdtemp(dir) != NULL);
	for (int i = 0; i < 2; i++) {
		snprintf(mapf[i], sizeof(mapf[i]), "%s/perf-%d.map", dir, i ? 200 : 100);
		CHECK((f = fopen(mapf[i], "w")) != NULL);
		if (f) {
			fputs("7e0000001000 40 JS:file\n", f);
			fclose(f);
		}
	}
	w = program_trace_open(path, 100, 1000);
	CHECK(w != NULL);
	if (!w)
		return;
	{
		struct tl_event e = event_us(1001, -1, TL_EV_JSYM, 100, 0, (int64_t)J, (int64_t)(J + 0x40), 0, 0);

		e.name = tl_trace_writer_intern(w, "JS:traced");
		tl_trace_writer_add(w, &e);
		e.a = e.b = (int64_t)(J + 0x100); /* size 0 */
		tl_trace_writer_add(w, &e);
		e.tid = 0;
		e.a = (int64_t)J + 0x200;
		e.b = (int64_t)J + 0x300; /* no process */
		tl_trace_writer_add(w, &e);
	}
	sample(w, 1010, 0, 101, J + 0x10, 0, 0);
	sample(w, 1011, 0, 101, J + 0x100, 0, 0);
	{
		struct tl_event e = event_us(1012, 0, TL_EV_SAMPLE, 200, 200, 0, (int64_t)(J + 0x10), 1000000, 0);

		e.name = tl_trace_writer_intern(w, "cpu-clock");
		tl_trace_writer_add(w, &e);
	}
	CHECK_EQ_INT(program_trace_close(w, 1100), 0);
	run.path = path;
	run.to_ns = -1;
	run.all_threads = 1;
	o.perfmap_dir = dir;
	CHECK_EQ_INT(tl_profile_analyze(&run, &o, &r), 0);
	CHECK_EQ_INT(r.samples, 3);
	CHECK_EQ_INT(r.unresolved, 1); /* J + 0x100: the JSYM of size 0 named nothing */
	CHECK_EQ_INT(r.nfuncs, 3);
	for (size_t i = 0; i < r.nfuncs; i++) {
		if (!strcmp(r.funcs[i].name, "JS:traced"))
			CHECK(r.funcs[i].self == 1 && !strcmp(r.funcs[i].module, "[jit]"));
		else if (!strcmp(r.funcs[i].name, "JS:file"))
			CHECK(r.funcs[i].self == 1 && !strcmp(r.funcs[i].module, "[jit]"));
		else
			CHECK_EQ_STR(r.funcs[i].name, "[unknown]");
	}
	tl_profile_release(&r);
	tl_run_release(&run);
	unlink(path);
	unlink(mapf[0]);
	unlink(mapf[1]);
	rmdir(dir);
}

int main(void)
{
	RUN_TESTS(symbols_by_offset, profile_counts, stacks_cut_at_unmapped_caller, callers_named_at_their_call,
	          jit_perf_map, jit_names_from_the_trace, stripped_functions, debug_file_by_build_id,
	          debug_file_by_debuglink, build_ids, keep_build_ids, rebuilt_files, profile_events, profile_runs,
	          diff_profiles);
}
