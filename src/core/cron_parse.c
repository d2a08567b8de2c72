/* SPDX-License-Identifier: BSD-2-Clause */
/* cron_parse.c -- read cron expressions into bit sets of seconds, minutes,
 * hours, days and months, and check their zone names; pure, libc only. */
#include <ctype.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/cron.h"
#include "core/err.h"
#include "core/zone.h"

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
} fields[6] = {
	{ "second",		0, 59, 59, NULL },	/* only in six fields */
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
	struct lr_err	*e;
	int		 fno;		/* field number 1-6 as written, or 0 outside
					 * the fields */
	const struct field *f;		/* that field's row in fields[] */
};

/* Set *pos to the offset of at, and e to "field N (name): " and the
 * message (EX_CONFIG), or the message alone outside the fields. Returns
 * -1. */
static int
parse_fail(struct parse *p, const char *at, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int
parse_fail(struct parse *p, const char *at, const char *fmt, ...)
{
	va_list ap;
	char msg[sizeof(p->e->msg)];

	if (p->pos != NULL)
		*p->pos = (int)(at - p->expr);
	if (p->e == NULL)
		return -1;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (p->fno > 0)
		return lr_errf(p->e, EX_CONFIG, "field %d (%s): %s", p->fno,
		    p->f->name, msg);
	return lr_errf(p->e, EX_CONFIG, "%s", msg);
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
	const struct field *f = p->f;
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
	const struct field *f = p->f;
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
	const struct field *f = p->f;
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

/* Parse the comma-separated field fno (as written, 1-based), whose row in
 * fields[] is f, from s up to e into *bits. */
static int
field_parse(struct parse *p, int fno, const struct field *f, const char *s,
    const char *e, uint64_t *bits)
{
	const char *ie;

	p->fno = fno;
	p->f = f;
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
		return cron_parse(shortcuts[i].expr, c, NULL, NULL);
	}
	if (e - s == 6 && strncmp(s, "@every", 6) == 0)	/* dkron's, not ours */
		return parse_fail(p, s, "unknown shortcut \"@every\" (a fixed period is "
		    "every:, such as every: 10s)");
	/* cron's @reboot is no time of day: schedule_init() takes it before a
	 * cron expression is parsed (core/schedule.h, LR_REBOOT) */
	if (e - s == 7 && strncmp(s, "@reboot", 7) == 0)
		return parse_fail(p, s, "@reboot has no fire times: it is a schedule of its "
		    "own (a task's schedule: '@reboot' runs once per boot), not a cron "
		    "expression");
	return parse_fail(p, s, "unknown shortcut \"%.*s\"", (int)(e - s), s);
}

int
cron_parse(const char *expr, struct lr_cron *c, int *pos, struct lr_err *e)
{
	struct parse p = { expr != NULL ? expr : "", pos, e, 0, NULL };
	const char *s = p.expr, *start[6], *end[6];
	uint64_t bits[6] = { 1 };	/* five fields: second 0 */
	struct lr_cron out;
	int nf = 0, skip;

	while (is_blank(*s))
		s++;
	if (*s == '@')
		return shortcut_parse(&p, s, c);
	while (*s != '\0') {
		if (nf < 6)
			start[nf] = s;
		while (*s != '\0' && !is_blank(*s))
			s++;
		if (nf < 6)
			end[nf] = s;
		nf++;
		while (is_blank(*s))
			s++;
	}
	if (nf != 5 && nf != 6)
		return parse_fail(&p, p.expr, "expected 5 fields (minute hour "
		    "day-of-month month day-of-week), or 6 with a leading second, "
		    "got %d", nf);
	/* supercronic's six fields are the five and a year: "0 3 * * * 2027"
	 * would be read here as a weekday out of range; say what it is */
	if (nf == 6 && end[5] - start[5] == 4 && strspn(start[5], "0123456789") >= 4 &&
	    strtol(start[5], NULL, 10) >= 1970)
		return parse_fail(&p, start[5], "field 6: %.4s can only be a year: six fields "
		    "are read seconds first (second minute hour day-of-month month "
		    "day-of-week), as Quartz reads them; a year field (supercronic's) is "
		    "not taken: drop it", start[5]);
	skip = 6 - nf;		/* fields[] rows not written: the second */
	for (int i = 0; i < nf; i++)
		if (field_parse(&p, i + 1, &fields[i + skip], start[i], end[i],
		    &bits[i + skip]) == -1)
			return -1;
	memset(&out, 0, sizeof(out));
	out.second = bits[0];
	out.minute = bits[1];
	out.hour = (uint32_t)bits[2];
	out.dom = (uint32_t)bits[3];
	out.month = (uint16_t)bits[4];
	out.dow = (uint8_t)((bits[5] | bits[5] >> 7) & 0x7f);	/* 7 -> 0 */
	out.dom_star = *start[3 - skip] == '*';
	out.dow_star = *start[5 - skip] == '*';
	out.wild = *start[1 - skip] == '*' || *start[2 - skip] == '*';
	out.seconds = nf == 6;
	if (!out.dom_star && out.dow_star && !cron_can_fire(&out))
		return parse_fail(&p, p.expr,
		    "never fires: no month in it has that day");
	*c = out;
	return 0;
}

/* The zone is loaded here, once, so that a name that is no zone fails
 * now and the walks later find it in zone.c's table. */
int
cron_set_tz(struct lr_cron *c, const char *tz, struct lr_err *e)
{
	struct parse p = { tz, NULL, e, 0, NULL };
	struct lr_err ze;

	if (tz == NULL || *tz == '\0') {
		c->tz[0] = '\0';
		return 0;
	}
	if (strlen(tz) >= sizeof(c->tz))
		return parse_fail(&p, tz, "time zone name is longer than %zu bytes",
		    sizeof(c->tz) - 1);
	if (zone_load(tz, &ze) == NULL)
		return parse_fail(&p, tz, "%s", ze.msg);
	memcpy(c->tz, tz, strlen(tz) + 1);
	return 0;
}
