/* SPDX-License-Identifier: BSD-2-Clause */
/* pg_sql_test.c -- the PostgreSQL backend's parameter helpers. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "core/keys.h"
#include "backend/pg/pg_sql.h"

Test(pg_sql, array_quotes_every_element)
{
	const char *v[] = { "lockrun:{a}", "b\"c", "d\\e", "" };
	char *s = pg_sql_array(v, 4);

	cr_assert(eq(str, s, "{\"lockrun:{a}\",\"b\\\"c\",\"d\\\\e\",\"\"}"));
	free(s);
}

Test(pg_sql, array_of_none_is_empty)
{
	char *s = pg_sql_array(NULL, 0);

	cr_assert(eq(str, s, "{}"));
	free(s);
}

Test(pg_sql, like_prefix_escapes_wildcards)
{
	char *s = pg_sql_like_prefix("lock_run%\\x");

	cr_assert(eq(str, s, "lock\\_run\\%\\\\x%"));
	free(s);
}

Test(pg_sql, like_prefix_of_nothing_matches_all)
{
	char *s = pg_sql_like_prefix("");

	cr_assert(eq(str, s, "%"));
	free(s);
}

/* The bigint is the hash's 64 bits read as signed; pg_locks shows them as
 * two unsigned halves. */
Test(pg_sql, lockid_is_the_hash_as_bigint_and_halves)
{
	struct pg_lockid x;
	uint64_t h = key_hash64("lockrun:{import}");
	char want[24];

	pg_sql_lockid("lockrun:{import}", &x);
	snprintf(want, sizeof(want), "%lld", (long long)(int64_t)h);
	cr_assert(eq(str, x.id, want));
	cr_assert(eq(u64, strtoull(x.hi, NULL, 10), h >> 32));
	cr_assert(eq(u64, strtoull(x.lo, NULL, 10), h & 0xffffffffULL));
}

Test(pg_sql, lockid_with_the_top_bit_set_is_negative)
{
	struct pg_lockid x;
	char key[32];

	/* find a key whose hash has the top bit set: half of them do */
	for (int i = 0; ; i++) {
		snprintf(key, sizeof(key), "k%d", i);
		if (key_hash64(key) >> 63)
			break;
	}
	pg_sql_lockid(key, &x);
	cr_assert(x.id[0] == '-', "%s", x.id);
	cr_assert(strtoull(x.hi, NULL, 10) >= 0x80000000ULL, "%s", x.hi);
}
