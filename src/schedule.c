/* schedule.c -- slot arithmetic; pure, libc only. */
#include <time.h>

#include "schedule.h"

#define HOUR_MS (3600LL * 1000)

time_t
schedule_slot_every(time_t now, long long every_ms)
{
	long long every = every_ms / 1000;
	long long t = (long long)now;

	/* floor, also for times before the epoch */
	return (time_t)(t - (((t % every) + every) % every));
}

long long
schedule_slot_ttl_ms(time_t now, time_t slot_start, long long every_ms)
{
	long long left = ((long long)slot_start - (long long)now) * 1000 + every_ms;

	return left > HOUR_MS ? left : HOUR_MS;
}
