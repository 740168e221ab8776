/*
 * locks_write.c - the report's LOCKS table (locks.h): the most waited-on
 * locks, one line each, as `perf lock contention` lists them.  The
 * waiters' column takes what the width leaves; under 20 columns (a width
 * under 97) the waiters go to a line of their own under each lock's.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "analysis/locks/locks.h"
#include "output/fmt.h"

#define LOCK_W 24 /* the lock column: its name (or address) */

/*
 * The lock's waiters with their shares of its time, as many as fit in w
 * columns with ", ..." for the rest; the first's name is cut to fit if it
 * must.  Names cleaned.
 */
static void put_waiters(FILE *f, const struct tl_lock *x, int w)
{
	int used = 0;

	for (size_t i = 0; i < x->nwaiters; i++) {
		char pct[16], clean[4 * TL_NAME_MAX + 8];
		int more = i + 1 < x->nwaiters ? 5 : 0; /* ", ..." */
		int plen = snprintf(pct, sizeof(pct), " %.0f%%",
		                    x->wait_ns ? 100.0 * (double)x->waiters[i].ns / (double)x->wait_ns : 0.0);
		int nlen = (int)tl_fmt_clean_name(x->waiters[i].name, clean, sizeof(clean));
		int n = (i ? 2 : 0) + nlen + plen;

		if (used + n > w - more) {
			if (i) {
				fputs(", ...", f);
				return;
			}
			nlen = w - more - plen; /* the first, cut: "name~ 60%, ..." */
			n = nlen + plen;
		}
		fputs(i ? ", " : "", f);
		tl_fmt_put_name(f, clean, nlen > 1 ? (size_t)nlen : 1);
		fputs(pct, f);
		used += n;
	}
}

const char *tl_lock_label(uint64_t addr, const char *name, char *buf, size_t len)
{
	if (name[0] && name[0] != '[')
		snprintf(buf, len, "%s", name);
	else
		snprintf(buf, len, "%s%s0x%" PRIx64, name, name[0] ? " " : "", addr);
	return buf;
}

size_t tl_locks_write_text(FILE *f, const struct tl_lock_result *r, size_t max, int width)
{
	size_t shown = 0, known = 0;
	int tail = width - (7 + 2 + LOCK_W + 1 + 7 + 9 + 9 + 8 + 8 + 2), below = tail < 20;

	for (size_t i = 0; i < r->n; i++)
		known += r->items[i].addr && r->items[i].waits;
	if (!known)
		return 0;
	if (below) /* under the lock, indented as its name */
		tail = width - 18;
	fprintf(f, "%7s  %-*s %6s %8s %8s %7s %7s%s\n", "pid", LOCK_W, "lock", "waits", "time", "max", "on CPU",
	        "convoy",
	        below        ? ""
	        : tail >= 23 ? "  waiters (share of time)"
	                     : "  waiters");
	for (size_t i = 0; i < r->n && shown < max; i++) {
		const struct tl_lock *x = &r->items[i];
		char label[TL_LOCK_NAME_MAX + 24], b[2][16];
		double all = 0;

		if (!x->addr || !x->waits)
			continue;
		for (unsigned c = 0; c < TL_LH__COUNT; c++)
			all += (double)x->holder_ns[c];
		fprintf(f, "%7d  ", x->pid);
		/* its name, cut to fit, or its address */
		tl_fmt_put_name(f, tl_lock_label(x->addr, x->name, label, sizeof(label)), LOCK_W);
		fprintf(f, " %6" PRIu64 " %8s %8s %6.1f%% %6.1f%%%s", x->waits,
		        tl_fmt_dur(x->wait_ns, b[0], sizeof(b[0])), tl_fmt_dur(x->max_ns, b[1], sizeof(b[1])),
		        all > 0 ? 100.0 * (double)x->holder_ns[TL_LH_RUNNING] / all : 0.0,
		        all > 0 ? 100.0 * (double)x->convoy_ns / all : 0.0, below ? "\n         waiters  " : "  ");
		put_waiters(f, x, tail);
		putc('\n', f);
		shown++;
	}
	return known;
}
