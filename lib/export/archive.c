/*
 * archive.c - the files a trace's samples need, by build ID, as a tar
 * archive (see archive.h).
 *
 * Invariant: an entry is written for each build ID once, from the file
 * profile found it in, its size as that file's when opened.
 */
#include "export/archive.h"

#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/errors.h"
#include "output/tar.h"
#include "symbols/symfile.h"

/* Whether module i's build ID came before i (two paths of one file: /lib and /usr/lib). */
static int seen(const struct tl_profile_result *p, size_t i)
{
	for (size_t k = 0; k < i; k++)
		if (p->modules[k].code && !strcmp(p->modules[k].build_id, p->modules[i].build_id))
			return 1;
	return 0;
}

int tl_archive(struct tl_run *run, FILE *out, struct tl_archive_result *r)
{
	struct tl_profile_opts po = { .cpu = -1 };

	memset(r, 0, sizeof(*r));
	if (tl_profile_analyze(run, &po, &r->prof) < 0)
		return -1;
	for (size_t i = 0; i < r->prof.nmodules; i++) {
		const struct tl_profile_module *m = &r->prof.modules[i];
		char name[TL_BUILD_ID_HEX + 32];
		struct stat st;
		int fd, rc;

		if (!m->build_id[0]) {
			r->no_id++;
			continue;
		}
		if (!m->code || strlen(m->build_id) < 3 || seen(&r->prof, i))
			continue; /* rebuilt or unreadable: in the profile's lists */
		snprintf(name, sizeof(name), ".build-id/%.2s/%s/elf", m->build_id, m->build_id + 2);
		if ((fd = open(m->code, O_RDONLY | O_CLOEXEC)) < 0 || fstat(fd, &st)) {
			rc = tl_error_errno("cannot read '%s'", m->code);
			if (fd >= 0)
				close(fd);
			return rc;
		}
		rc = tl_tar_add_fd(out, name, fd, (uint64_t)st.st_size, (int64_t)st.st_mtime);
		close(fd);
		if (rc)
			return -1;
		r->files++;
		r->bytes += (uint64_t)st.st_size;
	}
	return tl_tar_end(out);
}

void tl_archive_release(struct tl_archive_result *r)
{
	tl_profile_release(&r->prof);
	memset(r, 0, sizeof(*r));
}
