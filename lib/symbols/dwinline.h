/*
 * dwinline.h - where a function was inlined, from the DWARF of an ELF file:
 * the entry of each inlined copy as a file offset, what a uprobe wants.
 *
 * `record --func F` probes F's symbol (elfsym.h); a copy of F that the
 * compiler inlined into a caller has no symbol and no return instruction,
 * so those calls would go unseen.  DWARF lists each copy as a
 * DW_TAG_inlined_subroutine whose abstract origin is F: its entry is
 * DW_AT_entry_pc, else its DW_AT_low_pc, else the start of its first
 * DW_AT_ranges entry.  An entry probe there counts the call; nothing marks
 * where the copy is left (the code falls or jumps out anywhere), so an
 * inlined call has no duration.
 *
 * A name matches a copy whose origin has that DW_AT_name and no linkage
 * name (C), or whose linkage name (DW_AT_linkage_name, followed through
 * DW_AT_abstract_origin and DW_AT_specification) is the name or demangles
 * to it (C++: "ns::work", demangle.h).  Only the file's own DWARF is read:
 * debug info in a separate file (a -dbg package, .gnu_debuglink) is not.
 *
 * Pure: no tracefs, no root.  Any byte string is safe to look in (libdw
 * checks the DWARF; this file caps depth and counts).
 */
#ifndef TL_DWINLINE_H
#define TL_DWINLINE_H

#include <stddef.h>
#include <stdint.h>

#define TL_INLINE_MAX 256 /* copies kept; more are counted in `more` */

struct tl_inline_site {
	uint64_t vaddr;  /* the copy's entry, a link-time address */
	uint64_t offset; /* its file offset */
	char file[48];   /* DW_AT_call_file's base name: where it was inlined; "" if not said */
	int line;        /* DW_AT_call_line; 0 if not said */
};

struct tl_inline_sites {
	int dwarf;   /* 1 if the file has DWARF (.debug_info) at all */
	size_t n;    /* sites in v (distinct entries, in address order) */
	size_t more; /* copies past TL_INLINE_MAX, not kept */
	struct tl_inline_site *v;
};

/*
 * The inlined copies of function `name` in the ELF file at `path` into
 * *out (empty when there are none, or no DWARF: out->dwarf says which).
 * Returns 0, or -1 with tl_error set when the file cannot be read or its
 * DWARF is broken.  Free with tl_inline_sites_free().
 */
int tl_inline_find(const char *path, const char *name, struct tl_inline_sites *out);

/* The same on an ELF image in memory (not modified); `label` names it in messages. */
int tl_inline_find_mem(const void *image, size_t size, const char *label, const char *name,
                       struct tl_inline_sites *out);

/* "app.c:12, app.c:40 and 3 more" into buf: where the copies are, for a message. */
const char *tl_inline_where(const struct tl_inline_sites *s, char *buf, size_t len);

void tl_inline_sites_free(struct tl_inline_sites *s);

#endif
