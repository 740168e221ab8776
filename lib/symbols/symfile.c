/*
 * symfile.c - a file's functions by address (see symfile.h).
 *
 * Invariants: syms is sorted by start with distinct starts; every name
 * offset is inside names and NUL-terminated; segs holds at most 16
 * PT_LOAD segments; funcs is sorted by start, each start < end.  libelf
 * checks sections and strings against the image; this file checks entry
 * sizes, the unwind entries' bounds, and caps counts, so a hostile file
 * only makes symbols go missing.
 */
#include "symbols/symfile.h"

#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/errors.h"
#include "base/grow.h"
#include "symbols/demangle.h"
#include "symbols/elfsym.h"

#define MAX_SYMS 4000000

static const char *debug_root = "/usr/lib/debug";

void tl_symfile_debug_root(const char *dir)
{
	debug_root = dir ? dir : "/usr/lib/debug";
}

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

/* The file offset of link-time address v (a segment's file bytes hold it): 0, or -1. */
static int vaddr_to_off(const struct tl_symfile *f, uint64_t v, uint64_t *off)
{
	for (size_t i = 0; i < f->nsegs; i++)
		if (v >= f->segs[i].vaddr && v - f->segs[i].vaddr < f->segs[i].filesz) {
			*off = v - f->segs[i].vaddr + f->segs[i].offset;
			return 0;
		}
	return -1;
}

/* A value of DWARF pointer encoding `enc` at p (n bytes there) into *v, as stored: its size, 0 if unsupported. */
static size_t eh_value(const unsigned char *p, size_t n, unsigned enc, int64_t *v)
{
	uint16_t u2;
	uint32_t u4;
	uint64_t u8;

	switch (enc & 0x0f) {
	case 0x02: /* DW_EH_PE_udata2 */
	case 0x0a: /* sdata2 */
		if (n < 2)
			return 0;
		memcpy(&u2, p, 2);
		*v = (enc & 0x08) ? (int64_t)(int16_t)u2 : (int64_t)u2;
		return 2;
	case 0x03: /* udata4 */
	case 0x0b: /* sdata4 */
		if (n < 4)
			return 0;
		memcpy(&u4, p, 4);
		*v = (enc & 0x08) ? (int64_t)(int32_t)u4 : (int64_t)u4;
		return 4;
	case 0x04: /* udata8 */
	case 0x0c: /* sdata8 */
		if (n < 8)
			return 0;
		memcpy(&u8, p, 8);
		*v = (int64_t)u8;
		return 8;
	default: return 0;
	}
}

/* A ULEB128 at *k in p[0..n): its value, *k past it; *bad set when it runs off the end. */
static uint64_t uleb(const unsigned char *p, size_t n, size_t *k, int *bad)
{
	uint64_t v = 0;

	for (unsigned shift = 0; *k < n && shift < 64; shift += 7) {
		unsigned char c = p[(*k)++];

		v |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80))
			return v;
	}
	*bad = 1;
	return 0;
}

/*
 * The FDE pointer encoding of the CIE at img[at..size) ('R' in a "z"
 * augmentation; DW_EH_PE_absptr without one), or -1 for a CIE this does
 * not read.  Layout: length, id, version, augmentation string, code and
 * data alignment, return register, then the augmentation data.
 */
static int cie_encoding(const unsigned char *img, size_t size, size_t at)
{
	uint32_t len;
	size_t k, n, end;
	const char *aug;
	int bad = 0;

	if (at > size || size - at < 9)
		return -1;
	memcpy(&len, img + at, 4);
	if (len == 0xffffffffu || len < 5 || len > size - at - 4)
		return -1;
	n = at + 4 + len;
	k = at + 9; /* past length, id and version */
	aug = (const char *)img + k;
	while (k < n && img[k])
		k++;
	if (k >= n)
		return -1;
	k++;
	uleb(img, n, &k, &bad); /* code alignment */
	uleb(img, n, &k, &bad); /* data alignment (SLEB128: the same bytes) */
	if (img[at + 8] == 1)   /* version 1: the return register is a byte */
		k++;
	else
		uleb(img, n, &k, &bad);
	if (aug[0] != 'z')
		return bad || k > n ? -1 : 0;
	end = uleb(img, n, &k, &bad);
	if (bad || end > n - k)
		return -1;
	end += k;
	for (const char *c = aug + 1; *c && k < end; c++) {
		int64_t ignored;
		size_t s;

		if (*c == 'R')
			return img[k];
		if (*c == 'L')
			k++;
		else if (*c == 'P' && (s = eh_value(img + k + 1, end - k - 1, img[k], &ignored)))
			k += 1 + s;
		else
			return -1;
	}
	return 0;
}

/*
 * The unwind table's functions: .eh_frame_hdr's search table (where
 * PT_GNU_EH_FRAME points, stripped or not) gives each function's start
 * and its FDE in .eh_frame, whose address range gives its end.  Only a
 * little-endian file, the table encoding GNU and LLVM linkers write
 * (DW_EH_PE_datarel | sdata4: from the header's own address) and 32-bit
 * FDEs are read; the rest is left out.
 */
static void load_unwind(Elf *e, struct tl_symfile *f)
{
	size_t nph, size = 0, cap = 0, k = 4, s;
	const unsigned char *img = (const unsigned char *)elf_rawfile(e, &size), *p = NULL;
	const char *ident = elf_getident(e, NULL);
	GElf_Phdr ph;
	int64_t v, count;

	if (!img || !ident || ident[EI_DATA] != ELFDATA2LSB || elf_getphdrnum(e, &nph))
		return;
	for (size_t i = 0; i < nph && i <= INT32_MAX && !p; i++)
		if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_GNU_EH_FRAME && ph.p_offset <= size &&
		    ph.p_filesz <= size - ph.p_offset && ph.p_filesz >= 4)
			p = img + ph.p_offset;
	if (!p || p[0] != 1 || p[3] != 0x3b)
		return;
	if (p[1] != 0xff) { /* the pointer to .eh_frame: skipped */
		if (!(s = eh_value(p + k, ph.p_filesz - k, p[1], &v)))
			return;
		k += s;
	}
	if (p[2] == 0xff || !(s = eh_value(p + k, ph.p_filesz - k, p[2], &count)) || count <= 0)
		return;
	k += s;
	if ((uint64_t)count > (ph.p_filesz - k) / 8)
		count = (int64_t)((ph.p_filesz - k) / 8); /* the entries the header holds */
	for (int64_t i = 0; i < count && i < MAX_SYMS; i++) {
		int32_t loc, fde;
		uint32_t len, cie;
		uint64_t start, at;
		int64_t range;
		int enc;

		memcpy(&loc, p + k + 8 * (size_t)i, 4);
		memcpy(&fde, p + k + 8 * (size_t)i + 4, 4);
		start = ph.p_vaddr + (uint64_t)(int64_t)loc;
		/* the FDE: length, the CIE's distance back from this field, pc_begin, pc_range */
		if (vaddr_to_off(f, ph.p_vaddr + (uint64_t)(int64_t)fde, &at) || at > size || size - at < 8)
			continue;
		memcpy(&len, img + at, 4);
		memcpy(&cie, img + at + 4, 4);
		if (len == 0xffffffffu || len < 8 || len > size - at - 4 || !cie || cie > at + 4 ||
		    (enc = cie_encoding(img, size, at + 4 - cie)) < 0 ||
		    !(s = eh_value(img + at + 8, len - 4, (unsigned)enc, &range)) ||
		    !eh_value(img + at + 8 + s, len - 4 - s, (unsigned)enc & 0x0f, &range) || range <= 0 ||
		    (uint64_t)range > UINT64_MAX - start || (f->nfuncs && f->funcs[f->nfuncs - 1].start >= start))
			continue;
		if (TL_GROW(f->funcs, cap, f->nfuncs + 1) < 0)
			break;
		f->funcs[f->nfuncs].start = start;
		f->funcs[f->nfuncs++].end = start + (uint64_t)range;
	}
}

/* A GOT slot a relocation fills with a function's address, and the "name@plt" offset in names. */
struct slot {
	uint64_t got;
	uint32_t name;
};

static int cmp_slot(const void *a, const void *b)
{
	const struct slot *x = a, *y = b;
	return x->got < y->got ? -1 : x->got > y->got;
}

/* The JUMP_SLOT and GLOB_DAT relocations of the RELA section scn (symbols in .dynsym) into *s. */
static void plt_slots(Elf *e, Elf_Scn *scn, const GElf_Shdr *sh, struct tl_symfile *f, struct slot **s, size_t *n,
                      size_t *cap)
{
	Elf_Scn *symscn = elf_getscn(e, sh->sh_link);
	Elf_Data *d = elf_getdata(scn, NULL), *symd;
	GElf_Shdr symsh;
	size_t esz = gelf_fsize(e, ELF_T_RELA, 1, EV_CURRENT);

	if (!d || !esz || sh->sh_entsize != esz || !symscn || !gelf_getshdr(symscn, &symsh) ||
	    symsh.sh_type != SHT_DYNSYM || !(symd = elf_getdata(symscn, NULL)))
		return;
	for (size_t i = 0; i < d->d_size / esz && i <= INT32_MAX && *n < MAX_SYMS; i++) {
		GElf_Rela r;
		GElf_Sym sym;
		const char *name;
		char plt[300], dm[256];
		size_t k;
		uint32_t off;

		if (!gelf_getrela(d, (int)i, &r))
			break;
		k = GELF_R_SYM(r.r_info);
		if ((GELF_R_TYPE(r.r_info) != R_X86_64_JUMP_SLOT && GELF_R_TYPE(r.r_info) != R_X86_64_GLOB_DAT) || !k ||
		    k > INT32_MAX || !gelf_getsym(symd, (int)k, &sym) ||
		    (GELF_ST_TYPE(sym.st_info) != STT_FUNC && GELF_ST_TYPE(sym.st_info) != STT_GNU_IFUNC &&
		     GELF_ST_TYPE(sym.st_info) != STT_NOTYPE) ||
		    !(name = elf_strptr(e, symsh.sh_link, sym.st_name)) || !*name)
			continue;
		if (name[0] == '_' && name[1] == 'Z' && !tl_demangle_name(name, dm, sizeof(dm)))
			name = dm;
		snprintf(plt, sizeof(plt), "%s@plt", name);
		if (TL_GROW(*s, *cap, *n + 1) < 0 || (off = add_name(f, plt)) == UINT32_MAX)
			return;
		(*s)[(*n)++] = (struct slot){ r.r_offset, off };
	}
}

/*
 * PLT stubs as "name@plt", as objdump and perf name them (x86-64): each
 * entry of .plt, .plt.sec and .plt.got jumps through a GOT slot (jmp
 * *disp32(%rip), ff 25, maybe after endbr64 and a bnd prefix), and the
 * slot's relocation (JUMP_SLOT, or GLOB_DAT under -z now) names the
 * function.  An entry that jumps through no such slot (the lazy PLT's
 * first, to the resolver) gets none.
 */
static void plt_syms(Elf *e, struct tl_symfile *f, size_t *cap)
{
	struct slot *slots = NULL;
	size_t nslots = 0, scap = 0, shstr;
	Elf_Scn *scn = NULL;
	GElf_Ehdr eh;

	if (!gelf_getehdr(e, &eh) || eh.e_machine != EM_X86_64 || elf_getshdrstrndx(e, &shstr))
		return;
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_RELA)
			plt_slots(e, scn, &sh, f, &slots, &nslots, &scap);
	}
	if (nslots)
		qsort(slots, nslots, sizeof(*slots), cmp_slot);
	while (nslots && (scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		const char *name;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS || !(sh.sh_flags & SHF_EXECINSTR) ||
		    !(name = elf_strptr(e, shstr, sh.sh_name)) || strncmp(name, ".plt", 4) ||
		    !(d = elf_getdata(scn, NULL)) || !d->d_buf || sh.sh_entsize < 6 || sh.sh_entsize > 64)
			continue;
		for (size_t at = 0; at + sh.sh_entsize <= d->d_size && f->nsyms < MAX_SYMS; at += sh.sh_entsize) {
			const unsigned char *b = (const unsigned char *)d->d_buf + at;

			for (size_t k = 0; k + 6 <= sh.sh_entsize; k++) {
				int32_t disp;
				struct slot key, *hit;

				if (b[k] != 0xff || b[k + 1] != 0x25)
					continue;
				memcpy(&disp, b + k + 2, 4);
				key.got = sh.sh_addr + at + k + 6 + (uint64_t)(int64_t)disp;
				if ((hit = bsearch(&key, slots, nslots, sizeof(*slots), cmp_slot)) &&
				    TL_GROW(f->syms, *cap, f->nsyms + 1) == 0)
					f->syms[f->nsyms++] =
					        (struct tl_sym){ sh.sh_addr + at, sh.sh_entsize, hit->name };
				break;
			}
		}
	}
	free(slots);
}

/* e's build ID (the NT_GNU_BUILD_ID note of a PT_NOTE segment) in id[64]: its length, 0 if it has none. */
static size_t build_id(Elf *e, unsigned char *id)
{
	size_t nph;

	if (elf_getphdrnum(e, &nph))
		return 0;
	for (size_t i = 0; i < nph && i <= INT32_MAX; i++) {
		GElf_Phdr ph;
		GElf_Nhdr nh;
		Elf_Data *d;
		size_t off = 0, name_at, desc_at;

		if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_NOTE ||
		    !(d = elf_getdata_rawchunk(e, (int64_t)ph.p_offset, ph.p_filesz, ELF_T_NHDR)))
			continue;
		while ((off = gelf_getnote(d, off, &nh, &name_at, &desc_at)) > 0)
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
			    !memcmp((const char *)d->d_buf + name_at, "GNU", 4) && nh.n_descsz >= 2 &&
			    nh.n_descsz <= 64) {
				memcpy(id, (const char *)d->d_buf + desc_at, nh.n_descsz);
				return nh.n_descsz;
			}
	}
	return 0;
}

static void to_hex(const unsigned char *id, size_t n, char *hex)
{
	for (size_t i = 0; i < n; i++)
		snprintf(hex + 2 * i, 3, "%02x", id[i]);
	hex[2 * n] = 0;
}

static int build_id_hex(struct Elf *e, const char *label, void *ctx)
{
	unsigned char id[64];

	if (elf_kind(e) != ELF_K_ELF)
		return tl_error("cannot read '%s': not an ELF file", label);
	to_hex(id, build_id(e, id), ctx);
	return 0;
}

int tl_symfile_build_id(const char *path, char *hex)
{
	hex[0] = 0;
	return tl_elfsym_with(path, build_id_hex, hex) < 0 ? -1 : (int)strlen(hex);
}

/* A separate debug file's .symtab (symfile.h), scanned into ctx's file unless its build ID is another's. */
struct debug_scan {
	struct tl_symfile *f;
	size_t *cap;
	unsigned char id[64];
	size_t id_len;
};

static int scan_debug(struct Elf *e, const char *label, void *ctx)
{
	struct debug_scan *d = ctx;
	Elf_Scn *scn = NULL;
	unsigned char id[64];
	size_t n = build_id(e, id);

	(void)label;
	if (d->id_len && n && (n != d->id_len || memcmp(id, d->id, n)))
		return 0; /* another build's */
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB) {
			d->f->symtab = d->f->debug = 1;
			scan(e, scn, &sh, d->f, d->cap, 0);
		}
	}
	return 0;
}

/* The file name e's .gnu_debuglink section gives (objcopy --add-gnu-debuglink), or NULL. */
static const char *debuglink(Elf *e)
{
	Elf_Scn *scn = NULL;
	size_t shstr;

	if (elf_getshdrstrndx(e, &shstr))
		return NULL;
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		const char *name;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || !(name = elf_strptr(e, shstr, sh.sh_name)) ||
		    strcmp(name, ".gnu_debuglink"))
			continue;
		if (!(d = elf_getdata(scn, NULL)) || !d->d_size || !memchr(d->d_buf, 0, d->d_size) ||
		    !*(const char *)d->d_buf || strchr(d->d_buf, '/'))
			return NULL;
		return d->d_buf;
	}
	return NULL;
}

/*
 * The .symtab of the separate debug file of e, read from path `label`, as
 * gdb finds it: by its build ID under the debug root, else by the name its
 * .gnu_debuglink gives, beside the file, in its .debug folder, then under
 * the debug root with the file's folder (a debug file with a build ID
 * must have the file's).
 */
static void debug_file(Elf *e, const char *label, struct tl_symfile *f, size_t *cap)
{
	struct debug_scan ds = { .f = f, .cap = cap };
	const char *link = debuglink(e), *slash = strrchr(label, '/');
	int dir = slash ? (int)(slash - label) : 1;
	char path[4200];

	ds.id_len = build_id(e, ds.id);
	if (ds.id_len) {
		int n = snprintf(path, sizeof(path), "%s/.build-id/%02x/", debug_root, ds.id[0]);
		for (size_t k = 1; k < ds.id_len && n > 0 && (size_t)n + 3 < sizeof(path); k++)
			n += snprintf(path + n, sizeof(path) - (size_t)n, "%02x", ds.id[k]);
		if (n > 0 && (size_t)n + 7 < sizeof(path)) {
			memcpy(path + n, ".debug", 7);
			tl_elfsym_with(path, scan_debug, &ds); /* none, or unreadable: the file's own */
		}
	}
	for (int k = 0; link && k < 3 && !f->symtab; k++) {
		if (k == 0)
			snprintf(path, sizeof(path), "%.*s/%s", dir, slash ? label : ".", link);
		else if (k == 1)
			snprintf(path, sizeof(path), "%.*s/.debug/%s", dir, slash ? label : ".", link);
		else
			snprintf(path, sizeof(path), "%s%s%.*s/%s", debug_root, slash && *label == '/' ? "" : "/", dir,
			         slash ? label : ".", link);
		if (strcmp(path, label))
			tl_elfsym_with(path, scan_debug, &ds);
	}
}

static int load_elf(struct Elf *e, const char *label, void *ctx)
{
	struct tl_symfile *f = ctx;
	Elf_Scn *scn = NULL;
	size_t nph, cap = 0, k = 0;
	GElf_Ehdr eh;

	if (elf_kind(e) != ELF_K_ELF || !gelf_getehdr(e, &eh))
		return tl_error("cannot read '%s': not an ELF file", label);
	build_id_hex(e, label, f->build_id);
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
	if (!f->symtab && f->by_path)
		debug_file(e, label, f, &cap);
	/* .dynsym: all a stripped file has; with .symtab, it only repeats it */
	while (!f->symtab && (scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_DYNSYM)
			scan(e, scn, &sh, f, &cap, 1);
	}
	if (!f->data)
		plt_syms(e, f, &cap);
	if (f->nsyms)
		qsort(f->syms, f->nsyms, sizeof(*f->syms), cmp_sym);
	for (size_t i = 0; i < f->nsyms; i++) /* one per address: aliases add nothing */
		if (!k || f->syms[k - 1].start != f->syms[i].start)
			f->syms[k++] = f->syms[i];
	f->nsyms = k;
	if (!f->data)
		load_unwind(e, f);
	f->loaded = 1;
	return 0;
}

int tl_symfile_load(struct tl_symfile *f, const char *path)
{
	memset(f, 0, sizeof(*f));
	f->by_path = 1;
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
	f->by_path = 1;
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

/* The link-time address of file offset off (a segment's file bytes hold it): 0, or -1. */
static int vaddr_at(const struct tl_symfile *f, uint64_t off, uint64_t *v)
{
	for (size_t i = 0; i < f->nsegs; i++)
		if (off >= f->segs[i].offset && off - f->segs[i].offset < f->segs[i].filesz) {
			*v = off - f->segs[i].offset + f->segs[i].vaddr;
			return 0;
		}
	return -1;
}

const char *tl_symfile_lookup(const struct tl_symfile *f, uint64_t off, uint64_t *into)
{
	uint64_t v;

	return vaddr_at(f, off, &v) ? NULL : tl_symfile_lookup_vaddr(f, v, into);
}

/* The start of the unwind table's function that holds link-time address v, or 0 (none). */
static uint64_t unwind_start(const struct tl_symfile *f, uint64_t v)
{
	size_t lo = 0, hi = f->nfuncs;

	while (lo < hi) { /* the last function that starts at or below v */
		size_t mid = lo + (hi - lo) / 2;
		if (f->funcs[mid].start <= v)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && v < f->funcs[lo - 1].end ? f->funcs[lo - 1].start : 0;
}

int tl_symfile_unwind_func(const struct tl_symfile *f, uint64_t off, uint64_t *entry)
{
	uint64_t v, start;

	if (vaddr_at(f, off, &v) || !(start = unwind_start(f, v)))
		return -1;
	return vaddr_to_off(f, start, entry);
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
	/*
	 * A symbol of unknown size (an assembler's: _init, whose 0 bytes the
	 * PLT follows) ends where a function of the unwind table that begins
	 * after it holds v: libpython's PLT stubs read as _init.
	 */
	if (!f->syms[i].size && unwind_start(f, v) > f->syms[i].start)
		return NULL;
	*into = v - f->syms[i].start;
	return f->names + f->syms[i].name;
}

void tl_symfile_release(struct tl_symfile *f)
{
	free(f->syms);
	free(f->names);
	free(f->funcs);
	memset(f, 0, sizeof(*f));
}
