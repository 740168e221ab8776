/*
 * results_admit.c - tl_results_admission(): HeiPOET's admission test fed
 * from a sweep's database (results.h) instead of a trace: each module's P
 * at the parameter values asked for.
 *
 * Invariant: the runs are selected with bound values only (the query text
 * is fixed but for the number of parameter tests); a run counts when every
 * `at` matches one of its parameters, by text or by number.
 */
#include "analysis/sweep/results.h"

#include <sqlite3.h>
#include <stdlib.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "analysis/cpuuse/cpuuse.h"
#include "analysis/sweep/db.h"
#include "base/errors.h"
#include "output/fmt.h"
#include "output/json.h"

/* The query for nat parameter tests, into sql. */
static void build_query(char *sql, size_t cap, size_t nat)
{
	size_t n = (size_t)snprintf(sql, cap,
	                            "SELECT count(*), sum(m.count), sum(m.count * m.cpu_mean_ns), max(m.cpu_p99_ns)\n"
	                            "FROM modules m JOIN runs u ON u.id = m.run\n"
	                            "WHERE u.sweep = ?1 AND u.status = 'done' AND m.span = ?2 AND m.count > 0\n"
	                            "  AND (SELECT count(*) FROM params p WHERE p.run = u.id AND (0");
	for (size_t i = 0; i < nat && n < cap; i++) /* ?3 + 3i: name, value as text, value as a number */
		n += (size_t)snprintf(sql + n, cap - n, " OR (p.name = ?%zu AND (p.value = ?%zu OR p.num = ?%zu))",
		                      3 + 3 * i, 4 + 3 * i, 5 + 3 * i);
	snprintf(sql + n, cap - n, ")) = %zu", nat);
}

static int newest_sweep(sqlite3 *db, int64_t *sweep)
{
	sqlite3_stmt *st;
	int rc = -1;

	if (sqlite3_prepare_v2(db, "SELECT max(id) FROM sweeps", -1, &st, NULL) != SQLITE_OK)
		return -1;
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL) {
		*sweep = sqlite3_column_int64(st, 0);
		rc = 0;
	}
	sqlite3_finalize(st);
	return rc;
}

int tl_results_admission(const char *path, int64_t sweep, const struct tl_results_at *at, size_t nat,
                         const struct tl_cpuuse_spec *specs, size_t nspecs, struct tl_cpuuse_result *r,
                         struct tl_results_admit_src *src, int64_t *sweep_id)
{
	char sql[4096];
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	int rc = -1;

	memset(r, 0, sizeof(*r));
	r->worst_pct = 99;
	if (nat > TL_RESULTS_MAX_AT)
		return tl_error("at most %d parameter values", TL_RESULTS_MAX_AT);
	if (!(r->spans = calloc(nspecs ? nspecs : 1, sizeof(*r->spans))))
		return tl_error("out of memory");
	if (tl_sweep_db_open_read(path, &db) < 0)
		goto out;
	if (!sweep && newest_sweep(db, &sweep) < 0) {
		tl_error("results database %s holds no sweep", path);
		goto out;
	}
	*sweep_id = sweep;
	build_query(sql, sizeof(sql), nat);
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		goto db_fail;
	for (size_t k = 0; k < nspecs; k++) {
		struct tl_cpuuse_span *s = &r->spans[k];
		int64_t runs;
		sqlite3_reset(st);
		sqlite3_bind_int64(st, 1, sweep);
		sqlite3_bind_text(st, 2, specs[k].name, -1, SQLITE_STATIC);
		for (size_t i = 0; i < nat; i++) {
			char *end;
			double v = strtod(at[i].value, &end);
			sqlite3_bind_text(st, (int)(3 + 3 * i), at[i].name, -1, SQLITE_STATIC);
			sqlite3_bind_text(st, (int)(4 + 3 * i), at[i].value, -1, SQLITE_STATIC);
			if (end != at[i].value && !*end)
				sqlite3_bind_double(st, (int)(5 + 3 * i), v);
			else
				sqlite3_bind_null(st, (int)(5 + 3 * i));
		}
		if (sqlite3_step(st) != SQLITE_ROW)
			goto db_fail;
		runs = sqlite3_column_int64(st, 0);
		if (!runs) {
			tl_error("sweep %lld has no run done that measured '%s'%s", (long long)sweep, specs[k].name,
			         nat ? " at those parameter values" : "");
			goto out;
		}
		if (!(s->name = strdup(specs[k].name))) {
			tl_error("out of memory");
			goto out;
		}
		r->nspans++;
		s->kind = -1;
		s->rate_hz = specs[k].rate_hz;
		s->period_ns = specs[k].rate_hz > 0 ? (uint64_t)(1e9 / specs[k].rate_hz + 0.5) : specs[k].period_ns;
		s->cpu.count = (uint64_t)sqlite3_column_int64(st, 1);
		s->cpu.mean = sqlite3_column_double(st, 2) / (double)s->cpu.count;
		s->worst_ns = (uint64_t)sqlite3_column_int64(st, 3);
		src[k].runs = (uint64_t)runs;
		src[k].instances = s->cpu.count;
	}
	rc = tl_cpuuse_admission_compute(r);
	goto out;
db_fail:
	tl_sweep_db_fail(db, path, NULL);
out:
	sqlite3_finalize(st);
	sqlite3_close(db);
	return rc;
}

int tl_results_admission_write_text(FILE *f, const char *path, int64_t sweep, const struct tl_results_at *at,
                                    size_t nat, const struct tl_cpuuse_result *r,
                                    const struct tl_results_admit_src *src)
{
	char a[32], b[32];

	fprintf(f, "threadlens util: admission from the results database %s, sweep %lld", path, (long long)sweep);
	for (size_t i = 0; i < nat; i++)
		fprintf(f, "%s%s=%s", i ? " " : ", at ", at[i].name, at[i].value);
	fputc('\n', f);
	for (size_t k = 0; k < r->nspans; k++)
		fprintf(f,
		        "  %s: P mean %s over %" PRIu64 " instances of %" PRIu64
		        " run%s; worst case %s (their largest p99)\n",
		        r->spans[k].name, tl_fmt_dur_sig(r->spans[k].cpu.mean, 4, a, sizeof(a)), src[k].instances,
		        src[k].runs, src[k].runs == 1 ? "" : "s",
		        tl_fmt_dur_sig((double)r->spans[k].worst_ns, 4, b, sizeof(b)));
	fputc('\n', f);
	return tl_cpuuse_write_admission_text(f, r, 0);
}

int tl_results_admission_write_json(FILE *f, const char *path, int64_t sweep, const struct tl_results_at *at,
                                    size_t nat, const struct tl_cpuuse_result *r,
                                    const struct tl_results_admit_src *src)
{
	struct tl_json j;

	tl_json_init(&j, f, TL_JSON_PRETTY);
	tl_json_begin_object(&j, TL_JSON_BLOCK);
	tl_json_kv_string(&j, "schema", "threadlens-util-admission");
	tl_json_kv_int(&j, "version", 1);
	tl_json_kv_string(&j, "database", path);
	tl_json_kv_int(&j, "sweep", sweep);
	tl_json_key(&j, "at");
	tl_json_begin_object(&j, TL_JSON_INLINE);
	for (size_t i = 0; i < nat; i++)
		tl_json_kv_string(&j, at[i].name, at[i].value);
	tl_json_end_object(&j);
	tl_json_key(&j, "modules");
	tl_json_begin_array(&j, TL_JSON_BLOCK);
	for (size_t k = 0; k < r->nspans; k++) {
		tl_json_begin_object(&j, TL_JSON_INLINE);
		tl_json_kv_string(&j, "name", r->spans[k].name);
		tl_json_kv_double(&j, "rate_hz", r->spans[k].rate_hz, 6);
		tl_json_kv_uint(&j, "runs", src[k].runs);
		tl_json_kv_uint(&j, "instances", src[k].instances);
		tl_json_kv_uint(&j, "p_mean_ns", (uint64_t)llround(r->spans[k].cpu.mean));
		tl_json_kv_uint(&j, "p_worst_ns", r->spans[k].worst_ns);
		tl_json_end_object(&j);
	}
	tl_json_end_array(&j);
	tl_cpuuse_json_admission(&j, r);
	tl_json_end_object(&j);
	return tl_json_finish(&j);
}
