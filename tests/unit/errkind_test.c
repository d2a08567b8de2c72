/* SPDX-License-Identifier: BSD-2-Clause */
/* errkind_test.c -- an error's kind is set where it happens, from the
 * server's code, never from its message (issue 41): what closes a
 * connection, what leaves a request in doubt, and each backend's codes. */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "backend/pg/pg_conn.h"
#include "backend/redis/rerr.h"
#include "core/err.h"

Test(errkind, lr_errf_clears_the_kind_and_lr_errk_sets_it)
{
	struct lr_err e = { 0, "", LR_ERR_TRANSPORT };

	cr_assert(eq(int, lr_errf(&e, EX_UNAVAILABLE, "no answer within %ds", 2), -1));
	cr_assert(eq(int, (int)e.kind, LR_ERR_NONE), "a message's words set no kind");
	cr_assert(eq(int, lr_errk(&e, LR_ERR_DATA, EX_UNAVAILABLE, "protocol error"), -1));
	cr_assert(eq(int, (int)e.kind, LR_ERR_DATA));
	cr_assert(eq(str, e.msg, "protocol error"));
	cr_assert(eq(int, lr_errk(NULL, LR_ERR_AUTH, EX_UNAVAILABLE, "x"), -1));
}

/* Only a lost transport, a timeout or a broken protocol close the
 * connection (and a scheduler's session with every lock in it); only the
 * first two leave a request sent in doubt. */
Test(errkind, what_closes_and_what_is_in_doubt)
{
	static const struct { enum lr_err_kind k; int broke, doubt; } t[] = {
		{ LR_ERR_NONE, 0, 0 }, { LR_ERR_TRANSPORT, 1, 1 }, { LR_ERR_TIMEOUT, 1, 1 },
		{ LR_ERR_PROTOCOL, 1, 0 }, { LR_ERR_REFUSED, 0, 0 }, { LR_ERR_AUTH, 0, 0 },
		{ LR_ERR_DATA, 0, 0 },
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct lr_err e = { 0, "", t[i].k };

		cr_assert(eq(int, lr_err_broke(&e), t[i].broke), "kind %d", (int)t[i].k);
		cr_assert(eq(int, lr_err_unanswered(&e), t[i].doubt), "kind %d", (int)t[i].k);
	}
}

Test(errkind, postgres_sqlstate_classes)
{
	cr_assert(eq(int, (int)pg_conn_kind("08006"), LR_ERR_TRANSPORT));
	cr_assert(eq(int, (int)pg_conn_kind("57P01"), LR_ERR_TRANSPORT));
	cr_assert(eq(int, (int)pg_conn_kind("28P01"), LR_ERR_AUTH));
	cr_assert(eq(int, (int)pg_conn_kind("22001"), LR_ERR_DATA));	/* string too long */
	cr_assert(eq(int, (int)pg_conn_kind("23505"), LR_ERR_DATA));	/* unique violation */
	cr_assert(eq(int, (int)pg_conn_kind("54000"), LR_ERR_DATA));	/* program limit */
	cr_assert(eq(int, (int)pg_conn_kind("42501"), LR_ERR_REFUSED));	/* privilege */
	cr_assert(eq(int, (int)pg_conn_kind("57014"), LR_ERR_REFUSED));	/* canceled */
	cr_assert(eq(int, (int)pg_conn_kind(""), LR_ERR_REFUSED));
}

Test(errkind, redis_codes)
{
	struct lr_err e;

	rerr_classify("WRONGPASS invalid username-password pair", &e);
	cr_assert(eq(int, (int)e.kind, LR_ERR_AUTH));
	rerr_classify("NOAUTH Authentication required.", &e);
	cr_assert(eq(int, (int)e.kind, LR_ERR_AUTH));
	rerr_classify("WRONGTYPE Operation against a key holding the wrong kind of value", &e);
	cr_assert(eq(int, (int)e.kind, LR_ERR_DATA));
	rerr_classify("READONLY You can't write against a read only replica.", &e);
	cr_assert(eq(int, (int)e.kind, LR_ERR_REFUSED));
	/* a refusal whose text says "no answer" or "protocol error" is one */
	rerr_classify("ERR protocol error: no answer", &e);
	cr_assert(eq(int, (int)e.kind, LR_ERR_REFUSED));
}
