/*
 * elfsym.c - function names into file offsets for uprobes (elfsym.h), with
 * elfutils' libelf.
 *
 * One pass over every SHT_SYMTAB and SHT_DYNSYM section collects the
 * definitions of the name (at most MAX_CANDS distinct addresses, each with
 * its best rank) and, for the error message, what else matched: an import,
 * an IFUNC, a symbol that is not a function.  Then the best rank must hold
 * exactly one address, and a PT_LOAD segment must hold that address.
 *
 * Invariants: libelf checks every section against the image's size and
 * every string against its string table; this file adds the checks libelf
 * leaves to the caller (entry sizes, version-need chains that loop, offsets
 * that overflow), so hostile files only make a lookup fail.
 */
#include "symbols/elfsym.h"
#include "symbols/demangle.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/errors.h"

#define MAX_CANDS 8
#define VERSYM_HIDDEN 0x8000 /* a non-default version (name@VER, not name@@VER) */
#define MAX_VERNEED 4096     /* entries walked in .gnu.version_r: a looping chain ends here */

enum rank { RANK_LOCAL = 1, RANK_HIDDEN = 2, RANK_DEFAULT = 3 };

struct cand {
	uint64_t vaddr, size;
	int rank, global;
	char name[128];
};

struct search {
	const char *label, *symbol;
	size_t symlen;
	struct cand c[MAX_CANDS];
	int nc, more;         /* distinct addresses kept, and those beyond MAX_CANDS */
	int have_symtab;      /* a .symtab exists: the file is not stripped */
	int imported;         /* an undefined (imported) entry matched */
	char import_from[64]; /* the library its version names, if any */
	int ifunc;            /* the best rank of an STT_GNU_IFUNC definition that matched, 0 none */
	int not_func;         /* a defined symbol of another type matched */
};

/*
 * "foo" matches foo, foo@VER and foo@@VER; *hidden says it is a non-default
 * version.  A C++ function also matches by its qualified name ("ns::work"
 * for _ZN2ns4workEi, symbols/demangle.h): every overload then matches.
 */
static int name_matches(const struct search *s, const char *name, int *hidden)
{
	char dm[256];

	if (name[0] == '_' && name[1] == 'Z' && s->symbol[0] != '_' && !tl_demangle_name(name, dm, sizeof(dm)) &&
	    !strcmp(dm, s->symbol)) {
		*hidden = 0;
		return 1;
	}
	if (strncmp(name, s->symbol, s->symlen))
		return 0;
	if (!name[s->symlen]) {
		*hidden = 0;
		return 1;
	}
	if (name[s->symlen] != '@' || strchr(s->symbol, '@'))
		return 0;
	*hidden = name[s->symlen + 1] != '@';
	return 1;
}

static void add_cand(struct search *s, const GElf_Sym *sym, uint64_t vaddr, int rank, const char *name)
{
	struct cand *c;

	for (int i = 0; i < s->nc; i++) {
		if (s->c[i].vaddr != vaddr)
			continue;
		/* the same function again (.symtab and .dynsym, an alias): keep its best rank */
		if (rank > s->c[i].rank) {
			s->c[i].rank = rank;
			s->c[i].global = rank > RANK_LOCAL;
			snprintf(s->c[i].name, sizeof(s->c[i].name), "%s", name);
		}
		if (!s->c[i].size)
			s->c[i].size = sym->st_size;
		return;
	}
	if (s->nc == MAX_CANDS) {
		s->more++;
		return;
	}
	c = &s->c[s->nc++];
	c->vaddr = vaddr;
	c->size = sym->st_size;
	c->rank = rank;
	c->global = rank > RANK_LOCAL;
	snprintf(c->name, sizeof(c->name), "%s", name);
}

/* The library that version index `ver` of an import comes from (.gnu.version_r), into s->import_from. */
static void import_library(Elf *e, unsigned ver, struct search *s)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		size_t off = 0;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_GNU_verneed || !(d = elf_getdata(scn, NULL)))
			continue;
		for (int n = 0; n < MAX_VERNEED; n++) {
			GElf_Verneed vn;
			size_t aoff;

			if (!gelf_getverneed(d, (int)off, &vn))
				return;
			aoff = off + vn.vn_aux;
			for (unsigned k = 0; k < vn.vn_cnt && n < MAX_VERNEED; k++, n++) {
				GElf_Vernaux va;
				const char *file;

				if (aoff > (size_t)INT32_MAX || !gelf_getvernaux(d, (int)aoff, &va))
					break;
				if (va.vna_other == ver) {
					file = elf_strptr(e, sh.sh_link, vn.vn_file);
					if (file)
						snprintf(s->import_from, sizeof(s->import_from), "%s", file);
					return;
				}
				if (!va.vna_next)
					break;
				aoff += va.vna_next;
			}
			if (!vn.vn_next || off + vn.vn_next > (size_t)INT32_MAX)
				return;
			off += vn.vn_next;
		}
		return;
	}
}

/* The version table of a .dynsym (SHT_GNU_versym, linked to it), or NULL. */
static Elf_Data *versym_of(Elf *e, size_t dynsym_index)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_GNU_versym && sh.sh_link == dynsym_index)
			return elf_getdata(scn, NULL);
	}
	return NULL;
}

static void scan_table(Elf *e, Elf_Scn *scn, const GElf_Shdr *sh, int arm, struct search *s)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	Elf_Data *vs = sh->sh_type == SHT_DYNSYM ? versym_of(e, elf_ndxscn(scn)) : NULL;
	size_t esz = gelf_fsize(e, ELF_T_SYM, 1, EV_CURRENT), n;

	if (!d || !esz)
		return;
	n = d->d_size / esz;
	for (size_t i = 1; i < n && i <= INT32_MAX; i++) {
		GElf_Sym sym;
		GElf_Versym ver = 0;
		const char *name;
		int hidden, type, rank;
		uint64_t v;

		if (!gelf_getsym(d, (int)i, &sym))
			break;
		if (!sym.st_name || !(name = elf_strptr(e, sh->sh_link, sym.st_name)) ||
		    !name_matches(s, name, &hidden))
			continue;
		if (vs && gelf_getversym(vs, (int)i, &ver) && (ver & VERSYM_HIDDEN))
			hidden = 1;
		type = GELF_ST_TYPE(sym.st_info);
		if (sym.st_shndx == SHN_UNDEF) {
			s->imported = 1;
			if (vs && (ver & 0x7fff) >= 2 && !s->import_from[0])
				import_library(e, ver & 0x7fff, s);
			continue;
		}
		if (GELF_ST_BIND(sym.st_info) == STB_LOCAL)
			rank = RANK_LOCAL;
		else
			rank = hidden ? RANK_HIDDEN : RANK_DEFAULT;
		if (type == STT_GNU_IFUNC) {
			if (rank > s->ifunc)
				s->ifunc = rank;
			continue;
		}
		if (type != STT_FUNC || sym.st_shndx == SHN_ABS) {
			s->not_func = 1;
			continue;
		}
		v = sym.st_value;
		if (arm)
			v &= ~(uint64_t)1; /* the Thumb bit is not part of the address */
		add_cand(s, &sym, v, rank, name);
	}
}

/* Why there is nothing to probe, as tl_error. */
static int not_found(const struct search *s)
{
	const char *sym = s->symbol, *f = s->label;

	if (s->ifunc)
		return tl_error("function '%s' in '%s' is an IFUNC: its address is the resolver that picks an "
		                "implementation at load time; probe the implementation instead",
		                sym, f);
	if (s->imported && s->import_from[0])
		return tl_error("no function '%s' in '%s': it is imported from '%s'; probe it there with "
		                "--func %s:%s",
		                sym, f, s->import_from, s->import_from, sym);
	if (s->imported)
		return tl_error("no function '%s' in '%s': it is imported from a shared library; probe it there "
		                "with --func LIBRARY:%s",
		                sym, f, sym);
	if (s->not_func)
		return tl_error("'%s' in '%s' is not a function", sym, f);
	if (!s->have_symtab)
		return tl_error("no function '%s' in '%s' (stripped?)", sym, f);
	return tl_error("no function '%s' in '%s'", sym, f);
}

static int ambiguous(const struct search *s, int best, int nbest)
{
	char list[480];
	size_t used = 0;

	list[0] = 0;
	for (int i = 0, shown = 0; i < s->nc && used < sizeof(list); i++) {
		/* a C++ overload is named by its symbol, which --func takes too */
		int named = strncmp(s->c[i].name, s->symbol, s->symlen) != 0;
		if (s->c[i].rank != best)
			continue;
		if (shown == 4) {
			used += (size_t)snprintf(list + used, sizeof(list) - used, ", ...");
			break;
		}
		used += (size_t)snprintf(list + used, sizeof(list) - used, "%s%s%s%.80s at 0x%llx", shown ? ", " : "",
		                         s->c[i].global ? "global" : "local", named ? " " : "",
		                         named ? s->c[i].name : "", (unsigned long long)s->c[i].vaddr);
		shown++;
	}
	return tl_error("function '%s' is defined %d times in '%s': %s", s->symbol, nbest, s->label, list);
}

int tl_elfsym_file_offset(struct Elf *e, uint64_t vaddr, uint64_t *off)
{
	size_t n;
	int found = 0;

	if (elf_getphdrnum(e, &n))
		return -1;
	for (size_t i = 0; i < n && i <= INT32_MAX; i++) {
		GElf_Phdr ph;
		uint64_t o;

		if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (vaddr < ph.p_vaddr || vaddr - ph.p_vaddr >= ph.p_filesz)
			continue;
		o = vaddr - ph.p_vaddr + ph.p_offset;
		if (o < ph.p_offset)
			continue; /* overflow: a broken header */
		/* Overlapping segments only happen in broken files; an executable one is the one that runs. */
		if (!found || (ph.p_flags & PF_X)) {
			*off = o;
			found = 1 + !!(ph.p_flags & PF_X);
		}
		if (found == 2)
			break;
	}
	return found ? 0 : -1;
}

struct lookup_args {
	const char *symbol;
	struct tl_elfsym *out;
};

static int lookup_elf(Elf *e, const char *label, void *ctx)
{
	const char *symbol = ((struct lookup_args *)ctx)->symbol;
	struct tl_elfsym *out = ((struct lookup_args *)ctx)->out;
	struct search s;
	GElf_Ehdr eh;
	Elf_Scn *scn = NULL;
	int best = 0, nbest = 0, pick = -1;

	if (!*symbol)
		return tl_error("empty function name to look up in '%s'", label);
	memset(&s, 0, sizeof(s));
	s.label = label;
	s.symbol = symbol;
	s.symlen = strlen(symbol);
	if (elf_kind(e) != ELF_K_ELF)
		return tl_error("cannot read '%s': not an ELF file", label);
	if (!gelf_getehdr(e, &eh))
		return tl_error("cannot read '%s': broken ELF header (%s)", label, elf_errmsg(-1));
	if (eh.e_type != ET_EXEC && eh.e_type != ET_DYN)
		return tl_error("'%s' is not an executable or shared library (ELF type %u)", label,
		                (unsigned)eh.e_type);
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM))
			continue;
		if (sh.sh_type == SHT_SYMTAB)
			s.have_symtab = 1;
		scan_table(e, scn, &sh, eh.e_machine == EM_ARM, &s);
	}
	for (int i = 0; i < s.nc; i++)
		if (s.c[i].rank > best)
			best = s.c[i].rank;
	for (int i = 0; i < s.nc; i++)
		if (s.c[i].rank == best) {
			nbest++;
			pick = i;
		}
	/*
	 * glibc's memcpy@@GLIBC_2.14 is an IFUNC and memcpy@GLIBC_2.2.5 an old
	 * plain function: probing the old one would look right and see nothing.
	 */
	if (!nbest || s.ifunc > best)
		return not_found(&s);
	if (nbest > 1 || (s.more && best == RANK_LOCAL))
		return ambiguous(&s, best, nbest + (best == RANK_LOCAL ? s.more : 0));
	memset(out, 0, sizeof(*out));
	if (tl_elfsym_file_offset(e, s.c[pick].vaddr, &out->offset))
		return tl_error("function '%s' in '%s' lies outside every loadable segment (address 0x%llx)", s.symbol,
		                s.label, (unsigned long long)s.c[pick].vaddr);
	out->vaddr = s.c[pick].vaddr;
	out->size = s.c[pick].size;
	out->global = s.c[pick].global;
	snprintf(out->name, sizeof(out->name), "%s", s.c[pick].name);
	return 0;
}

static int init_libelf(void)
{
	if (elf_version(EV_CURRENT) == EV_NONE)
		return tl_error("libelf is too old: %s", elf_errmsg(-1));
	return 0;
}

int tl_elfsym_with(const char *path, int (*fn)(struct Elf *e, const char *label, void *ctx), void *ctx)
{
	struct stat st;
	Elf *e;
	int fd, ret;

	if (init_libelf())
		return -1;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return tl_error_errno("cannot open '%s'", path);
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return tl_error("cannot read '%s': not a regular file", path);
	}
	e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!e) {
		close(fd);
		return tl_error("cannot read '%s': not an ELF file", path);
	}
	ret = fn(e, path, ctx);
	elf_end(e);
	close(fd);
	return ret;
}

struct each {
	int (*fn)(void *ctx, const char *name, uint64_t offset);
	void *ctx;
};

static int each_in(Elf *e, const char *label, void *arg)
{
	struct each *x = arg;
	Elf_Scn *scn = NULL;
	int ret = 0;

	(void)label;
	while (!ret && (scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		size_t esz = gelf_fsize(e, ELF_T_SYM, 1, EV_CURRENT);

		if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM) || !esz ||
		    !(d = elf_getdata(scn, NULL)))
			continue;
		for (size_t i = 1; !ret && i < d->d_size / esz && i <= INT32_MAX; i++) {
			GElf_Sym sym;
			const char *name;
			uint64_t off;

			if (!gelf_getsym(d, (int)i, &sym))
				break;
			if (GELF_ST_TYPE(sym.st_info) != STT_FUNC || sym.st_shndx == SHN_UNDEF ||
			    sym.st_shndx == SHN_ABS || !sym.st_name ||
			    !(name = elf_strptr(e, sh.sh_link, sym.st_name)) ||
			    tl_elfsym_file_offset(e, sym.st_value, &off))
				continue;
			ret = x->fn(x->ctx, name, off);
		}
	}
	return ret;
}

int tl_elfsym_each(const char *path, int (*fn)(void *ctx, const char *name, uint64_t offset), void *ctx)
{
	struct each x = { fn, ctx };

	return tl_elfsym_with(path, each_in, &x);
}

int tl_elfsym_each_mem(const void *image, size_t size, const char *label,
                       int (*fn)(void *ctx, const char *name, uint64_t offset), void *ctx)
{
	struct each x = { fn, ctx };

	return tl_elfsym_with_mem(image, size, label, each_in, &x);
}

int tl_elfsym_with_mem(const void *image, size_t size, const char *label,
                       int (*fn)(struct Elf *e, const char *label, void *ctx), void *ctx)
{
	char *copy;
	Elf *e;
	int ret;

	if (init_libelf())
		return -1;
	/* elf_memory() takes a writable image; ours is the caller's and stays untouched. */
	copy = malloc(size ? size : 1);
	if (!copy)
		return tl_error("out of memory");
	if (size)
		memcpy(copy, image, size);
	e = elf_memory(copy, size);
	if (!e) {
		free(copy);
		return tl_error("cannot read '%s': not an ELF file", label);
	}
	ret = fn(e, label, ctx);
	elf_end(e);
	free(copy);
	return ret;
}

int tl_elfsym_lookup(const char *path, const char *symbol, struct tl_elfsym *out)
{
	struct lookup_args a = { symbol, out };

	return tl_elfsym_with(path, lookup_elf, &a);
}

int tl_elfsym_lookup_mem(const void *image, size_t size, const char *label, const char *symbol, struct tl_elfsym *out)
{
	struct lookup_args a = { symbol, out };

	return tl_elfsym_with_mem(image, size, label, lookup_elf, &a);
}

/* ---- finding a library by name ---- */

#if defined(__x86_64__)
#define MULTIARCH "x86_64-linux-gnu"
#elif defined(__aarch64__)
#define MULTIARCH "aarch64-linux-gnu"
#elif defined(__i386__)
#define MULTIARCH "i386-linux-gnu"
#elif defined(__arm__)
#define MULTIARCH "arm-linux-gnueabihf"
#elif defined(__riscv) && __riscv_xlen == 64
#define MULTIARCH "riscv64-linux-gnu"
#endif

static const char *const lib_dirs[] = {
#ifdef MULTIARCH
	"/lib/" MULTIARCH, "/usr/lib/" MULTIARCH,
#endif
	"/lib64",          "/usr/lib64",          "/lib", "/usr/lib", "/usr/local/lib",
};
#define NDIRS (sizeof(lib_dirs) / sizeof(lib_dirs[0]))

const char *tl_elfsym_lib_dir(size_t i)
{
	return i < NDIRS ? lib_dirs[i] : NULL;
}

static int is_file(const char *path)
{
	struct stat st;
	return !stat(path, &st) && S_ISREG(st.st_mode);
}

/* A library search must pass over linker scripts: libc.so is one, libc.so.6 the library. */
static int is_elf(const char *path)
{
	char magic[4];
	int fd = open(path, O_RDONLY | O_CLOEXEC), ok;

	if (fd < 0)
		return 0;
	ok = read(fd, magic, 4) == 4 && !memcmp(magic, ELFMAG, SELFMAG);
	close(fd);
	return ok;
}

/* In dir, the shortest entry named PREFIX.so.N...: the soname link rather than the full version. */
static int versioned_in(const char *dir, const char *prefix, char *out, size_t len)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	size_t plen = strlen(prefix), best = 0;
	char path[4096];

	if (!d)
		return 0;
	while ((de = readdir(d))) {
		size_t n = strlen(de->d_name);
		if (n <= plen + 4 || strncmp(de->d_name, prefix, plen) || strncmp(de->d_name + plen, ".so.", 4))
			continue;
		if (best && n >= best)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (!is_file(path) || !is_elf(path))
			continue;
		snprintf(out, len, "%s", path);
		best = n;
	}
	closedir(d);
	return best > 0;
}

int tl_elfsym_find_file(const char *name, char *out, size_t len)
{
	static const char *const forms[] = { "%s", "lib%s.so", "%s.so" };
	char path[4096], prefix[512];

	if (!*name)
		return tl_error("empty file name before ':' in a function");
	if (strchr(name, '/') || is_file(name)) {
		if (access(name, R_OK))
			return tl_error_errno("cannot open '%s'", name);
		snprintf(out, len, "%s", name);
		return 0;
	}
	if (strlen(name) > 200)
		return tl_error("no file or library '%.200s...'", name);
	for (size_t f = 0; f < sizeof(forms) / sizeof(forms[0]); f++)
		for (size_t i = 0; i < NDIRS; i++) {
			char base[256];
			snprintf(base, sizeof(base), forms[f], name);
			snprintf(path, sizeof(path), "%s/%s", lib_dirs[i], base);
			if (is_file(path) && is_elf(path)) {
				snprintf(out, len, "%s", path);
				return 0;
			}
		}
	for (int lib = 0; lib < 2; lib++) {
		snprintf(prefix, sizeof(prefix), lib ? "lib%s" : "%s", name);
		for (size_t i = 0; i < NDIRS; i++)
			if (versioned_in(lib_dirs[i], prefix, out, len))
				return 0;
	}
	return tl_error("no file or library '%s' (give its path)", name);
}
