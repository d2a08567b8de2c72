/* SPDX-License-Identifier: BSD-2-Clause */
/* sqlbound_test.c -- a database answer larger than lockrun can ever need is
 * refused, as a Redis reply is (hostile_test.c): a last-run record grown to
 * 10 MiB by hand makes `status` exit 69 naming the bound, not hold it; on
 * PostgreSQL, as that task's error (LR_ERR_DATA), read to its end. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "harness.h"
#include "sql_fixture.h"

static struct sql_server srv;

static void
teardown(void)
{
	sql_stop(&srv);
	suite_teardown();
}

TestSuite(sqlbound, .init = suite_setup, .fini = teardown, .timeout = 120);

/* A run on kind's server, then its last-run record made huge by hand with
 * grow (as admin), then `status`: 69 with a line matching want. */
static void
refused_after(enum sql_kind kind, const char *grow, const char *want)
{
	char out[256];
	struct result r;

	cr_assert(eq(int, sql_start(&srv, kind), 0));
	setenv("LOCKRUN_REDIS_PASSWORD", SQL_PASSWORD, 1);
	LR(&r, "--url", srv.url, "-k", "big", "--", "true");
	cr_assert(eq(int, r.status, 0), "%s", r.err);
	cr_assert(eq(int, sql_admin(&srv, grow, out, sizeof(out)), 0), "%s", out);
	LR(&r, "--url", srv.url, "status", "big");
	cr_assert(eq(int, r.status, 69), "%s", r.err);
	cr_assert(matches(r.err, want), "%s", r.err);
}

Test(sqlbound, pg_an_answer_past_the_bound_is_refused)
{
	refused_after(SQL_PG, "UPDATE lockrun_last SET event = repeat('x', 10 * 1024 * 1024) "
	    "WHERE k = 'lockrun:{big}:last'", "^lockrun: postgres [^ ]+: status: an answer "
	    "larger than lockrun accepts \\(8 MiB; a value of this task's grown too "
	    "large\\?\\)\n$");
}

/* A server that sends more than lockrun wrote: the column widened. The
 * message is libmariadb's: it drops the connection as it reads the
 * packet's length. */
Test(sqlbound, mysql_a_packet_past_the_bound_is_refused)
{
	refused_after(SQL_MYSQL, "ALTER TABLE lockrun_last MODIFY event LONGBLOB; "
	    "UPDATE lockrun_last SET event = REPEAT('x', 2 * 1024 * 1024) "
	    "WHERE k = 'lockrun:{big}:last'", "^lockrun: mysql [^ ]+: status: [^\n]+\n$");
}
