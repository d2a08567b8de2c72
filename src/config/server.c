/* SPDX-License-Identifier: BSD-2-Clause */
/* server.c -- read a config's url: and redis: sections: the URL, the
 * password files, timeouts, replicas to wait for, TLS. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "config/server.h"
#include "core/duration.h"

/* redis: tls: {ca_file, cert_file, key_file, server_name, insecure} */
static int
parse_tls(struct walk *w, const struct yt_node *map, struct lr_tls_opts *t)
{
	static const char *const files[] = { "ca_file", "cert_file", "key_file",
	    "server_name" };
	char **dst[] = { (char **)&t->ca_file, (char **)&t->cert_file,
	    (char **)&t->key_file, (char **)&t->server_name };

	if (walk_want_map(w, map, "redis.tls") != 0)
		return -1;
	for (size_t i = 0; i < map->nkids; i += 2) {
		const struct yt_node *k = map->kids[i], *v = map->kids[i + 1];
		char what[40];
		size_t f = 0;

		snprintf(what, sizeof(what), "redis.tls.%s", k->value);
		while (f < 4 && strcmp(k->value, files[f]) != 0)
			f++;
		if (f < 4) {
			if (walk_set_string(w, v, what, dst[f]) != 0)
				return -1;
			if (f == 3 && (strlen(v->value) > 253 ||
			    v->value[strcspn(v->value, " \t\r\n/")] != '\0'))
				return walk_bad(w, v, "%s: \"%s\" is not a host name", what, v->value);
		} else if (strcmp(k->value, "insecure") == 0) {
			if (v->kind != YT_SCALAR || v->quoted ||
			    (strcmp(v->value, "true") != 0 && strcmp(v->value, "false") != 0))
				return walk_bad(w, v, "%s: expected true or false", what);
			t->insecure = strcmp(v->value, "true") == 0;
		} else
			return walk_bad(w, k, "unknown key \"%s\" in redis.tls", k->value);
	}
	if (t->key_file && !t->cert_file)
		return walk_bad(w, map, "redis.tls: key_file without cert_file");
	return 0;
}

/* redis.wait_replicas: a whole number of replicas, 0 (off) or more. */
static int
set_replicas(struct walk *w, const struct yt_node *n, long long *dst)
{
	const char *s = walk_want_string(w, n, "redis.wait_replicas");
	char *end;

	if (s == NULL)
		return -1;
	*dst = strtoll(s, &end, 10);
	if (*s < '0' || *s > '9' || *end != '\0' || *dst > LR_WAIT_REPLICAS_MAX)
		return walk_bad(w, n, "redis.wait_replicas: \"%s\" is not a number of replicas "
		    "(0 to %d; 0: do not wait)", s, LR_WAIT_REPLICAS_MAX);
	return 0;
}

/* WAIT must answer within the command timeout, or lockrun would give up on
 * the connection before Redis gives up waiting. */
static int
check_wait_timeout(struct walk *w, const struct yt_node *n, const struct lr_server_opts *r)
{
	long long cmd = r->command_timeout_ms == LR_UNSET ? LR_COMMAND_TIMEOUT_MS :
	    r->command_timeout_ms;
	char a[32], b[32];

	if (n == NULL || r->wait_timeout_ms < cmd)
		return 0;
	duration_format(r->wait_timeout_ms, a, sizeof(a));
	duration_format(cmd, b, sizeof(b));
	return walk_bad(w, n, "redis.wait_timeout: %s must be shorter than the command "
	    "timeout (%s)", a, b);
}

/* url: (or redis.url:), where the lock lives. A Redis or MySQL URL is
 * checked here; a PostgreSQL one when the backend is set up, with libpq,
 * which reads it (ctx.c names this place, url_at, when it is refused). */
int
server_set_url(struct walk *w, const struct yt_node *v, const char *what, const char **url)
{
	char *s = (char *)*url;
	struct lr_err ue;

	if (*url != NULL)
		return walk_bad(w, v, "%s: the URL is given twice (url and redis.url)", what);
	if (walk_set_string(w, v, what, &s) != 0)
		return -1;
	*url = s;
	snprintf(w->cfg->url_at, sizeof(w->cfg->url_at), "%s:%d:%d: %s", w->path,
	    v->line, v->col, what);
	/* a PostgreSQL URL is libpq's to read: checked with libpq loaded */
	if (backend_check_url(s, &ue) != 0)
		return walk_bad(w, v, "%s: %s", what, ue.msg +
		    (strncmp(ue.msg, "redis URL: ", 11) == 0 ? 11 : 0));
	return 0;
}

int
server_parse_redis(struct walk *w, const struct yt_node *map, struct lr_server_opts *r)
{
	char *file = (char *)r->password_file;
	char *sfile = (char *)r->sentinel_password_file;
	const struct yt_node *wait_timeout = NULL;

	if (walk_want_map(w, map, "redis") != 0)
		return -1;
	for (size_t i = 0; i < map->nkids; i += 2) {
		const struct yt_node *k = map->kids[i], *v = map->kids[i + 1];
		int rc;

		if (strcmp(k->value, "url") == 0)
			rc = server_set_url(w, v, "redis.url", &r->url);
		else if (strcmp(k->value, "password_file") == 0) {
			rc = walk_set_string(w, v, "redis.password_file", &file);
			r->password_file = file;
		} else if (strcmp(k->value, "sentinel_password_file") == 0) {
			rc = walk_set_string(w, v, "redis.sentinel_password_file", &sfile);
			r->sentinel_password_file = sfile;
		}
		else if (strcmp(k->value, "connect_timeout") == 0)
			rc = walk_set_timeout(w, v, "redis.connect_timeout", &r->connect_timeout_ms);
		else if (strcmp(k->value, "command_timeout") == 0)
			rc = walk_set_timeout(w, v, "redis.command_timeout", &r->command_timeout_ms);
		else if (strcmp(k->value, "wait_replicas") == 0)
			rc = set_replicas(w, v, &r->wait_replicas);
		else if (strcmp(k->value, "wait_timeout") == 0) {
			rc = walk_set_timeout(w, v, "redis.wait_timeout", &r->wait_timeout_ms);
			wait_timeout = v;
		} else if (strcmp(k->value, "tls") == 0) {
			rc = parse_tls(w, v, &r->tls);
			snprintf(w->cfg->tls_at, sizeof(w->cfg->tls_at), "%s:%d:%d: redis.tls",
			    w->path, k->line, k->col);
		}
		else
			rc = walk_bad(w, k, "unknown key \"%s\" in redis", k->value);
		if (rc != 0)
			return -1;
	}
	return check_wait_timeout(w, wait_timeout, r);
}