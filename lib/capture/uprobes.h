/*
 * uprobes.h - `record --func`: uprobes on the entry and the return of
 * functions in unmodified binaries, as dynamic tracepoints of the recorder.
 *
 * For each function the recorder is asked for, the symbol is resolved to a
 * file offset (elfsym.h) and two uprobe events are created through tracefs'
 * uprobe_events, in a group of our own, threadlens_<recorder pid>:
 *
 *   p:threadlens_1234/NAME     /abs/path:0xOFFSET    entry
 *   r:threadlens_1234/NAME_ret /abs/path:0xOFFSET    return (a uretprobe)
 *
 * From then on they are ordinary tracepoints with ids and format files:
 * the decode table learns them as dynamic kinds (tp_decode.h) that make
 * FUNC_ENTRY / FUNC_EXIT events named after the function, and they are
 * opened on every CPU into the recorder's rings like the others.
 *
 * Lifetime: the events exist from tl_uprobes_open() to tl_uprobes_close(),
 * which the recorder calls on every way out (end, error, Ctrl-C) after
 * closing the perf events.  A recorder that was killed cannot clean up, so
 * tl_uprobes_open() first removes the groups of recorders that are gone.
 *
 * The parts that need neither root nor tracefs (parsing a --func item,
 * naming events, finding stale groups) are public so that tests reach them.
 */
#ifndef TL_UPROBES_H
#define TL_UPROBES_H

#include <stddef.h>
#include <stdint.h>

struct tl_tp_table;
struct tl_perf_set;

/* One probed function. */
struct tl_uprobe_func {
	char path[1024];       /* absolute path of the file the probe is on */
	char symbol[128];      /* as the user gave it */
	char label[192];       /* the event name in the trace: "symbol", or "file:symbol" for another file */
	uint64_t offset;       /* file offset of the entry */
	char event[64];        /* tracefs event name of the entry probe; the return probe's adds "_ret" */
	int entry_id, exit_id; /* tracepoint ids once created, else -1 */
	int inlined;           /* 1: the entry of an inlined copy (symbols/dwinline.h): no return probe, exit_id -1 */
	char note[320];        /* the first probe of an item that DWARF found inlined: what was done, for a warning */
};

/*
 * Resolve one --func item: "SYMBOL" (in default_file, the recorded
 * command's executable; NULL when there is none) or "FILE:SYMBOL" (FILE a
 * path or a library name, see tl_elfsym_find_file()).  Fills f->path,
 * symbol, label and offset; the label is plain "SYMBOL" when FILE is the
 * default file itself, else "<file name>:SYMBOL" ("libc.so.6:usleep").
 * Returns 0, or -1 with tl_error set.
 */
int tl_uprobes_resolve(const char *item, const char *default_file, struct tl_uprobe_func *f);

/*
 * The executable a command runs, as execvp() would find it (argv0 with a
 * '/', else the first executable file of that name in $PATH), as an
 * absolute path into out.  Returns 0, or -1 with tl_error set.
 */
int tl_uprobes_command_path(const char *argv0, char *out, size_t len);

/*
 * A tracefs event name for a label: letters, digits and '_' only, not
 * starting with a digit, at most 48 characters.  (Names that still clash
 * get a "_<n>" suffix when the probes are made.)
 */
void tl_uprobes_event_name(const char *label, char *out, size_t len);

/*
 * The stale lines of a uprobe_events text: a threadlens_<pid> group whose
 * recorder is gone (is_alive(pid) returns 0) or is `self` (our pid now, so
 * its old owner is dead).  For each, fn gets "GROUP/EVENT".  Returns how
 * many there were.
 */
int tl_uprobes_stale(const char *text, int self, int (*is_alive)(int pid), void (*fn)(const char *ge, void *ctx),
                     void *ctx);

struct tl_uprobes;

/*
 * What to probe (from `threadlens record --func`): the --func arguments,
 * and where a plain SYMBOL (no FILE:) is looked up: the recorded command,
 * else the executable of the first attached process.
 */
struct tl_uprobes_spec {
	const char *const *funcs; /* each "SYMBOL", "FILE:SYMBOL" or a comma-separated list of them */
	int nfuncs;
	const char *command; /* the recorded command as given (argv[0]), or NULL */
	int pid;             /* else: the first process attached to (-p), or 0 */
};

/*
 * Resolve every function of spec->funcs (items as in tl_uprobes_resolve(),
 * each string possibly a comma-separated list), remove stale groups,
 * create the probes in tracefs (`tracing` is its directory) and add them to
 * the decode table t.  Returns the set, or NULL with tl_error set and
 * nothing left in tracefs.  Nothing to do (no funcs) is not an error: a set
 * with no probes comes back.  Close with tl_uprobes_close().
 */
struct tl_uprobes *tl_uprobes_open(const char *tracing, const struct tl_uprobes_spec *spec, struct tl_tp_table *t);

/*
 * The same resolution without tracefs, for the eBPF back end, which
 * attaches its own uprobes (capture/bpf_rec.h): the functions and their
 * offsets, nothing created.  NULL with tl_error set.  tl_uprobes_close()
 * frees it.
 */
struct tl_uprobes *tl_uprobes_plan(const struct tl_uprobes_spec *spec);

/* Remove the uprobe groups of recorders that are gone (tracefs at `tracing`); what fails stays. */
void tl_uprobes_clean_stale(const char *tracing);

/* Number of probed functions. */
int tl_uprobes_count(const struct tl_uprobes *u);

/* Function i (0 <= i < count). */
const struct tl_uprobe_func *tl_uprobes_func(const struct tl_uprobes *u, int i);

/*
 * Open both probes of every function on each CPU of set, into that CPU's
 * ring (which then owns the fds).  Returns 0, or -1 with tl_error set.
 */
int tl_uprobes_attach(struct tl_uprobes *u, struct tl_perf_set *set);

/*
 * Remove the probes from tracefs and free u (NULL is fine).  Call after
 * the perf events on them are closed: the kernel keeps a probe in use
 * until then.  A probe that cannot be removed is reported through warn
 * (may be NULL) and left for the next recording to clean up.
 */
void tl_uprobes_close(struct tl_uprobes *u, void (*warn)(void *ctx, const char *msg), void *ctx);

#endif
