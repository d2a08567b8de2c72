/* SPDX-License-Identifier: BSD-2-Clause */
/* keys_test.c -- key names, derived names, slot arithmetic. */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "core/err.h"
#include "core/keys.h"
#include "core/schedule.h"
#include "core/task.h"

/* 2026-11-21T17:45:02Z */
#define T_174502 ((time_t)1795283102)

Test(keys, stable_key_wraps_the_name_in_a_hash_tag)
{
	struct lr_keys k;

	keys_build(&k, "lockrun:", "import", (time_t)-1, 60000);
	cr_assert(eq(str, k.stable, "lockrun:{import}"));
	cr_assert(eq(str, k.fence, "lockrun:{import}:fence"));
	cr_assert(eq(str, k.hist, "lockrun:{import}:history"));
	cr_assert(eq(str, k.last, "lockrun:{import}:last"));
	cr_assert(eq(str, k.slot, ""), "no slot key without one-server");
}

static struct lr_schedule
every(long long ms, long long tol)
{
	struct lr_schedule s;
	struct lr_err err = { 0 };
	int pos;

	cr_assert(eq(int, schedule_init(&s, NULL, NULL, ms, tol, &pos, &err), 0),
	    "%s", err.msg);
	return s;
}

#define MS(t) ((long long)(t) * 1000)

Test(keys, minute_slots_are_stamped_to_the_minute)
{
	struct lr_keys k;
	struct lr_schedule s = every(60000, 0);
	time_t slot = schedule_slot(&s, MS(T_174502));

	keys_build(&k, "lockrun:", "import", slot, schedule_stamp_ms(&s));
	cr_assert(eq(str, k.slot, "lockrun:{import}:slot:20261121T1745Z"));
	cr_assert(eq(str, k.slot_iso, "2026-11-21T17:45:00Z"));
}

Test(keys, sub_minute_slots_are_stamped_to_the_second)
{
	struct lr_keys k;
	struct lr_schedule s = every(15000, 0), t = every(1000, 0);

	keys_build(&k, "p:", "fast", schedule_slot(&s, MS(T_174502)), 15000);
	cr_assert(eq(str, k.slot, "p:{fast}:slot:20261121T174500Z"));
	keys_build(&k, "p:", "fast", schedule_slot(&t, MS(T_174502)), 1000);
	cr_assert(eq(str, k.slot, "p:{fast}:slot:20261121T174502Z"));
}

Test(keys, fixed_slots_floor_now_plus_tolerance_to_their_period)
{
	struct lr_schedule five = every(300000, 0), hour = every(3600000, 0);
	struct lr_schedule early = every(60000, 5000);

	cr_assert(eq(i64, (long long)schedule_slot(&five, MS(T_174502)),
	    (long long)T_174502 - 2));			/* 17:45:00 */
	cr_assert(eq(i64, (long long)schedule_slot(&hour, MS(T_174502)),
	    (long long)T_174502 - 45 * 60 - 2));	/* 17:00:00 */
	cr_assert(eq(i64, (long long)schedule_slot(&early, MS(T_174502 - 3) - 500),
	    (long long)T_174502 - 2), "17:44:58.5 + 5s belongs to 17:45");
	cr_assert(eq(i64, (long long)schedule_slot(&early, MS(T_174502 - 8)),
	    (long long)T_174502 - 62), "17:44:54 + 5s is still 17:44");
	cr_assert(eq(i64, (long long)schedule_slot(&five, -1000), -300),
	    "floors before the epoch too");
}

Test(keys, default_tolerance_is_5s_or_a_quarter_of_short_periods)
{
	cr_assert(eq(i64, every(60000, LR_UNSET).tolerance_ms, 5000));
	cr_assert(eq(i64, every(2000, LR_UNSET).tolerance_ms, 500));
}

Test(keys, tolerance_must_be_under_half_the_slot)
{
	struct lr_schedule s;
	struct lr_err err = { 0 };
	int pos;

	cr_assert(eq(int, schedule_init(&s, NULL, NULL, 120000, 60000, &pos, &err), -1));
	cr_assert(eq(str, err.msg, "slot_tolerance 1m must be under half the slot (2m)"));
}

Test(keys, slot_ttl_lasts_until_the_next_slot_plus_tolerance)
{
	struct lr_schedule s = every(60000, 5000);
	time_t slot = schedule_slot(&s, MS(T_174502));

	/* taken at 17:45:02, next slot 17:46:00, plus 5s: 63s */
	cr_assert(eq(i64, schedule_slot_ttl_ms(&s, MS(T_174502), slot), 63000));
	s = every(86400000, 5000);
	slot = schedule_slot(&s, MS(T_174502));	/* 00:00 that day */
	cr_assert(eq(i64, schedule_slot_ttl_ms(&s, MS(T_174502), slot),
	    (86400LL - (17 * 3600 + 45 * 60 + 2)) * 1000 + 5000));
}

Test(keys, names_may_not_break_the_hash_tag)
{
	cr_assert(eq(ptr, (void *)key_name_problem("import-products.v2_x:y"), NULL));
	cr_assert(ne(ptr, (void *)key_name_problem(""), NULL));
	cr_assert(ne(ptr, (void *)key_name_problem("a}b"), NULL));
	cr_assert(ne(ptr, (void *)key_name_problem("a{b"), NULL));
	cr_assert(ne(ptr, (void *)key_name_problem("a b"), NULL));
	cr_assert(ne(ptr, (void *)key_name_problem("a\tb"), NULL));
	cr_assert(eq(ptr, (void *)key_prefix_problem(""), NULL), "an empty prefix is fine");
	cr_assert(ne(ptr, (void *)key_prefix_problem("x{"), NULL));
}

Test(keys, names_are_utf8)
{
	cr_assert(eq(ptr, (void *)key_name_problem("caf\xc3\xa9-import"), NULL));
	cr_assert(eq(str, (char *)key_name_problem("caf\xe9"), "is not valid UTF-8"));
	cr_assert(eq(str, (char *)key_name_problem("a\xc3"), "is not valid UTF-8"));
	cr_assert(eq(str, (char *)key_prefix_problem("\xff:"), "is not valid UTF-8"));
}

Test(keys, long_names_are_refused)
{
	char name[KEY_NAME_MAX + 2];

	memset(name, 'a', sizeof(name) - 1);
	name[KEY_NAME_MAX] = '\0';
	cr_assert(eq(ptr, (void *)key_name_problem(name), NULL), "200 bytes is fine");
	name[KEY_NAME_MAX] = 'a';
	name[KEY_NAME_MAX + 1] = '\0';
	cr_assert(ne(ptr, (void *)key_name_problem(name), NULL));
}

Test(keys, derived_name_is_program_and_hash)
{
	char *argv1[] = { "/usr/local/bin/import-products", "--all", NULL };
	char *argv2[] = { "/usr/local/bin/import-products", "--all", NULL };
	char *argv3[] = { "/usr/local/bin/import-products", "--al", "l", NULL };
	char a[128], b[128], c[128];

	key_derive(argv1, a, sizeof(a));
	key_derive(argv2, b, sizeof(b));
	key_derive(argv3, c, sizeof(c));
	cr_assert(eq(str, a, b), "same argv, same name");
	cr_assert(ne(str, a, c), "argument boundaries count");
	cr_assert(eq(sz, strlen(a), strlen("import-products-") + 16));
	cr_assert(eq(int, strncmp(a, "import-products-", 16), 0), "%s", a);
	cr_assert(eq(ptr, (void *)key_name_problem(a), NULL));
}

Test(keys, derived_name_is_fixed_for_a_known_argv)
{
	/* FNV-1a 64 of "true\0" (worked out apart from this code): pinned so the name never changes between
	 * releases (that would let an old and a new lockrun overlap) */
	char *argv[] = { "true", NULL };
	char name[64];

	key_derive(argv, name, sizeof(name));
	cr_assert(eq(str, name, "true-8c1783a7271ca55f"));
}

Test(keys, derived_name_of_a_shell_string_uses_its_first_word)
{
	char *argv[] = { "  pg_dump shop | gzip > /b/x.gz", NULL };
	char *odd[] = { "./we!rd{name} --x", NULL };
	char name[64];

	key_derive(argv, name, sizeof(name));
	cr_assert(eq(int, strncmp(name, "pg_dump-", 8), 0), "%s", name);
	key_derive(odd, name, sizeof(name));
	cr_assert(eq(int, strncmp(name, "we_rd_name_-", 12), 0), "%s", name);
	cr_assert(eq(ptr, (void *)key_name_problem(name), NULL));
}

Test(keys, stamp_iso_from_minute_and_second_stamps)
{
	char buf[64] = "x";

	cr_assert(eq(int, keys_stamp_iso("20261121T1745Z", buf, sizeof(buf)), 0));
	cr_assert(eq(str, buf, "2026-11-21T17:45:00Z"));
	cr_assert(eq(int, keys_stamp_iso("20261121T174502Z", buf, sizeof(buf)), 0));
	cr_assert(eq(str, buf, "2026-11-21T17:45:02Z"));
}

Test(keys, stamp_iso_refuses_what_is_no_stamp)
{
	const char *bad[] = { "2026112XT1745Z", "20261121T1745", "20261121X1745Z",
	    "20261121T17450Z", "", "20261121T17:5Z" };
	char buf[64];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(buf, sizeof(buf), "x");
		cr_assert(eq(int, keys_stamp_iso(bad[i], buf, sizeof(buf)), -1), "%s", bad[i]);
		cr_assert(eq(str, buf, ""), "%s", bad[i]);
	}
}

/* The word glued to a stable key's id: unlock's tombstone, --min-hold's
 * leftover, or none (a running holder's value, or anything else). */
Test(keys, value_phase_reads_the_prefix_of_the_id_word)
{
	cr_assert(eq(int, keys_value_phase("ab12 41 web-3 4141 2026-06-15T12:00:00Z"),
	    KEY_RUNNING));
	cr_assert(eq(int, keys_value_phase("unlocked:ab12 41 web-3 4141 x"), KEY_UNLOCKED));
	cr_assert(eq(int, keys_value_phase("released:ab12 41 web-3 4141 x"), KEY_RELEASED));
	cr_assert(eq(int, keys_value_phase("unlocked"), KEY_RUNNING));
	cr_assert(eq(int, keys_value_phase(""), KEY_RUNNING));
}

/* Every key keys_build() writes parses back to its name and kind. */
Test(keys, parse_reads_back_what_build_writes)
{
	struct lr_keys k;
	struct lr_key_parts p;

	keys_build(&k, "lockrun:", "import", T_174502, 60000);
	cr_assert(eq(int, keys_parse(k.stable, "lockrun:", &p), 0));
	cr_assert(eq(int, p.kind, KEY_STABLE));
	cr_assert(eq(str, p.name, "import"));
	cr_assert(eq(sz, p.plen, 8));
	cr_assert(eq(ptr, (void *)p.stamp, NULL));
	cr_assert(eq(int, keys_parse(k.slot, "lockrun:", &p), 0));
	cr_assert(eq(int, p.kind, KEY_SLOT));
	cr_assert(eq(str, p.name, "import"));
	cr_assert(eq(str, (char *)p.stamp, "20261121T1745Z"));
	cr_assert(eq(int, keys_parse(k.fence, NULL, &p), 0));
	cr_assert(eq(int, p.kind, KEY_FENCE));
	cr_assert(eq(int, keys_parse(k.hist, NULL, &p), 0));
	cr_assert(eq(int, p.kind, KEY_HISTORY));
	cr_assert(eq(int, keys_parse(k.last, NULL, &p), 0));
	cr_assert(eq(int, p.kind, KEY_LAST));
	cr_assert(eq(str, p.name, "import"));
	cr_assert(eq(str, k.counts, "lockrun:{import}:counts"));
	cr_assert(eq(int, keys_parse(k.counts, "lockrun:", &p), 0));
	cr_assert(eq(int, p.kind, KEY_COUNTS));
	cr_assert(eq(str, p.name, "import"));
	cr_assert(eq(str, k.pause, "lockrun:{import}:pause"));
	cr_assert(eq(int, keys_parse(k.pause, "lockrun:", &p), 0));
	cr_assert(eq(int, p.kind, KEY_PAUSE));
	cr_assert(eq(str, k.missed, "lockrun:{import}:missed"));
	cr_assert(eq(int, keys_parse(k.missed, "lockrun:", &p), 0));
	cr_assert(eq(int, p.kind, KEY_MISSED));
	cr_assert(eq(str, k.trigger, "lockrun:{import}:trigger"));
	cr_assert(eq(int, keys_parse(k.trigger, "lockrun:", &p), 0));
	cr_assert(eq(int, p.kind, KEY_TRIGGER));
	cr_assert(eq(str, k.ended, "lockrun:{import}:ended"));
	cr_assert(eq(int, keys_parse(k.ended, "lockrun:", &p), -1));
	cr_assert(eq(int, keys_parse("lockrun:{import}:ended:1765000000000000", "lockrun:", &p), 0));
	cr_assert(eq(int, p.kind, KEY_ENDED));
	cr_assert(eq(int, keys_parse("lockrun:{import}:ended:x", "lockrun:", &p), -1));
	cr_assert(eq(int, keys_parse("lockrun:{import}:ended:", "lockrun:", &p), -1));
}

Test(keys, parse_finds_the_prefix_when_not_given)
{
	struct lr_key_parts p;

	cr_assert(eq(int, keys_parse("app:prod:{nightly}:slot:20261121T174502Z", NULL, &p), 0));
	cr_assert(eq(sz, p.plen, 9));
	cr_assert(eq(str, p.name, "nightly"));
	cr_assert(eq(int, p.kind, KEY_SLOT));
	cr_assert(eq(int, keys_parse("{bare}", NULL, &p), 0), "an empty prefix");
	cr_assert(eq(sz, p.plen, 0));
	cr_assert(eq(str, p.name, "bare"));
}

Test(keys, parse_refuses_malformed_keys)
{
	const char *bad[] = {
		"lockrun:import",			/* no hash tag */
		"lockrun:{import",			/* not closed */
		"lockrun:{}",				/* empty name */
		"lockrun:{import}x",			/* unknown suffix */
		"lockrun:{import}:slot:",		/* no stamp */
		"lockrun:{import}:slot:2026",		/* not a stamp */
		"lockrun:{import}:slot:20261121T1745Z:x",
		"lockrun:{import}:last:",
		"",
	};
	struct lr_key_parts p;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		cr_assert(eq(int, keys_parse(bad[i], NULL, &p), -1), "\"%s\"", bad[i]);
}

Test(keys, parse_refuses_braces_inside_the_name)
{
	struct lr_key_parts p;

	cr_assert(eq(int, keys_parse("lockrun:{a{b}", NULL, &p), -1));
	cr_assert(eq(int, keys_parse("lockrun:{a}b}", NULL, &p), -1));
	cr_assert(eq(int, keys_parse("lockrun:{a}}", NULL, &p), -1));
	cr_assert(eq(int, keys_parse("lockrun:{{a}}", NULL, &p), -1));
}

Test(keys, parse_with_a_prefix_wants_exactly_it)
{
	struct lr_key_parts p;

	cr_assert(eq(int, keys_parse("other:{import}", "lockrun:", &p), -1));
	cr_assert(eq(int, keys_parse("lockrun:x{import}", "lockrun:", &p), -1));
	cr_assert(eq(int, keys_parse("lockrun:{import}", "lockrun", &p), -1));
	cr_assert(eq(int, keys_parse("{import}", "", &p), 0));
}

Test(keys, parse_leaves_name_checks_to_key_name_problem)
{
	struct lr_key_parts p;
	char key[300], name[KEY_NAME_MAX + 2];

	cr_assert(eq(int, keys_parse("lockrun:{a b\x1b}", NULL, &p), 0));
	cr_assert(eq(str, p.name, "a b\x1b"));
	memset(name, 'n', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	snprintf(key, sizeof(key), "p{%s}", name);
	cr_assert(eq(int, keys_parse(key, NULL, &p), -1), "a name over 200 bytes");
	name[KEY_NAME_MAX] = '\0';
	snprintf(key, sizeof(key), "p{%s}", name);
	cr_assert(eq(int, keys_parse(key, NULL, &p), 0), "a name of 200 bytes");
}

Test(keys, task_name_is_a_file_name_of_its_own)
{
	cr_assert(eq(ptr, (void *)keys_name_problem("backup.db-1"), NULL));
	cr_assert(not(eq(ptr, (void *)keys_name_problem("../../tmp/evil"), NULL)));
	cr_assert(not(eq(ptr, (void *)keys_name_problem("a/b"), NULL)));
	cr_assert(not(eq(ptr, (void *)keys_name_problem(".hidden"), NULL)));
	cr_assert(not(eq(ptr, (void *)keys_name_problem(".."), NULL)));
	cr_assert(not(eq(ptr, (void *)keys_name_problem(""), NULL)));
}

Test(keys, names_refuse_c1_and_bidi_controls)
{
	cr_assert(not(eq(ptr, (void *)key_name_problem("x\xc2\x9b" "31m"), NULL)));
	cr_assert(not(eq(ptr, (void *)key_name_problem("x\x9b"), NULL)));
	cr_assert(not(eq(ptr, (void *)key_name_problem("a\xe2\x80\xae" "b"), NULL)));
	cr_assert(not(eq(ptr, (void *)keys_name_problem("a\xe2\x81\xa6"), NULL)));
	cr_assert(eq(ptr, (void *)key_name_problem("caf\xc3\xa9"), NULL));
}
