/*
 * sqlite.c - the SQLite writer of `threadlens export` (export.h), which
 * `threadlens sql` queries: a trace as tables, as Perfetto's trace
 * processor offers them (docs/SQL.md has the schema).
 *
 *   trace         key, value: path, start_ns, end_ns, ncpus, lost_events, ...
 *   threads       tid, pid, name, first_ns, last_ns
 *   processes     pid, name
 *   thread_state  ts, dur, tid, state, cpu, waker, inferred   (every state interval, UNKNOWN too)
 *   sched         ts, dur, cpu, what, tid, pid, irq           (what each CPU did)
 *   spans         ts, dur, kind, name, tid, frame, depth, complete   (frames, regions, tasks, functions)
 *
 * Times are ns from the trace start, as the CSV tables have them.  The
 * rows go in through prepared statements in one transaction, with the
 * journal off: the database is derived from the trace and made whole or
 * removed (release), so nothing needs rolling back but the file.  Memory
 * is SQLite's page cache (64 MB at most), not the rows.  The indexes
 * (db_indexes) cost a third of the time: a kept database gets them, the
 * one-query database of `threadlens sql` does not (SQLite makes an
 * automatic index when a join needs one).
 */
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/errors.h"
#include "export/export_int.h"
#include "timeline/states.h"

static const char schema[] =
        "CREATE TABLE trace(key TEXT PRIMARY KEY, value);\n"
        "CREATE TABLE threads(tid INTEGER PRIMARY KEY, pid INTEGER, name TEXT, first_ns INTEGER, last_ns INTEGER);\n"
        "CREATE TABLE processes(pid INTEGER PRIMARY KEY, name TEXT);\n"
        "CREATE TABLE thread_state(ts INTEGER NOT NULL, dur INTEGER NOT NULL, tid INTEGER NOT NULL,\n"
        "  state TEXT NOT NULL, cpu INTEGER, waker INTEGER, inferred INTEGER NOT NULL);\n"
        "CREATE TABLE sched(ts INTEGER NOT NULL, dur INTEGER NOT NULL, cpu INTEGER NOT NULL, what TEXT NOT NULL,\n"
        "  tid INTEGER, pid INTEGER, irq INTEGER);\n"
        "CREATE TABLE spans(ts INTEGER NOT NULL, dur INTEGER NOT NULL, kind TEXT NOT NULL, name TEXT,\n"
        "  tid INTEGER, frame INTEGER, depth INTEGER, complete INTEGER NOT NULL);\n";

static const char *const index_sql = "CREATE INDEX thread_state_tid ON thread_state(tid, ts);\n"
                                     "CREATE INDEX sched_cpu ON sched(cpu, ts);\n"
                                     "CREATE INDEX spans_name ON spans(name, ts);\n";

enum { S_STATE, S_SCHED, S_SPAN, S_THREAD, S_PROCESS, S_TRACE, NSTMT };

static const char *const inserts[NSTMT] = {
	"INSERT INTO thread_state VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7)",
	"INSERT INTO sched VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7)",
	"INSERT INTO spans VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
	"INSERT INTO threads VALUES(?1, ?2, ?3, ?4, ?5)",
	"INSERT OR REPLACE INTO processes VALUES(?1, ?2)",
	"INSERT INTO trace VALUES(?1, ?2)",
};

struct sq {
	sqlite3 *db;
	sqlite3_stmt *st[NSTMT];
	int created; /* the file was made here: removed on failure */
};

static const char *const cpu_what[] = { "idle", "thread", "irq", "softirq" };
static const char *const span_kind[] = { "frame", "region", "task", "function" };

static int sq_fail(struct ex *x, const char *what)
{
	struct sq *q = x->w;

	x->failed = 1;
	return tl_error("%s %s: %s", what, x->o->db_path, q && q->db ? sqlite3_errmsg(q->db) : "out of memory");
}

/* Step a bound insert and reset it; on an error the export fails with SQLite's reason. */
static void put(struct ex *x, int s)
{
	struct sq *q = x->w;

	if (sqlite3_step(q->st[s]) != SQLITE_DONE)
		sq_fail(x, "cannot write the database");
	sqlite3_reset(q->st[s]);
}

static int sq_begin(struct ex *x)
{
	struct sq *q = calloc(1, sizeof(*q));

	if (!(x->w = q))
		return tl_error("out of memory");
	if (access(x->o->db_path, F_OK) == 0)
		return tl_error(
		        "the database %s exists: threadlens makes a new one (remove it, or choose another name)",
		        x->o->db_path);
	q->created = 1;
	if (sqlite3_open_v2(x->o->db_path, &q->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) != SQLITE_OK ||
	    sqlite3_exec(q->db,
	                 "PRAGMA page_size = 65536; PRAGMA cache_size = -65536; "
	                 "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; BEGIN",
	                 NULL, NULL, NULL) ||
	    sqlite3_exec(q->db, schema, NULL, NULL, NULL))
		return sq_fail(x, "cannot create the database");
	for (int i = 0; i < NSTMT; i++)
		if (sqlite3_prepare_v2(q->db, inserts[i], -1, &q->st[i], NULL) != SQLITE_OK)
			return sq_fail(x, "cannot create the database");
	return 0;
}

static void sq_interval(struct ex *x, struct ex_thread *t, const struct tl_interval *iv)
{
	sqlite3_stmt *st = ((struct sq *)x->w)->st[S_STATE];

	sqlite3_bind_int64(st, 1, (int64_t)ex_rel(x, iv->start));
	sqlite3_bind_int64(st, 2, (int64_t)(iv->end - iv->start));
	sqlite3_bind_int(st, 3, t->tid);
	sqlite3_bind_text(st, 4, tl_state_name(iv->state), -1, SQLITE_STATIC);
	if (iv->cpu >= 0)
		sqlite3_bind_int(st, 5, iv->cpu);
	else
		sqlite3_bind_null(st, 5);
	if (iv->by)
		sqlite3_bind_int(st, 6, iv->by);
	else
		sqlite3_bind_null(st, 6);
	sqlite3_bind_int(st, 7, iv->inferred_end);
	put(x, S_STATE);
}

static void sq_cpu_interval(struct ex *x, const struct tl_cpu_interval *iv)
{
	sqlite3_stmt *st = ((struct sq *)x->w)->st[S_SCHED];

	sqlite3_bind_int64(st, 1, (int64_t)ex_rel(x, iv->start));
	sqlite3_bind_int64(st, 2, (int64_t)(iv->end - iv->start));
	sqlite3_bind_int(st, 3, iv->cpu);
	sqlite3_bind_text(st, 4, iv->what < 4 ? cpu_what[iv->what] : "?", -1, SQLITE_STATIC);
	for (int k = 5; k <= 7; k++)
		sqlite3_bind_null(st, k);
	if (iv->tid)
		sqlite3_bind_int(st, 5, iv->tid);
	if (iv->tgid)
		sqlite3_bind_int(st, 6, iv->tgid);
	if (iv->what == TL_CPU_IRQ || iv->what == TL_CPU_SOFTIRQ)
		sqlite3_bind_int(st, 7, iv->irq);
	put(x, S_SCHED);
}

static void sq_span(struct ex *x, const struct tl_span *sp, const char *name)
{
	sqlite3_stmt *st = ((struct sq *)x->w)->st[S_SPAN];

	sqlite3_bind_int64(st, 1, (int64_t)ex_rel(x, sp->begin));
	sqlite3_bind_int64(st, 2, (int64_t)(sp->end - sp->begin));
	sqlite3_bind_text(st, 3, sp->kind < 4 ? span_kind[sp->kind] : "?", -1, SQLITE_STATIC);
	if (sp->kind == TL_SPAN_FRAME)
		sqlite3_bind_null(st, 4);
	else
		sqlite3_bind_text(st, 4, name, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int(st, 5, sp->tid);
	if (sp->frame >= 0)
		sqlite3_bind_int64(st, 6, sp->frame);
	else
		sqlite3_bind_null(st, 6);
	sqlite3_bind_int(st, 7, sp->depth);
	sqlite3_bind_int(st, 8, sp->complete);
	put(x, S_SPAN);
}

static void trace_row(struct ex *x, const char *key, int64_t v, const char *text)
{
	sqlite3_stmt *st = ((struct sq *)x->w)->st[S_TRACE];

	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	if (text)
		sqlite3_bind_text(st, 2, text, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_int64(st, 2, v);
	put(x, S_TRACE);
}

static int sq_end(struct ex *x)
{
	struct sq *q = x->w;
	const struct tl_run *r = x->run;
	struct ex_thread *t;
	size_t pos = 0;

	while ((t = tl_tidmap_next(&x->threads, &pos))) {
		sqlite3_stmt *st = q->st[S_THREAD];
		if (!t->last)
			continue; /* no state inside the window (named by an event only) */
		sqlite3_bind_int(st, 1, t->tid);
		sqlite3_bind_int(st, 2, t->tgid);
		sqlite3_bind_text(st, 3, t->name, -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 4, (int64_t)ex_rel(x, t->first));
		sqlite3_bind_int64(st, 5, (int64_t)ex_rel(x, t->last));
		put(x, S_THREAD);
		if (t->tid == t->tgid) { /* a process is named by its main thread */
			sqlite3_bind_int(q->st[S_PROCESS], 1, t->tgid);
			sqlite3_bind_text(q->st[S_PROCESS], 2, t->name, -1, SQLITE_STATIC);
			put(x, S_PROCESS);
		}
	}
	trace_row(x, "path", 0, r->path ? r->path : "");
	trace_row(x, "start_ns", (int64_t)r->trace_start, NULL);
	trace_row(x, "end_ns", (int64_t)r->trace_end, NULL);
	trace_row(x, "window_start_ns", (int64_t)ex_rel(x, r->win_start), NULL);
	trace_row(x, "window_end_ns", (int64_t)ex_rel(x, r->win_end), NULL);
	trace_row(x, "ncpus", r->ncpus, NULL);
	trace_row(x, "lost_events", (int64_t)r->lost_total, NULL);
	trace_row(x, "marks_lost", (int64_t)r->spans.marks_lost, NULL);
	trace_row(x, "inferred_switches", (int64_t)r->sched.inferred_switches, NULL);
	if (x->failed)
		return -1;
	if ((x->o->db_indexes && sqlite3_exec(q->db, index_sql, NULL, NULL, NULL)) ||
	    sqlite3_exec(q->db, "COMMIT", NULL, NULL, NULL))
		return sq_fail(x, "cannot write the database");
	return 0;
}

static void sq_release(struct ex *x, int failed)
{
	struct sq *q = x->w;

	if (!q)
		return;
	for (int i = 0; i < NSTMT; i++)
		sqlite3_finalize(q->st[i]);
	sqlite3_close(q->db);
	if (failed && q->created)
		unlink(x->o->db_path);
	free(q);
	x->w = NULL;
}

const struct ex_writer tl_ex_sqlite = {
	.begin = sq_begin,
	.interval = sq_interval,
	.cpu_interval = sq_cpu_interval,
	.span = sq_span,
	.end = sq_end,
	.release = sq_release,
	.want_unknown = 1,
};
