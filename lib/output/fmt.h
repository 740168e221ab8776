/*
 * fmt.h - formatting shared by every writer (report, frames, hist, util...):
 * durations for reading, percentages, and names from the traced program
 * made safe for a terminal or a CSV cell.
 *
 * Names come from the traced program and are hostile: every writer that
 * prints one to a terminal goes through tl_fmt_clean_name() (or the cut and
 * pad helpers built on it), so a thread cannot send escape sequences.
 */
#ifndef TL_FMT_H
#define TL_FMT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* 100 * part / whole, 0 when whole is 0. */
double tl_fmt_pct(uint64_t part, uint64_t whole);

/*
 * A duration, the one style of every writer: the value and its unit with no
 * space between, the unit the largest of ns, us, ms, s in which the value
 * rounds to at least 1, and `digits` significant digits (2 to 9; nanoseconds
 * are always whole, and whole seconds beyond the digits are kept):
 * "850ns", "12.3us", "1.20ms", "1.20s", "1234s" at 3 digits, "12.34us" at 4.
 * Negative values keep their sign.  Writes into buf (at least 24 bytes)
 * and returns it.
 */
const char *tl_fmt_dur_sig(double ns, int digits, char *buf, size_t len);

/* tl_fmt_dur_sig() with three significant digits, for tables. */
const char *tl_fmt_dur(uint64_t ns, char *buf, size_t len);

/*
 * Copy the untrusted name `in` into out[0..len) so that it is safe for a
 * terminal or a CSV cell: control characters (C0, DEL, C1) and invalid
 * UTF-8 bytes become '?'; valid UTF-8 is kept whole (never cut inside a
 * character).  Returns the number of characters (code points) written.
 */
size_t tl_fmt_clean_name(const char *in, char *out, size_t len);

/*
 * The cleaned name cut to at most `cols` characters; a cut name ends in
 * "~".  in may be NULL (empty).  Returns the characters written.
 */
size_t tl_fmt_name_cut(const char *in, size_t cols, char *out, size_t len);

/* Print the cleaned name cut or padded with spaces to exactly `cols` characters. */
void tl_fmt_put_name(FILE *f, const char *in, size_t cols);

/*
 * A CSV text cell (RFC 4180), with its leading comma unless it starts the
 * row: the name cleaned as tl_fmt_clean_name() does, quoted when it holds
 * a comma or a quote (quotes doubled), and a leading = + - @ defused with
 * a quote so that a spreadsheet does not run it as a formula.
 */
void tl_fmt_csv_cell(FILE *f, const char *s, int first);

/*
 * Prose that fits `width` columns: "prefix text", the text cleaned as
 * tl_fmt_clean_name() does (at most 4095 bytes) and wrapped at spaces,
 * each next line indented by the prefix's width; a word longer than a line
 * is cut at its end.  Ends with a newline.  Columns count UTF-8 characters.
 */
void tl_fmt_wrap(FILE *f, const char *prefix, const char *text, int width);

/*
 * The same with items[0..n) (text the caller made safe) for words: each
 * item, spaces and all, stays on one line; one longer than a line passes it.
 */
void tl_fmt_wrap_items(FILE *f, const char *prefix, const char *const *items, size_t n, int width);

#endif
