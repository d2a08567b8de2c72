/* SPDX-License-Identifier: BSD-2-Clause */
/* setting.c -- a backend's own settings, as text (setting.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/setting.h"

static int
same(const char *a, const char *b)
{
	return (a == NULL && b == NULL) || (a && b && strcmp(a, b) == 0);
}

static void
setting_clear(struct lr_setting *x)
{
	free(x->section);
	free(x->key);
	free(x->value);
	free(x->at);
	free(x->what);
	free(x->key_at);
	memset(x, 0, sizeof(*x));
}

int
settings_add(struct lr_settings *s, const char *section, const char *key,
    const char *value, const char *at, const char *what, int status,
    struct lr_err *e)
{
	struct lr_setting x = { NULL, NULL, NULL, NULL, NULL, NULL, status }, *v;
	size_t i;

	x.section = section ? strdup(section) : NULL;
	x.key = strdup(key);
	x.value = value ? strdup(value) : NULL;
	x.at = at ? strdup(at) : NULL;
	x.what = strdup(what);
	if ((section && !x.section) || !x.key || (value && !x.value) || (at && !x.at) ||
	    !x.what) {
		setting_clear(&x);
		return lr_errf(e, EX_OSERR, "out of memory");
	}
	for (i = 0; i < s->n; i++)
		if (same(s->v[i].section, section) && strcmp(s->v[i].key, key) == 0)
			break;
	if (i == s->n) {
		if ((v = realloc(s->v, (s->n + 1) * sizeof(*v))) == NULL) {
			setting_clear(&x);
			return lr_errf(e, EX_OSERR, "out of memory");
		}
		s->v = v;
		s->n++;
	} else
		setting_clear(&s->v[i]);
	s->v[i] = x;
	return 0;
}

const struct lr_setting *
settings_get(const struct lr_settings *s, const char *key)
{
	for (size_t i = 0; i < s->n; i++)
		if (strcmp(s->v[i].key, key) == 0)
			return &s->v[i];
	return NULL;
}

static int
place(struct lr_err *e, const struct lr_setting *s, const char *at, const char *what,
    const char *fmt, va_list ap)
{
	char msg[sizeof(e->msg)];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	if (what == NULL)
		what = s->what;
	if (at == NULL)
		return lr_errf(e, s->status, "%s: %s", what, msg);
	return lr_errf(e, s->status, "%s: %s: %s", at, what, msg);
}

int
setting_errf(struct lr_err *e, const struct lr_setting *s, const char *what,
    const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = place(e, s, s->at, what, fmt, ap);
	va_end(ap);
	return rc;
}

int
setting_key_errf(struct lr_err *e, const struct lr_setting *s, const char *what,
    const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = place(e, s, s->key_at ? s->key_at : s->at, what, fmt, ap);
	va_end(ap);
	return rc;
}

int
setting_key_at(struct lr_setting *s, const char *key_at, struct lr_err *e)
{
	free(s->key_at);
	if ((s->key_at = strdup(key_at)) == NULL)
		return lr_errf(e, EX_OSERR, "out of memory");
	return 0;
}

void
settings_free(struct lr_settings *s)
{
	for (size_t i = 0; i < s->n; i++)
		setting_clear(&s->v[i]);
	free(s->v);
	s->v = NULL;
	s->n = 0;
}
