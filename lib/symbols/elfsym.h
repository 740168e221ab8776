/*
 * elfsym.h - a function's name into the file offset of its first
 * instruction in an ELF executable or shared library: what a uprobe wants.
 *
 * The symbol is looked up in .symtab and .dynsym (elfutils' libelf reads
 * them).  Only functions count: STT_FUNC, and STT_GNU_IFUNC only to say why
 * it cannot be probed (its address is the resolver, not the code that
 * runs).  The file offset is st_value - p_vaddr + p_offset of the PT_LOAD
 * segment that holds st_value, which is right for PIE, non-PIE and shared
 * objects alike.
 *
 * Several definitions of one name: the same address found twice (.symtab
 * and .dynsym, or aliases) is one function; otherwise a global or weak
 * symbol of the default version beats a non-default version (name@VER),
 * which beats a local; two different addresses left at the best rank are
 * an error that names them.
 *
 * Pure: no tracefs, no root.  Any byte string is safe to look up in.
 */
#ifndef TL_ELFSYM_H
#define TL_ELFSYM_H

#include <stddef.h>
#include <stdint.h>

struct tl_elfsym {
	uint64_t offset; /* file offset of the function's entry */
	uint64_t vaddr;  /* st_value: its link-time address */
	uint64_t size;   /* st_size; 0 if the file does not say */
	int global;      /* STB_GLOBAL or STB_WEAK (else a local of one source file) */
	char name[128];  /* the symbol as the file spells it (may end in @VERSION) */
};

/*
 * Find function `symbol` in the ELF file at `path`.  `symbol` matches a
 * name exactly, or a versioned name "symbol@VER" / "symbol@@VER".  Returns
 * 0 with *out filled, or -1 with tl_error set, e.g.
 *   cannot read 'x': not an ELF file
 *   no function 'foo' in '/path/app' (stripped?)
 *   no function 'usleep' in '/path/app': it is imported from 'libc.so.6'; ...
 *   function 'helper' is defined 2 times in '/path/app': local at 0x1139, ...
 */
int tl_elfsym_lookup(const char *path, const char *symbol, struct tl_elfsym *out);

/*
 * The same on an ELF image in memory (not modified, need not stay valid
 * after the call); `label` names it in messages.
 */
int tl_elfsym_lookup_mem(const void *image, size_t size, const char *label, const char *symbol, struct tl_elfsym *out);

/* libelf's handle (libelf.h: typedef struct Elf Elf), for the helpers below. */
struct Elf;

/*
 * Open the ELF file at `path` (a regular file) and call fn with it and the
 * path as its label; returns fn's result, or -1 with tl_error set when the
 * file cannot be opened or is not ELF.  tl_elfsym_with_mem() does the same
 * on an image in memory (not modified).  dwinline.c reads DWARF this way.
 */
int tl_elfsym_with(const char *path, int (*fn)(struct Elf *e, const char *label, void *ctx), void *ctx);
int tl_elfsym_with_mem(const void *image, size_t size, const char *label,
                       int (*fn)(struct Elf *e, const char *label, void *ctx), void *ctx);

/*
 * Every function defined in the ELF file at path (.symtab and .dynsym, so
 * one function may come twice), with the file offset of its entry: fn
 * gets each until it returns nonzero.  Returns fn's last result, or -1
 * with tl_error set when the file cannot be read as ELF.  The _mem form
 * reads an image in memory, as tl_elfsym_with_mem().
 */
int tl_elfsym_each(const char *path, int (*fn)(void *ctx, const char *name, uint64_t offset), void *ctx);
int tl_elfsym_each_mem(const void *image, size_t size, const char *label,
                       int (*fn)(void *ctx, const char *name, uint64_t offset), void *ctx);

/* A link-time address into its file offset (through the PT_LOAD segment that holds it): 0, or -1 if none does. */
int tl_elfsym_file_offset(struct Elf *e, uint64_t vaddr, uint64_t *off);

/*
 * The file a `--func FILE:SYMBOL` names, into out (a path that exists):
 * FILE itself if it contains a '/' or exists; else a shared library found
 * by name in the standard library directories, trying FILE, libFILE.so,
 * FILE.so and then FILE.so.N / libFILE.so.N ("libc", "c", "libc.so.6" all
 * find libc.so.6).  Returns 0, or -1 with tl_error set ("no file or
 * library 'x'").
 */
int tl_elfsym_find_file(const char *name, char *out, size_t len);

/* The standard library directories, i = 0, 1, ...: NULL past the last. */
const char *tl_elfsym_lib_dir(size_t i);

#endif
