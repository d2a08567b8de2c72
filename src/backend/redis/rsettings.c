/* SPDX-License-Identifier: BSD-2-Clause */
/* rsettings.c -- the Redis backend's own settings (rsettings.h). */
#include <stdlib.h>
#include <string.h>

#include "backend/redis/rsettings.h"
#include "core/duration.h"

static const char *const tls_files[] = { "tls.ca_file", "tls.cert_file", "tls.key_file",
    "tls.server_name" };
#define NFILES	(sizeof(tls_files) / sizeof(tls_files[0]))

static int
file_index(const char *key)
{
	for (size_t i = 0; i < NFILES; i++)
		if (strcmp(key, tls_files[i]) == 0)
			return (int)i;
	return -1;
}

static int
replicas(const char *s, long long *n, struct lr_err *e)
{
	char *end;

	*n = strtoll(s, &end, 10);
	if (*s < '0' || *s > '9' || *end != '\0' || *n > LR_WAIT_REPLICAS_MAX)
		return lr_errf(e, EX_CONFIG, "\"%s\" is not a number of replicas (0 to %d; "
		    "0: do not wait)", s, LR_WAIT_REPLICAS_MAX);
	return 0;
}

static int
positive(const char *s, long long *ms, struct lr_err *e)
{
	if (duration_parse(s, ms) != 0 || *ms <= 0)
		return lr_errf(e, EX_CONFIG, "\"%s\" is not a positive duration "
		    "(e.g. 500ms, 90s, 10m, 1h30m)", s);
	return 0;
}

int
redis_setting(const char *key, const char *value, struct lr_err *e)
{
	long long n;
	int f = file_index(key);

	if (strcmp(key, "tls") == 0)
		return value == NULL ? 1 : lr_errf(e, EX_CONFIG, "expected a mapping, got "
		    "a string");
	if (strcmp(key, "tls.insecure") != 0 && strcmp(key, "sentinel_password_file") != 0 &&
	    strcmp(key, "wait_replicas") != 0 && strcmp(key, "wait_timeout") != 0 && f < 0)
		return 0;
	if (value == NULL)
		return lr_errf(e, EX_CONFIG, "expected a string, got a mapping");
	if (strcmp(key, "tls.insecure") == 0 && strcmp(value, "true") != 0 &&
	    strcmp(value, "false") != 0)
		return lr_errf(e, EX_CONFIG, "expected true or false");
	if (f == 3 && (strlen(value) > 253 || value[strcspn(value, " \t\r\n/")] != '\0'))
		return lr_errf(e, EX_CONFIG, "\"%s\" is not a host name", value);
	if (strcmp(key, "wait_replicas") == 0 && replicas(value, &n, e) != 0)
		return -1;
	if (strcmp(key, "wait_timeout") == 0 && positive(value, &n, e) != 0)
		return -1;
	return 1;
}

/* WAIT must answer within the command timeout, or lockrun would give up on
 * the connection before Redis gives up waiting. */
static int
wait_fits(const struct lr_setting *at, long long wait_ms, long long command_ms,
    struct lr_err *e)
{
	char a[32], b[32];

	if (at == NULL || wait_ms < command_ms)
		return 0;
	duration_format(wait_ms, a, sizeof(a));
	duration_format(command_ms, b, sizeof(b));
	return setting_errf(e, at, NULL, "%s must be shorter than the command timeout (%s)", a, b);
}

int
rsettings_read(const struct lr_settings *s, long long command_ms, struct rsettings *r,
    struct lr_err *e)
{
	const char **files[] = { &r->tls.ca_file, &r->tls.cert_file, &r->tls.key_file,
	    &r->tls.server_name };
	const struct lr_setting *x;
	struct lr_err te;

	memset(r, 0, sizeof(*r));
	r->wait_timeout_ms = LR_WAIT_TIMEOUT_MS;
	for (size_t i = 0; i < s->n; i++) {
		int f;

		x = &s->v[i];
		if (redis_setting(x->key, x->value, &te) < 0)
			return setting_errf(e, x, NULL, "%s", te.msg);
		if ((f = file_index(x->key)) >= 0)
			*files[f] = x->value;
		else if (strcmp(x->key, "tls") == 0)
			r->tls_at = x;
		else if (strcmp(x->key, "tls.insecure") == 0)
			r->tls.insecure = strcmp(x->value, "true") == 0;
		else if (strcmp(x->key, "sentinel_password_file") == 0)
			r->sentinel_password_file = x->value;
		else if (strcmp(x->key, "wait_replicas") == 0)
			replicas(x->value, &r->wait_replicas, NULL);
		else if (strcmp(x->key, "wait_timeout") == 0) {
			positive(x->value, &r->wait_timeout_ms, NULL);
			r->wait_timeout_at = x;
		}
	}
	if (r->tls.key_file && !r->tls.cert_file)
		return setting_key_errf(e, settings_get(s, "tls.key_file"), "redis.tls",
		    "key_file without "
		    "cert_file");
	return r->wait_replicas > 0 ? wait_fits(r->wait_timeout_at, r->wait_timeout_ms,
	    command_ms, e) : 0;
}

int
redis_settings_check(const struct lr_settings *s, long long command_ms, struct lr_err *e)
{
	struct rsettings r;

	if (rsettings_read(s, command_ms, &r, e) != 0)
		return -1;
	return wait_fits(r.wait_timeout_at, r.wait_timeout_ms, command_ms, e);
}

int
rsettings_check_task(const struct rsettings *s, const struct lr_task *t, struct lr_err *e)
{
	char a[32], c[32];

	if (s->wait_replicas == 0 || !t->no_overlap || !t->renew ||
	    s->wait_timeout_ms < t->ttl_ms / 3)
		return 0;
	duration_format(s->wait_timeout_ms, a, sizeof(a));
	duration_format(t->ttl_ms, c, sizeof(c));
	if (s->wait_timeout_at == NULL)
		return lr_errf(e, EX_USAGE, "--wait-timeout: %s must be shorter than a "
		    "third of the ttl (%s)", a, c);
	return setting_errf(e, s->wait_timeout_at, NULL, "%s must be shorter than a third "
	    "of the ttl (%s)", a, c);
}
