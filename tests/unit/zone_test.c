/* SPDX-License-Identifier: BSD-2-Clause */
/* zone_test.c -- TZif zones read by hand: offsets both sides of Berlin's
 * changes, zones without DST, the footer rule past the table, slim and
 * version 1 files written here, the local zone, and refused names.
 * Expected instants were worked out apart from this code (Python's
 * zoneinfo); each carries its UTC time. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "core/err.h"
#include "core/zone.h"

#define BERLIN_2026_SPRING	1774746000LL	/* 2026-03-29T01:00Z: CET -> CEST */
#define BERLIN_2026_FALL	1792890000LL	/* 2026-10-25T01:00Z: CEST -> CET */
#define BERLIN_2100_SPRING	4109878800LL	/* 2100-03-28T01:00Z */
#define BERLIN_2100_FALL	4128627600LL	/* 2100-10-31T01:00Z */

static const struct lr_zone *
zone_of(const char *name)
{
	struct lr_err e = { 0 };
	const struct lr_zone *z = zone_load(name, &e);

	cr_assert(ne(ptr, (void *)z, NULL), "%s: %s", name, e.msg);
	return z;
}

/* Assert z's offset and DST flag at t. */
static void
offset_is(const struct lr_zone *z, long long t, long off, int dst)
{
	int isdst = -1;

	cr_assert(eq(long, zone_offset(z, t, &isdst), off), "t=%lld", t);
	cr_assert(eq(int, isdst, dst), "t=%lld", t);
}

Test(zone, berlin_springs_forward_at_one_utc)
{
	const struct lr_zone *z = zone_of("Europe/Berlin");

	offset_is(z, BERLIN_2026_SPRING - 1, 3600, 0);
	offset_is(z, BERLIN_2026_SPRING, 7200, 1);
}

Test(zone, berlin_falls_back_at_one_utc)
{
	const struct lr_zone *z = zone_of("Europe/Berlin");

	offset_is(z, BERLIN_2026_FALL - 1, 7200, 1);
	offset_is(z, BERLIN_2026_FALL, 3600, 0);
}

Test(zone, a_skipped_wall_time_names_the_jump)
{
	long long out[2];
	/* 2026-03-29 02:30 does not occur in Berlin */
	long long wall = 1774751400LL;	/* 2026-03-29T02:30 as if UTC */

	cr_assert(eq(int, zone_instants(zone_of("Europe/Berlin"), wall, out), 1));
	cr_assert(eq(i64, out[0], BERLIN_2026_SPRING));
}

Test(zone, a_repeated_wall_time_names_both_in_order)
{
	long long out[2];
	long long wall = 1792895400LL;	/* 2026-10-25T02:30 as if UTC */

	cr_assert(eq(int, zone_instants(zone_of("Europe/Berlin"), wall, out), 2));
	cr_assert(eq(i64, out[0], 1792888200LL), "00:30Z, in CEST");
	cr_assert(eq(i64, out[1], 1792891800LL), "01:30Z, in CET");
}

Test(zone, an_ordinary_wall_time_names_one_instant)
{
	long long out[2];
	long long wall = 1782896400LL;	/* 2026-07-01T09:00 as if UTC */

	cr_assert(eq(int, zone_instants(zone_of("Europe/Berlin"), wall, out), 1));
	cr_assert(eq(i64, out[0], wall - 7200));
}

Test(zone, a_zone_without_dst_keeps_its_offset)
{
	const struct lr_zone *z = zone_of("Asia/Kolkata");
	long long out[2];

	offset_is(z, 1780272000LL, 19800, 0);		/* 2026-06-01 */
	offset_is(z, 4118126400LL, 19800, 0);		/* 2100-07-01 */
	cr_assert(eq(int, zone_instants(z, 1780272000LL, out), 1));
	cr_assert(eq(i64, out[0], 1780272000LL - 19800));
}

/* Debian's files list transitions up to 2037; after that the footer's
 * POSIX rule (CET-1CEST,M3.5.0,M10.5.0/3) must give 2100's changes. */
Test(zone, the_footer_rule_decides_past_the_table)
{
	const struct lr_zone *z = zone_of("Europe/Berlin");

	offset_is(z, BERLIN_2100_SPRING - 1, 3600, 0);
	offset_is(z, BERLIN_2100_SPRING, 7200, 1);
	offset_is(z, BERLIN_2100_FALL - 1, 7200, 1);
	offset_is(z, BERLIN_2100_FALL, 3600, 0);
}

Test(zone, southern_summer_spans_the_new_year)
{
	const struct lr_zone *z = zone_of("Australia/Sydney");

	offset_is(z, 4103654400LL, 39600, 1);	/* 2100-01-15: AEDT */
	offset_is(z, 4119292800LL, 36000, 0);	/* 2100-07-15: AEST */
}

/* Write a TZif file under dir/name with one type (CET, +1h) and no
 * transitions: version 1 alone, or version 2 with a footer, as a slim
 * file whose table ends early leaves everything to its footer. */
static void
tzif_write(const char *dir, const char *name, char version, const char *footer)
{
	unsigned char head[44] = "TZif", data[10] = { 0, 0, 0x0e, 0x10, 0, 0,
	    'C', 'E', 'T', 0 };
	char path[512];
	FILE *fp;

	head[4] = version == '1' ? 0 : version;
	head[39] = 1;		/* typecnt */
	head[43] = 4;		/* charcnt */
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	cr_assert(ne(ptr, (fp = fopen(path, "wb")), NULL));
	fwrite(head, 1, sizeof(head), fp);
	fwrite(data, 1, sizeof(data), fp);
	if (version != '1') {
		fwrite(head, 1, sizeof(head), fp);
		fwrite(data, 1, sizeof(data), fp);
		fprintf(fp, "\n%s\n", footer);
	}
	cr_assert(eq(int, fclose(fp), 0));
}

static char tzdir[] = "/tmp/zone_test.XXXXXX";

static void
tzdir_make(void)
{
	cr_assert(ne(ptr, mkdtemp(tzdir), NULL));
	cr_assert(eq(int, setenv("TZDIR", tzdir, 1), 0));
}

static void
tzdir_remove(void)
{
	const char *files[] = { "Slim", "Old", "Text" };
	char path[512];

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", tzdir, files[i]);
		unlink(path);
	}
	rmdir(tzdir);
}

Test(zone, a_slim_file_is_all_footer, .init = tzdir_make, .fini = tzdir_remove)
{
	const struct lr_zone *z;

	tzif_write(tzdir, "Slim", '2', "CET-1CEST,M3.5.0,M10.5.0/3");
	z = zone_of("Slim");
	offset_is(z, BERLIN_2026_SPRING - 1, 3600, 0);
	offset_is(z, BERLIN_2026_SPRING, 7200, 1);
	offset_is(z, BERLIN_2026_FALL, 3600, 0);
}

Test(zone, version_one_files_have_no_footer, .init = tzdir_make, .fini = tzdir_remove)
{
	tzif_write(tzdir, "Old", '1', NULL);
	offset_is(zone_of("Old"), BERLIN_2026_SPRING, 3600, 0);
}

Test(zone, names_that_are_paths_are_refused)
{
	struct lr_err e = { 0 };

	cr_assert(eq(ptr, (void *)zone_load("/etc/localtime", &e), NULL));
	cr_assert(eq(str, e.msg, "time zone \"/etc/localtime\" must be a name such "
	    "as Europe/Berlin, not a path"));
	cr_assert(eq(int, e.status, EX_CONFIG));
	cr_assert(eq(ptr, (void *)zone_load("Europe/../../../etc/passwd", &e), NULL));
	cr_assert(eq(ptr, (void *)zone_load("..", &e), NULL));
}

Test(zone, names_of_no_zone_file_are_refused, .init = tzdir_make, .fini = tzdir_remove)
{
	struct lr_err e = { 0 };
	char path[512];
	FILE *fp;

	cr_assert(eq(ptr, (void *)zone_load("Mars/Olympus", &e), NULL));
	snprintf(path, sizeof(path), "unknown time zone \"Mars/Olympus\" (no zone file "
	    "%s/Mars/Olympus)", tzdir);
	cr_assert(eq(str, e.msg, path));
	cr_assert(eq(ptr, (void *)zone_load(".", &e), NULL), "a directory");
	snprintf(path, sizeof(path), "%s/Text", tzdir);
	cr_assert(ne(ptr, (fp = fopen(path, "w")), NULL));
	fputs("TZif but nothing after it\n", fp);
	fclose(fp);
	cr_assert(eq(ptr, (void *)zone_load("Text", &e), NULL), "a truncated file");
}

Test(zone, the_local_zone_reads_tz_without_changing_it)
{
	cr_assert(eq(int, setenv("TZ", ":Asia/Tokyo", 1), 0));
	offset_is(zone_load("", NULL), 1780272000LL, 9 * 3600, 0);
	cr_assert(eq(str, getenv("TZ"), ":Asia/Tokyo"));
	cr_assert(eq(int, setenv("TZ", "<+0330>-3:30", 1), 0));
	offset_is(zone_load("", NULL), 1780272000LL, 3 * 3600 + 1800, 0);
	cr_assert(eq(int, setenv("TZ", "EST5EDT,M3.2.0,M11.1.0", 1), 0));
	offset_is(zone_load(NULL, NULL), 1780272000LL, -4 * 3600, 1);
	cr_assert(eq(int, setenv("TZ", "", 1), 0));
	offset_is(zone_load("", NULL), 1780272000LL, 0, 0);
}

Test(zone, loads_are_kept)
{
	cr_assert(eq(ptr, (void *)zone_of("Europe/Berlin"), (void *)zone_of("Europe/Berlin")));
}
