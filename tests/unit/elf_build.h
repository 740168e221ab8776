/*
 * elf_build.h - hand-built 64-bit little-endian ELF images for the symbol
 * lookup tests: exactly the program headers and symbols a test asks for,
 * so that every file offset is known in advance.  Header only.
 *
 * Layout of an image (file offsets):
 *   0x000  ELF header, then the program headers
 *   0x200  .text: 0x200 bytes of 0x90
 *   0x400  .symtab (or .dynsym), then its string table, then .gnu.version
 *          (dynamic symbols with a version given), then .shstrtab
 *   then   the section headers: null, .text, symbols, strings,
 *          [.gnu.version], .shstrtab
 * Symbols with shndx EB_TEXT are defined in .text (whatever their value),
 * EB_UNDEF are imports, EB_ABS absolute.
 */
#ifndef TL_ELF_BUILD_H
#define TL_ELF_BUILD_H

#include <elf.h>
#include <stdint.h>
#include <string.h>

#define EB_UNDEF 0
#define EB_TEXT 1
#define EB_ABS SHN_ABS
#define EB_MAX 4096

struct eb_sym {
	const char *name;
	uint64_t value, size;
	unsigned char bind, type;
	uint16_t shndx;
	uint16_t versym; /* .gnu.version entry (dynamic only); 0 = none given */
};

struct eb_phdr {
	uint64_t vaddr, offset, filesz;
	uint32_t flags;
};

struct eb_spec {
	uint16_t e_type; /* ET_EXEC, ET_DYN, ET_REL */
	int nph;
	struct eb_phdr ph[4];
	int dynamic; /* symbols in .dynsym/.dynstr instead of .symtab/.strtab */
	int nsym;
	const struct eb_sym *syms;
};

static inline size_t eb_align8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

/* Build the image into out (EB_MAX bytes); returns its size, 0 if it does not fit. */
static inline size_t eb_build(const struct eb_spec *s, uint8_t *out)
{
	Elf64_Ehdr eh;
	Elf64_Shdr sh[6];
	char strtab[1024], shstr[128];
	size_t nstr = 1, nsh = 0, off, symoff, stroff, veroff = 0, shstroff, shoff;
	int versions = 0;
	uint16_t nm_text, nm_sym, nm_str, nm_ver, nm_shstr;

	memset(out, 0, EB_MAX);
	memset(sh, 0, sizeof(sh));
	strtab[0] = 0;
	for (int i = 0; i < s->nsym; i++)
		versions |= s->dynamic && s->syms[i].versym;
	/* section names */
	off = 1;
	shstr[0] = 0;
#define EB_NAME(var, str)                              \
	do {                                           \
		var = (uint16_t)off;                   \
		memcpy(shstr + off, str, sizeof(str)); \
		off += sizeof(str);                    \
	} while (0)
	EB_NAME(nm_text, ".text");
	if (s->dynamic) {
		EB_NAME(nm_sym, ".dynsym");
		EB_NAME(nm_str, ".dynstr");
	} else {
		EB_NAME(nm_sym, ".symtab");
		EB_NAME(nm_str, ".strtab");
	}
	EB_NAME(nm_ver, ".gnu.version");
	EB_NAME(nm_shstr, ".shstrtab");
#undef EB_NAME

	/* .text */
	memset(out + 0x200, 0x90, 0x200);
	/* symbols */
	symoff = 0x400;
	off = symoff + sizeof(Elf64_Sym); /* entry 0 is the null symbol */
	for (int i = 0; i < s->nsym; i++) {
		Elf64_Sym sym;
		size_t len = strlen(s->syms[i].name) + 1;

		if (nstr + len > sizeof(strtab) || off + sizeof(sym) > EB_MAX)
			return 0;
		memset(&sym, 0, sizeof(sym));
		sym.st_name = (Elf64_Word)nstr;
		memcpy(strtab + nstr, s->syms[i].name, len);
		nstr += len;
		sym.st_info = (unsigned char)ELF64_ST_INFO(s->syms[i].bind, s->syms[i].type);
		sym.st_shndx = s->syms[i].shndx;
		sym.st_value = s->syms[i].value;
		sym.st_size = s->syms[i].size;
		memcpy(out + off, &sym, sizeof(sym));
		off += sizeof(sym);
	}
	stroff = off;
	if (stroff + nstr > EB_MAX)
		return 0;
	memcpy(out + stroff, strtab, nstr);
	off = eb_align8(stroff + nstr);
	if (versions) {
		veroff = off;
		off += 2; /* entry 0 */
		for (int i = 0; i < s->nsym; i++, off += 2)
			memcpy(out + off, &s->syms[i].versym, 2);
		off = eb_align8(off);
	}
	shstroff = off;
	memcpy(out + shstroff, shstr, sizeof(shstr));
	shoff = eb_align8(shstroff + sizeof(shstr));

	/* section headers */
	nsh = 1;
	sh[nsh].sh_name = nm_text;
	sh[nsh].sh_type = SHT_PROGBITS;
	sh[nsh].sh_flags = SHF_ALLOC | SHF_EXECINSTR;
	sh[nsh].sh_offset = 0x200;
	sh[nsh].sh_size = 0x200;
	sh[nsh].sh_addr = s->nph ? s->ph[0].vaddr + 0x200 - s->ph[0].offset : 0;
	sh[nsh].sh_addralign = 16;
	nsh++;
	sh[nsh].sh_name = nm_sym;
	sh[nsh].sh_type = s->dynamic ? SHT_DYNSYM : SHT_SYMTAB;
	sh[nsh].sh_offset = symoff;
	sh[nsh].sh_size = stroff - symoff;
	sh[nsh].sh_link = 3;
	sh[nsh].sh_info = 1;
	sh[nsh].sh_entsize = sizeof(Elf64_Sym);
	sh[nsh].sh_addralign = 8;
	nsh++;
	sh[nsh].sh_name = nm_str;
	sh[nsh].sh_type = SHT_STRTAB;
	sh[nsh].sh_offset = stroff;
	sh[nsh].sh_size = nstr;
	sh[nsh].sh_addralign = 1;
	nsh++;
	if (versions) {
		sh[nsh].sh_name = nm_ver;
		sh[nsh].sh_type = SHT_GNU_versym;
		sh[nsh].sh_offset = veroff;
		sh[nsh].sh_size = 2 * ((size_t)s->nsym + 1);
		sh[nsh].sh_link = 2;
		sh[nsh].sh_entsize = 2;
		sh[nsh].sh_addralign = 2;
		nsh++;
	}
	sh[nsh].sh_name = nm_shstr;
	sh[nsh].sh_type = SHT_STRTAB;
	sh[nsh].sh_offset = shstroff;
	sh[nsh].sh_size = sizeof(shstr);
	sh[nsh].sh_addralign = 1;
	nsh++;
	if (shoff + nsh * sizeof(Elf64_Shdr) > EB_MAX)
		return 0;
	memcpy(out + shoff, sh, nsh * sizeof(Elf64_Shdr));

	/* program headers */
	for (int i = 0; i < s->nph; i++) {
		Elf64_Phdr ph;
		memset(&ph, 0, sizeof(ph));
		ph.p_type = PT_LOAD;
		ph.p_flags = s->ph[i].flags;
		ph.p_offset = s->ph[i].offset;
		ph.p_vaddr = ph.p_paddr = s->ph[i].vaddr;
		ph.p_filesz = ph.p_memsz = s->ph[i].filesz;
		ph.p_align = 0x1000;
		memcpy(out + sizeof(Elf64_Ehdr) + (size_t)i * sizeof(ph), &ph, sizeof(ph));
	}

	memset(&eh, 0, sizeof(eh));
	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS64;
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_ident[EI_VERSION] = EV_CURRENT;
	eh.e_type = s->e_type;
	eh.e_machine = EM_X86_64;
	eh.e_version = EV_CURRENT;
	eh.e_phoff = s->nph ? sizeof(Elf64_Ehdr) : 0;
	eh.e_shoff = shoff;
	eh.e_ehsize = sizeof(Elf64_Ehdr);
	eh.e_phentsize = sizeof(Elf64_Phdr);
	eh.e_phnum = (Elf64_Half)s->nph;
	eh.e_shentsize = sizeof(Elf64_Shdr);
	eh.e_shnum = (Elf64_Half)nsh;
	eh.e_shstrndx = (Elf64_Half)(nsh - 1);
	memcpy(out, &eh, sizeof(eh));
	return shoff + nsh * sizeof(Elf64_Shdr);
}

#endif
