/*
 * kallsyms.h - the kernel's function symbols from /proc/kallsyms, for the
 * KSYM events a sampled recording ends with: the kernel functions its
 * samples hit, named, so that `profile` resolves kernel frames without the
 * recording machine.
 *
 * Only text symbols count (types t, T, w, W); a function ends where the
 * next symbol starts.  Module symbols keep their module ("name [mod]").
 * When kernel.kptr_restrict hides the addresses (all read as 0), nothing
 * is loaded and the caller says so.  tl_kallsyms_parse_line() is pure
 * (fuzz_kallsyms).
 */
#ifndef TL_KALLSYMS_H
#define TL_KALLSYMS_H

#include <stddef.h>
#include <stdint.h>

/* One line "ffffffff81000000 T _text\t[module]": 1 with the fields (pointing into line), 0 if malformed. */
int tl_kallsyms_parse_line(const char *line, size_t len, uint64_t *addr, char *type, const char **name,
                           size_t *name_len, const char **module, size_t *module_len);

struct tl_ksym {
	uint64_t start, end;
	char *name; /* "func" or "func [module]" */
};

struct tl_kallsyms {
	struct tl_ksym *s; /* sorted by start, distinct starts */
	size_t n;
	int hidden; /* the addresses read as 0 (kptr_restrict) */
};

/* Load /proc/kallsyms (path, for the tests): 0, or -1 with tl_error set. */
int tl_kallsyms_load(struct tl_kallsyms *k, const char *path);

/* The function holding addr, or NULL. */
const struct tl_ksym *tl_kallsyms_find(const struct tl_kallsyms *k, uint64_t addr);

void tl_kallsyms_release(struct tl_kallsyms *k);

#endif
