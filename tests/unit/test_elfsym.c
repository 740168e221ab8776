/*
 * test_elfsym.c - function names into file offsets (lib/symbols/elfsym.c).
 *
 * Hand-built images (elf_build.h) give exact expectations for the rules:
 * the offset formula on non-PIE and PIE layouts, several definitions,
 * versions, IFUNCs, imports, stripped files, broken input.  Real files are
 * checked against facts that owe nothing to libelf:
 *  - this test program and the libc it runs with: the bytes at the offset
 *    in the file are the bytes of the function in memory (dladdr/dlsym);
 *  - wl_funcs (built next to this program): the offsets equal those
 *    computed here by a second, independent reading of the ELF structures
 *    with <elf.h>, as `nm` and `readelf -l` would give them.
 */
#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elf_build.h"
#include "symbols/elfsym.h"
#include "base/errors.h"
#include "symbols/demangle.h"
#include "harness.h"

#define TXT 0x400200 /* .text of the non-PIE images starts here (file offset 0x200) */

static uint8_t img[EB_MAX];

/* Look `sym` up in an image of `syms`, non-PIE layout; returns the lookup's result. */
static int lookup_exec(const struct eb_sym *syms, int n, int dynamic, const char *sym, struct tl_elfsym *out)
{
	struct eb_spec s = { .e_type = ET_EXEC, .nph = 2, .dynamic = dynamic, .nsym = n, .syms = syms };
	size_t len;

	s.ph[0] = (struct eb_phdr){ .vaddr = 0x400000, .offset = 0, .filesz = 0x400, .flags = PF_R | PF_X };
	s.ph[1] = (struct eb_phdr){ .vaddr = 0x600400, .offset = 0x400, .filesz = 0x100, .flags = PF_R | PF_W };
	len = eb_build(&s, img);
	if (!len)
		return -2;
	return tl_elfsym_lookup_mem(img, len, "img", sym, out);
}

/* ---- C++ names (symbols/demangle.h) ---- */

TEST(demangle_names)
{
	static const char *const in[][2] = {
		{ "_ZN2ns4workEv", "ns::work" },
		{ "_Z4workv", "work" },
		{ "_ZN2ns4workEi", "ns::work" },
		{ "_ZN2ns3FooC1Ev", "ns::Foo::Foo" },
		{ "_ZN2ns3FooD2Ev", "ns::Foo::~Foo" },
		{ "_ZNK2ns3Foo3getEv", "ns::Foo::get" },
		{ "_ZNSt6vector4sizeEv", "std::vector::size" },
		{ "_ZSt4swapRiS_", "std::swap" },
		{ "_ZL6helperv", "helper" },
		{ "_ZN2ns2in4deepERKNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEE", "ns::in::deep" },
	};
	static const char *const not [] = {
		"_ZN2ns4workIiEEvT_", "_ZN2ns4workEv.cold", "main",         "_Z",   "_ZN", "_ZN2ns",
		"_ZN9999999999xE",    "_ZN1a1bS_1cE",       "_ZN3abcE" + 0, "_Z3ab"
	};
	char buf[64], tiny[4];

	for (size_t i = 0; i < sizeof(in) / sizeof(in[0]); i++) {
		CHECK_EQ_INT(tl_demangle_name(in[i][0], buf, sizeof(buf)), 0);
		CHECK_EQ_STR(buf, in[i][1]);
	}
	for (size_t i = 0; i < sizeof(not ) / sizeof(not [0]); i++)
		if (strcmp(not [i], "_ZN3abcE")) /* a nested name of one part is fine */
			CHECK_EQ_INT(tl_demangle_name(not [i], buf, sizeof(buf)), -1);
	CHECK_EQ_INT(tl_demangle_name("_ZN2ns4workEv", tiny, sizeof(tiny)), -1); /* does not fit */
}

TEST(cxx_functions)
{
	static const struct eb_sym syms[] = {
		{ .name = "_ZN2ns4workEi",
		  .value = TXT + 0x30,
		  .bind = STB_GLOBAL,
		  .type = STT_FUNC,
		  .shndx = EB_TEXT },
		{ .name = "_ZN2ns4workEd",
		  .value = TXT + 0x40,
		  .bind = STB_GLOBAL,
		  .type = STT_FUNC,
		  .shndx = EB_TEXT },
		{ .name = "_ZNK2ns3Foo3getEv",
		  .value = TXT + 0x50,
		  .bind = STB_GLOBAL,
		  .type = STT_FUNC,
		  .shndx = EB_TEXT },
		{ .name = "_ZN2ns4workIiEEvT_",
		  .value = TXT + 0x60,
		  .bind = STB_WEAK,
		  .type = STT_FUNC,
		  .shndx = EB_TEXT },
		{ .name = "_ZL6helperv", .value = TXT + 0x70, .bind = STB_LOCAL, .type = STT_FUNC, .shndx = EB_TEXT },
	};
	struct tl_elfsym e;

	/* by its qualified name */
	CHECK_EQ_INT(lookup_exec(syms, 5, 0, "ns::Foo::get", &e), 0);
	CHECK_EQ_INT(e.offset, 0x250);
	CHECK_EQ_STR(e.name, "_ZNK2ns3Foo3getEv");
	CHECK_EQ_INT(lookup_exec(syms, 5, 0, "helper", &e), 0);
	CHECK_EQ_INT(e.offset, 0x270);
	/* overloads: both match, the error names them, the mangled name picks one */
	CHECK_EQ_INT(lookup_exec(syms, 5, 0, "ns::work", &e), -1);
	CHECK_EQ_STR(tl_error_msg(),
	             "function 'ns::work' is defined 2 times in 'img': global _ZN2ns4workEi at 0x400230, "
	             "global _ZN2ns4workEd at 0x400240");
	CHECK_EQ_INT(lookup_exec(syms, 5, 0, "_ZN2ns4workEd", &e), 0);
	CHECK_EQ_INT(e.offset, 0x240);
	/* a prefix of a qualified name is not a match */
	CHECK_EQ_INT(lookup_exec(syms, 5, 0, "ns::Foo", &e), -1);
	CHECK_EQ_STR(tl_error_msg(), "no function 'ns::Foo' in 'img'");
}

TEST(exec_offsets)
{
	static const struct eb_sym syms[] = {
		{ .name = "foo",
		  .value = TXT + 0x30,
		  .size = 16,
		  .bind = STB_GLOBAL,
		  .type = STT_FUNC,
		  .shndx = EB_TEXT },
		{ .name = "in_data", .value = 0x600410, .bind = STB_GLOBAL, .type = STT_FUNC, .shndx = EB_TEXT },
		{ .name = "foobar", .value = TXT + 0x40, .bind = STB_GLOBAL, .type = STT_FUNC, .shndx = EB_TEXT },
	};
	struct tl_elfsym e;

	CHECK_EQ_INT(lookup_exec(syms, 3, 0, "foo", &e), 0);
	CHECK_EQ_INT(e.offset, 0x230); /* 0x400230 - 0x400000 + 0 */
	CHECK_EQ_INT(e.vaddr, 0x400230);
	CHECK_EQ_INT(e.size, 16);
	CHECK_EQ_INT(e.global, 1);
	CHECK_EQ_STR(e.name, "foo");
	CHECK_EQ_INT(lookup_exec(syms, 3, 0, "in_data", &e), 0);
	CHECK_EQ_INT(e.offset, 0x410); /* 0x600410 - 0x600400 + 0x400 */
	/* a prefix is not a match */
	CHECK_EQ_INT(lookup_exec(syms, 3, 0, "fo", &e), -1);
	CHECK_EQ_STR(tl_error_msg(), "no function 'fo' in 'img'");
	CHECK_EQ_INT(lookup_exec(syms, 3, 0, "", &e), -1);
	CHECK_EQ_STR(tl_error_msg(), "empty function name to look up in 'img'");
}

TEST(pie_offsets)
{
	static const struct eb_sym syms[] = {
		{ .name = "f", .value = 0x1010, .bind = STB_GLOBAL, .type = STT_FUNC, .shndx = EB_TEXT },
		{ .name = "far", .value = 0x5000, .bind = STB_GLOBAL, .type = STT_FUNC, .shndx = EB_TEXT },
	};
	struct eb_spec s = { .e_type = ET_DYN, .nph = 1, .nsym = 2, .syms = syms };
	struct tl_elfsym e;
	size_t len;

	/* a segment whose vaddr and offset differ, as in a PIE or a shared library */
	s.ph[0] = (struct eb_phdr){ .vaddr = 0x1000, .offset = 0x200, .filesz = 0x200, .flags = PF_R | PF_X };
	len = eb_build(&s, img);
	CHECK(len > 0);
	CHECK_EQ_INT(tl_elfsym_lookup_mem(img, len, "lib.so", "f", &e), 0);
	CHECK_EQ_INT(e.offset, 0x210);
	CHECK_EQ_INT(tl_elfsym_lookup_mem(img, len, "lib.so", "far", &e), -1);
	CHECK_EQ_STR(tl_error_msg(), "function 'far' in 'lib.so' lies outside every loadable segment (address 0x5000)");
}

TEST(several_definitions)
{
	static const struct eb_sym syms[] = {
		/* two static functions of the same name in two source files */
		{ .name = "dup", .value = TXT + 0x10, .bind = STB_LOCAL, .type = STT_FUNC, .shndx = EB_TEXT },
		{ .name = "dup", .value = TXT + 0x20, .bind = STB_LOCAL, .type = STT_FUNC, .shndx = EB_TEXT },
		/* a static one and the global one: the global wins */
		{ .name = "gl", .value = TXT + 0x30, .bind = STB_LOCAL, .type = STT_FUNC, .shndx = EB_TEXT },
		{ .name = "gl", .value = TXT + 0x40, .bind = STB_GLOBAL, .type = STT_FUNC, .shndx = EB_TEXT },
		/* the same address twice (an alias, a weak twin): one function */
		{ .name = "al", .value = TXT + 0x50, .bind = STB_GLOBAL, .type = STT_FUNC, .shndx = EB_TEXT },
		{ .name = "al", .value = TXT + 0x50, .bind = STB_WEAK, .type = STT_FUNC, .shndx = EB_TEXT },
		{ .name = "al_alias", .value = TXT + 0x50, .bind = STB_GLOBAL, .type = STT_FUNC, .shndx = EB_TEXT },
		/* two globals at different addresses: nothing to prefer */
		{ .name = "g2", .value = TXT + 0x60, .bind = STB_GLOBAL, .type = STT_FUNC, .shndx = EB_TEXT },
		{ .name = "g2", .value = TXT + 0x70, .bind = STB_WEAK, .type = STT_FUNC, .shndx = EB_TEXT },
	};
	struct tl_elfsym e;

	CHECK_EQ_INT(lookup_exec(syms, 9, 0, "dup", &e), -1);
	CHECK_EQ_STR(tl_error_msg(),
	             "function 'dup' is defined 2 times in 'img': local at 0x400210, local at 0x400220");
	CHECK_EQ_INT(lookup_exec(syms, 9, 0, "gl", &e), 0);
	CHECK_EQ_INT(e.offset, 0x240);
	CHECK_EQ_INT(e.global, 1);
	CHECK_EQ_INT(lookup_exec(syms, 9, 0, "al", &e), 0);
	CHECK_EQ_INT(e.offset, 0x250);
	CHECK_EQ_INT(lookup_exec(syms, 9, 0, "al_alias", &e), 0);
	CHECK_EQ_INT(e.offset, 0x250);
	CHECK_EQ_INT(lookup_exec(syms, 9, 0, "g2", &e), -1);
	CHECK_EQ_STR(tl_error_msg(),
	             "function 'g2' is defined 2 times in 'img': global at 0x400260, global at 0x400270");
}

TEST(versions)
{
	static const struct eb_sym named[] = {
		/* .symtab spells versions in the name: @@ is the default, @ an old one */
		{ .name = "ver@VER_0", .value = TXT + 0x10, .bind = STB_GLOBAL, .type = STT_FUNC, .shndx = EB_TEXT },
		{ .name = "ver@@VER_1", .value = TXT + 0x20, .bind = STB_GLOBAL, .type = STT_FUNC, .shndx = EB_TEXT },
	};
	static const struct eb_sym dyn[] = {
		/* .dynsym has plain names and .gnu.version: 0x8000 marks a hidden (old) version */
		{ .name = "dv",
		  .value = TXT + 0x30,
		  .bind = STB_GLOBAL,
		  .type = STT_FUNC,
		  .shndx = EB_TEXT,
		  .versym = 0x8002 },
		{ .name = "dv",
		  .value = TXT + 0x40,
		  .bind = STB_GLOBAL,
		  .type = STT_FUNC,
		  .shndx = EB_TEXT,
		  .versym = 3 },
	};
	struct tl_elfsym e;

	CHECK_EQ_INT(lookup_exec(named, 2, 0, "ver", &e), 0);
	CHECK_EQ_INT(e.offset, 0x220);
	CHECK_EQ_STR(e.name, "ver@@VER_1");
	CHECK_EQ_INT(lookup_exec(named, 2, 0, "ver@VER_0", &e), 0); /* asked for by its full name */
	CHECK_EQ_INT(e.offset, 0x210);
	CHECK_EQ_INT(lookup_exec(dyn, 2, 1, "dv", &e), 0);
	CHECK_EQ_INT(e.offset, 0x240);
}

TEST(not_probeable)
{
	static const struct eb_sym syms[] = {
		{ .name = "fi", .value = TXT + 0x10, .bind = STB_GLOBAL, .type = STT_GNU_IFUNC, .shndx = EB_TEXT },
		{ .name = "obj", .value = 0x600410, .bind = STB_GLOBAL, .type = STT_OBJECT, .shndx = EB_TEXT },
		{ .name = "imp", .bind = STB_GLOBAL, .type = STT_FUNC, .shndx = EB_UNDEF },
		{ .name = "abs", .value = 0x1234, .bind = STB_GLOBAL, .type = STT_FUNC, .shndx = EB_ABS },
		/* glibc's memcpy: the default version an IFUNC, an old version a plain function */
		{ .name = "mc@OLD_1", .value = TXT + 0x20, .bind = STB_GLOBAL, .type = STT_FUNC, .shndx = EB_TEXT },
		{ .name = "mc@@NEW_2",
		  .value = TXT + 0x30,
		  .bind = STB_GLOBAL,
		  .type = STT_GNU_IFUNC,
		  .shndx = EB_TEXT },
	};
	struct tl_elfsym e;

	CHECK_EQ_INT(lookup_exec(syms, 6, 0, "fi", &e), -1);
	CHECK(strstr(tl_error_msg(), "function 'fi' in 'img' is an IFUNC") == tl_error_msg());
	CHECK_EQ_INT(lookup_exec(syms, 6, 0, "mc", &e), -1);
	CHECK(strstr(tl_error_msg(), "function 'mc' in 'img' is an IFUNC") == tl_error_msg());
	CHECK_EQ_INT(lookup_exec(syms, 6, 0, "mc@OLD_1", &e), 0); /* the old one, asked for by name */
	CHECK_EQ_INT(e.offset, 0x220);
	CHECK_EQ_INT(lookup_exec(syms, 6, 0, "obj", &e), -1);
	CHECK_EQ_STR(tl_error_msg(), "'obj' in 'img' is not a function");
	CHECK_EQ_INT(lookup_exec(syms, 6, 0, "abs", &e), -1);
	CHECK_EQ_STR(tl_error_msg(), "'abs' in 'img' is not a function");
	CHECK_EQ_INT(lookup_exec(syms, 6, 1, "imp", &e), -1);
	CHECK_EQ_STR(tl_error_msg(), "no function 'imp' in 'img': it is imported from a shared library; probe it "
	                             "there with --func LIBRARY:imp");
}

TEST(stripped)
{
	static const struct eb_sym syms[] = {
		{ .name = "exported", .value = TXT + 0x10, .bind = STB_GLOBAL, .type = STT_FUNC, .shndx = EB_TEXT },
	};
	struct tl_elfsym e;

	/* only .dynsym: exported functions are still found */
	CHECK_EQ_INT(lookup_exec(syms, 1, 1, "exported", &e), 0);
	CHECK_EQ_INT(e.offset, 0x210);
	CHECK_EQ_INT(lookup_exec(syms, 1, 1, "internal", &e), -1);
	CHECK_EQ_STR(tl_error_msg(), "no function 'internal' in 'img' (stripped?)");
	/* with a .symtab the file is not stripped: just missing */
	CHECK_EQ_INT(lookup_exec(syms, 1, 0, "internal", &e), -1);
	CHECK_EQ_STR(tl_error_msg(), "no function 'internal' in 'img'");
	/* no symbol table at all */
	CHECK_EQ_INT(lookup_exec(syms, 0, 1, "exported", &e), -1);
	CHECK_EQ_STR(tl_error_msg(), "no function 'exported' in 'img' (stripped?)");
}

TEST(broken_input)
{
	static const struct eb_sym syms[] = {
		{ .name = "f", .value = 0x10, .bind = STB_GLOBAL, .type = STT_FUNC, .shndx = EB_TEXT },
	};
	struct eb_spec s = { .e_type = ET_REL, .nsym = 1, .syms = syms };
	struct tl_elfsym e;
	size_t len = eb_build(&s, img);

	CHECK_EQ_INT(tl_elfsym_lookup_mem(img, len, "f.o", "f", &e), -1);
	CHECK_EQ_STR(tl_error_msg(), "'f.o' is not an executable or shared library (ELF type 1)");
	CHECK_EQ_INT(tl_elfsym_lookup_mem("#!/bin/sh\n", 10, "script", "f", &e), -1);
	CHECK_EQ_STR(tl_error_msg(), "cannot read 'script': not an ELF file");
	CHECK_EQ_INT(tl_elfsym_lookup_mem("", 0, "empty", "f", &e), -1);
	CHECK_EQ_STR(tl_error_msg(), "cannot read 'empty': not an ELF file");
	/* every truncation of a good image fails cleanly or still finds f */
	s.e_type = ET_DYN;
	s.nph = 1;
	s.ph[0] = (struct eb_phdr){ .vaddr = 0, .offset = 0, .filesz = 0x400, .flags = PF_R | PF_X };
	len = eb_build(&s, img);
	for (size_t cut = 0; cut < len; cut += 7) {
		int r = tl_elfsym_lookup_mem(img, cut, "cut", "f", &e);
		CHECK(r == -1 || (r == 0 && e.offset == 0x10));
	}
}

/* ---- real files ---- */

/* A function of this program with a body of its own, for the bytes test. */
__attribute__((noinline, used)) int elfsym_test_target(int x);
__attribute__((noinline, used)) int elfsym_test_target(int x)
{
	return x * 7 + 3;
}

/*
 * The file's bytes at off equal the code at mem.  The first byte may be a
 * breakpoint (0xcc): a uprobe that someone else's recording put there.
 */
static int same_code(const char *path, uint64_t off, const void *mem)
{
	uint8_t buf[16];
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return 0;
	n = pread(fd, buf, sizeof(buf), (off_t)off);
	close(fd);
	if (n != (ssize_t)sizeof(buf))
		return 0;
	return (buf[0] == ((const uint8_t *)mem)[0] || ((const uint8_t *)mem)[0] == 0xcc) &&
	       !memcmp(buf + 1, (const uint8_t *)mem + 1, sizeof(buf) - 1);
}

TEST(self_bytes)
{
	struct tl_elfsym e;

	CHECK_EQ_INT(tl_elfsym_lookup("/proc/self/exe", "elfsym_test_target", &e), 0);
	CHECK(e.offset > 0);
	CHECK(same_code("/proc/self/exe", e.offset, (const void *)elfsym_test_target));
	CHECK_EQ_INT(elfsym_test_target(1), 10);
}

TEST(libc_bytes)
{
	Dl_info info;
	struct tl_elfsym e;
	void *addr = dlsym(RTLD_DEFAULT, "usleep");

	CHECK(addr != NULL);
	if (!addr || !dladdr(addr, &info) || !info.dli_fname) {
		CHECK(0);
		return;
	}
	CHECK_EQ_INT(tl_elfsym_lookup(info.dli_fname, "usleep", &e), 0);
	CHECK(same_code(info.dli_fname, e.offset, addr));
}

/* ---- wl_funcs against an independent reading ---- */

static uint8_t *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	long n;

	if (!f)
		return NULL;
	if (!fseek(f, 0, SEEK_END) && (n = ftell(f)) > 0 && !fseek(f, 0, SEEK_SET)) {
		buf = malloc((size_t)n);
		if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
			free(buf);
			buf = NULL;
		}
		*len = (size_t)n;
	}
	fclose(f);
	return buf;
}

/* st_value of `name` in .symtab and its file offset, the way nm and readelf -l give them; 0 if not found. */
static uint64_t raw_offset(const uint8_t *f, size_t len, const char *name)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)f;

	if (len < sizeof(*eh) || memcmp(f, ELFMAG, SELFMAG) || f[EI_CLASS] != ELFCLASS64)
		return 0;
	for (int i = 0; i < eh->e_shnum; i++) {
		const Elf64_Shdr *sh = (const Elf64_Shdr *)(f + eh->e_shoff + (size_t)i * sizeof(Elf64_Shdr));
		const Elf64_Shdr *str;

		if (sh->sh_type != SHT_SYMTAB)
			continue;
		str = (const Elf64_Shdr *)(f + eh->e_shoff + (size_t)sh->sh_link * sizeof(Elf64_Shdr));
		for (size_t k = 0; k < sh->sh_size / sizeof(Elf64_Sym); k++) {
			const Elf64_Sym *s = (const Elf64_Sym *)(f + sh->sh_offset + k * sizeof(Elf64_Sym));
			if (ELF64_ST_TYPE(s->st_info) != STT_FUNC || !s->st_value ||
			    strcmp((const char *)f + str->sh_offset + s->st_name, name))
				continue;
			for (int p = 0; p < eh->e_phnum; p++) {
				const Elf64_Phdr *ph =
				        (const Elf64_Phdr *)(f + eh->e_phoff + (size_t)p * sizeof(Elf64_Phdr));
				if (ph->p_type == PT_LOAD && s->st_value >= ph->p_vaddr &&
				    s->st_value < ph->p_vaddr + ph->p_filesz)
					return s->st_value - ph->p_vaddr + ph->p_offset;
			}
		}
	}
	return 0;
}

TEST(wl_funcs_offsets)
{
	static const char *const funcs[] = { "wlf_spin",  "wlf_inner", "wlf_outer", "wlf_recurse",
		                             "wlf_never", "wlf_empty", "main" };
	char self[PATH_MAX], path[PATH_MAX + 16];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	struct tl_elfsym e;
	uint8_t *f;
	size_t len = 0;

	CHECK(n > 0);
	if (n <= 0)
		return;
	self[n] = 0;
	*strrchr(self, '/') = 0;
	snprintf(path, sizeof(path), "%s/wl_funcs", self);
	f = read_file(path, &len);
	if (!f) {
		fprintf(stderr, "  note: '%s' is not built; 'make tests' builds it\n", path);
		CHECK(f != NULL);
		return;
	}
	for (size_t i = 0; i < sizeof(funcs) / sizeof(funcs[0]); i++) {
		uint64_t want = raw_offset(f, len, funcs[i]);
		CHECK(want != 0);
		CHECK_EQ_INT(tl_elfsym_lookup(path, funcs[i], &e), 0);
		CHECK_EQ_INT(e.offset, want);
	}
	/* an import names its library (from .gnu.version_r) */
	CHECK_EQ_INT(tl_elfsym_lookup(path, "usleep", &e), -1);
	CHECK(strstr(tl_error_msg(), "it is imported from 'libc.so.6'; probe it there with --func libc.so.6:usleep") !=
	      NULL);
	CHECK_EQ_INT(tl_elfsym_lookup(path, "no_such_function", &e), -1);
	{
		char want[PATH_MAX + 64];
		snprintf(want, sizeof(want), "no function 'no_such_function' in '%s'", path);
		CHECK_EQ_STR(tl_error_msg(), want);
	}
	free(f);
}

TEST(file_errors)
{
	char path[] = "/tmp/tl-elfsym-XXXXXX", want[128];
	struct tl_elfsym e;
	int fd = mkstemp(path);

	CHECK(fd >= 0);
	if (fd < 0)
		return;
	CHECK(write(fd, "hello\n", 6) == 6);
	close(fd);
	CHECK_EQ_INT(tl_elfsym_lookup(path, "main", &e), -1);
	snprintf(want, sizeof(want), "cannot read '%s': not an ELF file", path);
	CHECK_EQ_STR(tl_error_msg(), want);
	unlink(path);
	CHECK_EQ_INT(tl_elfsym_lookup(path, "main", &e), -1);
	snprintf(want, sizeof(want), "cannot open '%s': No such file or directory", path);
	CHECK_EQ_STR(tl_error_msg(), want);
	CHECK_EQ_INT(tl_elfsym_lookup("/", "main", &e), -1);
	CHECK_EQ_STR(tl_error_msg(), "cannot read '/': not a regular file");
}

TEST(find_file)
{
	char out[PATH_MAX], libc[PATH_MAX];
	Dl_info info;
	const char *base;

	/* where this program's libc is, and what it is called (libc.so.6 with glibc) */
	if (!dladdr(dlsym(RTLD_DEFAULT, "usleep"), &info) || !info.dli_fname) {
		CHECK(0);
		return;
	}
	base = strrchr(info.dli_fname, '/');
	base = base ? base + 1 : info.dli_fname;
	CHECK_EQ_INT(tl_elfsym_find_file(base, libc, sizeof(libc)), 0);
	CHECK(strstr(libc, base) != NULL);
	if (!strcmp(base, "libc.so.6")) {
		/* libc.so itself is a linker script: the search passes over it */
		CHECK_EQ_INT(tl_elfsym_find_file("libc", out, sizeof(out)), 0);
		CHECK_EQ_STR(out, libc);
		CHECK_EQ_INT(tl_elfsym_find_file("c", out, sizeof(out)), 0);
		CHECK_EQ_STR(out, libc);
	}
	CHECK_EQ_INT(tl_elfsym_find_file("/proc/self/exe", out, sizeof(out)), 0);
	CHECK_EQ_STR(out, "/proc/self/exe");
	CHECK_EQ_INT(tl_elfsym_find_file("no_such_library_xyz", out, sizeof(out)), -1);
	CHECK_EQ_STR(tl_error_msg(), "no file or library 'no_such_library_xyz' (give its path)");
	CHECK_EQ_INT(tl_elfsym_find_file("./no/such/file", out, sizeof(out)), -1);
	CHECK_EQ_STR(tl_error_msg(), "cannot open './no/such/file': No such file or directory");
	CHECK_EQ_INT(tl_elfsym_find_file("", out, sizeof(out)), -1);
}

int main(void)
{
	RUN_TESTS(demangle_names, cxx_functions, exec_offsets, pie_offsets, several_definitions, versions,
	          not_probeable, stripped, broken_input, self_bytes, libc_bytes, wl_funcs_offsets, file_errors,
	          find_file);
}
