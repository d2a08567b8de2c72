/* SPDX-License-Identifier: BSD-2-Clause */
/* zone.c -- read TZif files and POSIX TZ strings, and map instants to
 * local offsets and wall times back to instants; pure, libc only. */
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/civil.h"
#include "core/err.h"
#include "core/zone.h"

#define DAY		86400LL
#define ZONEINFO	"/usr/share/zoneinfo"
#define LOCALTIME	"/etc/localtime"
#define TZIF_MAX	(1 << 20)	/* larger than any zone file */
#define TYPES_MAX	256		/* a type index is one byte */

/* A date in a POSIX TZ rule: Jn (1-365, never Feb 29), n (0-365), or
 * Mm.w.d (month m, week w 1-5 where 5 is the last, day d, Sunday = 0),
 * and the local time of day the change happens, in seconds. */
struct rule_date {
	char	kind;		/* 'J', 'D' or 'M' */
	int	n, m, w, d;
	long	secs;
};

/* A POSIX TZ string: standard time, and maybe daylight time and when. */
struct posix_tz {
	long		 std_off, dst_off;	/* seconds east of UTC */
	int		 has_dst;
	struct rule_date start, end;		/* daylight time's bounds */
};

struct zone_type {
	long	off;		/* seconds east of UTC */
	int	isdst;
};

struct lr_zone {
	char		*key;		/* the path, or "\n" and a TZ string */
	long long	*trans;		/* transition instants, ascending */
	unsigned char	*idx;		/* the type in force from trans[i] on */
	int		 ntrans;
	int		 first;		/* the type before the first transition */
	struct zone_type types[TYPES_MAX];
	int		 ntypes;
	int		 has_rule;	/* rule decides after the last transition */
	struct posix_tz	 rule;
};

static const struct lr_zone utc = { .ntypes = 1 };

/* The zones loaded so far: kept for the process's life, so that a cron
 * walk probing offsets thousands of times reads each file once. */
static struct lr_zone **loaded;
static size_t nloaded;

/* Failed loads, as NULL entries, are not kept: a zone file that appears
 * later is then found. */

const struct lr_zone *
zone_utc(void)
{
	return &utc;
}

/*
 * POSIX TZ strings (the TZif footer, or TZ itself).
 */

/* Skip a zone abbreviation: 3 or more letters, or <...>. */
static const char *
abbr_skip(const char *s)
{
	const char *b = s;

	if (*s == '<') {
		const char *e = strchr(s, '>');

		return e != NULL && e - s >= 4 ? e + 1 : NULL;
	}
	while (isalpha((unsigned char)*s))
		s++;
	return s - b >= 3 ? s : NULL;
}

/* Read [+-]hh[:mm[:ss]] at s into *secs, hours up to maxh. Returns the
 * end, or NULL. */
static const char *
hms_read(const char *s, long *secs, int maxh)
{
	long sign = 1, part[3] = { 0, 0, 0 };

	if (*s == '+' || *s == '-')
		sign = *s++ == '-' ? -1 : 1;
	for (int i = 0; i < 3; i++) {
		int nd = 0;

		if (i > 0 && *s != ':')
			break;
		if (i > 0)
			s++;
		for (; isdigit((unsigned char)*s) && nd < 3; s++, nd++)
			part[i] = part[i] * 10 + (*s - '0');
		if (nd == 0 || (i > 0 && part[i] > 59))
			return NULL;
	}
	if (part[0] > maxh)
		return NULL;
	*secs = sign * (part[0] * 3600 + part[1] * 60 + part[2]);
	return s;
}

/* Read a small decimal number at s into *v, lo..hi. */
static const char *
num_read(const char *s, int *v, int lo, int hi)
{
	int n = 0, nd = 0;

	for (; isdigit((unsigned char)*s) && nd < 4; s++, nd++)
		n = n * 10 + (*s - '0');
	if (nd == 0 || n < lo || n > hi)
		return NULL;
	*v = n;
	return s;
}

/* Read one rule date with its optional /time (2:00 when absent). */
static const char *
date_read(const char *s, struct rule_date *r)
{
	memset(r, 0, sizeof(*r));
	r->secs = 2 * 3600;
	if (*s == 'J') {
		r->kind = 'J';
		s = num_read(s + 1, &r->n, 1, 365);
	} else if (*s == 'M') {
		r->kind = 'M';
		if ((s = num_read(s + 1, &r->m, 1, 12)) == NULL || *s++ != '.' ||
		    (s = num_read(s, &r->w, 1, 5)) == NULL || *s++ != '.')
			return NULL;
		s = num_read(s, &r->d, 0, 6);
	} else {
		r->kind = 'D';
		s = num_read(s, &r->n, 0, 365);
	}
	if (s != NULL && *s == '/')
		s = hms_read(s + 1, &r->secs, 167);	/* RFC 8536 allows -167..167 */
	return s;
}

/* Parse a POSIX TZ string such as "CET-1CEST,M3.5.0,M10.5.0/3" into *r.
 * Offsets there count west, so their signs flip here. Daylight time
 * without rules follows the US rules, as glibc assumes. */
static int
posix_parse(const char *s, struct posix_tz *r)
{
	long west;

	memset(r, 0, sizeof(*r));
	if ((s = abbr_skip(s)) == NULL || (s = hms_read(s, &west, 24)) == NULL)
		return -1;
	r->std_off = -west;
	if (*s == '\0')
		return 0;
	if ((s = abbr_skip(s)) == NULL)
		return -1;
	r->has_dst = 1;
	r->dst_off = r->std_off + 3600;
	if (*s != ',' && *s != '\0') {
		if ((s = hms_read(s, &west, 24)) == NULL)
			return -1;
		r->dst_off = -west;
	}
	if (*s == '\0') {
		s = ",M3.2.0,M11.1.0";
	}
	if (*s++ != ',' || (s = date_read(s, &r->start)) == NULL || *s++ != ',' ||
	    (s = date_read(s, &r->end)) == NULL)
		return -1;
	return *s == '\0' ? 0 : -1;
}

/* The day (since the epoch) a rule date falls on in year y. */
static long long
rule_day(const struct rule_date *r, long long y)
{
	long long jan1 = civil_days(y, 1, 1), first, next, day;
	int leap = civil_days(y, 3, 1) - civil_days(y, 2, 1) == 29;

	if (r->kind == 'J')
		return jan1 + r->n - 1 + (leap && r->n >= 60);
	if (r->kind == 'D')
		return jan1 + r->n;
	first = civil_days(y, r->m, 1);
	next = r->m == 12 ? civil_days(y + 1, 1, 1) : civil_days(y, r->m + 1, 1);
	day = first + (r->d - civil_weekday(first) + 7) % 7 + (r->w - 1) * 7;
	while (day >= next)	/* week 5: the last such day */
		day -= 7;
	return day;
}

/* The offset r gives at instant t. Daylight time starts at the start
 * date's local standard time and ends at the end date's local daylight
 * time; in the southern hemisphere it spans the new year. */
static long
posix_offset(const struct posix_tz *r, long long t, int *isdst)
{
	long long y, start, end;
	int m, d, dst;

	if (!r->has_dst) {
		*isdst = 0;
		return r->std_off;
	}
	civil_from_days(civil_floor_div(t + r->std_off, DAY), &y, &m, &d);
	start = rule_day(&r->start, y) * DAY + r->start.secs - r->std_off;
	end = rule_day(&r->end, y) * DAY + r->end.secs - r->dst_off;
	if (start < end)
		dst = t >= start && t < end;
	else
		dst = !(t >= end && t < start);
	*isdst = dst;
	return dst ? r->dst_off : r->std_off;
}

/*
 * TZif files (RFC 8536).
 */

static long long
be(const unsigned char *p, int size)
{
	uint64_t v = 0;

	for (int i = 0; i < size; i++)
		v = v << 8 | p[i];
	if (size == 4)
		return (int32_t)(uint32_t)v;
	return (int64_t)v;
}

/* A TZif header's six counts, and the size of the data block after it
 * with times of tsize bytes. */
struct tzif_head {
	long long	isut, isstd, leap, time, type, chars;
	size_t		size;
};

static int
head_read(const unsigned char *p, size_t left, int tsize, struct tzif_head *h)
{
	if (left < 44 || memcmp(p, "TZif", 4) != 0)
		return -1;
	h->isut = be(p + 20, 4), h->isstd = be(p + 24, 4), h->leap = be(p + 28, 4);
	h->time = be(p + 32, 4), h->type = be(p + 36, 4), h->chars = be(p + 40, 4);
	if (h->isut < 0 || h->isstd < 0 || h->leap < 0 || h->time < 0 ||
	    h->type < 1 || h->type > TYPES_MAX || h->chars < 0 ||
	    h->time > TZIF_MAX || h->leap > TZIF_MAX || h->chars > TZIF_MAX)
		return -1;
	h->size = (size_t)(h->time * (tsize + 1) + h->type * 6 + h->chars +
	    h->leap * (tsize + 4) + h->isstd + h->isut);
	return h->size <= left - 44 ? 0 : -1;
}

/* Fill z's transitions and types from the data block at p. */
static int
block_read(const unsigned char *p, const struct tzif_head *h, int tsize,
    struct lr_zone *z)
{
	const unsigned char *idx = p + h->time * tsize, *types = idx + h->time;

	z->ntrans = (int)h->time;
	z->ntypes = (int)h->type;
	z->trans = malloc(sizeof(*z->trans) * (h->time + 1));
	z->idx = malloc(h->time + 1);
	if (z->trans == NULL || z->idx == NULL)
		return -1;
	for (long long i = 0; i < h->time; i++) {
		z->trans[i] = be(p + i * tsize, tsize);
		if (idx[i] >= h->type || (i > 0 && z->trans[i] <= z->trans[i - 1]))
			return -1;
		z->idx[i] = idx[i];
	}
	for (int i = 0; i < z->ntypes; i++) {
		z->types[i].off = (long)be(types + i * 6, 4);
		z->types[i].isdst = types[i * 6 + 4] != 0;
	}
	/* before the first transition: the first standard-time type, as glibc */
	for (z->first = 0; z->first < z->ntypes && z->types[z->first].isdst; z->first++)
		;
	if (z->first == z->ntypes)
		z->first = 0;
	return 0;
}

/* Read the footer "\n<TZ string>\n" at p, if it holds a rule. An empty
 * one, or one this reader cannot follow, leaves the last type in force. */
static void
footer_read(const unsigned char *p, size_t left, struct lr_zone *z)
{
	char spec[128];
	const unsigned char *e;

	if (left < 2 || p[0] != '\n' || (e = memchr(p + 1, '\n', left - 1)) == NULL ||
	    (size_t)(e - p - 1) >= sizeof(spec) || e == p + 1)
		return;
	memcpy(spec, p + 1, e - p - 1);
	spec[e - p - 1] = '\0';
	z->has_rule = posix_parse(spec, &z->rule) == 0;
}

/* Parse the TZif file in buf[len] into z: the 64-bit block of version 2
 * and later files when there is one, else the 32-bit one. */
static int
tzif_parse(const unsigned char *buf, size_t len, struct lr_zone *z)
{
	struct tzif_head h;
	const unsigned char *p = buf;
	size_t left = len;
	int tsize = 4;

	if (head_read(p, left, 4, &h) == -1)
		return -1;
	if (buf[4] >= '2') {
		p += 44 + h.size;
		left -= 44 + h.size;
		tsize = 8;
		if (head_read(p, left, 8, &h) == -1)
			return -1;
	}
	if (block_read(p + 44, &h, tsize, z) == -1)
		return -1;
	if (tsize == 8)
		footer_read(p + 44 + h.size, left - 44 - h.size, z);
	return 0;
}

/* Read the file at path whole into a new buffer; NULL if it cannot. A
 * directory opens but does not read. */
static unsigned char *
file_slurp(const char *path, size_t *len)
{
	FILE *fp = fopen(path, "rb");
	unsigned char *buf;

	if (fp == NULL)
		return NULL;
	if ((buf = malloc(TZIF_MAX)) != NULL)
		*len = fread(buf, 1, TZIF_MAX, fp);
	if (buf != NULL && (ferror(fp) || *len == 0 || *len == TZIF_MAX)) {
		free(buf);
		buf = NULL;
	}
	fclose(fp);
	return buf;
}

/*
 * The table of loaded zones.
 */

static const struct lr_zone *
table_find(const char *key)
{
	for (size_t i = 0; i < nloaded; i++)
		if (strcmp(loaded[i]->key, key) == 0)
			return loaded[i];
	return NULL;
}

/* Add z to the table, or free it if the table cannot grow. */
static const struct lr_zone *
table_add(struct lr_zone *z)
{
	struct lr_zone **grown = realloc(loaded, sizeof(*loaded) * (nloaded + 1));

	if (grown == NULL) {
		free(z->trans), free(z->idx), free(z->key), free(z);
		return NULL;
	}
	loaded = grown;
	loaded[nloaded++] = z;
	return z;
}

static struct lr_zone *
zone_new(const char *key)
{
	struct lr_zone *z = calloc(1, sizeof(*z));

	if (z != NULL && (z->key = strdup(key)) == NULL) {
		free(z);
		z = NULL;
	}
	return z;
}

/* The zone in the TZif file at path, loaded now or before; NULL if the
 * file is missing or is not TZif. */
static const struct lr_zone *
file_zone(const char *path)
{
	const struct lr_zone *found = table_find(path);
	struct lr_zone *z;
	unsigned char *buf;
	size_t len = 0;
	int ok;

	if (found != NULL)
		return found;
	if ((buf = file_slurp(path, &len)) == NULL)
		return NULL;
	z = zone_new(path);
	ok = z != NULL && tzif_parse(buf, len, z) == 0;
	free(buf);
	if (!ok) {
		if (z != NULL)
			free(z->trans), free(z->idx), free(z->key), free(z);
		return NULL;
	}
	return table_add(z);
}

/* The zone a POSIX TZ string spec describes, or NULL. */
static const struct lr_zone *
posix_zone(const char *spec)
{
	char key[256];
	const struct lr_zone *found;
	struct lr_zone *z;
	struct posix_tz r;

	if ((size_t)snprintf(key, sizeof(key), "\n%s", spec) >= sizeof(key) ||
	    posix_parse(spec, &r) == -1)
		return NULL;
	if ((found = table_find(key)) != NULL)
		return found;
	if ((z = zone_new(key)) == NULL)
		return NULL;
	z->ntypes = 1;
	z->types[0].off = r.std_off;
	z->has_rule = 1;
	z->rule = r;
	return table_add(z);
}

static const char *
zone_dir(void)
{
	const char *dir = getenv("TZDIR");

	return dir == NULL || *dir == '\0' ? ZONEINFO : dir;
}

/* The process's local zone, read as glibc reads TZ: unset is
 * /etc/localtime, empty is UTC, a leading ':' is dropped, then a path, a
 * name under the zone directory, or a POSIX TZ string. */
static const struct lr_zone *
local_zone(void)
{
	const char *tz = getenv("TZ");
	const struct lr_zone *z = NULL;
	char path[1024];

	if (tz == NULL)
		z = file_zone(LOCALTIME);
	else {
		tz += *tz == ':';
		if (*tz == '/')
			z = file_zone(tz);
		else if (*tz != '\0' && strstr(tz, "..") == NULL &&
		    (size_t)snprintf(path, sizeof(path), "%s/%s", zone_dir(), tz) <
		    sizeof(path))
			z = file_zone(path);
		if (z == NULL && *tz != '\0')
			z = posix_zone(tz);
	}
	return z != NULL ? z : &utc;
}

const struct lr_zone *
zone_load(const char *name, struct lr_err *e)
{
	const char *dir = zone_dir();
	const struct lr_zone *z = NULL;
	char path[1024];

	if (name == NULL || *name == '\0')
		return local_zone();
	if (*name == '/' || strstr(name, "..") != NULL) {
		lr_errf(e, EX_CONFIG, "time zone \"%s\" must be a name such as "
		    "Europe/Berlin, not a path", name);
		return NULL;
	}
	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, name) < sizeof(path))
		z = file_zone(path);
	if (z == NULL)
		lr_errf(e, EX_CONFIG, "unknown time zone \"%s\" (no zone file %s/%s)",
		    name, dir, name);
	return z;
}

/*
 * Offsets and instants.
 */

long
zone_offset(const struct lr_zone *z, long long t, int *isdst)
{
	int lo = 0, hi = z->ntrans - 1, dummy, type;

	if (isdst == NULL)
		isdst = &dummy;
	if (z->has_rule && (z->ntrans == 0 || t >= z->trans[z->ntrans - 1]))
		return posix_offset(&z->rule, t, isdst);
	if (z->ntrans == 0 || t < z->trans[0])
		type = z->first;
	else {
		while (lo < hi) {	/* the last transition at or before t */
			int mid = lo + (hi - lo + 1) / 2;

			if (z->trans[mid] <= t)
				lo = mid;
			else
				hi = mid - 1;
		}
		type = z->idx[lo];
	}
	*isdst = z->types[type].isdst;
	return z->types[type].off;
}

/* The first instant in (lo, hi] with the offset in force at hi, where lo
 * has another: the moment the clock jumped. */
static long long
jump_find(const struct lr_zone *z, long long lo, long long hi)
{
	long after = zone_offset(z, hi, NULL);

	while (hi - lo > 1) {
		long long mid = lo + (hi - lo) / 2;

		if (zone_offset(z, mid, NULL) == after)
			hi = mid;
		else
			lo = mid;
	}
	return hi;
}

/* The offsets a day before and two days after the start of the wall's
 * day bracket any change near it. When they agree, the wall maps to one
 * instant by one subtraction; otherwise each candidate is kept if its
 * own offset confirms it, and a wall neither confirms lies in a gap. */
int
zone_instants(const struct lr_zone *z, long long wall, long long out[2])
{
	long long day = civil_floor_div(wall, DAY), a, b;
	long before = zone_offset(z, (day - 1) * DAY, NULL);
	long after = zone_offset(z, (day + 2) * DAY, NULL);
	int k = 0;

	a = wall - before;
	b = wall - after;
	if (before == after) {
		out[0] = a;
		return 1;
	}
	if (zone_offset(z, a, NULL) == before)
		out[k++] = a;
	if (zone_offset(z, b, NULL) == after)
		out[k++] = b;
	if (k == 0)
		out[k++] = a < b ? jump_find(z, a, b) : jump_find(z, b, a);
	if (k == 2 && out[0] > out[1]) {
		out[0] = b;
		out[1] = a;
	}
	return k;
}
