/*
 * db.c - the results database (db.h) on SQLite.
 *
 * Invariants: every statement is prepared once at open and reset after
 * each use; a run goes in with all its rows inside one transaction
 * (BEGIN IMMEDIATE ... COMMIT, ROLLBACK on any error), so a reader never
 * sees half a run and a crash leaves none.
 */
#include "analysis/sweep/db.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/errors.h"
#include "timeline/states.h"

static const char schema[] =
        "CREATE TABLE IF NOT EXISTS sweeps(\n"
        "  id INTEGER PRIMARY KEY, spec_path TEXT NOT NULL, spec TEXT NOT NULL UNIQUE, name TEXT NOT NULL,\n"
        "  combinations INTEGER NOT NULL, repeat INTEGER NOT NULL, created TEXT NOT NULL);\n"
        "CREATE TABLE IF NOT EXISTS runs(\n"
        "  id INTEGER PRIMARY KEY, sweep INTEGER NOT NULL REFERENCES sweeps(id),\n"
        "  combination INTEGER NOT NULL, rep INTEGER NOT NULL, command TEXT NOT NULL,\n"
        "  status TEXT NOT NULL CHECK(status IN ('done', 'failed')), error TEXT, exit_status INTEGER,\n"
        "  started TEXT NOT NULL, elapsed_ns INTEGER, trace TEXT, events INTEGER, lost INTEGER,\n"
        "  marks INTEGER, marks_lost INTEGER, host TEXT, kernel TEXT,\n"
        "  UNIQUE(sweep, combination, rep));\n"
        "CREATE TABLE IF NOT EXISTS params(\n"
        "  run INTEGER NOT NULL REFERENCES runs(id), name TEXT NOT NULL, value TEXT NOT NULL, num REAL,\n"
        "  PRIMARY KEY(run, name));\n"
        "CREATE TABLE IF NOT EXISTS modules(\n"
        "  run INTEGER NOT NULL REFERENCES runs(id), span TEXT NOT NULL, rate_hz REAL NOT NULL,\n"
        "  count INTEGER NOT NULL, cpu_mean_ns REAL, cpu_sd_ns REAL, ci_low_ns REAL, ci_high_ns REAL,\n"
        "  range_low_ns INTEGER, range_high_ns INTEGER, cpu_p50_ns INTEGER, cpu_p99_ns INTEGER,\n"
        "  elapsed_mean_ns REAL, irq_mean_ns REAL, utilization REAL,\n"
        "  len_min_ns INTEGER, len_p50_ns INTEGER, len_p90_ns INTEGER, len_p99_ns INTEGER,\n"
        "  len_p999_ns INTEGER, len_max_ns INTEGER,\n"
        "  PRIMARY KEY(run, span));\n"
        "CREATE TABLE IF NOT EXISTS frames(\n"
        "  run INTEGER PRIMARY KEY REFERENCES runs(id), frames INTEGER NOT NULL, fps REAL,\n"
        "  latency_mean_ns INTEGER, latency_p50_ns INTEGER, latency_p99_ns INTEGER, latency_max_ns INTEGER);\n"
        "CREATE TABLE IF NOT EXISTS thread_states(\n"
        "  run INTEGER NOT NULL REFERENCES runs(id), tid INTEGER NOT NULL, pid INTEGER NOT NULL,\n"
        "  name TEXT NOT NULL, state TEXT NOT NULL, ns INTEGER NOT NULL,\n"
        "  PRIMARY KEY(run, tid, state));\n";

enum { Q_HAS, Q_RUN, Q_PARAM, Q_MODULE, Q_FRAMES, Q_STATE, Q__COUNT };

static const char *const queries[Q__COUNT] = {
	"SELECT 1 FROM runs WHERE sweep = ?1 AND combination = ?2 AND rep = ?3",
	("INSERT INTO runs(sweep, combination, rep, command, status, error, exit_status, started, elapsed_ns,\n"
	 "  trace, events, lost, marks, marks_lost, host, kernel)\n"
	 "VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16)"),
	"INSERT INTO params(run, name, value, num) VALUES(?1, ?2, ?3, ?4)",
	("INSERT INTO modules VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17,\n"
	 "  ?18, ?19, ?20, ?21)"),
	"INSERT INTO frames VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7)",
	"INSERT INTO thread_states VALUES(?1, ?2, ?3, ?4, ?5, ?6)",
};

struct tl_sweep_db {
	sqlite3 *db;
	char *path;
	sqlite3_stmt *q[Q__COUNT];
	int64_t sweep;
	uint64_t stored;
};

int tl_sweep_db_fail(sqlite3 *db, const char *path, const char *what)
{
	if (db && sqlite3_errcode(db) == SQLITE_NOTADB)
		return tl_error("results database %s: not an SQLite database", path);
	return tl_error("results database %s: %s%s%s", path, what ? what : "", what ? ": " : "",
	                db ? sqlite3_errmsg(db) : "out of memory");
}

int tl_sweep_db_open_read(const char *path, sqlite3 **db)
{
	*db = NULL;
	if (access(path, F_OK) != 0) /* sqlite would create it */
		return tl_error_errno("cannot read the results database %s", path);
	if (sqlite3_open_v2(path, db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK)
		return tl_sweep_db_fail(*db, path, NULL);
	return 0;
}

static int db_error(struct tl_sweep_db *d, const char *what)
{
	return tl_sweep_db_fail(d->db, d->path, what);
}

static int exec(struct tl_sweep_db *d, const char *sql, const char *what)
{
	return sqlite3_exec(d->db, sql, NULL, NULL, NULL) == SQLITE_OK ? 0 : db_error(d, what);
}

/* The one integer a query returns (-1 when it returns no row). */
static int64_t one_int(struct tl_sweep_db *d, const char *sql, const char *text)
{
	sqlite3_stmt *st;
	int64_t v = -1;

	if (sqlite3_prepare_v2(d->db, sql, -1, &st, NULL) != SQLITE_OK)
		return -2;
	if (text)
		sqlite3_bind_text(st, 1, text, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

static int find_sweep(struct tl_sweep_db *d, const char *spec_path, const char *spec_text, const struct tl_spec *s)
{
	sqlite3_stmt *st;
	int rc;

	d->sweep = one_int(d, "SELECT id FROM sweeps WHERE spec = ?1", spec_text);
	if (d->sweep == -2)
		return db_error(d, "cannot read it");
	if (d->sweep < 0) {
		if (sqlite3_prepare_v2(d->db,
		                       "INSERT INTO sweeps(spec_path, spec, name, combinations, repeat, created)\n"
		                       "VALUES(?1, ?2, ?3, ?4, ?5, strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))",
		                       -1, &st, NULL) != SQLITE_OK)
			return db_error(d, "cannot write to it");
		sqlite3_bind_text(st, 1, spec_path, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 2, spec_text, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 3, s->name, -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 4, (int64_t)tl_spec_combinations(s));
		sqlite3_bind_int64(st, 5, s->repeat);
		rc = sqlite3_step(st);
		sqlite3_finalize(st);
		if (rc != SQLITE_DONE)
			return db_error(d, "cannot write to it");
		d->sweep = sqlite3_last_insert_rowid(d->db);
	}
	{
		char sql[96];
		snprintf(sql, sizeof(sql), "SELECT count(*) FROM runs WHERE sweep = %lld", (long long)d->sweep);
		d->stored = (uint64_t)one_int(d, sql, NULL);
	}
	return 0;
}

int tl_sweep_db_open(const char *path, const char *spec_path, const char *spec_text, const struct tl_spec *s,
                     struct tl_sweep_db **out)
{
	struct tl_sweep_db *d = calloc(1, sizeof(*d));
	int64_t version;

	*out = NULL;
	if (!d || !(d->path = strdup(path))) {
		free(d);
		return tl_error("out of memory");
	}
	if (sqlite3_open_v2(path, &d->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) != SQLITE_OK) {
		db_error(d, "cannot open it");
		goto fail;
	}
	sqlite3_busy_timeout(d->db, 5000);
	version = one_int(d, "PRAGMA user_version", NULL);
	if (version == -2) {
		db_error(d, "cannot read it");
		goto fail;
	}
	if (version > TL_SWEEP_DB_VERSION) {
		tl_error("results database %s: version %lld, newer than this threadlens reads (%d)", path,
		         (long long)version, TL_SWEEP_DB_VERSION);
		goto fail;
	}
	if (exec(d, "BEGIN IMMEDIATE", "cannot write to it") < 0 || exec(d, schema, "cannot write to it") < 0 ||
	    exec(d, "PRAGMA user_version = 1", "cannot write to it") < 0 ||
	    find_sweep(d, spec_path, spec_text, s) < 0 || exec(d, "COMMIT", "cannot write to it") < 0)
		goto fail;
	for (int i = 0; i < Q__COUNT; i++)
		if (sqlite3_prepare_v2(d->db, queries[i], -1, &d->q[i], NULL) != SQLITE_OK) {
			db_error(d, "cannot prepare its statements");
			goto fail;
		}
	*out = d;
	return 0;
fail:
	tl_sweep_db_close(d);
	return -1;
}

int64_t tl_sweep_db_sweep(const struct tl_sweep_db *db)
{
	return db->sweep;
}

uint64_t tl_sweep_db_stored(const struct tl_sweep_db *db)
{
	return db->stored;
}

int tl_sweep_db_has(struct tl_sweep_db *d, size_t combination, long rep)
{
	sqlite3_stmt *st = d->q[Q_HAS];
	int rc;

	sqlite3_bind_int64(st, 1, d->sweep);
	sqlite3_bind_int64(st, 2, (int64_t)combination);
	sqlite3_bind_int64(st, 3, rep);
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return db_error(d, "cannot read it");
	return rc == SQLITE_ROW;
}

/* Step a bound insert, then reset it.  0, or -1. */
static int insert(struct tl_sweep_db *d, sqlite3_stmt *st)
{
	int rc = sqlite3_step(st);

	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return rc == SQLITE_DONE ? 0 : -1;
}

static void bind_u64(sqlite3_stmt *st, int i, uint64_t v)
{
	sqlite3_bind_int64(st, i, v > INT64_MAX ? INT64_MAX : (int64_t)v);
}

static int add_run(struct tl_sweep_db *d, const struct tl_sweep_run_info *ri, const struct tl_sweep_measure *m,
                   int64_t *run)
{
	sqlite3_stmt *st = d->q[Q_RUN];

	sqlite3_bind_int64(st, 1, d->sweep);
	sqlite3_bind_int64(st, 2, (int64_t)ri->combination);
	sqlite3_bind_int64(st, 3, ri->rep);
	sqlite3_bind_text(st, 4, ri->command, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 5, ri->failed ? "failed" : "done", -1, SQLITE_STATIC);
	if (ri->error)
		sqlite3_bind_text(st, 6, ri->error, -1, SQLITE_STATIC);
	if (ri->exit_status >= 0)
		sqlite3_bind_int(st, 7, ri->exit_status);
	sqlite3_bind_text(st, 8, ri->started, -1, SQLITE_STATIC);
	bind_u64(st, 9, ri->elapsed_ns);
	if (ri->trace)
		sqlite3_bind_text(st, 10, ri->trace, -1, SQLITE_STATIC);
	bind_u64(st, 11, ri->events);
	if (m) {
		bind_u64(st, 12, m->lost);
		bind_u64(st, 14, m->marks_lost);
	}
	bind_u64(st, 13, ri->marks);
	sqlite3_bind_text(st, 15, ri->host, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 16, ri->kernel, -1, SQLITE_STATIC);
	if (insert(d, st) < 0)
		return -1;
	*run = sqlite3_last_insert_rowid(d->db);
	return 0;
}

static int add_params(struct tl_sweep_db *d, int64_t run, const struct tl_spec *s, const struct tl_spec_value **vals)
{
	sqlite3_stmt *st = d->q[Q_PARAM];

	for (size_t i = 0; i < s->nattrs; i++) {
		if (!vals[i])
			continue;
		sqlite3_bind_int64(st, 1, run);
		sqlite3_bind_text(st, 2, s->attrs[i].name, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 3, vals[i]->str, -1, SQLITE_STATIC);
		if (vals[i]->is_num)
			sqlite3_bind_double(st, 4, vals[i]->num);
		if (insert(d, st) < 0)
			return -1;
	}
	return 0;
}

static int add_figures(struct tl_sweep_db *d, int64_t run, const struct tl_sweep_measure *m)
{
	sqlite3_stmt *st = d->q[Q_MODULE];

	for (size_t i = 0; i < m->nmodules; i++) {
		const struct tl_sweep_module *mo = &m->modules[i];
		int k = 1;
		sqlite3_bind_int64(st, k++, run);
		sqlite3_bind_text(st, k++, mo->span, -1, SQLITE_STATIC);
		sqlite3_bind_double(st, k++, mo->rate_hz);
		bind_u64(st, k++, mo->count);
		if (mo->count) {
			sqlite3_bind_double(st, k++, mo->cpu_mean_ns);
			sqlite3_bind_double(st, k++, mo->cpu_sd_ns);
			if (mo->has_ci) {
				sqlite3_bind_double(st, k, mo->ci_low_ns);
				sqlite3_bind_double(st, k + 1, mo->ci_high_ns);
			}
			k += 2;
			bind_u64(st, k++, mo->range_low_ns);
			bind_u64(st, k++, mo->range_high_ns);
			bind_u64(st, k++, mo->cpu_p50_ns);
			bind_u64(st, k++, mo->cpu_p99_ns);
			sqlite3_bind_double(st, k++, mo->elapsed_mean_ns);
			sqlite3_bind_double(st, k++, mo->irq_mean_ns);
			sqlite3_bind_double(st, k++, mo->utilization);
			bind_u64(st, k++, mo->len_min_ns);
			for (int p = 0; p < 4; p++)
				bind_u64(st, k++, mo->len_pct_ns[p]);
			bind_u64(st, k++, mo->len_max_ns);
		}
		if (insert(d, st) < 0)
			return -1;
	}
	st = d->q[Q_FRAMES];
	sqlite3_bind_int64(st, 1, run);
	bind_u64(st, 2, m->frames);
	if (m->frames) {
		sqlite3_bind_double(st, 3, m->fps);
		bind_u64(st, 4, m->latency_mean_ns);
		bind_u64(st, 5, m->latency_p50_ns);
		bind_u64(st, 6, m->latency_p99_ns);
		bind_u64(st, 7, m->latency_max_ns);
	}
	if (insert(d, st) < 0)
		return -1;
	st = d->q[Q_STATE];
	for (size_t i = 0; i < m->nthreads; i++)
		for (unsigned s = 0; s < TL_ST__COUNT; s++) {
			const struct tl_sweep_thread *t = &m->threads[i];
			if (!t->state_ns[s])
				continue;
			sqlite3_bind_int64(st, 1, run);
			sqlite3_bind_int(st, 2, t->tid);
			sqlite3_bind_int(st, 3, t->pid);
			sqlite3_bind_text(st, 4, t->name, -1, SQLITE_STATIC);
			sqlite3_bind_text(st, 5, tl_state_name(s), -1, SQLITE_STATIC);
			bind_u64(st, 6, t->state_ns[s]);
			if (insert(d, st) < 0)
				return -1;
		}
	return 0;
}

int tl_sweep_db_add(struct tl_sweep_db *d, const struct tl_spec *s, const struct tl_spec_value **vals,
                    const struct tl_sweep_run_info *ri, const struct tl_sweep_measure *m)
{
	int64_t run;

	if (exec(d, "BEGIN IMMEDIATE", "cannot write to it") < 0)
		return -1;
	if (add_run(d, ri, ri->failed ? NULL : m, &run) < 0 || add_params(d, run, s, vals) < 0 ||
	    (!ri->failed && m && add_figures(d, run, m) < 0)) {
		db_error(d, "cannot store a run");
		sqlite3_exec(d->db, "ROLLBACK", NULL, NULL, NULL);
		return -1;
	}
	return exec(d, "COMMIT", "cannot store a run");
}

void tl_sweep_db_close(struct tl_sweep_db *d)
{
	if (!d)
		return;
	for (int i = 0; i < Q__COUNT; i++)
		sqlite3_finalize(d->q[i]);
	sqlite3_close(d->db);
	free(d->path);
	free(d);
}
