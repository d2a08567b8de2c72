/* SPDX-License-Identifier: BSD-2-Clause */
/* duration.c -- parse and format durations; pure, libc only. */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <time.h>
#include <string.h>

#include "core/duration.h"

static const struct unit {
	const char	*name;
	long long	 ms;
} units[] = {			/* largest first: the order they must appear in */
	{ "d",  24LL * 3600 * 1000 },
	{ "h",  3600LL * 1000 },
	{ "m",  60LL * 1000 },
	{ "s",  1000 },
	{ "ms", 1 },
};
#define NUNITS (sizeof(units) / sizeof(units[0]))

/* Match the unit at *p (longest name wins, so "ms" is not "m"); return its
 * index and advance *p, or -1. */
static int
unit_match(const char **p)
{
	int best = -1;
	size_t bestlen = 0;

	for (size_t i = 0; i < NUNITS; i++) {
		size_t len = strlen(units[i].name);
		if (strncmp(*p, units[i].name, len) == 0 && len > bestlen) {
			best = (int)i;
			bestlen = len;
		}
	}
	*p += bestlen;
	return best;
}

int
duration_parse(const char *s, long long *ms)
{
	const char *p = s;
	long long total = 0;
	int next = 0;		/* first unit index still allowed */

	if (s == NULL || *s == '\0')
		return -1;
	while (*p != '\0') {
		long long n = 0;
		const char *digits = p;
		int u;

		while (*p >= '0' && *p <= '9') {
			n = n * 10 + (*p++ - '0');
			if (n > DURATION_MAX_MS)
				return -1;
		}
		if (p == digits)
			return -1;
		if (*p == '\0' && digits == s) {	/* bare number: seconds */
			total = n * 1000;
			break;
		}
		if ((u = unit_match(&p)) < next)
			return -1;	/* no unit, or out of order / repeated */
		next = u + 1;
		if (n > DURATION_MAX_MS / units[u].ms)
			return -1;
		total += n * units[u].ms;
		if (total > DURATION_MAX_MS)
			return -1;
	}
	if (total > DURATION_MAX_MS)
		return -1;
	*ms = total;
	return 0;
}

char *
duration_format(long long ms, char *buf, size_t n)
{
	size_t off = 0;

	if (n == 0)
		return buf;
	buf[0] = '\0';
	if (ms <= 0) {
		snprintf(buf, n, "0s");
		return buf;
	}
	for (size_t i = 0; i < NUNITS && ms > 0; i++) {
		long long q = ms / units[i].ms;
		if (q == 0)
			continue;
		/* 1500ms reads better than 1s500ms */
		if (units[i].ms == 1000 && ms % 1000 != 0) {
			off += snprintf(buf + off, off < n ? n - off : 0, "%lldms", ms);
			break;
		}
		off += snprintf(buf + off, off < n ? n - off : 0, "%lld%s", q,
		    units[i].name);
		ms -= q * units[i].ms;
	}
	return buf;
}

char *
duration_human(long long ms, char *buf, size_t n)
{
	if (ms < 1000)
		snprintf(buf, n, "%lldms", ms > 0 ? ms : 0);
	else if (ms < 60000 && ms % 1000 >= 100)
		snprintf(buf, n, "%lld.%llds", ms / 1000, ms % 1000 / 100);
	else
		duration_format(ms / 1000 * 1000, buf, n);
	return buf;
}

char *
duration_relative(long long delta_ms, char *buf, size_t n)
{
	/* the magnitude, unsigned: LLONG_MIN has none as a long long */
	unsigned long long a = delta_ms < 0 ? 0ULL - (unsigned long long)delta_ms :
	    (unsigned long long)delta_ms, v;
	const char *unit;

	if (a < 1000) {
		snprintf(buf, n, "now");
		return buf;
	}
	if (a < 60000)
		v = a / 1000, unit = "s";
	else if (a < 3600000)
		v = a / 60000, unit = "min";
	else if (a < 48 * 3600000ULL)	/* "36 h" says more than "1 day" */
		v = a / 3600000, unit = "h";
	else
		v = a / 86400000, unit = "days";
	snprintf(buf, n, delta_ms < 0 ? "%llu %s ago" : "in %llu %s", v, unit);
	return buf;
}

static _Thread_local int clock_errno;	/* clock_error()'s, this thread's */

/* CLOCK_REALTIME and CLOCK_MONOTONIC, which clock_gettime(2) fails for
 * only with a bad pointer or an unknown clock: neither can happen here.
 * Should it fail all the same, 0 (the epoch, or the boot), never what
 * the stack held, and clock_error() says why. */
static long long
clock_ms(clockid_t id)
{
	struct timespec ts = { 0, 0 };

	if (clock_gettime(id, &ts) != 0) {
		clock_errno = errno != 0 ? errno : EINVAL;
		return 0;
	}
	clock_errno = 0;
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

int
clock_error(void)
{
	return clock_errno;
}

long long
mono_ms(void)
{
	return clock_ms(CLOCK_MONOTONIC);
}

long long
real_ms(void)
{
	return clock_ms(CLOCK_REALTIME);
}

int
mono_poll(int fd, short events, long long deadline)
{
	for (;;) {
		long long left = deadline - mono_ms();
		struct pollfd pfd = { .fd = fd, .events = events };
		int n;

		if (left <= 0)
			return 0;
		n = poll(&pfd, 1, left > INT_MAX ? INT_MAX : (int)left);
		if (n >= 0)
			return n;
		if (errno != EINTR)
			return -1;
	}
}
