/*
 * umarks.h - where a running process keeps the marker library's functions,
 * for `record -p`: the files and offsets the eBPF back end puts uprobes on
 * (capture/bpf/umarks.h says what the programs do with the calls).
 *
 * A process uses the library as libthreadlens.so (the usual way: a mapped
 * file whose name holds "threadlens") or linked into its executable.  Those
 * files are the ones looked at, not every library the process maps: each
 * look is an ELF symbol search (symbols/elfsym.h).  A file counts when it
 * defines tl_frame_begin; the other functions are probed where defined.
 *
 * A shared library is one file for every process that maps it, and a
 * uprobe on a file sees every process that runs it, those started later
 * too; an executable is probed for the processes running it when the
 * recording starts.
 *
 * Pure but for /proc: no root, no BPF.
 */
#ifndef TL_UMARKS_H
#define TL_UMARKS_H

#include <stddef.h>
#include <stdint.h>

/* The library's functions (include/threadlens.h), in the eBPF programs' order (bpf_rec.c). */
enum tl_umark_fn {
	TL_UMARK_FRAME_BEGIN,
	TL_UMARK_FRAME_END,
	TL_UMARK_FRAME_JOIN,
	TL_UMARK_REGION_BEGIN,
	TL_UMARK_REGION_END,
	TL_UMARK_TASK_BEGIN,
	TL_UMARK_TASK_END,
	TL_UMARK_INSTANT,
	TL_UMARK__COUNT
};

/* The function names, by enum tl_umark_fn. */
extern const char *const tl_umark_symbols[TL_UMARK__COUNT];

/* One file that holds the library. */
struct tl_umarks_file {
	char path[1024];
	uint64_t offset[TL_UMARK__COUNT]; /* file offset of each function's entry */
	unsigned have;                    /* bit i: function i is defined here */
};

/*
 * The functions of the file at path: 1 with *f filled if it defines
 * tl_frame_begin, 0 if not (or it is no ELF file: nothing to probe).
 */
int tl_umarks_resolve(const char *path, struct tl_umarks_file *f);

/*
 * 1 if a /proc/PID/maps path may hold the library: the executable (exe,
 * its path as /proc/PID/exe resolves) or a file whose name (after the last
 * '/') contains "threadlens".  Pseudo paths ("[vdso]", "") do not.
 */
int tl_umarks_candidate(const char *path, const char *exe);

#define TL_UMARKS_MAX_FILES 64 /* files probed in one recording; more are left out, and counted */
#define TL_UMARKS_MAX_SPANS 64 /* OpenMP functions probed in one recording; more are left out, and counted */

/*
 * A function the compiler outlined from an OpenMP construct (the body of
 * a `parallel`, a `parallel for`, a task): every thread of the team runs
 * it once per region, so its entry and return are the region's instance
 * on that thread, as a marked region's begin and end would be.
 */
struct tl_umarks_span {
	char path[1024]; /* the file that holds it */
	char name[128];  /* its symbol: GCC's "main._omp_fn.0", Clang's ".omp_outlined." */
	uint64_t offset; /* file offset of its entry */
	int barrier;     /* an OpenMP runtime's barrier (tl_umarks_is_omp_barrier()): probed as a function */
};

/* Paths already examined, with or without what was looked for. */
struct tl_umarks_paths {
	char **v;
	size_t n, cap;
};

/* The files found so far; each path is examined once for each purpose. */
struct tl_umarks {
	struct tl_umarks_file files[TL_UMARKS_MAX_FILES];
	int n;
	uint64_t left_out; /* files with the library beyond TL_UMARKS_MAX_FILES */
	struct tl_umarks_span spans[TL_UMARKS_MAX_SPANS];
	int nspans;
	uint64_t spans_left_out;            /* OpenMP functions beyond TL_UMARKS_MAX_SPANS */
	int nbarriers;                      /* of the spans, OpenMP runtimes' barriers */
	char omp_runtime[64];               /* an OpenMP runtime seen among the files ("libgomp.so.1"), or "" */
	struct tl_umarks_paths checked;     /* every candidate examined for the marker library */
	struct tl_umarks_paths omp_checked; /* every mapped file examined for OpenMP functions (-p, -a) */
};

/* An empty set; NULL with tl_error set.  Free with tl_umarks_free(). */
struct tl_umarks *tl_umarks_new(void);
void tl_umarks_free(struct tl_umarks *u);

/*
 * Add the files of process pid that hold the library.  Returns 0, or -1
 * with tl_error set if the process cannot be read (out of memory too).
 */
int tl_umarks_find(struct tl_umarks *u, int32_t pid);

/*
 * The same for every process in /proc (record -a): one that is gone or
 * unreadable meanwhile (a kernel thread has no maps) is passed over.
 * Returns 0, or -1 with tl_error set if /proc cannot be listed.
 */
int tl_umarks_find_all(struct tl_umarks *u);

/*
 * 1 if name is a function a compiler outlined from an OpenMP construct:
 * GCC's "FUNC._omp_fn.N", Clang's ".omp_outlined." (and ".omp_outlined..N";
 * not its "_debug__" inner copy, which the outer one calls).  Nothing may
 * follow: "FUNC._omp_fn.0.cold" is a piece of the function's body that GCC
 * moved away, not an entry (a uretprobe there would corrupt the program).
 */
int tl_umarks_is_omp(const char *name);

/*
 * 1 if name (a function, or a probe's label "FILE:FUNC") is a barrier of an
 * OpenMP runtime that the compiler calls inside a region: at the end of an
 * `omp for`, `sections` or `single`, and for `omp barrier` (libgomp's
 * GOMP_barrier, GOMP_loop_end, GOMP_sections_end and their _cancel forms;
 * libomp's __kmpc_barrier).  A thread that calls one waits there for the
 * team.
 */
int tl_umarks_is_omp_barrier(const char *name);

/*
 * Add the OpenMP outlined functions of the ELF file at path (an
 * executable or a library of `record`'s command, or of a -p process) to u->spans, each
 * once.  Returns how many were added, or -1 with tl_error set when the
 * file cannot be read as ELF.
 */
int tl_umarks_omp(struct tl_umarks *u, const char *path);

/*
 * The same for the shared libraries the loader maps for the program at exe
 * before it runs (symbols/elfneed.h): a command's libraries, probed before
 * it starts.  Returns how many were added, or -1 with tl_error set when
 * exe cannot be read as ELF.  A library dlopen()ed later is not seen.
 */
int tl_umarks_omp_libs(struct tl_umarks *u, const char *exe);

/*
 * The same for every file process pid runs code from now (its executable
 * and libraries, from /proc/PID/maps): record -p.  Each file is examined
 * once however many processes map it.  Returns how many were added, or -1
 * with tl_error set when the maps cannot be read.
 */
int tl_umarks_omp_maps(struct tl_umarks *u, int32_t pid);

/*
 * The same for every process in /proc (record -a); one that is gone or
 * unreadable meanwhile is passed over.  Returns how many were added, or
 * -1 with tl_error set if /proc cannot be listed.
 */
int tl_umarks_omp_all(struct tl_umarks *u);

/*
 * 1 if the file at path is an OpenMP runtime by its name: GCC's libgomp,
 * LLVM's libomp, Intel's libiomp5 (any version suffix).  The OpenMP
 * searches note the first one they pass in u->omp_runtime, so that a
 * program that uses OpenMP but whose functions have no names (stripped)
 * can be told apart from one without OpenMP.
 */
int tl_umarks_is_omp_runtime(const char *path);

/*
 * The barriers of the OpenMP runtime at path (tl_umarks_is_omp_barrier()),
 * found by name in its .dynsym (exported: a stripped runtime has them), as
 * spans with `barrier` set, named "FILE:FUNC" as --func names them; each
 * (file, offset) once.  The OpenMP searches add those of every runtime they
 * pass.  Returns how many were added (0 when past TL_UMARKS_MAX_SPANS: the
 * regions come first).
 */
int tl_umarks_omp_barriers(struct tl_umarks *u, const char *path);

/* Add one probed function by hand (record --func): its index, or -1 when the list is full. */
int tl_umarks_add_span(struct tl_umarks *u, const char *path, const char *name, uint64_t offset);

#endif
