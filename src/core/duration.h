/* SPDX-License-Identifier: BSD-2-Clause */
/* duration.h -- "500ms", "90s", "10m", "1h30m", "2d" and plain seconds, in ms. */
#ifndef LR_DURATION_H
#define LR_DURATION_H

#include <stddef.h>

/* Largest accepted duration: 366 days, far beyond any lock lifetime and
 * far from overflowing a long long of milliseconds. */
#define DURATION_MAX_MS (366LL * 24 * 3600 * 1000)

/* A setting (a duration or a count) that was not given: the default applies. */
#define LR_UNSET (-1)

/* Parse s into *ms. Units (ms, s, m, h, d) appear at most once each, from
 * largest to smallest ("1h30m", not "30m1h"); a bare number is seconds.
 * Returns 0, or -1 if s is not a duration of 0..DURATION_MAX_MS. */
int	duration_parse(const char *s, long long *ms);

/* Write ms as the shortest string duration_parse() reads back ("1h30m",
 * "1500ms", "0s") into buf of size n. Returns buf. */
char	*duration_format(long long ms, char *buf, size_t n);

/* Write ms for people into buf of size n: "850ms" below a second, then
 * seconds with a tenth ("1.5s", "12s") below a minute, then whole units
 * ("10m", "1h30m"), rounded down. For messages, not for settings: it
 * does not always read back to ms. Returns buf. */
char	*duration_human(long long ms, char *buf, size_t n);

/* Write how far an instant is from now for people, in one unit rounded
 * down, into buf of size n: delta_ms < 0 is past ("12 s ago", "3 min
 * ago", "5 h ago" up to 48 h, "2 days ago"), > 0 to come ("in 12 s",
 * "in 3 min"); under a second either way, "now". Returns buf. */
#define DURATION_RELATIVE_MAX	24	/* the longest it writes, and its NUL */
char	*duration_relative(long long delta_ms, char *buf, size_t n);

/* Milliseconds on the monotonic clock (leases, deadlines), and Unix
 * milliseconds on the wall clock (slots follow it); 0 should
 * clock_gettime(2) fail (clock_error() then says so). */
long long	mono_ms(void);

/* Wait until fd is ready for events (poll(2)'s) or the deadline, a
 * mono_ms() time, has passed. Returns 1 ready, 0 timed out, -1 with
 * errno. */
int	mono_poll(int fd, short events, long long deadline);
long long	real_ms(void);

/* The errno of this thread's last mono_ms() or real_ms() if its
 * clock_gettime(2) failed, else 0: a caller that cannot go on
 * from a time of 0 (the scheduler's timer) asks after reading both. */
int	clock_error(void);

#endif
