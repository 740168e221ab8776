/*
 * csv.c - the CSV writer of `threadlens export` (export.h): three tables,
 * RFC 4180 (comma-separated, a header line, fields with a comma, quote or
 * line break in double quotes, quotes doubled).
 *
 *   PREFIX-intervals.csv  tid,pid,thread,state,start_ns,end_ns,duration_ns,cpu,by,inferred_end
 *   PREFIX-spans.csv      kind,name,tid,pid,thread,frame,begin_ns,end_ns,duration_ns,depth,complete
 *   PREFIX-threads.csv    tid,pid,thread,first_ns,last_ns,<state>_ns for every state but unknown
 *
 * With intervals_only (`report --csv=intervals`), just the first table,
 * to the caller's stream.
 *
 * Times are ns from the trace start.  cpu is -1 when the state has none,
 * frame -1 when the span belongs to none; by is the waker or preemptor
 * (0 unknown, -1 an interrupt, -2 a device's interrupt, as in the JSON).
 * A text field that starts with = + - @ gets a leading ' so that a
 * spreadsheet shows it instead of running it as a formula.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/errors.h"
#include "export/export_int.h"

enum { T_INTERVALS, T_SPANS, T_THREADS, NTABLES };
static const char *const table_names[NTABLES] = { "intervals", "spans", "threads" };

struct csv {
	FILE *f[NTABLES];
	char *path[NTABLES];
	int borrowed; /* intervals_only: f[T_INTERVALS] is the caller's */
};

static void field(FILE *f, const char *s)
{
	int quote = strpbrk(s, ",\"\r\n") != NULL;

	if (!quote && !strchr("=+-@", s[0] ? s[0] : 'x')) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	if (strchr("=+-@", s[0] ? s[0] : 'x'))
		fputc('\'', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

static void csv_interval(struct ex *x, struct ex_thread *t, const struct tl_interval *iv)
{
	FILE *f = ((struct csv *)x->w)->f[T_INTERVALS];

	fprintf(f, "%d,%d,", t->tid, t->tgid);
	field(f, t->name);
	fprintf(f, ",%s,%llu,%llu,%llu,%d,%d,%d\n", tl_state_name(iv->state), (unsigned long long)ex_rel(x, iv->start),
	        (unsigned long long)ex_rel(x, iv->end), (unsigned long long)(iv->end - iv->start), iv->cpu, iv->by,
	        iv->inferred_end);
}

static void csv_span(struct ex *x, const struct tl_span *sp, const char *name)
{
	FILE *f = ((struct csv *)x->w)->f[T_SPANS];
	struct ex_thread *t = ex_thread_of(x, sp->tid);

	if (!t || !f)
		return;
	fprintf(f, "%s,", tl_span_kind_name(sp->kind));
	field(f, name);
	fprintf(f, ",%d,%d,", t->tid, t->tgid);
	field(f, t->name);
	fprintf(f, ",%lld,%llu,%llu,%llu,%u,%u\n", (long long)sp->frame, (unsigned long long)ex_rel(x, sp->begin),
	        (unsigned long long)ex_rel(x, sp->end), (unsigned long long)(sp->end - sp->begin), sp->depth,
	        sp->complete);
}

static int csv_begin(struct ex *x)
{
	struct csv *c = calloc(1, sizeof(*c));

	if (!c)
		return tl_error("out of memory");
	x->w = c;
	if (x->o->intervals_only) {
		/* one table, to the caller's stream (not ours to close) */
		c->f[T_INTERVALS] = x->o->out;
		c->borrowed = 1;
		fputs("tid,pid,thread,state,start_ns,end_ns,duration_ns,cpu,by,inferred_end\n", x->o->out);
		return 0;
	}
	for (int i = 0; i < NTABLES; i++) {
		size_t n = strlen(x->o->prefix) + 32;

		if (!(c->path[i] = malloc(n)))
			return tl_error("out of memory");
		snprintf(c->path[i], n, "%s-%s.csv", x->o->prefix, table_names[i]);
		if (!(c->f[i] = fopen(c->path[i], "w")))
			return tl_error("cannot create %s: %s", c->path[i], strerror(errno));
	}
	fputs("tid,pid,thread,state,start_ns,end_ns,duration_ns,cpu,by,inferred_end\n", c->f[T_INTERVALS]);
	fputs("kind,name,tid,pid,thread,frame,begin_ns,end_ns,duration_ns,depth,complete\n", c->f[T_SPANS]);
	fputs("tid,pid,thread,first_ns,last_ns", c->f[T_THREADS]);
	for (int s = 0; s < TL_ST__COUNT; s++)
		if (s != TL_ST_UNKNOWN)
			fprintf(c->f[T_THREADS], ",%s_ns", tl_state_name(s));
	fputc('\n', c->f[T_THREADS]);
	return 0;
}

static int csv_end(struct ex *x)
{
	struct csv *c = x->w;
	FILE *f = c->f[T_THREADS];
	struct ex_thread *t;
	size_t pos = 0;

	if (c->borrowed) {
		int bad = ferror(c->f[T_INTERVALS]);
		c->f[T_INTERVALS] = NULL;
		return bad ? tl_error("cannot write the intervals table") : 0;
	}
	while ((t = tl_tidmap_next(&x->threads, &pos))) {
		if (!t->last)
			continue; /* no state inside the window (named by an event only) */
		fprintf(f, "%d,%d,", t->tid, t->tgid);
		field(f, t->name);
		fprintf(f, ",%llu,%llu", (unsigned long long)ex_rel(x, t->first),
		        (unsigned long long)ex_rel(x, t->last));
		for (int s = 0; s < TL_ST__COUNT; s++)
			if (s != TL_ST_UNKNOWN)
				fprintf(f, ",%llu", (unsigned long long)t->state_ns[s]);
		fputc('\n', f);
	}
	for (int i = 0; i < NTABLES; i++) {
		int bad = ferror(c->f[i]);

		if (fclose(c->f[i]) != 0 || bad) {
			c->f[i] = NULL;
			return tl_error("cannot write %s", c->path[i]);
		}
		c->f[i] = NULL;
	}
	return 0;
}

static void csv_release(struct ex *x, int failed)
{
	struct csv *c = x->w;

	if (!c)
		return;
	for (int i = 0; i < NTABLES && !c->borrowed; i++) {
		if (c->f[i])
			fclose(c->f[i]);
		if (failed && c->path[i])
			unlink(c->path[i]);
		free(c->path[i]);
	}
	free(c);
	x->w = NULL;
}

const struct ex_writer tl_ex_csv = {
	.begin = csv_begin,
	.interval = csv_interval,
	.span = csv_span,
	.end = csv_end,
	.release = csv_release,
};
