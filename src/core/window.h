/* SPDX-License-Identifier: BSD-2-Clause */
/* window.h -- the times of day a task may run at (between:, not_between:),
 * read on the wall clock of its zone; pure.
 *
 * A window "HH:MM-HH:MM" holds the wall-clock times from its first, included,
 * to its second, left out: "08:00-18:00" holds 08:00 and 17:59:59, not 18:00,
 * so that "08:00-12:00" and "12:00-18:00" meet without overlapping. A first
 * later than the second wraps midnight ("22:00-06:00"); the two equal is
 * refused (empty, or the whole day: say which by leaving the setting out).
 *
 * An instant is inside when the zone's clock reads a time inside at that
 * instant. On the day the clock jumps forward, the times it skips are read at
 * no instant: a window within the gap holds nothing that day (Berlin,
 * 2026-03-29: "02:00-03:00" never holds), and one across it is shorter by the
 * jump ("01:30-03:30" lasts one hour). On the day it goes back, the times it
 * repeats are read twice: a window over them is longer by the step back
 * (Berlin, 2026-10-25: "02:00-03:00" lasts two hours). */
#ifndef LR_WINDOW_H
#define LR_WINDOW_H

#include <stddef.h>

struct lr_zone;

struct lr_window {
	long	from_s;		/* seconds after midnight, included */
	long	to_s;		/* left out; below from_s: wraps midnight */
};

/* Read text, "HH:MM-HH:MM" (hours 0-23, one or two digits; minutes two),
 * into w. Returns NULL, or what is wrong with text ("is not HH:MM-HH:MM
 * (e.g. 08:00-18:00)"), for the caller to place. */
const char *window_parse(const char *text, struct lr_window *w);

/* Is s, seconds after midnight (0 to 86399), inside w? */
int	window_holds(const struct lr_window *w, long s);

/* May a run at instant t (Unix seconds) go, by between (NULL: not given)
 * and not_between (NULL: not given), both read on z's clock (zname names
 * it in words: "Europe/Berlin", "local time")? It may when the clock
 * reads a time inside between and outside not_between. Either text is
 * assumed good (window_parse()). Returns 1 or 0, with why in why[n]:
 * "19:03 Europe/Berlin is outside between 08:00-18:00". */
int	window_allows(const char *between, const char *not_between,
	    const struct lr_zone *z, const char *zname, long long t, char *why, size_t n);

/* The first whole minute at or after t at which window_allows() would say
 * yes, within two days; -1 if none (a window that never opens). */
long long window_next_open(const char *between, const char *not_between,
	    const struct lr_zone *z, long long t);

#endif
