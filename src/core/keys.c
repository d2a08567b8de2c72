/* SPDX-License-Identifier: BSD-2-Clause */
/* keys.c -- key names and derived names; pure, libc only. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "core/cron.h"
#include "core/keys.h"
#include "core/text.h"

/* Names are UTF-8 on every backend: PostgreSQL keeps them as text, and a
 * name that one backend takes and another refuses would surface only as
 * a failed statement, long after the command line was read. */
static const char *
name_bytes_problem(const char *s)
{
	size_t left = strlen(s), len;

	for (const unsigned char *p = (const unsigned char *)s; *p; p += len, left -= len) {
		if (*p == '{' || *p == '}')
			return "may not contain '{' or '}' (they delimit the hash tag)";
		if (*p <= ' ' || *p == 0x7f)
			return "may not contain spaces or control characters";
		if ((len = text_utf8_len((const char *)p, left)) == 0)
			return "is not valid UTF-8";
		if (text_control_len((const char *)p, left) != 0)
			return "may not contain control characters (C1, bidi)";
	}
	return NULL;
}

const char *
key_name_problem(const char *name)
{
	if (name == NULL || *name == '\0')
		return "is empty";
	if (strlen(name) > KEY_NAME_MAX)
		return "is longer than 200 bytes";
	return name_bytes_problem(name);
}

const char *
keys_name_problem(const char *name)
{
	const char *why = key_name_problem(name);

	if (why != NULL)
		return why;
	if (strchr(name, '/') != NULL)
		return "may not contain '/' (a task name is a file name in tasks_dir)";
	if (name[0] == '.')
		return "may not begin with '.'";
	return NULL;
}

const char *
key_host_problem(const char *host)
{
	const char *why = key_name_problem(host);

	if (why != NULL)
		return why;
	if (strlen(host) > KEY_HOST_MAX)
		return "is longer than 64 bytes";
	if (strchr(host, '@') != NULL)
		return "may not contain '@' (it ends a slot key's stamp)";
	return NULL;
}

const char *
key_prefix_problem(const char *prefix)
{
	if (strlen(prefix) > KEY_PREFIX_MAX)
		return "is longer than 100 bytes";
	return name_bytes_problem(prefix);
}

#define FNV_BASIS	0xcbf29ce484222325ULL	/* FNV-1a 64 offset basis */
#define FNV_PRIME	0x100000001b3ULL	/* FNV 64 prime */

uint64_t
key_hash64(const char *key)
{
	uint64_t h = FNV_BASIS;

	for (const unsigned char *p = (const unsigned char *)key; *p; p++) {
		h ^= *p;
		h *= FNV_PRIME;
	}
	return h;
}

void
key_derive(char *const argv[], char *buf, size_t n)
{
	uint64_t h = FNV_BASIS;
	const char *prog = argv[0], *slash, *end;
	char base[41];
	size_t len = 0;

	for (size_t i = 0; argv[i] != NULL; i++) {
		const unsigned char *p = (const unsigned char *)argv[i];
		do {
			h ^= *p;
			h *= FNV_PRIME;
		} while (*p++ != '\0');
	}
	prog += strspn(prog, " \t");
	end = prog + strcspn(prog, " \t");
	for (slash = prog; slash < end; slash++)
		if (*slash == '/')
			prog = slash + 1;
	for (const char *p = prog; p < end && len < sizeof(base) - 1; p++) {
		int ok = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		    (*p >= '0' && *p <= '9') || *p == '.' || *p == '_' || *p == '-';
		base[len++] = ok ? *p : '_';
	}
	base[len] = '\0';
	snprintf(buf, n, "%s-%016llx", len ? base : "cmd", (unsigned long long)h);
}

void
keys_build(struct lr_keys *k, const char *prefix, const char *name,
    time_t slot_start, long long every_ms)
{
	struct tm tm;
	char stamp[64];

	snprintf(k->stable, sizeof(k->stable), "%s{%s}", prefix, name);
	snprintf(k->fence, sizeof(k->fence), "%s{%s}:fence", prefix, name);
	snprintf(k->hist, sizeof(k->hist), "%s{%s}:history", prefix, name);
	snprintf(k->last, sizeof(k->last), "%s{%s}:last", prefix, name);
	snprintf(k->counts, sizeof(k->counts), "%s{%s}:counts", prefix, name);
	snprintf(k->pause, sizeof(k->pause), "%s{%s}:pause", prefix, name);
	snprintf(k->missed, sizeof(k->missed), "%s{%s}:missed", prefix, name);
	snprintf(k->trigger, sizeof(k->trigger), "%s{%s}:trigger", prefix, name);
	snprintf(k->ended, sizeof(k->ended), "%s{%s}:ended", prefix, name);
	snprintf(k->runs, sizeof(k->runs), "%s{%s}:runs", prefix, name);
	k->slot[0] = k->slot_iso[0] = '\0';
	if (slot_start == (time_t)-1)
		return;
	/* by hand, not strftime(3) nor gmtime_r(3): those load and parse the
	 * local time zone on every run, for a UTC stamp */
	cron_utc(slot_start, &tm);
	if (every_ms % 60000 == 0)
		snprintf(stamp, sizeof(stamp), "%04d%02d%02dT%02d%02dZ", tm.tm_year + 1900,
		    tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min);
	else
		snprintf(stamp, sizeof(stamp), "%04d%02d%02dT%02d%02d%02dZ",
		    tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min,
		    tm.tm_sec);
	text_iso((long long)slot_start * 1000, TEXT_ISO_S, k->slot_iso,
	    sizeof(k->slot_iso));
	snprintf(k->slot, sizeof(k->slot), "%s{%s}:slot:%s", prefix, name, stamp);
}

void
keys_slot_host(struct lr_keys *k, const char *host)
{
	size_t len = strlen(k->slot);

	if (len > 0)
		snprintf(k->slot + len, sizeof(k->slot) - len, "@%s", host);
}

int
keys_stamp_iso(const char *s, char *buf, size_t n)
{
	size_t len = strcspn(s, "@");

	if (n > 0)
		buf[0] = '\0';
	if (len != 14 && len != 16)
		return -1;
	for (size_t i = 0; i < len - 1; i++)
		if (i == 8 ? s[i] != 'T' : s[i] < '0' || s[i] > '9')
			return -1;
	if (s[len - 1] != 'Z')
		return -1;
	snprintf(buf, n, "%.4s-%.2s-%.2sT%.2s:%.2s:%.2sZ", s, s + 4, s + 6, s + 9, s + 11,
	    len == 16 ? s + 13 : "00");
	return 0;
}

/* The kind of key whose text after the name's '}' is rest; -1 if none.
 * *stamp is set to a slot key's stamp. */
static int
suffix_kind(const char *rest, const char **stamp)
{
	char iso[64];

	*stamp = NULL;
	if (*rest == '\0')
		return KEY_STABLE;
	if (strcmp(rest, ":fence") == 0)
		return KEY_FENCE;
	if (strcmp(rest, ":history") == 0)
		return KEY_HISTORY;
	if (strcmp(rest, ":last") == 0)
		return KEY_LAST;
	if (strcmp(rest, ":counts") == 0)
		return KEY_COUNTS;
	if (strcmp(rest, ":pause") == 0)
		return KEY_PAUSE;
	if (strcmp(rest, ":missed") == 0)
		return KEY_MISSED;
	if (strcmp(rest, ":trigger") == 0)
		return KEY_TRIGGER;
	if (strcmp(rest, ":runs") == 0)
		return KEY_RUNS;
	if (strncmp(rest, ":ended:", 7) == 0 && rest[7] != '\0' &&
	    strspn(rest + 7, "0123456789") == strlen(rest + 7))
		return KEY_ENDED;	/* a SQL backend's row for one token */
	if (strncmp(rest, ":slot:", 6) == 0 &&
	    keys_stamp_iso(rest + 6, iso, sizeof(iso)) == 0 &&
	    (rest[6 + strcspn(rest + 6, "@")] == '\0' ||
	    rest[7 + strcspn(rest + 6, "@")] != '\0')) {	/* "@" and a host, or none */
		*stamp = rest + 6;
		return KEY_SLOT;
	}
	return -1;
}

int
keys_parse(const char *key, const char *prefix, struct lr_key_parts *p)
{
	const char *open, *name, *close;
	int kind;

	if (prefix != NULL) {
		p->plen = strlen(prefix);
		if (strncmp(key, prefix, p->plen) != 0 || key[p->plen] != '{')
			return -1;
		open = key + p->plen;
	} else {
		if ((open = strchr(key, '{')) == NULL)
			return -1;
		p->plen = (size_t)(open - key);
	}
	name = open + 1;
	/* prefixes and names hold no braces: the first '}' closes the name */
	if ((close = strchr(name, '}')) == NULL || close == name ||
	    (size_t)(close - name) > KEY_NAME_MAX || memchr(name, '{', close - name))
		return -1;
	if ((kind = suffix_kind(close + 1, &p->stamp)) == -1)
		return -1;
	p->kind = (enum key_kind)kind;
	memcpy(p->name, name, close - name);
	p->name[close - name] = '\0';
	return 0;
}

enum key_phase
keys_value_phase(const char *value)
{
	if (strncmp(value, "unlocked:", 9) == 0)
		return KEY_UNLOCKED;
	if (strncmp(value, "released:", 9) == 0)
		return KEY_RELEASED;
	return KEY_RUNNING;
}
