/* SPDX-License-Identifier: BSD-2-Clause */
/* mysql_args.c -- what the MySQL/MariaDB lock's operations share
 * (mysql_args.h): a lease's inputs, the answer row each gives. */
#include <stdio.h>

#include "backend/mysql/mysql_args.h"

/* "host pid" (of "host pid start") as @host and @pid. */
void
my_who_vars(struct myq *q, MYSQL *db, const char *who)
{
	char host[256] = "", pid[32] = "";

	sscanf(who, "%255s %31s", host, pid);
	myq_str(q, db, "host", host);
	myq_str(q, db, "pid", pid);
}

/* The inputs acquire, renew and release share. */
void
my_lock_vars(struct myq *q, MYSQL *db, const struct lr_lock *l)
{
	char name[KEY_MAX];

	my_lock_name(l->keys.stable, name, sizeof(name));
	my_clock_vars(q);
	myq_str(q, db, "stable", l->keys.stable);
	myq_str(q, db, "slot", l->slot_ttl_ms ? l->keys.slot : NULL);
	myq_str(q, db, "fence", l->keys.fence);
	myq_str(q, db, "hist", l->keys.hist);
	myq_str(q, db, "last", l->keys.last);
	myq_str(q, db, "ckey", l->keys.counts);
	myq_str(q, db, "ended", l->keys.ended);
	myq_str(q, db, "name", name);
	my_who_vars(q, db, l->owner);
	myq_str(q, db, "slot_iso", l->slot_ttl_ms ? l->keys.slot_iso : "");
	myq_ll(q, "ttl", l->ttl_ms);
	myq_ll(q, "slot_ttl", l->slot_ttl_ms);
	myq_ll(q, "cap", l->hist_cap);
	myq_ll(q, "hist_ttl", l->hist_ttl_ms);
}

int
my_answer_row(void *arg, size_t set, MYSQL_ROW row, unsigned int nf)
{
	struct my_answer *a = arg;

	(void)set;
	a->got = 1;
	a->code = row[0] ? my_num(row[0]) : -1;
	a->null = nf < 2 || row[1] == NULL;
	snprintf(a->text, sizeof(a->text), "%s", a->null ? "" : row[1]);
	a->now_ms = nf > 2 && row[2] ? my_num(row[2]) : 0;
	return 0;
}

int
my_no_answer(struct lr_backend *b, const char *what, struct lr_err *e)
{
	my_close(b);
	return lr_errf(e, EX_SOFTWARE, "mysql %s: %s: unexpected answer", b->where, what);
}
