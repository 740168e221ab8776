/*
 * cli.h - what the subcommands share: the command table entry, error and
 * usage printing, and small option parsers.
 *
 * Only command code prints and chooses exit statuses.  Exit statuses:
 * 0 success, 1 the job failed (bad input, I/O, missing privilege),
 * 2 bad usage (unknown option, missing argument).
 */
#ifndef TL_CLI_H
#define TL_CLI_H

#include <stdint.h>
#include <stdio.h>

struct cli_command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary; /* one line for `threadlens --help` */
};

/* Every subcommand: argv[0] is the subcommand's name. */
int cmd_record(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_import(int argc, char **argv);
int cmd_dump(int argc, char **argv);
int cmd_hist(int argc, char **argv);
int cmd_frames(int argc, char **argv);
int cmd_util(int argc, char **argv);
int cmd_profile(int argc, char **argv);
int cmd_predict(int argc, char **argv);
int cmd_calibrate(int argc, char **argv);
int cmd_sweep(int argc, char **argv);
int cmd_results(int argc, char **argv);
int cmd_sql(int argc, char **argv);
int cmd_diagnose(int argc, char **argv);
int cmd_critical(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_archive(int argc, char **argv);
int cmd_html(int argc, char **argv);

/* "threadlens: <msg>" on stderr.  Returns 1 (the failure exit status). */
int cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* "threadlens: <the library's last error>" on stderr.  Returns 1. */
int cli_lib_error(void);

/* "threadlens: warning: <msg>" on stderr. */
void cli_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * For getopt's '?' case: getopt already printed its message; add a hint
 * "see 'threadlens <cmd> --help'" and return 2.
 */
int cli_usage_error(const char *cmd);

/* Parse "1.5", "250ms", "2s", "10us", "100ns" into nanoseconds.  -1 if bad. */
int64_t cli_parse_duration_ns(const char *s);

/* Parse a time for --from/--to: seconds from trace start ("1.5", "250ms"). */
int cli_parse_time_ns(const char *s, int64_t *out);

/* Parse "12,13,20" into out[0..max); returns the count, or -1 if bad. */
int cli_parse_int_list(const char *s, int *out, int max);

/* 1 if stderr is a terminal (progress is shown only then). */
int cli_stderr_is_tty(void);

/* "threadlens: invalid OPT 'VALUE' (WANT)" and the usage hint.  Returns 2. */
int cli_bad_value(const char *cmd, const char *opt, const char *value, const char *want);

/*
 * --from (is_to 0) or --to (is_to 1) TIME into run's window, for the
 * commands that read one trace.  0, or 2 after cli_bad_value()'s line.
 */
struct tl_run;
int cli_window_arg(const char *cmd, int is_to, const char *arg, struct tl_run *run);

/*
 * The thread selection of the commands that read one trace: --pid (is_tid
 * 0) or --tid (is_tid 1) LIST into ids, which run then points at (so ids
 * lives as long as run); --preempt-window DURATION into run.  0, or 2
 * after cli_bad_value()'s line.
 */
#define CLI_MAX_IDS 1024
struct cli_ids {
	int pids[CLI_MAX_IDS], tids[CLI_MAX_IDS];
};
int cli_ids_arg(const char *cmd, int is_tid, const char *arg, struct tl_run *run, struct cli_ids *ids);
int cli_preempt_window_arg(const char *cmd, const char *arg, struct tl_run *run);

/*
 * The commands that read one trace: after getopt, exactly one argument is
 * left.  0 with *path set, else the message and 2.  Also checks that the
 * window from --from/--to is not empty (to_ns < 0: no --to).
 */
int cli_trace_args(const char *cmd, int argc, char **argv, int first, int64_t from_ns, int64_t to_ns,
                   const char **path);

/*
 * "threadlens: analysing 42%" on stderr for long reads, when it is a
 * terminal: struct cli_progress p = { .what = "analysing", .last = -1 },
 * pass &p as the ctx of cli_progress_show (cli_run_progress() does it for
 * a run); cli_progress_end() clears it.  With .passes set, the line names
 * the run's pass: "threadlens: reading, pass 2  42%".
 */
struct cli_progress {
	const char *what;
	int last; /* last pass * 1000 + percentage shown, -1 before the first */
	int shown;
	int passes;               /* say which pass of the run is being read */
	const struct tl_run *run; /* set by cli_run_progress() */
};
void cli_progress_show(double fraction, void *ctx);
void cli_progress_end(struct cli_progress *p);

/*
 * The skeleton that every command analysing one trace shares, around
 * tl_NAME_analyze(&run, ...) (docs/HACKING.md):
 *
 *   cli_run_progress(&run, &prog);   progress, when stderr is a terminal
 *   rc = tl_NAME_analyze(&run, ...);
 *   cli_progress_end(&prog);
 *   tl_run_close(&run);
 *   cli_run_warnings(&run, "states near the gaps are uncertain");
 *   ... cli_output_open(), the writer, cli_output_close() ...
 *   tl_run_release(&run);
 *
 * cli_run_warnings() prints the reader's warnings, then, if the kernel lost
 * events and lost_note is not NULL, "the kernel dropped N events; NOTE".
 */
struct tl_run;
void cli_run_progress(struct tl_run *run, struct cli_progress *p);
void cli_run_warnings(const struct tl_run *run, const char *lost_note);

/*
 * Calls of span `name` that ran in inlined copies of a probed function
 * (record --func, TL_EVF_INLINED) have no duration.  When it has spans
 * (have_spans): a warning that those calls are not in the output, if there
 * are any; returns 0.  When it has none: why, as an error (fatal) or a
 * warning, and 1; 0 and nothing printed if it has no inlined calls either.
 */
int cli_inlined_calls(const struct tl_run *run, const char *name, int have_spans, int fatal);

/* Open -o FILE for writing (stdout when path is NULL); NULL after printing the error. */
FILE *cli_output_open(const char *path);

/*
 * Text that fits a terminal: --width COLS (60 to 1000) into *width, or 2
 * after the usage message; and the terminal's width when the output goes
 * to one (no -o, stdout a terminal), else 0 (the writer's default).
 */
int cli_width_arg(const char *cmd, const char *arg, int *width);
int cli_terminal_width(const char *output);

/*
 * Finish the output: write_failed is the writer's result (non-zero: its
 * tl_error says why).  Closes a file, and removes it if writing failed.
 * Returns 0, or 1 after the message.
 */
int cli_output_close(FILE *out, const char *path, int write_failed);

/* Close and remove an output file that will not be written after all (no message). */
void cli_output_abandon(FILE *out, const char *path);

/*
 * The output named after the trace: its path without ".tl", plus ext
 * (".html"); malloc'd, to free.  NULL after the message when the trace is
 * stdin ("-": then -o is needed) or memory ran out.
 */
char *cli_output_beside(const char *cmd, const char *trace, const char *ext);

#endif
