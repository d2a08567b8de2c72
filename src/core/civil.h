/* SPDX-License-Identifier: BSD-2-Clause */
/* civil.h -- proleptic Gregorian dates to and from days since 1970-01-01. */
#ifndef LR_CIVIL_H
#define LR_CIVIL_H

/* floor(a / b) for b != 0, also when a or b is negative. */
long long	civil_floor_div(long long a, long long b);

/* Days since 1970-01-01 of year y, month m (1-12), day d (1-31). */
long long	civil_days(long long y, int m, int d);

/* The date of day z (days since 1970-01-01): the inverse of
 * civil_days(). */
void	civil_from_days(long long z, long long *y, int *m, int *d);

/* The day of the week of day z, Sunday = 0. */
int	civil_weekday(long long z);

#endif
