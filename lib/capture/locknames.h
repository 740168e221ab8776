/*
 * locknames.h - a name for a futex word, read off the live process when
 * the recorder first sees a thread wait on it: what the report and
 * diagnose show for a lock instead of its address (FUTEX_NAME, format 1.10).
 *
 * A word inside an ELF file's image (a global or static mutex: .data,
 * .bss) is named by the data object that holds it, with the file's base
 * name: "queue_lock (app)", "pool+0x40 (libfoo.so)", or the file and the
 * link-time address when no symbol holds it ("app+0x4028").  A word in
 * another mapping gets the mapping's name ("[heap]", "[stack]", or
 * "[anon]": malloc's arenas of other threads, thread stacks): where the
 * lock lives, if not which.  The process's /proc/PID/maps is read, and
 * each file's data symbols once (symbols/symfile.h, cached by path).
 *
 * tl_locknames_resolve() is pure on a maps text and a loader (unit
 * tests); tl_locknames_note() reads /proc.
 */
#ifndef TL_LOCKNAMES_H
#define TL_LOCKNAMES_H

#include <stddef.h>
#include <stdint.h>

#include "symbols/symfile.h"

#define TL_LOCKNAME_MAX 96       /* a name's bytes, with its NUL */
#define TL_LOCKNAMES_PER_PROC 64 /* words named per process: a mutex per object would be thousands */

/*
 * The name of word addr given a process's maps text (len bytes) and a
 * loader of a file's data symbols (NULL: it cannot be read).  1 with name
 * set, 0 when addr lies in no mapping.
 */
int tl_locknames_resolve(const char *maps, size_t len, uint64_t addr,
                         const struct tl_symfile *(*load)(void *ctx, const char *path, size_t path_len), void *ctx,
                         char *name, size_t name_len);

struct tl_locknames;

/* An empty set; NULL with tl_error set. */
struct tl_locknames *tl_locknames_new(void);
void tl_locknames_free(struct tl_locknames *ln);

/*
 * Word addr of process pid, seen waited on: 1 with its name when it is new
 * and could be named (the process's maps read now), 0 when it was seen
 * before, the process has TL_LOCKNAMES_PER_PROC names already, or it
 * cannot be named (the process is gone); -1 out of memory.
 */
int tl_locknames_note(struct tl_locknames *ln, int32_t pid, uint64_t addr, char *name, size_t name_len);

#endif
