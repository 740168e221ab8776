/*
 * symfile.c - a file's functions by address (see symfile.h).
 *
 * Invariants: syms is sorted by start with distinct starts; every name
 * offset is inside names and NUL-terminated; segs holds at most 16
 * PT_LOAD segments.  libelf checks sections and strings against the
 * image; this file checks entry sizes and caps counts, so a hostile file
 * only makes symbols go missing.
 */
#include "symbols/symfile.h"

#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>

#include "base/errors.h"
#include "base/grow.h"
#include "symbols/demangle.h"
#include "symbols/elfsym.h"

#define MAX_SYMS 4000000

static uint32_t add_name(struct tl_symfile *f, const char *s)
{
	char dm[256];
	size_t n, at = f->names_len;

	if (s[0] == '_' && s[1] == 'Z' && !tl_demangle_name(s, dm, sizeof(dm)))
		s = dm;
	n = strlen(s) + 1;
	if (at + n > UINT32_MAX || tl_grow(&f->names, &f->names_cap, at + n, 1, 0) < 0)
		return UINT32_MAX;
	memcpy(f->names + at, s, n);
	f->names_len += n;
	return (uint32_t)at;
}

static void scan(Elf *e, Elf_Scn *scn, const GElf_Shdr *sh, struct tl_symfile *f, size_t *cap, int global_only)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	size_t esz = gelf_fsize(e, ELF_T_SYM, 1, EV_CURRENT), n;

	if (!d || !esz || sh->sh_entsize != esz)
		return;
	n = d->d_size / esz;
	for (size_t i = 1; i < n && i <= INT32_MAX && f->nsyms < MAX_SYMS; i++) {
		GElf_Sym sym;
		const char *name;
		int type;
		uint32_t off;

		if (!gelf_getsym(d, (int)i, &sym))
			break;
		type = GELF_ST_TYPE(sym.st_info);
		if ((f->data ? type != STT_OBJECT : type != STT_FUNC && type != STT_GNU_IFUNC) ||
		    sym.st_shndx == SHN_UNDEF || !sym.st_value || !sym.st_name ||
		    !(name = elf_strptr(e, sh->sh_link, sym.st_name)) || !*name)
			continue;
		if (global_only && GELF_ST_BIND(sym.st_info) == STB_LOCAL)
			continue;
		if (TL_GROW(f->syms, *cap, f->nsyms + 1) < 0 || (off = add_name(f, name)) == UINT32_MAX)
			return;
		f->syms[f->nsyms++] = (struct tl_sym){ sym.st_value, sym.st_size, off };
	}
}

static int cmp_sym(const void *a, const void *b)
{
	const struct tl_sym *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->size < y->size ? 1 : x->size > y->size ? -1 : 0; /* the sized one first */
}

static int load_elf(struct Elf *e, const char *label, void *ctx)
{
	struct tl_symfile *f = ctx;
	Elf_Scn *scn = NULL;
	size_t nph, cap = 0, k = 0;
	GElf_Ehdr eh;

	if (elf_kind(e) != ELF_K_ELF || !gelf_getehdr(e, &eh))
		return tl_error("cannot read '%s': not an ELF file", label);
	if (!elf_getphdrnum(e, &nph))
		for (size_t i = 0; i < nph && i <= INT32_MAX && f->nsegs < 16; i++) {
			GElf_Phdr ph;
			if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_LOAD)
				f->segs[f->nsegs].vaddr = ph.p_vaddr, f->segs[f->nsegs].offset = ph.p_offset,
				f->segs[f->nsegs].memsz = ph.p_memsz, f->segs[f->nsegs++].filesz = ph.p_filesz;
		}
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB) {
			f->symtab = 1;
			scan(e, scn, &sh, f, &cap, 0);
		}
	}
	/* .dynsym: all a stripped file has; with .symtab, it only repeats it */
	while (!f->symtab && (scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_DYNSYM)
			scan(e, scn, &sh, f, &cap, 1);
	}
	if (f->nsyms)
		qsort(f->syms, f->nsyms, sizeof(*f->syms), cmp_sym);
	for (size_t i = 0; i < f->nsyms; i++) /* one per address: aliases add nothing */
		if (!k || f->syms[k - 1].start != f->syms[i].start)
			f->syms[k++] = f->syms[i];
	f->nsyms = k;
	f->loaded = 1;
	return 0;
}

int tl_symfile_load(struct tl_symfile *f, const char *path)
{
	memset(f, 0, sizeof(*f));
	return tl_elfsym_with(path, load_elf, f);
}

int tl_symfile_load_mem(struct tl_symfile *f, const void *image, size_t size, const char *label)
{
	memset(f, 0, sizeof(*f));
	return tl_elfsym_with_mem(image, size, label, load_elf, f);
}

int tl_symfile_load_data(struct tl_symfile *f, const char *path)
{
	memset(f, 0, sizeof(*f));
	f->data = 1;
	return tl_elfsym_with(path, load_elf, f);
}

int tl_symfile_load_data_mem(struct tl_symfile *f, const void *image, size_t size, const char *label)
{
	memset(f, 0, sizeof(*f));
	f->data = 1;
	return tl_elfsym_with_mem(image, size, label, load_elf, f);
}

#define PAGE 4096ull

/*
 * A segment's mapping starts at its first page, which the segment before
 * may share (text ending and data beginning in one page of the file): the
 * segment whose first page is off wins, then one that holds it.
 */
int tl_symfile_vaddr_of(const struct tl_symfile *f, uint64_t off, uint64_t *v)
{
	for (int exact = 1; exact >= 0; exact--)
		for (size_t i = 0; i < f->nsegs; i++) {
			uint64_t from = f->segs[i].offset & ~(PAGE - 1);

			if (exact ? off == from
			          : off >= from && off - from <= f->segs[i].filesz + (f->segs[i].offset - from)) {
				*v = f->segs[i].vaddr -
				     (f->segs[i].offset - off); /* wraps to the right bias either way */
				return 0;
			}
		}
	return -1;
}

int tl_symfile_holds(const struct tl_symfile *f, uint64_t v)
{
	for (size_t i = 0; i < f->nsegs; i++)
		if (v >= f->segs[i].vaddr && v - f->segs[i].vaddr < f->segs[i].memsz)
			return 1;
	return 0;
}

const char *tl_symfile_lookup(const struct tl_symfile *f, uint64_t off, uint64_t *into)
{
	uint64_t v = 0;
	int found = 0;

	for (size_t i = 0; i < f->nsegs && !found; i++)
		if (off >= f->segs[i].offset && off - f->segs[i].offset < f->segs[i].filesz) {
			v = off - f->segs[i].offset + f->segs[i].vaddr;
			found = 1;
		}
	return found ? tl_symfile_lookup_vaddr(f, v, into) : NULL;
}

const char *tl_symfile_lookup_vaddr(const struct tl_symfile *f, uint64_t v, uint64_t *into)
{
	size_t lo = 0, hi, i;

	if (!f->nsyms)
		return NULL;
	/* the last symbol that starts at or below v */
	hi = f->nsyms;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (f->syms[mid].start <= v)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	i = lo - 1;
	if (f->syms[i].size ? v - f->syms[i].start >= f->syms[i].size : v - f->syms[i].start >= (1u << 20))
		return NULL; /* past its end (or far past a symbol of unknown size) */
	*into = v - f->syms[i].start;
	return f->names + f->syms[i].name;
}

void tl_symfile_release(struct tl_symfile *f)
{
	free(f->syms);
	free(f->names);
	memset(f, 0, sizeof(*f));
}
