/*
 * symfile.h - a file's functions by address, for turning sampled
 * addresses into names (threadlens profile).
 *
 * A file (executable or shared library) is read once: its PT_LOAD
 * segments, and every function symbol (STT_FUNC, STT_GNU_IFUNC) of .symtab
 * and .dynsym with its size, and its PLT stubs as "name@plt" (x86-64: the
 * relocation of the GOT slot each jumps through), sorted by address; C++ names are shown
 * demangled where demangle.h can.  A stripped file still has .dynsym (its
 * exported functions); an address no symbol covers is shown as the file
 * and the offset ("libfoo.so+0x1a2b"), never "[unknown]".  Its unwind
 * table (.eh_frame_hdr and .eh_frame, which stripping keeps) still bounds
 * every function compiled with unwind information: tl_symfile_unwind_func()
 * gives the entry of the one that holds an address, so that a stripped
 * library's function is one name ("libm.so.6+0x702c0") rather than one
 * per sampled instruction.
 *
 * The same file's data objects (STT_OBJECT: globals, statics) instead of
 * its functions (tl_symfile_load_data): what names a lock's futex word,
 * looked up by link-time address (tl_symfile_lookup_vaddr), .bss
 * included (a segment's memsz beyond its filesz).
 *
 * A file read from a path that has no .symtab (a distribution's library:
 * stripped, its symbols shipped apart in a -dbg or -dbgsym package) takes
 * the .symtab of its separate debug file instead, found as gdb and perf
 * find it: by its build ID, DEBUG_ROOT/.build-id/xx/yyyy...debug, where
 * DEBUG_ROOT is /usr/lib/debug (tl_symfile_debug_root()); else by the
 * name its .gnu_debuglink gives (objcopy --only-keep-debug, then
 * --add-gnu-debuglink), beside it, in its folder's .debug, or under
 * DEBUG_ROOT with its folder; a debug file with another build ID is not
 * taken.  Its internal
 * functions are then named ("__run_exit_handlers", not
 * "libc.so.6+0x3e3f0").
 *
 * Pure on an image (tl_symfile_load_mem: the unit tests and fuzz_symfile);
 * tl_symfile_load reads a path.
 */
#ifndef TL_SYMFILE_H
#define TL_SYMFILE_H

#include <stddef.h>
#include <stdint.h>

struct tl_sym {
	uint64_t start, size; /* link-time address; size 0: up to the next symbol */
	uint32_t name;        /* offset in names */
};

/* A build ID in hex, as `readelf -n` prints it: up to 64 bytes (128 digits) and a NUL. */
#define TL_BUILD_ID_HEX 129

struct tl_symfile {
	int loaded;                     /* 0: not an ELF file we could read (every lookup misses) */
	char build_id[TL_BUILD_ID_HEX]; /* the file's own (NT_GNU_BUILD_ID), "" if none */
	int symtab;                     /* 1 if it had .symtab (not stripped), or its debug file had */
	int debug;                      /* 1 if the symbols came from its separate debug file */
	int by_path;  /* being read from a path (tl_symfile_load*): its debug file may be looked for */
	int data;     /* syms are its data objects (tl_symfile_load_data), not its functions */
	size_t nsyms; /* sorted by start, one per address (a global name beats a local one) */
	struct tl_sym *syms;
	char *names;
	size_t names_len, names_cap;
	size_t nsegs;
	struct {
		uint64_t vaddr, offset, filesz, memsz;
	} segs[16];    /* PT_LOAD, in file order */
	size_t nfuncs; /* the unwind table's functions (functions mode only), sorted by start */
	struct {
		uint64_t start, end; /* link-time [start, end) */
	} * funcs;
};

/* Read the file at path (0), or an image (the same): 0, or -1 with tl_error set; f is usable either way. */
int tl_symfile_load(struct tl_symfile *f, const char *path);
int tl_symfile_load_mem(struct tl_symfile *f, const void *image, size_t size, const char *label);
/* The same with the file's data objects as its symbols. */
int tl_symfile_load_data(struct tl_symfile *f, const char *path);
int tl_symfile_load_data_mem(struct tl_symfile *f, const void *image, size_t size, const char *label);

/*
 * The function that holds file offset `off` (what a mapping gives: address
 * - start + pgoff), and the offset into it in *into; NULL if no symbol
 * covers it (or the offset is in no segment).
 */
const char *tl_symfile_lookup(const struct tl_symfile *f, uint64_t off, uint64_t *into);

/*
 * The function of the unwind table that holds file offset `off`: 0 with
 * the file offset of its entry in *entry, or -1 if no entry of the table
 * covers it (padding between functions, code without unwind information,
 * a file without the table, or data mode).
 */
int tl_symfile_unwind_func(const struct tl_symfile *f, uint64_t off, uint64_t *entry);

/*
 * The symbol that holds link-time address v (a symbol of unknown size
 * holds up to 1 MiB, and not a function of the unwind table that begins
 * after it), the offset into it in *into; NULL if none.
 */
const char *tl_symfile_lookup_vaddr(const struct tl_symfile *f, uint64_t v, uint64_t *into);

/*
 * The link-time address of what a mapping at file offset `off` maps (the
 * PT_LOAD segment that holds the page: off may be rounded down from the
 * segment's offset), in *v: 0, or -1 if no segment holds it.  With the
 * mapping's start s, s - *v is the file's load bias: v + bias is where
 * link-time address v is in the process.
 */
int tl_symfile_vaddr_of(const struct tl_symfile *f, uint64_t off, uint64_t *v);

/* 1 if link-time address v lies in a PT_LOAD segment (its memsz: .bss too). */
int tl_symfile_holds(const struct tl_symfile *f, uint64_t v);

/*
 * Where separate debug files are looked for (their .build-id folder's
 * parent): dir, or NULL for /usr/lib/debug (the unit tests point it at
 * their own).  Not thread-safe: set it before any load.
 */
void tl_symfile_debug_root(const char *dir);

/*
 * The build ID of the ELF file at path (its NT_GNU_BUILD_ID note) in hex
 * into hex[TL_BUILD_ID_HEX]: the digits' count, 0 (hex "") if it has
 * none, or -1 with tl_error set if it cannot be read as ELF.
 */
int tl_symfile_build_id(const char *path, char *hex);

void tl_symfile_release(struct tl_symfile *f);

#endif
