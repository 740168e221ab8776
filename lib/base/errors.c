/*
 * errors.c - the thread-local "last error" message (see errors.h).
 */
#include "base/errors.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static _Thread_local char last_msg[512];

int tl_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(last_msg, sizeof(last_msg), fmt, ap);
	va_end(ap);
	return -1;
}

int tl_error_errno(const char *fmt, ...)
{
	int saved = errno;
	va_list ap;
	size_t n;

	va_start(ap, fmt);
	vsnprintf(last_msg, sizeof(last_msg), fmt, ap);
	va_end(ap);
	n = strlen(last_msg);
	snprintf(last_msg + n, sizeof(last_msg) - n, ": %s", strerror(saved));
	errno = saved;
	return -1;
}

int tl_error_prefix(const char *fmt, ...)
{
	char prefix[256], joined[sizeof(prefix) + sizeof(last_msg) + 2];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(prefix, sizeof(prefix), fmt, ap);
	va_end(ap);
	snprintf(joined, sizeof(joined), "%s: %s", prefix, last_msg);
	snprintf(last_msg, sizeof(last_msg), "%.*s", (int)sizeof(last_msg) - 1, joined);
	return -1;
}

const char *tl_error_msg(void)
{
	return last_msg;
}
