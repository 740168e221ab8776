/*
 * locknames.c - names of futex words (locknames.h).
 *
 * Invariants: `seen` (open addressing, linear probing, pid 0 empty, at
 * most half full) holds every (pid, addr) noted, named or not, so a word
 * is looked up once, and `procs` counts each process's: the recorder asks
 * at every futex wait, so a question costs a probe or two whatever the
 * number of words.  `files` holds one symfile per path read (loaded 0
 * when it could not be read: every lookup in it misses).  A maps text
 * is parsed line by line with procmaps' parser; nothing it holds is kept.
 */
#include "capture/locknames.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/errors.h"
#include "base/grow.h"
#include "base/readfile.h"
#include "base/tidmap.h"
#include "capture/procmaps.h"

struct seen {
	int32_t pid;
	uint64_t addr;
};

struct file {
	char *path;
	struct tl_symfile sf;
};

struct proc {
	int32_t pid; /* the tidmap key: first */
	uint32_t words;
};

struct tl_locknames {
	struct seen *seen; /* nslots entries, a power of two */
	size_t nseen, nslots;
	struct tl_tidmap procs; /* struct proc */
	struct file *files;
	size_t nfiles, capfiles;
	int oom;
};

static const char *base_of(const char *path, size_t len, size_t *blen)
{
	size_t i = len;

	while (i > 0 && path[i - 1] != '/')
		i--;
	*blen = len - i;
	return path + i;
}

/* The name of v in file sf (path[0..plen)): its object, or the file and the address. */
static void name_in(const struct tl_symfile *sf, uint64_t v, const char *path, size_t plen, char *name, size_t len)
{
	uint64_t into = 0;
	size_t blen;
	const char *base = base_of(path, plen, &blen);
	const char *sym = tl_symfile_lookup_vaddr(sf, v, &into);

	if (sym && into)
		snprintf(name, len, "%s+0x%" PRIx64 " (%.*s)", sym, into, (int)blen, base);
	else if (sym)
		snprintf(name, len, "%s (%.*s)", sym, (int)blen, base);
	else
		snprintf(name, len, "%.*s+0x%" PRIx64, (int)blen, base, v);
}

int tl_locknames_resolve(const char *maps, size_t len, uint64_t addr,
                         const struct tl_symfile *(*load)(void *ctx, const char *path, size_t path_len), void *ctx,
                         char *name, size_t name_len)
{
	const char *p = maps, *end = maps + len, *label = NULL;
	size_t label_len = 0;
	int in_map = 0;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *e = nl ? nl : end;
		struct tl_map m;

		if (tl_procmaps_parse_line(p, (size_t)(e - p), &m)) {
			if (addr >= m.start && addr < m.end) {
				in_map = 1;
				label = m.path;
				label_len = m.path_len;
			}
			/* a file's image holds addr: its mapping, or .bss in the anonymous mapping after it */
			if (m.path_len && m.path[0] == '/') {
				const struct tl_symfile *sf = load(ctx, m.path, m.path_len);
				uint64_t v;

				if (sf && sf->loaded && !tl_symfile_vaddr_of(sf, m.pgoff, &v) &&
				    tl_symfile_holds(sf, addr - (m.start - v))) {
					name_in(sf, addr - (m.start - v), m.path, m.path_len, name, name_len);
					return 1;
				}
			}
		}
		p = e + (e < end);
	}
	if (!in_map)
		return 0;
	if (label_len && (label[0] == '/' || label[0] == '['))
		snprintf(name, name_len, "%.*s", (int)label_len,
		         label); /* "[heap]", "[stack]", a file we cannot read */
	else
		snprintf(name, name_len, "[anon]");
	return 1;
}

struct tl_locknames *tl_locknames_new(void)
{
	struct tl_locknames *ln = calloc(1, sizeof(*ln));

	if (!ln) {
		tl_error("out of memory");
		return NULL;
	}
	if (tl_tidmap_init(&ln->procs, sizeof(struct proc)) < 0) {
		free(ln);
		return NULL;
	}
	return ln;
}

static size_t slot_of(int32_t pid, uint64_t addr, size_t nslots)
{
	return (size_t)((((addr >> 2) ^ ((uint64_t)(uint32_t)pid << 40)) * 0x9e3779b97f4a7c15ull) >> 32) & (nslots - 1);
}

/* The slot of (pid, addr), or the empty one where it goes. */
static struct seen *find(const struct tl_locknames *ln, int32_t pid, uint64_t addr)
{
	size_t s = slot_of(pid, addr, ln->nslots);

	while (ln->seen[s].pid && (ln->seen[s].pid != pid || ln->seen[s].addr != addr))
		s = (s + 1) & (ln->nslots - 1);
	return &ln->seen[s];
}

/* Room for one more: double the slots (or make the first 256) when half full.  0, or -1. */
static int room(struct tl_locknames *ln)
{
	struct seen *old = ln->seen;
	size_t n = ln->nslots;

	if ((ln->nseen + 1) * 2 <= ln->nslots)
		return 0;
	if (!(ln->seen = calloc(n ? 2 * n : 256, sizeof(*ln->seen)))) {
		ln->seen = old;
		return -1;
	}
	ln->nslots = n ? 2 * n : 256;
	for (size_t i = 0; i < n; i++)
		if (old[i].pid)
			*find(ln, old[i].pid, old[i].addr) = old[i];
	free(old);
	return 0;
}

void tl_locknames_free(struct tl_locknames *ln)
{
	if (!ln)
		return;
	for (size_t i = 0; i < ln->nfiles; i++) {
		free(ln->files[i].path);
		tl_symfile_release(&ln->files[i].sf);
	}
	free(ln->files);
	free(ln->seen);
	tl_tidmap_release(&ln->procs);
	free(ln);
}

/* The data symbols of the file at path[0..len), read once; NULL out of memory. */
static const struct tl_symfile *load_file(void *ctx, const char *path, size_t len)
{
	struct tl_locknames *ln = ctx;
	struct file *f;

	for (size_t i = 0; i < ln->nfiles; i++)
		if (strlen(ln->files[i].path) == len && !memcmp(ln->files[i].path, path, len))
			return &ln->files[i].sf;
	if (TL_GROW(ln->files, ln->capfiles, ln->nfiles + 1) < 0) {
		ln->oom = 1;
		return NULL;
	}
	f = &ln->files[ln->nfiles];
	if (!(f->path = strndup(path, len))) {
		ln->oom = 1;
		return NULL;
	}
	ln->nfiles++;
	tl_symfile_load_data(&f->sf, f->path); /* a file we cannot read: its words are named by the mapping */
	return &f->sf;
}

int tl_locknames_note(struct tl_locknames *ln, int32_t pid, uint64_t addr, char *name, size_t name_len)
{
	size_t len = 0;
	char path[64];
	char *maps = NULL;
	struct proc *pr;
	struct seen *s;
	int r;

	if (pid <= 0)
		return 0;
	if (ln->nslots && find(ln, pid, addr)->pid)
		return 0; /* seen */
	if (!(pr = tl_tidmap_put(&ln->procs, pid, NULL)))
		return -1;
	if (pr->words >= TL_LOCKNAMES_PER_PROC)
		return 0;
	pr->words++;
	if (room(ln) < 0)
		return tl_error("out of memory");
	s = find(ln, pid, addr);
	*s = (struct seen){ pid, addr };
	ln->nseen++;
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	if (tl_read_file(path, 16 << 20, &maps, &len) < 0)
		return 0; /* gone already */
	r = tl_locknames_resolve(maps, len, addr, load_file, ln, name, name_len);
	free(maps);
	return ln->oom ? tl_error("out of memory") : r;
}
