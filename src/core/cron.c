/* SPDX-License-Identifier: BSD-2-Clause */
/* cron.c -- parse cron expressions and walk wall-clock days, hours and
 * minutes to the fire times around an instant; pure, libc only. */
#include <ctype.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/cron.h"

#define DAY		86400LL
#define SCAN_DAYS	(8 * 366LL)	/* "none within 8 years" */
#define SHIFT_MAX	(3 * 3600LL)	/* more than any clock change back in use */
#define T_MIN		(-62135596800LL)	/* 0001-01-01T00:00:00Z */
#define T_MAX		253402300799LL		/* 9999-12-31T23:59:59Z */
#define ZONEINFO	"/usr/share/zoneinfo"

static const char *const month_names[] = {
	"jan", "feb", "mar", "apr", "may", "jun",
	"jul", "aug", "sep", "oct", "nov", "dec", NULL
};
static const char *const day_names[] = {
	"sun", "mon", "tue", "wed", "thu", "fri", "sat", NULL
};

static const struct field {
	const char	*name;		/* for messages */
	int		 min, max;	/* values that may be written */
	int		 top;		/* where '*' and N/STEP end */
	const char *const *names;	/* names for min, min + 1, ..., or NULL */
} fields[5] = {
	{ "minute",		0, 59, 59, NULL },
	{ "hour",		0, 23, 23, NULL },
	{ "day of month",	1, 31, 31, NULL },
	{ "month",		1, 12, 12, month_names },
	{ "day of week",	0, 7,  6,  day_names },	/* 7 is Sunday again */
};

static const struct shortcut {
	const char	*name;
	const char	*expr;
} shortcuts[] = {
	{ "@hourly",	"0 * * * *" },
	{ "@daily",	"0 0 * * *" },
	{ "@midnight",	"0 0 * * *" },
	{ "@weekly",	"0 0 * * 0" },
	{ "@monthly",	"0 0 1 * *" },
	{ "@yearly",	"0 0 1 1 *" },
	{ "@annually",	"0 0 1 1 *" },
};
#define NSHORTCUTS (sizeof(shortcuts) / sizeof(shortcuts[0]))

/* Where a parse is, for its error message. */
struct parse {
	const char	*expr;		/* the whole expression: offsets count from here */
	int		*pos;
	char		*why;
	size_t		 n;
	int		 fno;		/* field number 1-5, or 0 outside the fields */
};

/* Set *pos to the offset of at, and why to "field N (name): " and the
 * message, or the message alone outside the fields. Returns -1. */
static int
parse_fail(struct parse *p, const char *at, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int
parse_fail(struct parse *p, const char *at, const char *fmt, ...)
{
	va_list ap;
	int off = 0;

	if (p->pos != NULL)
		*p->pos = (int)(at - p->expr);
	if (p->why == NULL || p->n == 0)
		return -1;
	if (p->fno > 0)
		off = snprintf(p->why, p->n, "field %d (%s): ", p->fno,
		    fields[p->fno - 1].name);
	if (off < 0 || (size_t)off >= p->n)
		return -1;
	va_start(ap, fmt);
	vsnprintf(p->why + off, p->n - off, fmt, ap);
	va_end(ap);
	return -1;
}

static int
is_blank(char ch)
{
	return ch == ' ' || ch == '\t';
}

/* Look up the len bytes at s among f's names, in any case. Returns the
 * value, or -1. */
static int
name_find(const struct field *f, const char *s, size_t len)
{
	for (int i = 0; f->names != NULL && f->names[i] != NULL; i++) {
		size_t j;

		for (j = 0; j < len && f->names[i][j] != '\0'; j++)
			if (tolower((unsigned char)s[j]) != f->names[i][j])
				break;
		if (j == len && f->names[i][j] == '\0')
			return f->min + i;
	}
	return -1;
}

/* The decimal number from t up to end, or -1 if there is a non-digit.
 * Past cap it stops growing: enough to refuse it, and no overflow. */
static int
digits_read(const char *t, const char *end, int cap)
{
	int num = 0;

	for (; t < end; t++) {
		if (!isdigit((unsigned char)*t))
			return -1;
		if (num <= cap)
			num = num * 10 + (*t - '0');
	}
	return num;
}

/* Read the number or name at *s, which ends at '-', '/' or e, into *v and
 * advance *s past it. The list item runs from item to e, for messages. */
static int
value_read(struct parse *p, const char **s, const char *e, const char *item,
    int *v)
{
	const struct field *f = &fields[p->fno - 1];
	const char *t = *s, *end = t;
	int ilen = (int)(e - item), len, num;

	while (end < e && *end != '-' && *end != '/')
		end++;
	len = (int)(end - t);
	if (len == 0)
		return parse_fail(p, item, "missing number in \"%.*s\"", ilen, item);
	if (f->names != NULL && isalpha((unsigned char)*t)) {
		if ((*v = name_find(f, t, len)) == -1)
			return parse_fail(p, item, "unknown name \"%.*s\"", len, t);
		*s = end;
		return 0;
	}
	if ((num = digits_read(t, end, f->max)) == -1)
		return parse_fail(p, item, "\"%.*s\" is not a number", len, t);
	if (num < f->min || num > f->max)
		return parse_fail(p, item, "%.*s is out of range %d-%d", len, t,
		    f->min, f->max);
	*v = num;
	*s = end;
	return 0;
}

/* Read the step after a '/' at *s, up to '-', '/' or e, into *step. */
static int
step_read(struct parse *p, const char **s, const char *e, const char *item,
    int *step)
{
	const struct field *f = &fields[p->fno - 1];
	const char *t = *s, *end = t;
	int len, num, most = f->top - f->min + 1;

	while (end < e && *end != '-' && *end != '/')
		end++;
	len = (int)(end - t);
	if (len == 0)
		return parse_fail(p, item, "missing step in \"%.*s\"",
		    (int)(e - item), item);
	if ((num = digits_read(t, end, most)) == -1)
		return parse_fail(p, item, "step \"%.*s\" is not a number", len, t);
	if (num == 0)
		return parse_fail(p, item, "step 0 is not allowed");
	if (num > most)
		return parse_fail(p, item, "step %.*s is out of range 1-%d", len, t,
		    most);
	*step = num;
	*s = end;
	return 0;
}

/* Parse one list item, item up to ie: *, N or N-M, then an optional /STEP;
 * N/STEP runs from N to the field's top. Sets its values in *bits. */
static int
item_parse(struct parse *p, const char *item, const char *ie, uint64_t *bits)
{
	const struct field *f = &fields[p->fno - 1];
	const char *s = item;
	int lo, hi, step = 1;

	if (s == ie)
		return parse_fail(p, item, "empty list item");
	if (*s == '*') {
		lo = f->min;
		hi = f->top;
		s++;
	} else {
		if (value_read(p, &s, ie, item, &lo) == -1)
			return -1;
		if (s < ie && *s == '-') {
			s++;
			if (value_read(p, &s, ie, item, &hi) == -1)
				return -1;
			if (hi < lo)
				return parse_fail(p, item, "range %.*s runs backwards",
				    (int)(s - item), item);
		} else if (s < ie && *s == '/')
			hi = lo > f->top ? lo : f->top;	/* N/STEP; 7/STEP: Sunday */
		else
			hi = lo;
	}
	if (s < ie && *s == '/') {
		s++;
		if (step_read(p, &s, ie, item, &step) == -1)
			return -1;
	}
	if (s < ie)
		return parse_fail(p, item, "unexpected \"%.*s\" in \"%.*s\"",
		    (int)(ie - s), s, (int)(ie - item), item);
	for (int v = lo; v <= hi; v += step)
		*bits |= (uint64_t)1 << v;
	return 0;
}

/* Parse the comma-separated field fno from s up to e into *bits. */
static int
field_parse(struct parse *p, int fno, const char *s, const char *e,
    uint64_t *bits)
{
	const char *ie;

	p->fno = fno;
	*bits = 0;
	for (;;) {
		for (ie = s; ie < e && *ie != ','; ie++)
			;
		if (item_parse(p, s, ie, bits) == -1)
			return -1;
		if (ie == e)
			break;
		s = ie + 1;
	}
	p->fno = 0;
	return 0;
}

/* Whether some month in c has one of c's days of the month (February has
 * 29). Only matters when the day of week is '*': otherwise it adds days. */
static int
cron_can_fire(const struct lr_cron *c)
{
	static const int mdays[13] = {
		0, 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31
	};

	for (int m = 1; m <= 12; m++) {
		uint32_t days = (uint32_t)(((uint64_t)1 << (mdays[m] + 1)) - 2);

		if ((c->month >> m & 1) && (c->dom & days) != 0)
			return 1;
	}
	return 0;
}

/* Parse "@name" at s, followed by nothing but blanks, as its expansion. */
static int
shortcut_parse(struct parse *p, const char *s, struct lr_cron *c)
{
	const char *e = s, *rest, *last;

	while (*e != '\0' && !is_blank(*e))
		e++;
	for (rest = e; is_blank(*rest); rest++)
		;
	for (last = rest + strlen(rest); last > rest && is_blank(last[-1]); last--)
		;
	for (size_t i = 0; i < NSHORTCUTS; i++) {
		if (strlen(shortcuts[i].name) != (size_t)(e - s) ||
		    strncmp(shortcuts[i].name, s, e - s) != 0)
			continue;
		if (*rest != '\0')
			return parse_fail(p, rest, "unexpected \"%.*s\" after %s",
			    (int)(last - rest), rest, shortcuts[i].name);
		return cron_parse(shortcuts[i].expr, c, NULL, NULL, 0);
	}
	return parse_fail(p, s, "unknown shortcut \"%.*s\"", (int)(e - s), s);
}

int
cron_parse(const char *expr, struct lr_cron *c, int *pos, char *why, size_t n)
{
	struct parse p = { expr != NULL ? expr : "", pos, why, n, 0 };
	const char *s = p.expr, *start[5], *end[5];
	uint64_t bits[5];
	struct lr_cron out;
	int nf = 0;

	while (is_blank(*s))
		s++;
	if (*s == '@')
		return shortcut_parse(&p, s, c);
	while (*s != '\0') {
		if (nf < 5)
			start[nf] = s;
		while (*s != '\0' && !is_blank(*s))
			s++;
		if (nf < 5)
			end[nf] = s;
		nf++;
		while (is_blank(*s))
			s++;
	}
	if (nf != 5)
		return parse_fail(&p, p.expr, "expected 5 fields (minute hour "
		    "day-of-month month day-of-week), got %d", nf);
	for (int i = 0; i < 5; i++)
		if (field_parse(&p, i + 1, start[i], end[i], &bits[i]) == -1)
			return -1;
	memset(&out, 0, sizeof(out));
	out.minute = bits[0];
	out.hour = (uint32_t)bits[1];
	out.dom = (uint32_t)bits[2];
	out.month = (uint16_t)bits[3];
	out.dow = (uint8_t)((bits[4] | bits[4] >> 7) & 0x7f);	/* 7 -> 0 */
	out.dom_star = *start[2] == '*';
	out.dow_star = *start[4] == '*';
	if (!out.dom_star && out.dow_star && !cron_can_fire(&out))
		return parse_fail(&p, p.expr,
		    "never fires: no month in it has that day");
	*c = out;
	return 0;
}

int
cron_set_tz(struct lr_cron *c, const char *tz, char *why, size_t n)
{
	struct parse p = { tz, NULL, why, n, 0 };
	const char *dir = getenv("TZDIR");
	char path[1024], magic[4];
	FILE *fp;
	int ok = 0;

	if (tz == NULL || *tz == '\0') {
		c->tz[0] = '\0';
		return 0;
	}
	if (dir == NULL || *dir == '\0')
		dir = ZONEINFO;
	if (strlen(tz) >= sizeof(c->tz))
		return parse_fail(&p, tz, "time zone name is longer than %zu bytes",
		    sizeof(c->tz) - 1);
	if (*tz == '/' || strstr(tz, "..") != NULL)
		return parse_fail(&p, tz, "time zone \"%s\" must be a name such as "
		    "Europe/Berlin, not a path", tz);
	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, tz) < sizeof(path) &&
	    (fp = fopen(path, "r")) != NULL) {
		/* a directory opens too, but does not read */
		ok = fread(magic, 1, 4, fp) == 4 && memcmp(magic, "TZif", 4) == 0;
		fclose(fp);
	}
	if (!ok)
		return parse_fail(&p, tz, "unknown time zone \"%s\" (no zone file "
		    "%s/%s)", tz, dir, tz);
	memcpy(c->tz, tz, strlen(tz) + 1);
	return 0;
}

/*
 * Time. A "wall" time is local date and time counted in seconds as if it
 * were UTC (days_from_civil * DAY + seconds into the day); an instant is
 * a time_t. The scans walk wall times that match the fields, skipping
 * days arithmetically, and map each to the instants it names in the zone.
 */

static long long
floor_div(long long a, long long b)
{
	return a / b - (a % b != 0 && (a < 0) != (b < 0));
}

/* Days since 1970-01-01 of a proleptic Gregorian date (eras of 400 years
 * from March 1, so the leap day ends a year). m is 1-12. */
static long long
days_from_civil(long long y, int m, int d)
{
	long long era, yoe, doy;

	y -= m <= 2;
	era = floor_div(y, 400);
	yoe = y - era * 400;
	doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
	return era * 146097 + yoe * 365 + yoe / 4 - yoe / 100 + doy - 719468;
}

/* The inverse of days_from_civil(). */
static void
civil_from_days(long long z, long long *y, int *m, int *d)
{
	long long era, doe, yoe, doy, mp;

	z += 719468;
	era = floor_div(z, 146097);
	doe = z - era * 146097;
	yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	mp = (5 * doy + 2) / 153;
	*d = (int)(doy - (153 * mp + 2) / 5 + 1);
	*m = (int)(mp < 10 ? mp + 3 : mp - 9);
	*y = yoe + era * 400 + (*m <= 2);
}

void
cron_utc(time_t t, struct tm *tm)
{
	long long days = floor_div((long long)t, 86400), secs = (long long)t - days * 86400;
	long long y;
	int m, d;

	civil_from_days(days, &y, &m, &d);
	memset(tm, 0, sizeof(*tm));
	tm->tm_year = (int)(y - 1900);
	tm->tm_mon = m - 1;
	tm->tm_mday = d;
	tm->tm_hour = (int)(secs / 3600);
	tm->tm_min = (int)(secs / 60 % 60);
	tm->tm_sec = (int)(secs % 60);
	tm->tm_wday = (int)((days % 7 + 11) % 7);	/* 1970-01-01 was a Thursday */
}

/* The lowest bit from..top set in mask, or -1. */
static int
bit_up(uint64_t mask, int from, int top)
{
	for (int b = from; b <= top; b++)
		if (mask >> b & 1)
			return b;
	return -1;
}

/* The highest bit 0..from set in mask, or -1. */
static int
bit_down(uint64_t mask, int from)
{
	for (int b = from; b >= 0; b--)
		if (mask >> b & 1)
			return b;
	return -1;
}

/* Whether c fires on wall day z. If not because of the month, set *skip
 * to 1: the caller may jump to the month's end. */
static int
day_fires(const struct lr_cron *c, long long z, int *skip)
{
	long long y;
	int m, d, wd = (int)(((z % 7) + 11) % 7);	/* 1970-01-01: Thursday */
	int dom, dow;

	civil_from_days(z, &y, &m, &d);
	*skip = !(c->month >> m & 1);
	if (*skip)
		return 0;
	dom = c->dom >> d & 1;
	dow = c->dow >> wd & 1;
	/* Vixie: a restricted day of month OR a restricted day of week, but
	 * both when either field begins with '*' */
	return c->dom_star || c->dow_star ? dom && dow : dom || dow;
}

/* The earliest wall minute >= w at which c fires, or -1 past limit. */
static long long
wall_up(const struct lr_cron *c, long long w, long long limit)
{
	long long z, y, sec;
	int h, min, mo, d, skip;

	w = floor_div(w + 59, 60) * 60;
	z = floor_div(w, DAY);
	sec = w - z * DAY;
	h = (int)(sec / 3600);
	min = (int)(sec % 3600 / 60);
	for (; z * DAY <= limit; h = min = 0) {
		if (day_fires(c, z, &skip)) {
			int hh = h, mm = bit_up(c->minute, min, 59);

			if (!(c->hour >> h & 1) || mm == -1) {
				hh = bit_up(c->hour, h + 1, 23);
				mm = bit_up(c->minute, 0, 59);
			}
			if (hh != -1) {
				w = z * DAY + hh * 3600 + mm * 60;
				return w <= limit ? w : -1;
			}
		}
		if (skip) {		/* to the 1st of the next month */
			civil_from_days(z, &y, &mo, &d);
			z = mo == 12 ? days_from_civil(y + 1, 1, 1) :
			    days_from_civil(y, mo + 1, 1);
		} else
			z++;
	}
	return -1;
}

/* The latest wall minute <= w at which c fires, or -1 before limit. */
static long long
wall_down(const struct lr_cron *c, long long w, long long limit)
{
	long long z, y, sec;
	int h, min, mo, d, skip;

	w = floor_div(w, 60) * 60;
	z = floor_div(w, DAY);
	sec = w - z * DAY;
	h = (int)(sec / 3600);
	min = (int)(sec % 3600 / 60);
	for (; (z + 1) * DAY > limit; h = 23, min = 59) {
		if (day_fires(c, z, &skip)) {
			int hh = h, mm = bit_down(c->minute, min);

			if (!(c->hour >> h & 1) || mm == -1) {
				hh = bit_down(c->hour, h - 1);
				mm = bit_down(c->minute, 59);
			}
			if (hh != -1) {
				w = z * DAY + hh * 3600 + mm * 60;
				return w >= limit ? w : -1;
			}
		}
		if (skip) {		/* to the last day of the month before */
			civil_from_days(z, &y, &mo, &d);
			z = days_from_civil(y, mo, 1);
		}
		z--;
	}
	return -1;
}

/* Seconds east of UTC in force at instant x. */
static long
zone_off(long long x)
{
	time_t t = (time_t)x;
	struct tm tm;

	if (localtime_r(&t, &tm) == NULL)
		return 0;	/* not for years 1-9999, which the callers keep to */
	return tm.tm_gmtoff;
}

/* The first instant in (lo, hi] with the offset in force at hi, where lo
 * has another: the moment the clock jumped. */
static long long
zone_jump(long long lo, long long hi)
{
	long after = zone_off(hi);

	while (hi - lo > 1) {
		long long mid = lo + (hi - lo) / 2;

		if (zone_off(mid) == after)
			hi = mid;
		else
			lo = mid;
	}
	return hi;
}

/* How far the clock went back between instants from and to, or 0. */
static long
zone_back(long long from, long long to)
{
	long d = zone_off(from) - zone_off(to);

	return d > 0 ? d : 0;
}

/* Offsets in force a day before and two days after the start of a wall
 * day. When they are equal (no transition near), the day's wall times map
 * to instants by one subtraction. Assumes at most one transition in the
 * three days, true of every zone in current use. */
struct zone_day {
	long long	day;
	long		before, after;
};

/* The instants wall time w names, in order, into out; returns 1 or 2.
 * A wall time that occurs twice (the clock went back) names both, so it
 * fires twice. (Vixie cron reruns only wildcard jobs then; for lockrun the
 * second slot is harmless: nothing starts for it.) One that does not
 * occur (the clock jumped over it) names the instant of the jump, so it
 * fires just after it, as in cron. */
static int
wall_instants(struct zone_day *zd, long long w, long long out[2])
{
	long long z = floor_div(w, DAY), a, b;
	int k = 0;

	if (zd->day != z) {
		zd->day = z;
		zd->before = zone_off((z - 1) * DAY);
		zd->after = zone_off((z + 2) * DAY);
	}
	a = w - zd->before;
	b = w - zd->after;
	if (zd->before == zd->after) {
		out[0] = a;
		return 1;
	}
	if (zone_off(a) == zd->before)
		out[k++] = a;
	if (zone_off(b) == zd->after)
		out[k++] = b;
	if (k == 0)
		out[k++] = a < b ? zone_jump(a, b) : zone_jump(b, a);
	if (k == 2 && out[0] > out[1]) {
		out[0] = b;
		out[1] = a;
	}
	return k;
}

/* cron_next() in the zone already set. Wall times from wall(t) on are
 * tried in order; the first that fires after t is the answer unless the
 * clock went back just before it, when the next few wall hours may name
 * earlier instants. If the clock goes back soon after t, walls before
 * wall(t) may fire after t too, so the walk starts that much earlier. */
static time_t
scan_up(const struct lr_cron *c, long long t)
{
	struct zone_day zd = { .day = LLONG_MIN };
	long long wt = t + zone_off(t), limit = wt + SCAN_DAYS * DAY;
	long long w, best = -1, inst[2];
	int found = 0;

	w = wt - zone_back(t, t + SHIFT_MAX);
	for (; (w = wall_up(c, w, limit)) != -1; w += 60) {
		int k = wall_instants(&zd, w, inst);

		for (int i = 0; i < k; i++) {
			if (inst[i] <= t || (found && inst[i] >= best))
				continue;
			if (!found)	/* later walls matter only after a jump back */
				limit = w + zone_back(inst[i] - SHIFT_MAX > t ?
				    inst[i] - SHIFT_MAX : t + 1, inst[i]);
			best = inst[i];
			found = 1;
		}
	}
	return found ? (time_t)best : (time_t)-1;
}

/* cron_prev() in the zone already set: scan_up() mirrored. */
static time_t
scan_down(const struct lr_cron *c, long long t)
{
	struct zone_day zd = { .day = LLONG_MIN };
	long long wt = t + zone_off(t), limit = wt - SCAN_DAYS * DAY;
	long long w, best = -1, inst[2];
	int found = 0;

	w = wt + zone_back(t - SHIFT_MAX, t);
	for (; (w = wall_down(c, w, limit)) != -1; w -= 60) {
		int k = wall_instants(&zd, w, inst);

		for (int i = 0; i < k; i++) {
			if (inst[i] > t || (found && inst[i] <= best))
				continue;
			if (!found)	/* earlier walls matter only before a jump back */
				limit = w - zone_back(inst[i], inst[i] + SHIFT_MAX < t ?
				    inst[i] + SHIFT_MAX : t);
			best = inst[i];
			found = 1;
		}
	}
	return found ? (time_t)best : (time_t)-1;
}

/* The caller's TZ, while c->tz is in force. */
struct tz_saved {
	int	 set;		/* we changed TZ */
	char	*old;		/* its value before, or NULL if it was unset */
};

/* Make c->tz the zone of localtime_r(), saving the caller's TZ in *s.
 * Returns 0, or -1 (nothing changed) if it cannot. */
static int
tz_enter(const struct lr_cron *c, struct tz_saved *s)
{
	const char *cur = getenv("TZ");

	s->set = 0;
	s->old = NULL;
	if (memchr(c->tz, '\0', sizeof(c->tz)) == NULL)
		return -1;
	if (c->tz[0] != '\0') {
		if (cur != NULL && (s->old = strdup(cur)) == NULL)
			return -1;
		if (setenv("TZ", c->tz, 1) == -1) {
			free(s->old);
			return -1;
		}
		s->set = 1;
	}
	tzset();	/* localtime_r() need not, and glibc's does not */
	return 0;
}

/* Put back the TZ tz_enter() saved. */
static void
tz_leave(struct tz_saved *s)
{
	if (!s->set)
		return;
	if (s->old != NULL)
		setenv("TZ", s->old, 1);
	else
		unsetenv("TZ");
	free(s->old);
	tzset();
}

time_t
cron_prev(const struct lr_cron *c, time_t t)
{
	struct tz_saved s;
	time_t r;

	if ((long long)t < T_MIN + SCAN_DAYS * DAY || (long long)t > T_MAX ||
	    tz_enter(c, &s) == -1)
		return (time_t)-1;
	r = scan_down(c, (long long)t);
	tz_leave(&s);
	return r;
}

time_t
cron_next(const struct lr_cron *c, time_t t)
{
	struct tz_saved s;
	time_t r;

	if ((long long)t < T_MIN || (long long)t > T_MAX - SCAN_DAYS * DAY ||
	    tz_enter(c, &s) == -1)
		return (time_t)-1;
	r = scan_up(c, (long long)t);
	tz_leave(&s);
	return r;
}
