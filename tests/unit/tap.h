/* SPDX-License-Identifier: MIT */
/* Minimal TAP producer for unit tests: plan, ok/is, diagnostics, skip. */
#ifndef CXLBED_TAP_H
#define CXLBED_TAP_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int tap_n, tap_failed, tap_planned;

static inline void plan(int n)
{
	printf("1..%d\n", n);
	fflush(stdout);
	tap_planned = 1;
}

/* Before any plan only: after one, a skip is `ok N # SKIP why` (skip()). */
static inline void plan_skip_all(const char *why)
{
	if (tap_planned) {
		printf("not ok %d - plan_skip_all(\"%s\") after the plan; "
		       "skip each test instead\n", ++tap_n, why);
		exit(1);
	}
	printf("1..0 # SKIP %s\n", why);
	exit(0);
}

static inline int ok(int cond, const char *fmt, ...)
{
	va_list ap;

	printf("%sok %d - ", cond ? "" : "not ", ++tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	if (!cond)
		tap_failed++;
	return cond;
}

static inline void diag(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

#define is_int(got, want, ...) \
	(ok((long long)(got) == (long long)(want), __VA_ARGS__) ? 1 : \
	 (diag("  got %lld, want %lld", (long long)(got), (long long)(want)), 0))
static inline int is_str(const char *got, const char *want, const char *fmt, ...)
{
	int cond = got && want && !strcmp(got, want);
	va_list ap;

	printf("%sok %d - ", cond ? "" : "not ", ++tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	if (!cond) {
		tap_failed++;
		diag("  got '%s', want '%s'", got ? got : "(null)", want ? want : "(null)");
	}
	fflush(stdout);
	return cond;
}

static inline void skip(const char *why) { printf("ok %d # SKIP %s\n", ++tap_n, why); }

static inline int done_testing(void) { return tap_failed ? 1 : 0; }

#endif
