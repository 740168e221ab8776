/*
 * platform.c - the platform file of `threadlens calibrate` and `predict
 * --platform`: JSON, schema "threadlens-platform" (docs/JSON.md).  It
 * holds the machine's identity (so that a prediction can say whose costs
 * it used), every figure with its spread, and which hardware counters the
 * machine has: a missing one is written as false, never guessed.
 */
#include "analysis/predict/predict.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "base/errors.h"
#include "base/readfile.h"
#include "output/json.h"

static void figure_json(struct tl_json *j, const char *key, const struct tl_figure *f)
{
	if (key)
		tl_json_key(j, key);
	tl_json_begin_object(j, TL_JSON_INLINE);
	tl_json_kv_double(j, "median", f->median, 1);
	tl_json_kv_double(j, "min", f->min, 1);
	tl_json_kv_double(j, "max", f->max, 1);
	tl_json_kv_int(j, "reps", f->reps);
	tl_json_end_object(j);
}

/* "model name" of /proc/cpuinfo, or "". */
static void cpu_model(char *out, size_t len)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[256];

	out[0] = 0;
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "model name", 10) && strchr(line, ':')) {
			snprintf(out, len, "%s", strchr(line, ':') + 2);
			out[strcspn(out, "\n")] = 0;
			break;
		}
	if (f)
		fclose(f);
}

int tl_calibration_write_json(FILE *f, const struct tl_calibration *c, const char *counters)
{
	static const char *const known[] = { "cycles",       "instructions",        "cache-references",
		                             "cache-misses", "branch-instructions", "branch-misses" };
	struct tl_json j;
	struct utsname u;
	char host[256] = "", model[256], when[32] = "";
	time_t now = time(NULL);
	struct tm tm;

	gethostname(host, sizeof(host) - 1);
	cpu_model(model, sizeof(model));
	if (uname(&u) != 0)
		memset(&u, 0, sizeof(u));
	if (gmtime_r(&now, &tm))
		strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
	tl_json_init(&j, f, TL_JSON_PRETTY);
	tl_json_begin_object(&j, TL_JSON_BLOCK);
	tl_json_kv_string(&j, "schema", "threadlens-platform");
	tl_json_kv_int(&j, "version", 1);
	tl_json_key(&j, "machine");
	tl_json_begin_object(&j, TL_JSON_INLINE);
	tl_json_kv_string(&j, "hostname", host);
	tl_json_kv_string(&j, "kernel", u.release);
	tl_json_kv_string(&j, "cpu_model", model);
	tl_json_kv_int(&j, "ncpus", c->ncpus);
	tl_json_kv_int(&j, "openmp", c->omp_version);
	tl_json_kv_string(&j, "measured_at", when);
	tl_json_end_object(&j);
	tl_json_kv_int(&j, "reps", c->reps);
	tl_json_key(&j, "costs_ns");
	tl_json_begin_object(&j, TL_JSON_BLOCK);
	for (unsigned k = 0; k < TL_COST__COUNT; k++)
		figure_json(&j, tl_cost_name(k), &c->figures[k]);
	tl_json_end_object(&j);
	tl_json_key(&j, "region_ns");
	tl_json_begin_array(&j, TL_JSON_BLOCK);
	for (int k = 0; k < c->nregion; k++)
		figure_json(&j, NULL, &c->region[k]);
	tl_json_end_array(&j);
	figure_json(&j, "context_switch_ns", &c->context_switch);
	figure_json(&j, "minor_fault_ns", &c->page_fault);
	tl_json_key(&j, "memory_latency_ns");
	tl_json_begin_array(&j, TL_JSON_BLOCK);
	for (int k = 0; k < c->nmem; k++) {
		tl_json_begin_object(&j, TL_JSON_INLINE);
		tl_json_kv_string(&j, "level",
		                  c->mem[k].level ? (c->mem[k].level == 1   ? "l1"
		                                     : c->mem[k].level == 2 ? "l2"
		                                     : c->mem[k].level == 3 ? "l3"
		                                                            : "l4")
		                                  : "memory");
		tl_json_kv_uint(&j, "cache_bytes", c->mem[k].cache_bytes);
		tl_json_kv_uint(&j, "buffer_bytes", c->mem[k].bytes);
		figure_json(&j, "latency", &c->mem[k].latency);
		tl_json_end_object(&j);
	}
	tl_json_end_array(&j);
	tl_json_key(&j,
	            "counters"); /* true: the machine has it; false: it does not (a figure needing it is left out) */
	tl_json_begin_object(&j, TL_JSON_INLINE);
	for (size_t k = 0; k < sizeof(known) / sizeof(known[0]); k++) {
		const char *at = counters ? strstr(counters, known[k]) : NULL;
		size_t kl = strlen(known[k]);
		tl_json_kv_bool(&j, known[k], at && (at == counters || at[-1] == ' ') && (!at[kl] || at[kl] == ','));
	}
	tl_json_end_object(&j);
	tl_json_end_object(&j);
	return tl_json_finish(&j);
}

int tl_platform_load(const char *path, struct tl_platform *pf)
{
	char *buf = NULL;
	size_t len;
	int rc;

	memset(pf, 0, sizeof(*pf));
	rc = tl_read_file(path, 1 << 22, &buf, &len);
	if (rc == TL_READ_OPEN)
		return tl_error_errno("%s", path);
	if (rc)
		return tl_error("platform %s: cannot read it (a platform file is JSON, at most 4 MB)", path);
	rc = -1;
	if (tl_json_check(buf, (size_t)len) < 0) {
		char why[200];
		snprintf(why, sizeof(why), "%s", tl_error_msg());
		tl_error("platform %s: not JSON: %s", path, why);
		goto out;
	}
	{
		double v;
		const char *schema_path[1] = { "version" };
		if (tl_json_get_number(buf, (size_t)len, schema_path, 1, &v) < 0 || v != 1) {
			tl_error("platform %s: not a threadlens platform file of version 1 (threadlens calibrate -o "
			         "FILE)",
			         path);
			goto out;
		}
	}
	for (unsigned k = 0; k < TL_COST__COUNT; k++) {
		const char *p[3] = { "costs_ns", tl_cost_name(k), "median" };
		double v;
		if (tl_json_get_number(buf, (size_t)len, p, 3, &v) < 0 || !(v >= 0) || v > 1e9) {
			tl_error("platform %s: no cost costs_ns.%s.median (0 to 1 s)", path, tl_cost_name(k));
			goto out;
		}
		pf->cost[k] = (uint64_t)llround(v);
	}
	pf->measured = 1;
	rc = 0;
out:
	free(buf);
	return rc;
}
