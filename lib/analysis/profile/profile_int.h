/*
 * profile_int.h - what the files of analysis/profile share (profile.c,
 * profile_cells.c, profile_jit.c, profile_files.c): the samples gathered
 * by the walk and the pass that resolves and counts them.  Not for other
 * folders.
 */
#ifndef TL_PROFILE_INT_H
#define TL_PROFILE_INT_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/profile/profile.h"
#include "base/strtab.h"
#include "base/tidmap.h"
#include "symbols/perfmap.h"
#include "symbols/symfile.h"
#include "timeline/state_machine.h"

#define MAX_FRAMES 128
#define KERNEL(ip) ((ip) >> 63)

struct smp {
	uint64_t ts, ip, period;
	uint32_t stack;
	uint32_t self;   /* its innermost frame's function id, once resolved */
	uint32_t pstack; /* with opts.cells: its id in pstacks, once resolved */
	uint8_t ev;      /* its event: index in pass.ev_ids */
	int32_t tid, pid;
	int16_t cpu;
	uint16_t gen;
};

struct map {
	int32_t pid;
	uint16_t gen;
	uint32_t file; /* index in files */
	uint64_t start, end, pgoff;
};

/* A kernel function the recording named (KSYM). */
struct ksym {
	uint64_t start, end;
	uint32_t name; /* the trace's string id */
};

/* A mapped file, as profile_files.c finds it. */
struct file {
	char *path;
	char *build_id;   /* the recorded one (format 1.14), "" if none */
	char *cached;     /* the copy of that build found by its build ID, when the path holds another */
	const char *code; /* where the bytes of the build that ran are (path or cached); NULL: nowhere */
	struct tl_symfile sf;
	int tried;      /* sf read (tl_profile_file) */
	int rebuilt;    /* the file at path is another build, and no copy of the recorded one was found */
	int unreadable; /* a path (not a pseudo-file) with no readable ELF file, nor a copy found */
	int fd;         /* code's bytes, for return addresses: 0 not opened yet, else fd + 1; -1 unreadable */
};

struct gen {
	int32_t pid;
	uint16_t gen;      /* EXECs seen */
	uint16_t from_gen; /* the parent's generation when it forked this one */
	int32_t from;      /* the process that forked it, 0 if not seen */
};

/* A sampled thread's name as it was when sampled (it may be gone at the end). */
struct tname {
	int32_t tid;
	int32_t pid; /* its process, as its samples say */
	char name[TL_NAME_MAX];
};

/*
 * A process's JIT functions (symbols/perfmap.h): the trace's JSYM events
 * of it (format 1.13), else its perf map file, read when an address of it
 * is in no mapping.
 */
struct pmap {
	int32_t pid;
	int sorted; /* tl_perfmap_done() since the last JSYM added */
	struct tl_perfmap m;
};

struct memo {
	uint64_t ip;
	int32_t pid;
	uint16_t gen;
	uint32_t func; /* +1; 0 = empty slot */
	uint8_t ret;   /* a return address: named at ip - 1 (the call), kept apart from ip itself */
	uint8_t unres; /* resolve()'s enum where: no mapping, a rebuilt or unreadable file */
	uint8_t call;  /* return addresses: 0 not read yet, else after_call()'s answer + 1 */
};

struct pass {
	struct tl_run *run;
	const struct tl_profile_opts *o;
	struct tl_sched *sched;
	uint64_t win_start; /* the walk's: earlier samples are not counted */
	struct smp *s;
	size_t ns, caps;
	struct map *maps;
	size_t nmaps, capmaps;
	struct ksym *ksyms; /* sorted by start before the samples are resolved */
	size_t nksyms, capksyms;
	struct file *files;
	size_t nfiles, capfiles;
	struct tl_tidmap gens;    /* pid -> struct gen */
	struct tl_tidmap names;   /* tid -> struct tname */
	struct tl_strtab keys;    /* "name\001module" -> function id */
	struct tl_strtab stacks;  /* folded stacks -> id */
	struct tl_strtab pstacks; /* with opts.cells: "id,id,..." (function ids, outermost first) -> id */
	uint64_t *fself, *ftotal, *fold;
	size_t capself, captotal, capfold;
	struct memo *memo;
	size_t memo_cap, memo_n;
	struct pmap *pmaps; /* the perf maps read, one per process asked about */
	size_t npmaps, cappmaps;
	uint32_t ev_ids[TL_PROFILE_MAX_EVENTS]; /* the events' name ids, as first seen */
	unsigned nev;
	uint8_t prim; /* the event counted: the first named (the lowest name id: -e's order) */
	int oom;
};

/* Where event e of the pass shows in r->events: the counted one first (its place and 0 swap). */
unsigned tl_profile_shown(const struct pass *p, unsigned e);
/* Each event's samples and periods, in all and per function (rank: function id -> index in r->funcs).  0 or -1. */
int tl_profile_event_sums(struct pass *p, struct tl_profile_result *r, const uint32_t *rank, uint32_t nf);
/* opts.cells: the bins, stacks (function ids made indices by rank) and cells of profile.h.  0 or -1. */
int tl_profile_cells(struct pass *p, struct tl_profile_result *r, const uint32_t *rank);
/* opts.cells: each event's periods by (bin, CPU).  0 or -1. */
int tl_profile_event_bins(struct pass *p, struct tl_profile_result *r);
/* The index of the file (path, build ID "" or hex) in p->files, added if new; UINT32_MAX (p->oom) (profile_files.c). */
uint32_t tl_profile_file_of(struct pass *p, const char *path, const char *build_id);
/* File i, its symbols read on the first call: the build that ran, if it can be found. */
struct file *tl_profile_file(struct pass *p, uint32_t i);
/* A descriptor of file i's code bytes (the build that ran), or -1 if they cannot be read. */
int tl_profile_file_fd(struct pass *p, uint32_t i);
void tl_profile_files_release(struct pass *p);
/* A JSYM event of the walk (profile_jit.c): its process's JIT functions come from the trace. */
void tl_profile_jsym(struct pass *p, const struct tl_event *ev);
/* A JIT's name for ip in process pid (the trace's JSYM events, else /tmp/perf-PID.map), or NULL. */
const char *tl_profile_jit_name(struct pass *p, int32_t pid, uint64_t ip);

#endif
