/* SPDX-License-Identifier: BSD-2-Clause */
/* civil.c -- calendar arithmetic on days since the epoch; pure, libc only. */
#include "core/civil.h"

long long
civil_floor_div(long long a, long long b)
{
	return a / b - (a % b != 0 && (a < 0) != (b < 0));
}

/* Eras of 400 years counted from March 1, so that the leap day ends a
 * year and the month lengths from March on repeat every five months. */
long long
civil_days(long long y, int m, int d)
{
	long long era, yoe, doy;

	y -= m <= 2;
	era = civil_floor_div(y, 400);
	yoe = y - era * 400;
	doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
	return era * 146097 + yoe * 365 + yoe / 4 - yoe / 100 + doy - 719468;
}

void
civil_from_days(long long z, long long *y, int *m, int *d)
{
	long long era, doe, yoe, doy, mp;

	z += 719468;
	era = civil_floor_div(z, 146097);
	doe = z - era * 146097;
	yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	mp = (5 * doy + 2) / 153;
	*d = (int)(doy - (153 * mp + 2) / 5 + 1);
	*m = (int)(mp < 10 ? mp + 3 : mp - 9);
	*y = yoe + era * 400 + (*m <= 2);
}

int
civil_weekday(long long z)
{
	return (int)((z % 7 + 11) % 7);	/* 1970-01-01 was a Thursday */
}
