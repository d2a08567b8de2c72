/* SPDX-License-Identifier: BSD-2-Clause */
/* where_test.c -- the hosts a task runs on (core/where.h), run_on's
 * settings and the slot key of one host (core/keys.h). */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "core/err.h"
#include "core/keys.h"
#include "core/task.h"
#include "core/where.h"

static char *web12[] = { "web1", "web2", NULL };

Test(where, no_hosts_and_no_match_is_every_host)
{
	char why[300];

	cr_assert(eq(int, where_here(NULL, NULL, "anything", why, sizeof(why)), 1));
	cr_assert(eq(str, why, "no hosts or host_match: every host runs it"));
}

Test(where, hosts_are_listed_byte_for_byte)
{
	char why[300];

	cr_assert(eq(int, where_here(web12, NULL, "web2", why, sizeof(why)), 1));
	cr_assert(eq(str, why, "web2 is in hosts"));
	cr_assert(eq(int, where_here(web12, NULL, "web3", why, sizeof(why)), 0));
	cr_assert(eq(str, why, "web3 is not in hosts [web1, web2]"));
	cr_assert(eq(int, where_here(web12, NULL, "WEB1", why, sizeof(why)), 0));
	cr_assert(eq(int, where_here(web12, NULL, "web", why, sizeof(why)), 0), "no prefix");
}

Test(where, host_match_is_fnmatch)
{
	char why[300];

	cr_assert(eq(int, where_here(NULL, "web*", "web17.example", why, sizeof(why)), 1));
	cr_assert(eq(str, why, "web17.example matches host_match \"web*\""));
	cr_assert(eq(int, where_here(NULL, "web[12]", "web3", why, sizeof(why)), 0));
	cr_assert(eq(str, why, "web3 does not match host_match \"web[12]\""));
	cr_assert(eq(int, where_here(NULL, "web?", "db1", why, sizeof(why)), 0));
}

Test(where, hosts_or_match_either_one_runs_it)
{
	char why[300];

	cr_assert(eq(int, where_here(web12, "db*", "db4", why, sizeof(why)), 1));
	cr_assert(eq(int, where_here(web12, "db*", "web1", why, sizeof(why)), 1));
	cr_assert(eq(int, where_here(web12, "db*", "cache1", why, sizeof(why)), 0));
	cr_assert(eq(str, why, "cache1 is not in hosts [web1, web2] and does not match "
	    "host_match \"db*\""));
}

Test(where, a_long_list_is_cut_short)
{
	char *many[40], names[40][16], why[300];

	for (int i = 0; i < 39; i++) {
		snprintf(names[i], sizeof(names[i]), "server-%02d", i);
		many[i] = names[i];
	}
	many[39] = NULL;
	cr_assert(eq(int, where_here(many, NULL, "web3", why, sizeof(why)), 0));
	cr_assert(strstr(why, "...]") != NULL, "%s", why);
}

Test(where, slot_key_of_a_host_parses_back)
{
	struct lr_keys k;
	struct lr_key_parts p;
	char iso[64];

	keys_build(&k, "lockrun:", "rotate", (time_t)1781524800, 60000);
	keys_slot_host(&k, "web1");
	cr_assert(eq(str, k.slot, "lockrun:{rotate}:slot:20260615T1200Z@web1"));
	cr_assert(eq(int, keys_parse(k.slot, "lockrun:", &p), 0));
	cr_assert(eq(int, p.kind, KEY_SLOT));
	cr_assert(eq(str, p.name, "rotate"));
	cr_assert(eq(int, keys_stamp_iso(p.stamp, iso, sizeof(iso)), 0));
	cr_assert(eq(str, iso, "2026-06-15T12:00:00Z"));
	cr_assert(eq(int, keys_parse("lockrun:{rotate}:slot:20260615T1200Z@", NULL, &p), -1),
	    "an '@' with no host");
	keys_build(&k, "lockrun:", "rotate", (time_t)-1, 60000);
	keys_slot_host(&k, "web1");
	cr_assert(eq(str, k.slot, ""), "no slot, no host");
}

Test(where, a_host_in_a_key_is_checked)
{
	cr_assert(eq(ptr, (void *)key_host_problem("web1.example"), NULL));
	cr_assert(key_host_problem("a@b") != NULL);
	cr_assert(key_host_problem("a b") != NULL);
	cr_assert(key_host_problem("") != NULL);
	cr_assert(key_host_problem("0123456789012345678901234567890123456789012345678901234"
	    "5678901234") != NULL, "65 bytes");
}

/* A finished task of schedule with run_on (and no_overlap, if not NULL). */
static int
finish(const char *run_on, const char *no_overlap, const char *schedule,
    struct lr_task *t, struct lr_err *e)
{
	struct lr_task defaults;
	int rc;

	task_init(t);
	task_init(&defaults);
	cr_assert(eq(int, task_set(t, "run_on", run_on, e), 1), "%s", e->msg);
	if (no_overlap)
		cr_assert(eq(int, task_set(t, "no_overlap", no_overlap, e), 1));
	if (schedule)
		cr_assert(eq(int, task_set(t, "schedule", schedule, e), 1));
	cr_assert(eq(int, task_inherit_defaults(t, &defaults), 0));
	rc = task_finish(t, NULL, e);
	task_free(&defaults);
	return rc;
}

Test(where, run_on_all_has_a_slot_and_no_fleet_wide_lock)
{
	struct lr_task t;
	struct lr_err e = { 0 };

	cr_assert(eq(int, finish("all", NULL, "*/5 * * * *", &t, &e), 0), "%s", e.msg);
	cr_assert(eq(int, t.one_server, 1));
	cr_assert(eq(int, t.no_overlap, 0), "the no-overlap lock is the fleet's");
	task_free(&t);
	cr_assert(eq(int, finish("one", NULL, "*/5 * * * *", &t, &e), 0), "%s", e.msg);
	cr_assert(eq(int, t.no_overlap, 1), "run_on: one is today's");
	task_free(&t);
	cr_assert(eq(int, finish("all", "true", "*/5 * * * *", &t, &e), -1));
	cr_assert(strstr(e.msg, "no_overlap does not go with run_on: all") != NULL, "%s",
	    e.msg);
	task_free(&t);
	cr_assert(eq(int, finish("all", NULL, NULL, &t, &e), -1));
	cr_assert(strstr(e.msg, "run_on: all needs one-server") != NULL, "%s", e.msg);
	task_free(&t);
	cr_assert(eq(int, finish("all", NULL, "@reboot", &t, &e), -1));
	task_free(&t);
	task_init(&t);
	cr_assert(eq(int, task_set(&t, "run_on", "2", &e), -1), "run_on: N is not built");
	cr_assert(eq(str, e.msg, "expected one or all, got \"2\""));
	task_free(&t);
}
