/*
 * errors.h - how library code reports failure without printing or exiting.
 *
 * A library function that fails returns -1 (or NULL) and leaves one message
 * here, in a thread-local buffer.  Command code fetches it with
 * tl_error_msg() and prints it as "threadlens: <msg>".  Messages follow
 * git's rules: lowercase, no full stop, the failing thing first and the
 * subject in quotes, e.g. "cannot read 'x.tl': not a threadlens trace (bad
 * magic at offset 0)".
 */
#ifndef TL_ERRORS_H
#define TL_ERRORS_H

#include <stdarg.h>

/* Set the message (printf-style).  Always returns -1, so `return tl_error(...)` works. */
int tl_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Same, with ": strerror(errno)" appended. */
int tl_error_errno(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Prefix the current message with "<prefix>: ", to add context on the way up. */
int tl_error_prefix(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The last message of this thread; "" if none.  Valid until the next tl_error*(). */
const char *tl_error_msg(void);

#endif
