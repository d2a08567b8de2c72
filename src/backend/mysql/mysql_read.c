/* SPDX-License-Identifier: BSD-2-Clause */
/* mysql_read.c -- the MySQL/MariaDB operations that look rather than run:
 * peek (before `lockrun unlock`), states (`lockrun status`), keys,
 * history, and probe (`lockrun check`). Each is one exchange but probe,
 * which tries one harmless statement after another. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mysqld_error.h>

#include "backend/mysql/mysql_conn.h"
#include "backend/mysql/mysql_sql.h"
#include "core/text.h"

static const char *const last_fields[] = { "event", "host", "pid", "slot", "token",
    "start_ms", "end_ms", "status", "duration_ms", "success_ms" };
static const char *const hist_fields[] = { "event", "host", "pid", "slot", "token",
    "holder", "status", "duration_ms", "attempt", "reason" };
/* in this order: bits 0 to 4 of uses[].tables */
static const char *const tables[] = { "lockrun_keys", "lockrun_history",
    "lockrun_last", "lockrun_counts", "lockrun_runs" };

#define PEEK_COLS	25	/* mysql_sql_peek's */
#define NELEM(a)	(sizeof(a) / sizeof((a)[0]))

/* Whether key is a stable key, prefix{name}, rather than a slot key. */
static int
is_stable(const char *key)
{
	struct lr_key_parts kp;

	return keys_parse(key, NULL, &kp) == 0 && kp.kind == KEY_STABLE;
}

/* The inputs of mysql_sql_peek for one key. */
static void
peek_vars(struct myq *q, MYSQL *db, const char *key, const char *last,
    const char *ckey, int counts)
{
	char name[KEY_MAX];

	my_lock_name(key, name, sizeof(name));
	myq_str(q, db, "key", key);
	myq_str(q, db, "name", is_stable(key) ? name : NULL);
	myq_str(q, db, "last", last);
	myq_str(q, db, "ckey", ckey);
	myq_ll(q, "counts", counts);
	myq_end(q);
}

/* Whether a row as mysql_sql_peek answers it (v expires_ms boot used lr_boot
 * now) holds the lock, with its lease in *ttl (-1: none). A stable key is
 * held while its session lock is taken (no ttl shown: its session renews
 * it), and, as every row, while it has not expired: the lease decides,
 * whatever became of the session that wrote it. */
static int
row_held(MYSQL_ROW r, int stable, long long *ttl)
{
	long long now = my_num(r[5]), exp = my_num(r[1]);

	*ttl = -1;
	if (stable && r[3] != NULL && strcmp(r[3], "1") == 0)
		return 1;
	if (r[0] == NULL)
		return 0;
	if (r[1] == NULL)
		return 1;			/* never expires */
	if (exp <= now)
		return 0;
	*ttl = exp - now;
	return 1;
}

struct peek {
	int		 got, held, stable;
	long long	 ttl;
	char		*buf;
	size_t		 n;
};

static int
peek_row(void *arg, size_t set, MYSQL_ROW row, unsigned int nf)
{
	struct peek *p = arg;

	(void)set;
	if (nf < PEEK_COLS)
		return -1;
	p->got = 1;
	p->held = row_held(row, p->stable, &p->ttl);
	snprintf(p->buf, p->n, "%s", p->held && row[0] ? row[0] : p->held ? "?" : "");
	return 0;
}

int
my_peek(struct lr_backend *b, const char *key, char *buf, size_t n, long long *ttl_ms,
    struct lr_err *e)
{
	struct my *m = b->impl;
	struct peek p = { .stable = is_stable(key), .buf = buf, .n = n };
	struct myq q = { 0 };
	int rc;

	if (m->db == NULL)
		return my_not_connected(b, "peek", e);
	my_clock_vars(&q);
	peek_vars(&q, m->db, key, NULL, NULL, 0);
	myq_add(&q, mysql_sql_peek);
	rc = my_exec(b, "peek", &q, 1, MY_CREATE, peek_row, &p, e);
	free(q.s);
	if (rc != 0)
		return -1;
	if (!p.got)
		return lr_errf(e, EX_SOFTWARE, "mysql %s: peek: no answer", b->where);
	*ttl_ms = p.ttl;
	return p.held;
}

struct states {
	struct lr_state	*out;
	size_t		 n;
	int		 counts;
	long long	 now;
};

static int
state_row(void *arg, size_t set, MYSQL_ROW row, unsigned int nf)
{
	struct states *st = arg;
	struct lr_state *s;

	st->now = my_num(row[nf > 5 ? 5 : 0]);
	if (st->n == 0)
		return 0;			/* only the clock was asked */
	if (set >= st->n || nf < PEEK_COLS)
		return -1;
	s = &st->out[set];
	if (row_held(row, 1, &s->ttl_ms) &&
	    (s->value = strdup(row[0] ? row[0] : "?")) == NULL)
		return MY_ROW_NOMEM;
	for (size_t i = 0; i < NELEM(last_fields); i++)
		if (record_field_add(&s->last, last_fields[i], row[6 + i]) != 0)
			return MY_ROW_NOMEM;
	if (record_field_add(&s->last, "reason", row[24]) != 0)
		return MY_ROW_NOMEM;
	if (st->counts && row[16] != NULL && strcmp(row[16], "1") == 0) {
		s->counted = 1;
		for (int c = 0; c < NCOUNTERS; c++)
			s->count[c] = row[17 + c] ? my_num(row[17 + c]) : 0;
	}
	return 0;
}

int
my_states(struct lr_backend *b, const struct lr_keys *k, size_t n, int counts,
    struct lr_state *out, long long *now_ms, struct lr_err *e)
{
	struct my *m = b->impl;
	struct states st = { out, n, counts, 0 };
	struct myq q = { 0 };
	int rc;

	for (size_t i = 0; i < n; i++)
		out[i] = (struct lr_state){ .ttl_ms = -1 };
	if (m->db == NULL)
		return my_not_connected(b, "status", e);
	my_clock_vars(&q);
	myq_end(&q);
	if (n == 0)
		myq_add(&q, "SELECT @now");
	for (size_t i = 0; i < n; i++) {
		peek_vars(&q, m->db, k[i].stable, k[i].last, k[i].counts, counts);
		myq_add(&q, mysql_sql_peek);
		myq_add(&q, i + 1 < n ? ";\n" : "");
	}
	rc = my_exec(b, "status", &q, n ? n : 1, MY_CREATE, state_row, &st, e);
	free(q.s);
	if (rc != 0) {
		for (size_t i = 0; i < n; i++)
			record_state_free(&out[i]);
		return -1;
	}
	*now_ms = st.now;
	return 0;
}

struct keylist {
	char	**v;
	size_t	  n, cap;
};

static int
key_row(void *arg, size_t set, MYSQL_ROW row, unsigned int nf)
{
	struct keylist *kl = arg;
	char **p;

	(void)set;
	if (nf < 1 || row[0] == NULL)
		return 0;
	if (kl->n == kl->cap) {
		size_t cap = kl->cap ? 2 * kl->cap : 64;
		if ((p = realloc(kl->v, cap * sizeof(*p))) == NULL)
			return MY_ROW_NOMEM;
		kl->v = p;
		kl->cap = cap;
	}
	if ((kl->v[kl->n] = strdup(row[0])) == NULL)
		return MY_ROW_NOMEM;
	kl->n++;
	return 0;
}

int
my_keys(struct lr_backend *b, const char *prefix, char ***keys, size_t *n,
    struct lr_err *e)
{
	struct my *m = b->impl;
	struct keylist kl = { 0 };
	struct myq q = { 0 };
	char *pat, *o;
	int rc;

	if (m->db == NULL)
		return my_not_connected(b, "keys", e);
	if ((pat = o = malloc(2 * strlen(prefix) + 2)) == NULL)
		return lr_errf(e, EX_OSERR, "mysql %s: keys: out of memory", b->where);
	for (const char *s = prefix; *s; s++) {	/* LIKE ... ESCAPE '!' */
		if (*s == '%' || *s == '_' || *s == '!')
			*o++ = '!';
		*o++ = *s;
	}
	strcpy(o, "%");
	my_clock_vars(&q);
	myq_str(&q, m->db, "pattern", pat);
	myq_end(&q);
	myq_add(&q, mysql_sql_keys);
	free(pat);
	rc = my_exec(b, "keys", &q, 1, MY_CREATE, key_row, &kl, e);
	free(q.s);
	if (rc != 0) {
		while (kl.n > 0)
			free(kl.v[--kl.n]);
		free(kl.v);
		return -1;
	}
	*keys = kl.v;
	*n = kl.n;
	return 0;
}

static int
hist_row(void *arg, size_t set, MYSQL_ROW row, unsigned int nf)
{
	struct lr_hist *h = arg;
	struct lr_hist_entry *p;

	(void)set;
	if (nf < 1 + NELEM(hist_fields))
		return -1;
	if ((p = realloc(h->e, (h->n + 1) * sizeof(*p))) == NULL)
		return MY_ROW_NOMEM;
	h->e = p;
	p += h->n++;
	memset(p, 0, sizeof(*p));
	p->at_ms = my_num(row[0]);
	for (size_t i = 0; i < NELEM(hist_fields); i++)
		if (record_field_add(&p->fields, hist_fields[i], row[1 + i]) != 0)
			return MY_ROW_NOMEM;
	return 0;
}

int
my_history(struct lr_backend *b, const struct lr_keys *k, long long count,
    struct lr_hist *h, struct lr_err *e)
{
	struct my *m = b->impl;
	struct myq q = { 0 };
	char limit[40];
	int rc;

	h->n = 0;
	h->e = NULL;
	if (count <= 0)
		return 0;
	if (m->db == NULL)
		return my_not_connected(b, "history", e);
	my_clock_vars(&q);
	myq_str(&q, m->db, "hist", k->hist);
	myq_end(&q);
	myq_add(&q, mysql_sql_history);
	snprintf(limit, sizeof(limit), " LIMIT %lld", count);
	myq_add(&q, limit);
	rc = my_exec(b, "history", &q, 1, MY_CREATE, hist_row, h, e);
	free(q.s);
	if (rc != 0)
		record_hist_free(h);
	return rc;
}

/* `lockrun logs`: the runs kept of a task, oldest first, each row's
 * header and output only when asked for (mysql_sql_stories), put back into
 * the fields release.lua's hash has (ops.h's stories). */
struct stories {
	const char *const *fields;
	char		**values;
	size_t		 *lens, n;
};

/* values[i] += " " tok (the lists "ok" and "failed"). */
static int
ids_append(char **v, size_t *len, const char *tok)
{
	size_t n = strlen(tok);
	char *p = realloc(*v, *len + n + 2);

	if (p == NULL)
		return -1;
	if (*len > 0)
		p[(*len)++] = ' ';
	memcpy(p + *len, tok, n + 1);
	*len += n;
	*v = p;
	return 0;
}

static int
story_row(void *arg, size_t set, MYSQL_ROW row, unsigned int nf)
{
	struct stories *st = arg;
	const char *tok = row[0];

	(void)set;
	if (nf < 4 || tok == NULL || row[1] == NULL)
		return -1;
	for (size_t i = 0; i < st->n; i++) {
		const char *f = st->fields[i], *v = NULL;

		if (strcmp(f, strcmp(row[1], "0") != 0 ? "failed" : "ok") == 0) {
			if (ids_append(&st->values[i], &st->lens[i], tok) != 0)
				return MY_ROW_NOMEM;
			continue;
		}
		if (strncmp(f, "h:", 2) == 0 && strcmp(f + 2, tok) == 0)
			v = row[2];
		else if (strncmp(f, "o:", 2) == 0 && strcmp(f + 2, tok) == 0)
			v = row[3];
		if (v == NULL)
			continue;
		free(st->values[i]);	/* a token twice: the newest row's */
		if ((st->values[i] = strdup(v)) == NULL)
			return MY_ROW_NOMEM;
		st->lens[i] = strlen(v);
	}
	return 0;
}

int
my_stories(struct lr_backend *b, const struct lr_keys *k, const char *const *fields,
    size_t n, char **values, size_t *lens, struct lr_err *e)
{
	struct my *m = b->impl;
	struct stories st = { fields, values, lens, n };
	struct myq q = { 0 };
	char *want;
	size_t len = 0;
	int rc;

	for (size_t i = 0; i < n; i++) {
		values[i] = NULL;
		lens[i] = 0;
	}
	if (m->db == NULL)
		return my_not_connected(b, "logs", e);
	for (size_t i = 0; i < n; i++)
		len += strlen(fields[i]) + 1;
	if ((want = calloc(1, len + 1)) == NULL)
		return lr_errf(e, EX_OSERR, "out of memory");
	for (size_t i = 0; i < n; i++) {
		if (i > 0)
			strcat(want, ",");
		strcat(want, fields[i]);	/* no commas: "ok", "h:TOKEN" */
	}
	my_clock_vars(&q);
	myq_str(&q, m->db, "runs", k->runs);
	myq_str(&q, m->db, "want", want);
	myq_end(&q);
	myq_add(&q, mysql_sql_stories);
	free(want);
	rc = my_exec(b, "logs", &q, 1, MY_CREATE, story_row, &st, e);
	free(q.s);
	if (rc != 0)
		for (size_t i = 0; i < n; i++) {
			free(values[i]);
			values[i] = NULL;
			lens[i] = 0;
		}
	return rc;
}

/* Run q keeping the connection on a refusal. Returns 0 (why[n] ""); the
 * server's error number, with its message in why[n]; or -1 with e when
 * the connection broke. */
static int
try_q(struct lr_backend *b, const struct myq *q, my_row_fn fn, void *arg, char *why,
    size_t n, struct lr_err *e)
{
	struct my *m = b->impl;

	if (n > 0)
		why[0] = '\0';	/* a statement that ran says nothing */
	if (my_exec(b, "check", q, 0, MY_KEEP, fn, arg, e) == 0)
		return 0;
	if (m->db == NULL)
		return -1;
	text_one_line(why, n, my_api.error(m->db));
	return (int)my_api.errnum(m->db);
}

static int
try_sql(struct lr_backend *b, const char *sql, my_row_fn fn, void *arg, char *why,
    size_t n, struct lr_err *e)
{
	struct myq q = { 0 };
	int rc;

	myq_add(&q, sql);
	rc = try_q(b, &q, fn, arg, why, n, e);
	free(q.s);
	return rc;
}

static int
flag_row(void *arg, size_t set, MYSQL_ROW row, unsigned int nf)
{
	int *on = arg;

	(void)set;
	for (unsigned int i = 0; i < nf; i++)
		if (row[i] != NULL && strcmp(row[i], "1") == 0)
			*on = 1;
	return 0;
}

static int
value_row(void *arg, size_t set, MYSQL_ROW row, unsigned int nf)
{
	(void)set;
	snprintf(arg, 512, "%s", nf > 0 && row[0] ? row[0] : "");
	return 0;
}

/* What a run does to the tables, as statements that match no row: the
 * server still checks the privilege (and the read-only mode). tables[]
 * has the bit of each table the statement is for: history rows are never
 * updated; a story's row is, by a hook's output (after the release). */
static const struct use {
	const char	*verb, *head, *mid, *tail;	/* head TABLE [mid TABLE] tail */
	unsigned	 tables;
} uses[] = {
	{ "INSERT", "INSERT INTO ", " SELECT * FROM ", " WHERE 1 = 0", 31 },
	{ "UPDATE", "UPDATE ", NULL, " SET expires_ms = expires_ms WHERE 1 = 0", 29 },
	{ "DELETE", "DELETE FROM ", NULL, " WHERE 1 = 0", 31 },
};

/* The tables exist (or can be created) and take what a run does to them:
 * problems into buf. Returns 0, or -1 with e when the connection broke. */
static int
probe_tables(struct lr_backend *b, char *buf, size_t n, int *count, struct lr_err *e)
{
	char sql[200], why[400], what[480], ddl_why[400];
	int missing[NELEM(tables)] = { 0 }, any = 0, rc, ddl = 0;

	for (size_t t = 0; t < NELEM(tables); t++) {
		snprintf(sql, sizeof(sql), "SELECT 1 FROM %s WHERE 1 = 0", tables[t]);
		if ((rc = try_sql(b, sql, NULL, NULL, why, sizeof(why), e)) < 0)
			return -1;
		missing[t] = rc == ER_NO_SUCH_TABLE;
		any |= missing[t];
		if (rc == ER_TABLEACCESS_DENIED_ERROR)
			text_problem(buf, n, count, "table %s: permission denied for %s",
			    tables[t], "SELECT");
		else if (rc != 0 && !missing[t])
			text_problem(buf, n, count, "table %s: %s", tables[t], why);
	}
	/* what the first run would do anyway */
	if (any && (ddl = try_sql(b, mysql_sql_ddl, NULL, NULL, ddl_why, sizeof(ddl_why),
	    e)) < 0)
		return -1;
	for (size_t t = 0; t < NELEM(tables); t++) {
		if (missing[t] && ddl != 0) {
			text_problem(buf, n, count, "table %s: missing, and cannot be created: %s",
			    tables[t], ddl_why);
			continue;
		}
		for (size_t i = 0; i < NELEM(uses); i++) {
			const struct use *u = &uses[i];
			if (!(u->tables & 1u << t))
				continue;
			snprintf(sql, sizeof(sql), "%s%s%s%s%s", u->head, tables[t],
			    u->mid ? u->mid : "", u->mid ? tables[t] : "", u->tail);
			if ((rc = try_sql(b, sql, NULL, NULL, why, sizeof(why), e)) < 0)
				return -1;
			snprintf(what, sizeof(what), "%s: %s", u->verb, why);
			if (rc == ER_TABLEACCESS_DENIED_ERROR)
				text_problem(buf, n, count, "table %s: permission denied for %s",
				    tables[t], u->verb);
			else if (rc != 0 && rc != ER_OPTION_PREVENTS_STATEMENT &&
			    rc != ER_READ_ONLY_MODE)	/* read-only: said once */
				text_problem(buf, n, count, "table %s: %s", tables[t], what);
		}
	}
	return 0;
}

/* The fence row must hold a token (digits), or acquire fails. */
static int
probe_fence(struct lr_backend *b, const struct lr_keys *k, char *buf, size_t n,
    int *count, struct lr_err *e)
{
	struct my *m = b->impl;
	struct myq q = { 0 };
	char v[512] = "", why[400];
	int rc;

	if (m->db == NULL)
		return 0;
	myq_str(&q, m->db, "fence", k->fence);
	myq_end(&q);
	myq_add(&q, "SELECT v FROM lockrun_keys WHERE k = @fence");
	rc = try_q(b, &q, value_row, v, why, sizeof(why), e);
	free(q.s);
	if (rc < 0)
		return -1;
	if (rc == 0 && v[strspn(v, "0123456789")] != '\0')
		text_problem(buf, n, count, "%s holds \"%s\", not a token", k->fence, v);
	return 0;
}

int
my_probe(struct lr_backend *b, const struct lr_keys *k, int one_server, char *buf,
    size_t n, struct lr_err *e)
{
	struct my *m = b->impl;
	char why[400];
	int count = 0, on = 0, rc;

	(void)one_server;	/* a slot is a row like the others */
	buf[0] = '\0';
	rc = try_sql(b, m->mariadb ? "SELECT @@read_only" :
	    "SELECT @@read_only, @@super_read_only", flag_row, &on, why, sizeof(why), e);
	if (rc < 0)
		return -1;
	if (rc > 0)
		text_problem(buf, n, &count, "cannot ask whether the server is read-only: %s",
		    why);
	if (on)
		text_problem(buf, n, &count, "this server is read-only (read_only%s is ON); point "
		    "lockrun at the primary", m->mariadb ? "" : " or super_read_only");
	if (probe_tables(b, buf, n, &count, e) != 0 ||
	    probe_fence(b, k, buf, n, &count, e) != 0)
		return -1;
	return count;
}
