/*
 * cmd-sql.c - `threadlens sql TARGET QUERY`: SQL over a trace, as
 * Perfetto's trace processor offers it, or over a sweep's results database
 * (docs/SQL.md).
 *
 * A trace is first loaded into SQLite tables by the export writer
 * (lib/export/sqlite.c) in a temporary database, or in --save FILE, which
 * is kept; a database (its first bytes say "SQLite format 3") is queried
 * as it is.  Either is opened read-only for the query: one statement, its
 * rows as a table (column widths from the first rows), CSV or JSON.
 * Exit status: 0 when the query ran, 1 when the target cannot be read or
 * the query is not valid SQL, 2 for bad usage.
 */
#include <errno.h>
#include <getopt.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

#include "base/errors.h"
#include "export/export.h"
#include "output/fmt.h"
#include "output/json.h"

#define WIDTH_ROWS 1000 /* rows read before the table's column widths are fixed */
#define MAX_WIDTH 40    /* a wider cell is cut, with "..." */

enum { OPT_JSON = 256, OPT_CSV, OPT_SAVE, OPT_FROM, OPT_TO };

static const struct option long_options[] = {
	{ "help", no_argument, NULL, 'h' },
	{ "output", required_argument, NULL, 'o' },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "csv", no_argument, NULL, OPT_CSV },
	{ "save", required_argument, NULL, OPT_SAVE },
	{ "from", required_argument, NULL, OPT_FROM },
	{ "to", required_argument, NULL, OPT_TO },
	{ NULL, 0, NULL, 0 },
};

static void usage(FILE *out)
{
	fputs("usage: threadlens sql [options] TARGET QUERY\n"
	      "\n"
	      "Run one SQL statement (SQLite's dialect) over a trace or a results database.\n"
	      "A trace is loaded first into the tables of docs/SQL.md: thread_state (every\n"
	      "state interval, with its waker), sched (what each CPU did), spans (frames,\n"
	      "regions, tasks, functions), threads, processes, trace. A sweep's database\n"
	      "(docs/SWEEP.md) is queried as it is. Times are ns from the trace start.\n"
	      "\n"
	      "options:\n"
	      "      --save FILE.db     keep the tables in FILE.db (sqlite3 can open it)\n"
	      "      --from TIME        load only this window of the trace (1.5, 250ms)\n"
	      "      --to TIME\n"
	      "      --csv              the rows as CSV, a header first\n"
	      "      --json             JSON (\"threadlens-sql\", docs/JSON.md)\n"
	      "  -o, --output FILE      write to FILE instead of stdout\n"
	      "\n"
	      "examples:\n"
	      "  threadlens sql app.tl 'SELECT state, sum(dur) FROM thread_state GROUP BY 1'\n"
	      "  threadlens sql --save app.db app.tl 'SELECT count(*) FROM spans'\n"
	      "  threadlens sql mcast.db 'SELECT * FROM runs'\n",
	      out);
}

struct sql_args {
	struct tl_run run;
	const char *target, *query, *output, *save;
	int json, csv;
};

static int parse_args(int argc, char **argv, struct sql_args *a)
{
	int c;

	a->run.to_ns = -1;
	a->run.all_threads = 1;
	optind = 1;
	while ((c = getopt_long(argc, argv, "ho:", long_options, NULL)) != -1) {
		switch (c) {
		case 'h': usage(stdout); return -1;
		case 'o': a->output = optarg; break;
		case OPT_JSON: a->json = 1; break;
		case OPT_CSV: a->csv = 1; break;
		case OPT_SAVE: a->save = optarg; break;
		case OPT_FROM:
		case OPT_TO:
			if (cli_window_arg("sql", c == OPT_TO, optarg, &a->run))
				return 2;
			break;
		default: return cli_usage_error("sql");
		}
	}
	if (a->json && a->csv) {
		cli_error("--json and --csv: one or the other");
		return cli_usage_error("sql");
	}
	if (argc - optind != 2) {
		cli_error("sql needs a trace or a database, and one query");
		return cli_usage_error("sql");
	}
	a->target = argv[optind];
	a->query = argv[optind + 1];
	return 0;
}

/* 1 if the file at path is an SQLite database, 0 if not, -1 with tl_error set if it cannot be read. */
static int is_database(const char *path)
{
	char head[16] = { 0 };
	FILE *f = fopen(path, "rb");
	size_t n;

	if (!f)
		return tl_error_errno("cannot read %s", path);
	n = fread(head, 1, sizeof(head), f);
	fclose(f);
	return n == sizeof(head) && !memcmp(head, "SQLite format 3", 16);
}

/* Load the trace into db_path.  0, or the exit status after the message. */
static int load(struct sql_args *a, const char *db_path)
{
	struct tl_export_opts o = { .format = TL_EXPORT_SQLITE, .db_path = db_path, .db_indexes = a->save != NULL };
	struct cli_progress prog = { .what = "loading", .last = -1 };
	struct tl_export_counts n;
	int rc;

	a->run.path = a->target;
	cli_run_progress(&a->run, &prog);
	rc = tl_export(&a->run, &o, &n);
	cli_progress_end(&prog);
	tl_run_close(&a->run);
	if (rc)
		return cli_lib_error();
	cli_run_warnings(&a->run, "states near the gaps are uncertain");
	return 0;
}

/* ---- the rows ---- */

struct table {
	int ncol;
	char **cells; /* the buffered rows' cells, ncol a row, until the widths are fixed */
	size_t nrows, cap;
	int *width;
	int fixed; /* the header and the buffered rows are out: print each row as it comes */
};

static char *cell_text(sqlite3_stmt *st, int i)
{
	const unsigned char *t = sqlite3_column_text(st, i);
	char clean[4 * MAX_WIDTH + 8];

	if (!t)
		return strdup("NULL");
	tl_fmt_clean_name((const char *)t, clean, sizeof(clean));
	return strdup(clean);
}

static void print_row(FILE *f, const struct table *t, char *const *cells)
{
	for (int i = 0; i < t->ncol; i++) {
		if ((int)strlen(cells[i]) > t->width[i])
			fprintf(f, "%s%.*s...", i ? "  " : "", t->width[i] - 3, cells[i]);
		else
			fprintf(f, "%s%-*s", i ? "  " : "", i + 1 < t->ncol ? t->width[i] : 0, cells[i]);
	}
	fputc('\n', f);
}

/* The header and the buffered rows, with the widths they set; from now on rows go straight out. */
static void fix_widths(FILE *f, struct table *t, sqlite3_stmt *st)
{
	for (int i = 0; i < t->ncol; i++)
		fprintf(f, "%s%-*s", i ? "  " : "", i + 1 < t->ncol ? t->width[i] : 0, sqlite3_column_name(st, i));
	fputc('\n', f);
	for (size_t r = 0; r < t->nrows; r++)
		print_row(f, t, t->cells + r * (size_t)t->ncol);
	for (size_t i = 0; i < t->nrows * (size_t)t->ncol; i++)
		free(t->cells[i]);
	t->nrows = 0;
	t->fixed = 1;
}

/* Keep a row (its cells now owned by the table) until the widths are fixed.  0, or -1 out of memory. */
static int buffer_row(struct table *t, char **row)
{
	if ((t->nrows + 1) * (size_t)t->ncol > t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 64 * (size_t)t->ncol;
		char **c = realloc(t->cells, cap * sizeof(*c));
		if (!c)
			return -1;
		t->cells = c;
		t->cap = cap;
	}
	memcpy(t->cells + t->nrows++ * (size_t)t->ncol, row, (size_t)t->ncol * sizeof(*row));
	return 0;
}

static int write_text(FILE *f, sqlite3_stmt *st)
{
	struct table t = { .ncol = sqlite3_column_count(st) };
	char **row = calloc((size_t)t.ncol + 1, sizeof(*row));
	uint64_t n = 0;
	int rc = SQLITE_DONE, oom = !row;

	if (!(t.width = calloc((size_t)t.ncol + 1, sizeof(*t.width))))
		oom = 1;
	for (int i = 0; !oom && i < t.ncol; i++)
		t.width[i] = (int)strlen(sqlite3_column_name(st, i));
	while (!oom && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		for (int i = 0; i < t.ncol; i++) {
			int len;
			if (!(row[i] = cell_text(st, i))) {
				oom = 1;
				row[i] = NULL;
				continue;
			}
			len = (int)strlen(row[i]);
			if (!t.fixed && len > t.width[i])
				t.width[i] = len > MAX_WIDTH ? MAX_WIDTH : len;
		}
		if (oom || t.fixed || buffer_row(&t, row) < 0) {
			if (!oom && t.fixed)
				print_row(f, &t, row);
			else
				oom = 1;
			for (int i = 0; i < t.ncol; i++)
				free(row[i]);
		}
		if (++n == WIDTH_ROWS)
			fix_widths(f, &t, st);
	}
	if (!oom && !t.fixed)
		fix_widths(f, &t, st);
	else
		for (size_t i = 0; i < t.nrows * (size_t)t.ncol; i++)
			free(t.cells[i]);
	if (!oom)
		fprintf(f, "(%llu row%s)\n", (unsigned long long)n, n == 1 ? "" : "s");
	free(t.cells);
	free(t.width);
	free(row);
	if (oom)
		return tl_error("out of memory");
	return rc == SQLITE_DONE ? 0 : tl_error("%s", sqlite3_errmsg(sqlite3_db_handle(st)));
}

static int write_csv(FILE *f, sqlite3_stmt *st)
{
	int ncol = sqlite3_column_count(st), rc;

	for (int i = 0; i < ncol; i++)
		tl_fmt_csv_cell(f, sqlite3_column_name(st, i), i == 0);
	fputc('\n', f);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		for (int i = 0; i < ncol; i++) {
			int type = sqlite3_column_type(st, i);
			if (i)
				fputc(',', f);
			if (type == SQLITE_INTEGER)
				fprintf(f, "%lld", (long long)sqlite3_column_int64(st, i));
			else if (type == SQLITE_FLOAT)
				fprintf(f, "%.17g", sqlite3_column_double(st, i));
			else if (type != SQLITE_NULL)
				tl_fmt_csv_cell(f, (const char *)sqlite3_column_text(st, i), 1);
		}
		fputc('\n', f);
	}
	return rc == SQLITE_DONE ? 0 : tl_error("%s", sqlite3_errmsg(sqlite3_db_handle(st)));
}

static int write_json(FILE *f, sqlite3_stmt *st)
{
	int ncol = sqlite3_column_count(st), rc;
	struct tl_json j;

	tl_json_init(&j, f, TL_JSON_PRETTY);
	tl_json_begin_object(&j, TL_JSON_BLOCK);
	tl_json_kv_string(&j, "schema", "threadlens-sql");
	tl_json_kv_int(&j, "version", 1);
	tl_json_key(&j, "columns");
	tl_json_begin_array(&j, TL_JSON_INLINE);
	for (int i = 0; i < ncol; i++)
		tl_json_string(&j, sqlite3_column_name(st, i));
	tl_json_end_array(&j);
	tl_json_key(&j, "rows");
	tl_json_begin_array(&j, TL_JSON_BLOCK);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		tl_json_begin_array(&j, TL_JSON_INLINE);
		for (int i = 0; i < ncol; i++) {
			int type = sqlite3_column_type(st, i);
			if (type == SQLITE_INTEGER)
				tl_json_int(&j, sqlite3_column_int64(st, i));
			else if (type == SQLITE_FLOAT)
				tl_json_double(&j, sqlite3_column_double(st, i), 6);
			else if (type == SQLITE_NULL)
				tl_json_null(&j);
			else
				tl_json_string(&j, (const char *)sqlite3_column_text(st, i));
		}
		tl_json_end_array(&j);
	}
	tl_json_end_array(&j);
	tl_json_end_object(&j);
	if (rc != SQLITE_DONE)
		return tl_error("%s", sqlite3_errmsg(sqlite3_db_handle(st)));
	return tl_json_finish(&j);
}

static int query(struct sql_args *a, const char *db_path)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	const char *tail = NULL;
	FILE *out;
	int rc = 1;

	if (sqlite3_open_v2(db_path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
		cli_error("cannot open the database %s: %s", db_path, db ? sqlite3_errmsg(db) : "out of memory");
		goto out;
	}
	if (sqlite3_prepare_v2(db, a->query, -1, &st, &tail) != SQLITE_OK) {
		cli_error("bad SQL: %s", sqlite3_errmsg(db));
		goto out;
	}
	if (!st) {
		cli_error("the query is empty: one SQL statement is needed");
		goto out;
	}
	while (tail && (*tail == ' ' || *tail == '\n' || *tail == '\t' || *tail == ';'))
		tail++;
	if (tail && *tail) {
		cli_error("one SQL statement at a time: '%.40s' follows the first", tail);
		goto out;
	}
	if (!(out = cli_output_open(a->output)))
		goto out;
	rc = cli_output_close(out, a->output,
	                      a->json  ? write_json(out, st)
	                      : a->csv ? write_csv(out, st)
	                               : write_text(out, st));
out:
	sqlite3_finalize(st);
	sqlite3_close(db);
	return rc;
}

int cmd_sql(int argc, char **argv)
{
	struct sql_args a = { 0 };
	char dir[4096] = "", path[4200];
	const char *db_path;
	int rc, isdb;

	rc = parse_args(argc, argv, &a);
	if (rc)
		return rc < 0 ? 0 : rc;
	if ((isdb = is_database(a.target)) < 0)
		return cli_lib_error();
	if (isdb) {
		if (a.save || a.run.from_ns || a.run.to_ns >= 0) {
			cli_error("%s is a database: --save, --from and --to are for a trace", a.target);
			return cli_usage_error("sql");
		}
		return query(&a, a.target);
	}
	if (a.save) {
		db_path = a.save;
	} else {
		snprintf(dir, sizeof(dir), "%s/threadlens-sql-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
		if (!mkdtemp(dir))
			return cli_error("cannot make a temporary folder %s: %s", dir, strerror(errno));
		snprintf(path, sizeof(path), "%s/trace.db", dir);
		db_path = path;
	}
	rc = load(&a, db_path);
	if (!rc)
		rc = query(&a, db_path);
	if (!a.save) {
		unlink(path);
		rmdir(dir);
	}
	tl_run_release(&a.run);
	return rc;
}
