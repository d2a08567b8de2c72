/* SPDX-License-Identifier: BSD-2-Clause */
/* lease.c -- lease arithmetic; pure. */
#include "core/lease.h"

#define BACKOFF_FIRST_MS 25
#define BACKOFF_CAP_MS 500

long long
lease_counts_from(long long asked, long long sent)
{
	return sent > 0 && sent < asked ? sent : asked;
}

long long
lease_deadline(const struct lr_lease *l)
{
	return l->confirmed + l->ttl;
}

long long
lease_renew_at(const struct lr_lease *l)
{
	return l->confirmed + l->ttl / 3;
}

long long
lease_margin(const struct lr_lease *l)
{
	long long m = l->ttl / 10;

	return m < 50 ? 50 : m > 1000 ? 1000 : m;
}

long long
lease_term_at(const struct lr_lease *l)
{
	return lease_kill_at(l) - l->kill_after;
}

long long
lease_kill_at(const struct lr_lease *l)
{
	return lease_deadline(l) - lease_margin(l);
}

int
lease_too_late(const struct lr_lease *l, long long now)
{
	return now > lease_renew_at(l) || now >= lease_term_at(l);
}

long long
lease_retry_delay(const struct lr_lease *l)
{
	long long d = l->ttl / 20;

	return d < 20 ? 20 : d > 500 ? 500 : d;
}

long long
lease_backoff_delay(int n, double r)
{
	long long cap = BACKOFF_FIRST_MS;

	for (int i = 0; i < n && cap < BACKOFF_CAP_MS; i++)
		cap *= 2;
	if (cap > BACKOFF_CAP_MS)
		cap = BACKOFF_CAP_MS;
	return cap / 2 + (long long)(r * (double)(cap - cap / 2));
}
