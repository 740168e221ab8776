/*
 * dwinline.c - the inlined copies of a function, from DWARF (see
 * dwinline.h).  elfutils' libdw reads the DWARF; elfsym.c opens the file
 * and turns addresses into file offsets.
 *
 * Every compile unit's DIE tree is walked once, depth first, up to
 * MAX_DEPTH levels (deeper nesting is not real code; a hostile file could
 * loop a tree through bad offsets only within libdw's own checks).  A
 * DW_TAG_inlined_subroutine matches by its origin's names; its entry is
 * kept once per address (two DIEs for one entry, as LTO can leave, are one
 * copy).  Invariants: v holds at most TL_INLINE_MAX sites, distinct and in
 * address order; `more` counts the matching copies left out.
 */
#include "symbols/dwinline.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/errors.h"
#include "base/grow.h"
#include "symbols/demangle.h"
#include "symbols/elfsym.h"

#define MAX_DEPTH 64
#define MAX_SPANS 128

/* A section's data as libdw reads it (after decompression). */
struct span {
	const char *p;
	size_t n;
};

struct find {
	const char *name;
	Elf *elf;
	struct tl_inline_sites *out;
	size_t cap;
	int oom;
	struct span spans[MAX_SPANS];
	int nspans;
};

/* The sections' data, once libdw has them: where its strings may point. */
static void collect_spans(struct find *f)
{
	Elf_Scn *scn = NULL;

	f->nspans = 0;
	while (f->nspans < MAX_SPANS && (scn = elf_nextscn(f->elf, scn))) {
		Elf_Data *d = elf_getdata(scn, NULL);
		if (d && d->d_buf && d->d_size)
			f->spans[f->nspans++] = (struct span){ d->d_buf, d->d_size };
	}
}

/*
 * s, or NULL if it points into a section's data and does not end there.
 * libdw hands out strings as pointers into that data without checking
 * that a damaged file's end there (fuzz_dwinline found a strcmp that ran
 * past a section's end); the ones it builds itself (file paths) are its
 * own, and whole.
 */
static const char *whole(const struct find *f, const char *s)
{
	for (int i = 0; s && i < f->nspans; i++)
		if (s >= f->spans[i].p && s < f->spans[i].p + f->spans[i].n)
			return memchr(s, 0, (size_t)(f->spans[i].p + f->spans[i].n - s)) ? s : NULL;
	for (int i = 0; s && i < f->nspans; i++)
		if (s == f->spans[i].p + f->spans[i].n)
			return NULL; /* just past a section's end (seen: a DW_FORM_string as the last bytes) */
	return s;
}

/* 1 if the copy's origin is the function asked for (dwinline.h: how names match). */
static int matches(const struct find *f, Dwarf_Die *die)
{
	Dwarf_Attribute am;
	const char *link, *plain, *name = f->name;
	char dm[256];

	link = whole(f, dwarf_formstring(dwarf_attr_integrate(die, DW_AT_linkage_name, &am)));
	if (!link)
		link = whole(f, dwarf_formstring(dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &am)));
	if (link)
		return !strcmp(link, name) || (!tl_demangle_name(link, dm, sizeof(dm)) && !strcmp(dm, name));
	plain = whole(f, dwarf_diename(die));
	return plain && !strcmp(plain, name);
}

/* The copy's entry: DW_AT_entry_pc, DW_AT_low_pc, or its first range. */
static int entry_of(Dwarf_Die *die, Dwarf_Addr *at)
{
	Dwarf_Addr base, start, end;

	if (!dwarf_entrypc(die, at))
		return 0;
	if (dwarf_ranges(die, 0, &base, &start, &end) > 0) {
		*at = start;
		return 0;
	}
	return -1;
}

/* Where the copy was put: the base name of DW_AT_call_file, and DW_AT_call_line. */
static void call_site(const struct find *f, Dwarf_Die *die, struct tl_inline_site *site)
{
	Dwarf_Attribute am;
	Dwarf_Word fileno, line;
	Dwarf_Die cu;
	Dwarf_Files *files;
	size_t nfiles;
	const char *path, *base;

	if (!dwarf_formudata(dwarf_attr(die, DW_AT_call_line, &am), &line) && line <= 1000000000)
		site->line = (int)line;
	if (dwarf_formudata(dwarf_attr(die, DW_AT_call_file, &am), &fileno) || !dwarf_diecu(die, &cu, NULL, NULL) ||
	    dwarf_getsrcfiles(&cu, &files, &nfiles) || fileno >= nfiles ||
	    !(path = whole(f, dwarf_filesrc(files, fileno, NULL, NULL))))
		return;
	base = strrchr(path, '/');
	snprintf(site->file, sizeof(site->file), "%s", base ? base + 1 : path);
}

static void add_site(struct find *f, Dwarf_Die *die)
{
	struct tl_inline_sites *o = f->out;
	struct tl_inline_site site = { 0 };
	Dwarf_Addr at;
	size_t i;

	if (entry_of(die, &at) || tl_elfsym_file_offset(f->elf, at, &site.offset))
		return; /* no code (an instance optimised away), or not in the file */
	site.vaddr = at;
	for (i = o->n; i > 0 && o->v[i - 1].vaddr >= at; i--)
		if (o->v[i - 1].vaddr == at)
			return;
	if (o->n >= TL_INLINE_MAX) {
		o->more++;
		return;
	}
	if (TL_GROW(o->v, f->cap, o->n + 1) < 0) {
		f->oom = 1;
		return;
	}
	call_site(f, die, &site);
	memmove(&o->v[i + 1], &o->v[i], (o->n - i) * sizeof(o->v[0]));
	o->v[i] = site;
	o->n++;
}

static void walk(struct find *f, Dwarf_Die *die, int depth)
{
	Dwarf_Die child;

	if (depth > MAX_DEPTH || dwarf_child(die, &child))
		return;
	do {
		int tag = dwarf_tag(&child);

		if (tag == DW_TAG_inlined_subroutine && matches(f, &child))
			add_site(f, &child);
		/* code lives in functions, lexical blocks, inlined copies, namespaces and classes */
		if (tag == DW_TAG_subprogram || tag == DW_TAG_lexical_block || tag == DW_TAG_inlined_subroutine ||
		    tag == DW_TAG_namespace || tag == DW_TAG_class_type || tag == DW_TAG_structure_type)
			walk(f, &child, depth + 1);
	} while (!f->oom && dwarf_siblingof(&child, &child) == 0);
}

static int find_elf(Elf *e, const char *label, void *ctx)
{
	struct find *f = ctx;
	Dwarf *dw = dwarf_begin_elf(e, DWARF_C_READ, NULL);
	Dwarf_Off off = 0, next;
	size_t hsize;

	f->elf = e;
	if (elf_kind(e) != ELF_K_ELF) {
		dwarf_end(dw);
		return tl_error("cannot read '%s': not an ELF file", label);
	}
	if (!dw)
		return 0; /* no DWARF: nothing inlined that we can see */
	f->out->dwarf = 1;
	collect_spans(f);
	while (!f->oom && dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu;

		if (dwarf_offdie(dw, off + hsize, &cu))
			walk(f, &cu, 0);
		off = next;
	}
	dwarf_end(dw);
	if (f->oom)
		return tl_error("out of memory");
	return 0;
}

static int find(const char *path, const void *image, size_t size, const char *label, const char *name,
                struct tl_inline_sites *out)
{
	struct find f = { .name = name, .out = out };
	int ret;

	memset(out, 0, sizeof(*out));
	ret = path ? tl_elfsym_with(path, find_elf, &f) : tl_elfsym_with_mem(image, size, label, find_elf, &f);
	if (ret)
		tl_inline_sites_free(out);
	return ret;
}

int tl_inline_find(const char *path, const char *name, struct tl_inline_sites *out)
{
	return find(path, NULL, 0, path, name, out);
}

int tl_inline_find_mem(const void *image, size_t size, const char *label, const char *name, struct tl_inline_sites *out)
{
	return find(NULL, image, size, label, name, out);
}

const char *tl_inline_where(const struct tl_inline_sites *s, char *buf, size_t len)
{
	size_t o = 0, shown = 0;

	buf[0] = 0;
	for (size_t i = 0; i < s->n && shown < 3 && o + 1 < len; i++, shown++) {
		if (s->v[i].file[0])
			o += (size_t)snprintf(buf + o, len - o, "%s%s:%d", i ? ", " : "", s->v[i].file, s->v[i].line);
		else
			o += (size_t)snprintf(buf + o, len - o, "%s0x%llx", i ? ", " : "",
			                      (unsigned long long)s->v[i].vaddr);
	}
	if (s->n + s->more > shown && o + 1 < len)
		snprintf(buf + o, len - o, " and %zu more", s->n + s->more - shown);
	return buf;
}

void tl_inline_sites_free(struct tl_inline_sites *s)
{
	free(s->v);
	s->v = NULL;
	s->n = s->more = 0;
}
