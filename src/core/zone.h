/* SPDX-License-Identifier: BSD-2-Clause */
/* zone.h -- time zones read from TZif files by hand, leaving the process's
 * TZ and tzset(3) alone: UTC to local offsets, local wall times back to
 * the instants they name. */
#ifndef LR_ZONE_H
#define LR_ZONE_H

struct lr_err;
struct lr_zone;

/* The zone called name: an IANA name ("Europe/Berlin") naming a TZif file
 * (versions 1-3) under $TZDIR or, when that is unset or empty,
 * /usr/share/zoneinfo. "" is the process's local zone: the TZ variable
 * if set (read, never changed: a file name, a path or a POSIX TZ string,
 * as glibc reads it), else /etc/localtime; it falls back to UTC, as glibc
 * does, and so never fails. A zone is loaded once and kept, reachable,
 * for the life of the process; loading is not safe with other threads.
 * Returns the zone, or NULL with e set (EX_CONFIG) when name is a path
 * (absolute, or with "..") or names no zone file. */
const struct lr_zone *zone_load(const char *name, struct lr_err *e);

/* UTC, for a zone that cannot be loaded any more. */
const struct lr_zone *zone_utc(void);

/* Seconds east of UTC in force at instant t (Unix seconds), and in *isdst
 * (if not NULL) whether it is daylight saving time. Past the file's last
 * transition, its POSIX TZ footer (CET-1CEST,M3.5.0,M10.5.0/3) decides. */
long	zone_offset(const struct lr_zone *z, long long t, int *isdst);

/* The instants at which z's clock reads wall (local date and time counted
 * in seconds as if it were UTC), in order, into out; returns 1 or 2. A
 * wall time that occurs twice (the clock went back) names both. One that
 * does not occur (the clock jumped over it) names the instant of the
 * jump. Assumes at most one change of offset within three days, true of
 * every zone in current use. */
int	zone_instants(const struct lr_zone *z, long long wall, long long out[2]);

#endif
