/*
 * cmd-diagnose.c - `threadlens diagnose`: threading problems in a trace,
 * ranked by what they cost, each with its evidence, cause and fix.
 *
 * Parses options into a tl_run and a tl_diagnose_opts, runs
 * tl_diagnose_analyze() and hands the findings to the text or JSON writer.
 * Exit status: 0 when the diagnosis was printed (with or without
 * findings), 1 when the trace cannot be read or the output cannot be
 * written, 2 for bad usage.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "analysis/diagnose/diagnose.h"

struct diag_args {
	struct tl_run run;
	const char *output;
	int json, width;
	struct tl_diagnose_opts o;
};

enum {
	OPT_JSON = 256,
	OPT_FROM,
	OPT_TO,
	OPT_MIN_COST,
	OPT_LOCK_WAIT,
	OPT_IO_WAIT,
	OPT_STORM_RATE,
	OPT_STORM_BURST,
	OPT_PREEMPT,
	OPT_BUSY,
	OPT_IRQ,
	OPT_IMBALANCE,
	OPT_OVERHEAD,
	OPT_OVERSUB,
	OPT_THROTTLE,
	OPT_AFFINITY,
	OPT_YIELD_SPIN,
	OPT_WIDTH,
};

static const struct option long_options[] = {
	{ "help", no_argument, NULL, 'h' },
	{ "output", required_argument, NULL, 'o' },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "from", required_argument, NULL, OPT_FROM },
	{ "to", required_argument, NULL, OPT_TO },
	{ "min-cost", required_argument, NULL, OPT_MIN_COST },
	{ "lock-wait", required_argument, NULL, OPT_LOCK_WAIT },
	{ "io-wait", required_argument, NULL, OPT_IO_WAIT },
	{ "storm-rate", required_argument, NULL, OPT_STORM_RATE },
	{ "storm-burst", required_argument, NULL, OPT_STORM_BURST },
	{ "preempt", required_argument, NULL, OPT_PREEMPT },
	{ "busy", required_argument, NULL, OPT_BUSY },
	{ "irq", required_argument, NULL, OPT_IRQ },
	{ "imbalance", required_argument, NULL, OPT_IMBALANCE },
	{ "overhead", required_argument, NULL, OPT_OVERHEAD },
	{ "oversub", required_argument, NULL, OPT_OVERSUB },
	{ "throttle", required_argument, NULL, OPT_THROTTLE },
	{ "affinity", required_argument, NULL, OPT_AFFINITY },
	{ "yield-spin", required_argument, NULL, OPT_YIELD_SPIN },
	{ "width", required_argument, NULL, OPT_WIDTH },
	{ NULL, 0, NULL, 0 },
};

static void usage(FILE *out)
{
	fputs("usage: threadlens diagnose [options] FILE\n"
	      "\n"
	      "Threading problems of the recorded program, found from where its threads' time\n"
	      "went, ranked by what they cost; each with the threads involved, the measured\n"
	      "evidence and the threshold it crossed, the likely cause and the usual fix.\n"
	      "A finding whose thread the kernel's own accounting contradicts, or whose trace\n"
	      "lost events, says its numbers are in doubt.  docs/DIAGNOSE.md has every rule.\n"
	      "\n"
	      "detectors: lock-contention, io-bound, wake-storm, preemption-starvation,\n"
	      "migration-storm, single-thread-bottleneck, irq-interference, oversubscription,\n"
	      "priority-inversion, serialized-threads, cpu-throttled, thundering-herd,\n"
	      "affinity-bound, worker-imbalance, thread-churn, yield-spinning,\n"
	      "cpu-saturation (the recorded processes together);\n"
	      "from the parallel regions (tl_region_begin/end, or OpenMP's): barrier-imbalance,\n"
	      "pointless-parallelism; from OpenMP's regions: spin-waiting, task-starvation\n"
	      "\n"
	      "thresholds (defaults in brackets):\n"
	      "      --min-cost DURATION  report nothing that costs less [10ms]\n"
	      "      --lock-wait PCT      lock-contention: SYNC_WAIT, % of a life [20]\n"
	      "      --io-wait PCT        io-bound: IO_WAIT, % of a life [30]\n"
	      "      --preempt PCT        preemption-starvation: READY_PREEMPT, % of life [20]\n"
	      "      --busy PCT           single-thread-bottleneck: on a CPU, % of a life [90]\n"
	      "      --irq PCT            irq-interference: INTERRUPTED, % of its CPU time [10]\n"
	      "      --imbalance PCT      barrier-imbalance: last finish past the mean, % [20];\n"
	      "                           worker-imbalance: time lost to the split, % [20]\n"
	      "      --overhead PCT       pointless-parallelism: waiting per executing, % [100]\n"
	      "      --oversub PCT        oversubscription: over and under the CPUs, % [10]\n"
	      "      --throttle PCT       cpu-throttled: held off idle CPUs, % of wanting [5]\n"
	      "      --affinity PCT       affinity-bound: beside idle excluded CPUs, % [5]\n"
	      "      --yield-spin PCT     yield-spinning: in sched_yield loops, % of CPU [20]\n"
	      "      --storm-rate HZ      wake-storm: voluntary switches per second [1000]\n"
	      "      --storm-burst DURATION\n"
	      "                           wake-storm: median run between switches up to [50us]\n"
	      "      --from TIME, --to TIME\n"
	      "                           the window, from the trace start (1.5, 250ms)\n"
	      "\n"
	      "output:\n"
	      "  -o, --output FILE        write to FILE instead of stdout\n"
	      "      --json               JSON (\"threadlens-diagnose\", docs/JSON.md)\n"
	      "      --width COLS         wrap the text to COLS columns (default: the\n"
	      "                           terminal's, or 100)\n"
	      "\n"
	      "examples:\n"
	      "  threadlens diagnose app.tl\n"
	      "  threadlens diagnose --lock-wait 10 --json app.tl\n",
	      out);
}

static int parse_pct(const char *opt, const char *arg, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	if (errno || end == arg || *end || !(v > 0) || v > 100)
		return cli_bad_value("diagnose", opt, arg, "a percentage above 0, at most 100");
	*out = v;
	return 0;
}

/* Returns 0 to go on, or the exit status (2 usage, -1 after --help). */
static int parse_args(int argc, char **argv, struct diag_args *a)
{
	int64_t v;
	char *end;
	int c;

	a->run.to_ns = -1;
	tl_diagnose_defaults(&a->o);
	optind = 1;
	while ((c = getopt_long(argc, argv, "ho:", long_options, NULL)) != -1) {
		switch (c) {
		case 'h': usage(stdout); return -1;
		case 'o': a->output = optarg; break;
		case OPT_JSON: a->json = 1; break;
		case OPT_WIDTH:
			if (cli_width_arg("diagnose", optarg, &a->width))
				return 2;
			break;
		case OPT_FROM:
		case OPT_TO:
			if (cli_window_arg("diagnose", c == OPT_TO, optarg, &a->run))
				return 2;
			break;
		case OPT_MIN_COST:
			v = cli_parse_duration_ns(optarg);
			if (v < 0)
				return cli_bad_value("diagnose", "--min-cost", optarg, "a duration like 10ms or 0");
			a->o.min_cost_ns = (uint64_t)v;
			break;
		case OPT_LOCK_WAIT:
			if (parse_pct("--lock-wait", optarg, &a->o.lock_wait_pct))
				return 2;
			break;
		case OPT_IO_WAIT:
			if (parse_pct("--io-wait", optarg, &a->o.io_wait_pct))
				return 2;
			break;
		case OPT_PREEMPT:
			if (parse_pct("--preempt", optarg, &a->o.preempt_pct))
				return 2;
			break;
		case OPT_BUSY:
			if (parse_pct("--busy", optarg, &a->o.busy_pct))
				return 2;
			break;
		case OPT_IRQ:
			if (parse_pct("--irq", optarg, &a->o.irq_pct))
				return 2;
			break;
		case OPT_OVERSUB:
			if (parse_pct("--oversub", optarg, &a->o.oversub_pct))
				return 2;
			break;
		case OPT_THROTTLE:
			if (parse_pct("--throttle", optarg, &a->o.throttle_pct))
				return 2;
			break;
		case OPT_AFFINITY:
			if (parse_pct("--affinity", optarg, &a->o.affinity_pct))
				return 2;
			break;
		case OPT_YIELD_SPIN:
			if (parse_pct("--yield-spin", optarg, &a->o.yield_spin_pct))
				return 2;
			break;
		case OPT_IMBALANCE:
			if (parse_pct("--imbalance", optarg, &a->o.imbalance_pct))
				return 2;
			break;
		case OPT_OVERHEAD: /* a ratio in %: may pass 100 */
			errno = 0;
			a->o.overhead_pct = strtod(optarg, &end);
			if (errno || end == optarg || *end || !(a->o.overhead_pct > 0) || isinf(a->o.overhead_pct))
				return cli_bad_value("diagnose", "--overhead", optarg, "a percentage above 0");
			break;
		case OPT_STORM_RATE:
			errno = 0;
			a->o.storm_switches_hz = strtod(optarg, &end);
			if (errno || end == optarg || *end || !(a->o.storm_switches_hz > 0) ||
			    isinf(a->o.storm_switches_hz))
				return cli_bad_value("diagnose", "--storm-rate", optarg, "switches per second above 0");
			break;
		case OPT_STORM_BURST:
			v = cli_parse_duration_ns(optarg);
			if (v <= 0)
				return cli_bad_value("diagnose", "--storm-burst", optarg, "a duration like 50us");
			a->o.storm_burst_ns = (uint64_t)v;
			break;
		default: return cli_usage_error("diagnose");
		}
	}
	return cli_trace_args("diagnose", argc, argv, optind, a->run.from_ns, a->run.to_ns, &a->run.path);
}

int cmd_diagnose(int argc, char **argv)
{
	struct diag_args a = { 0 };
	struct cli_progress prog = { .what = "analysing", .last = -1 };
	struct tl_findings f;
	FILE *out;
	int rc;

	rc = parse_args(argc, argv, &a);
	if (rc)
		return rc < 0 ? 0 : rc;
	cli_run_progress(&a.run, &prog);
	rc = tl_diagnose_analyze(&a.run, &a.o, &f);
	cli_progress_end(&prog);
	tl_run_close(&a.run);
	if (rc) {
		rc = cli_lib_error();
		goto out;
	}
	cli_run_warnings(&a.run, a.json || a.output ? "findings near the gaps are in doubt" : NULL);
	out = cli_output_open(a.output);
	if (!out) {
		rc = 1;
		goto out;
	}
	rc = cli_output_close(
	        out, a.output,
	        a.json ? tl_diagnose_write_json(out, &f)
	               : tl_diagnose_write_text(out, &f, a.width ? a.width : cli_terminal_width(a.output)));
out:
	tl_findings_release(&f);
	tl_run_release(&a.run);
	return rc;
}
