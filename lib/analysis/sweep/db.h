/*
 * db.h - the results database of `threadlens sweep`: an SQLite file with
 * one row per run, its parameters and its figures (docs/SWEEP.md,
 * "The results database", gives the schema; PRAGMA user_version is its
 * version, 1).
 *
 * A database holds any number of sweeps; a sweep is identified by its
 * specification's text, so running the same specification again resumes
 * its sweep: runs already stored (done or failed) are not repeated.  Each
 * run is stored in one transaction, whole or not at all, so an interrupted
 * sweep leaves only finished runs behind.
 */
#ifndef TL_SWEEP_DB_H
#define TL_SWEEP_DB_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/sweep/measure.h"
#include "analysis/sweep/spec.h"

#define TL_SWEEP_DB_VERSION 1

struct tl_sweep_db;

/* One run, done or failed. */
struct tl_sweep_run_info {
	size_t combination; /* 0-based (tl_spec_combination) */
	long rep;           /* 1-based */
	const char *command;
	int failed;
	const char *error;   /* failed: why, one line */
	int exit_status;     /* the command's: its exit code, 128 + the signal that killed it, -1 none */
	const char *started; /* UTC, ISO 8601 */
	uint64_t elapsed_ns; /* the recording's length */
	const char *trace;   /* the kept trace's path, or NULL */
	uint64_t events, marks;
	const char *host, *kernel;
};

/*
 * Open (or create) the database at path and find or add the sweep of this
 * specification.  0, or -1 with tl_error set ("results database PATH: ..."
 * with SQLite's reason: a read-only file, a full disk, not a database, a
 * newer schema).
 */
int tl_sweep_db_open(const char *path, const char *spec_path, const char *spec_text, const struct tl_spec *s,
                     struct tl_sweep_db **out);

/* The sweep's id, and how many of its runs the database had when opened. */
int64_t tl_sweep_db_sweep(const struct tl_sweep_db *db);
uint64_t tl_sweep_db_stored(const struct tl_sweep_db *db);

/* 1 if the run (combination, rep) of this sweep is stored, 0 if not, -1 with tl_error set. */
int tl_sweep_db_has(struct tl_sweep_db *db, size_t combination, long rep);

/*
 * Store a run: its row, its parameters (vals: tl_spec_combination's) and,
 * unless it failed, its figures m.  0, or -1 with tl_error set (nothing of
 * the run is stored then).
 */
int tl_sweep_db_add(struct tl_sweep_db *db, const struct tl_spec *s, const struct tl_spec_value **vals,
                    const struct tl_sweep_run_info *ri, const struct tl_sweep_measure *m);

void tl_sweep_db_close(struct tl_sweep_db *db);

/* ---- for the readers of a results database (results.c, results_admit.c) ---- */

struct sqlite3;

/*
 * Set tl_error for an SQLite failure on the results database at path:
 * "results database PATH: not an SQLite database", or SQLite's reason,
 * after `what` when not NULL.  Returns -1.
 */
int tl_sweep_db_fail(struct sqlite3 *db, const char *path, const char *what);

/* Open the results database at path read-only; it must exist (SQLite would make it).  0, or -1 with tl_error set; close *db either way. */
int tl_sweep_db_open_read(const char *path, struct sqlite3 **db);

#endif
