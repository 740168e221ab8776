/*
 * perfmap.h - the names a JIT compiler gives its code, from the perf map
 * file it writes (/tmp/perf-PID.map: V8 with --perf-basic-prof, Java
 * agents, Python 3.12's -X perf): one function a line, "START SIZE name"
 * with START and SIZE in hex.  Such code sits in anonymous mappings, which
 * no file names; threadlens profile looks its samples up here.
 *
 * Lines that do not parse are skipped (counted); a later line for the
 * same start replaces an earlier one (the JIT reused the address).  Pure
 * on text (tl_perfmap_parse: unit tests, fuzz_procmaps); tl_perfmap_load
 * reads a process's file.  A map can also be built a function at a time
 * (tl_perfmap_add, then tl_perfmap_done before a lookup): from a trace's
 * JSYM events, which the recorder took from the file.
 */
#ifndef TL_PERFMAP_H
#define TL_PERFMAP_H

#include <stddef.h>
#include <stdint.h>

struct tl_perfmap_sym {
	uint64_t start, size;
	uint32_t name; /* offset in names */
};

struct tl_perfmap {
	struct tl_perfmap_sym *syms; /* sorted by start, one per start (after tl_perfmap_done) */
	size_t nsyms, capsyms;
	char *names;
	size_t names_len, capnames;
	size_t skipped; /* lines that did not parse */
};

/* The map of text[len] into m (empty on no memory).  0, or -1 out of memory (m empty). */
int tl_perfmap_parse(const char *text, size_t len, struct tl_perfmap *m);

/* The map of process pid from DIR/perf-PID.map (dir NULL: /tmp).  0 (empty if there is none), -1 out of memory. */
int tl_perfmap_load(struct tl_perfmap *m, const char *dir, int32_t pid);

/*
 * Add a function [start, start + size) named name[len] (size 0: not
 * added) to m, which starts zeroed; a later one for the same start
 * replaces it at tl_perfmap_done.  0, or -1 out of memory (m unchanged).
 */
int tl_perfmap_add(struct tl_perfmap *m, uint64_t start, uint64_t size, const char *name, size_t len);

/* Sort m's functions for lookups, one per start (the last added). */
void tl_perfmap_done(struct tl_perfmap *m);

/* The function that holds ip, or NULL; its name is m->names + name. */
const struct tl_perfmap_sym *tl_perfmap_find(const struct tl_perfmap *m, uint64_t ip);

/* The name of the function that holds ip, or NULL. */
const char *tl_perfmap_lookup(const struct tl_perfmap *m, uint64_t ip);

void tl_perfmap_release(struct tl_perfmap *m);

#endif
