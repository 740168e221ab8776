/*
 * profile_files.c - the files that hold a trace's sampled code, as
 * profile reads them (profile_int.h).
 *
 * A MAP event names its file by path and, from format 1.14, by build ID.
 * The file at the path is taken when it is the build that ran: its build
 * ID is the recorded one, or none was recorded (an older trace, a file
 * without the note).  Otherwise the recorded build is looked for where
 * perf keeps copies by build ID: its cache, $HOME/.debug/.build-id/xx/
 * yyyy/elf (`perf buildid-cache -a FILE`, or `perf record`, copies a file
 * there).  Not a separate debug file of that build
 * (/usr/lib/debug/.build-id/xx/yyyy.debug): it has the symbols, but its
 * program headers lose the file offsets (objcopy --only-keep-debug zeroes
 * them), which a mapping's offset needs, and none of the code.  A file
 * found nowhere is "rebuilt": no symbols and no bytes are read from
 * the file at its path, since another build's would name the samples
 * wrongly without a word; its addresses are named file+offset, and
 * profile counts their samples and names the file.  So does it for a file
 * that is "unreadable": gone (a trace read on another machine, a path in
 * a container), or no ELF file, and no copy found.
 *
 * Invariants: files[] holds one entry per (path, build ID) of the MAP
 * events; an entry's symbols are read once, on its first lookup; `code` is
 * the path whose bytes are the build that ran (NULL: none known).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "analysis/profile/profile_int.h"
#include "base/grow.h"
#include "symbols/symfile.h"

uint32_t tl_profile_file_of(struct pass *p, const char *path, const char *build_id)
{
	struct file *f;

	for (size_t i = 0; i < p->nfiles; i++)
		if (!strcmp(p->files[i].path, path) && !strcmp(p->files[i].build_id, build_id))
			return (uint32_t)i;
	if (TL_GROW_ZERO(p->files, p->capfiles, p->nfiles + 1) < 0) {
		p->oom = 1;
		return UINT32_MAX;
	}
	f = &p->files[p->nfiles];
	if (!(f->path = strdup(path)) || !(f->build_id = strdup(build_id))) {
		free(f->path);
		f->path = NULL;
		p->oom = 1;
		return UINT32_MAX;
	}
	return (uint32_t)p->nfiles++;
}

/* The vDSO of this process, when the trace was recorded on this kernel: the same code. */
static void load_vdso(struct pass *p, struct tl_symfile *sf)
{
	unsigned long base = getauxval(AT_SYSINFO_EHDR);
	struct utsname u;
	char line[256];
	unsigned long lo, hi;
	size_t size = 0;
	FILE *f;

	if (!base || uname(&u) != 0 || strcmp(u.release, p->run->info.kernel) || !(f = fopen("/proc/self/maps", "r")))
		return;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%lx-%lx", &lo, &hi) == 2 && lo == base && strstr(line, "[vdso]"))
			size = hi - lo;
	fclose(f);
	if (size)
		tl_symfile_load_mem(sf, (const void *)base, size, "[vdso]");
}

/* Load path into f->sf if it is build `id` (or id is ""): 1, else 0 with f->sf empty. */
static int load_build(struct file *f, const char *path, const char *id)
{
	if (tl_symfile_load(&f->sf, path) == 0 && (!id[0] || !strcmp(f->sf.build_id, id)))
		return 1;
	tl_symfile_release(&f->sf);
	memset(&f->sf, 0, sizeof(f->sf));
	return 0;
}

static void find_build(struct file *f)
{
	const char *id = f->build_id, *home = getenv("HOME");
	char path[4096];

	if (load_build(f, f->path, id)) {
		f->code = f->path;
		return;
	}
	if (!id[0] || strlen(id) < 3) {
		f->unreadable = 1; /* and nothing to look for */
		return;
	}
	if (home && home[0]) {
		snprintf(path, sizeof(path), "%s/.debug/.build-id/%.2s/%s/elf", home, id, id + 2);
		if (load_build(f, path, id)) {
			f->code = f->cached = strdup(path); /* NULL (no memory): no code bytes, the symbols still */
			return;
		}
	}
	f->rebuilt = access(f->path, F_OK) == 0;
	f->unreadable = !f->rebuilt;
}

struct file *tl_profile_file(struct pass *p, uint32_t i)
{
	struct file *f = &p->files[i];

	if (!f->tried) {
		f->tried = 1;
		if (f->path[0] == '/')
			find_build(f);
		else if (!strcmp(f->path, "[vdso]"))
			load_vdso(p, &f->sf);
	}
	return f;
}

int tl_profile_file_fd(struct pass *p, uint32_t i)
{
	struct file *f = tl_profile_file(p, i);

	if (!f->fd) {
		int fd = f->code ? open(f->code, O_RDONLY | O_CLOEXEC) : -1;
		f->fd = fd >= 0 ? fd + 1 : -1;
	}
	return f->fd - 1;
}

void tl_profile_files_release(struct pass *p)
{
	for (size_t i = 0; i < p->nfiles; i++) {
		free(p->files[i].path);
		free(p->files[i].build_id);
		free(p->files[i].cached);
		tl_symfile_release(&p->files[i].sf);
		if (p->files[i].fd > 0)
			close(p->files[i].fd - 1);
	}
	free(p->files);
}
