/*
 * elfneed.h - the shared libraries a program's loader maps before main():
 * its DT_NEEDED entries and theirs, found as ld.so(8) finds them, so that
 * `record` can put uprobes on the functions of a library before the
 * command has started (a uprobe on a file sees every process that maps it
 * later).
 *
 * The search, per object: DT_RPATH of the object and of the executable
 * (when the object has no DT_RUNPATH), LD_LIBRARY_PATH, DT_RUNPATH, the
 * directories /etc/ld.so.conf names (with its includes: what ldconfig put
 * in the cache), then the standard directories.  $ORIGIN is the object's
 * directory; a path with another $ token is passed over.  A file counts
 * when it is ELF of the executable's class and machine, as the loader
 * skips others.  Not found: a library the program dlopen()s later, or one
 * that only /etc/ld.so.cache knows by a name ld.so.conf does not give.
 *
 * Hostile input (a file's .dynamic) only makes a walk shorter: every
 * string comes through libelf's checked elf_strptr().
 */
#ifndef TL_ELFNEED_H
#define TL_ELFNEED_H

#include <stddef.h>

#define TL_ELFNEED_MAX 512 /* libraries one walk visits; a longer chain is cut here */

/* What one object's .dynamic says about its dependencies. */
struct tl_elfdyn {
	char **needed; /* DT_NEEDED names, in order */
	int nneeded;
	char *rpath;   /* DT_RPATH, or NULL */
	char *runpath; /* DT_RUNPATH, or NULL */
	int elfclass;  /* ELFCLASS32 / ELFCLASS64 */
	int machine;   /* e_machine */
};

/*
 * Read the ELF file at path (or an image in memory, `label` naming it in
 * messages) into *d.  A file without .dynamic (a static executable) gives
 * no names.  Returns 0, or -1 with tl_error set (not ELF, out of memory).
 * Free with tl_elfdyn_free() either way.
 */
int tl_elfdyn_read(const char *path, struct tl_elfdyn *d);
int tl_elfdyn_read_mem(const void *image, size_t size, const char *label, struct tl_elfdyn *d);
void tl_elfdyn_free(struct tl_elfdyn *d);

/*
 * Call fn with the path of each library the loader maps for the program
 * at exe, breadth first as the loader orders them, each once, until fn
 * returns nonzero.  A name that is found nowhere is passed over (the
 * loader would fail; the program is not ours to judge).  Returns fn's last
 * result, or -1 with tl_error set when exe cannot be read as ELF.
 */
int tl_elfneed_each(const char *exe, int (*fn)(void *ctx, const char *path), void *ctx);

/*
 * The directories of the ld.so.conf at path, with its `include` globs
 * (relative to path's directory), one call of fn each, in order; includes
 * nest at most 8 deep.  Returns 0; a file that cannot be read gives none.
 */
int tl_elfneed_conf(const char *path, void (*fn)(void *ctx, const char *dir), void *ctx);

/*
 * One line of an ld.so.conf, len bytes (no NUL needed; a newline allowed):
 * 1 with [*out, *out + *out_len) a directory, 2 with it an include's
 * pattern, 0 for nothing (blank, a comment after '#', a hwcap line).  The
 * text given back has no blanks at either end and lies inside the line.
 * Pure (fuzz_ldconf).
 */
int tl_elfneed_conf_line(const char *line, size_t len, const char **out, size_t *out_len);

#endif
