/* schedule.h -- which slot a run belongs to. */
#ifndef LR_SCHEDULE_H
#define LR_SCHEDULE_H

#include <time.h>

/* Slot for a run started at now with fixed slots of every_ms (a whole
 * number of seconds, >= 1s), aligned to the Unix epoch: the UTC start of
 * the slot now falls in. */
time_t	schedule_slot_every(time_t now, long long every_ms);

/* How long a slot key must live when taken at now: until the slot has
 * ended, and at least an hour (as Laravel's onOneServer). Milliseconds. */
long long schedule_slot_ttl_ms(time_t now, time_t slot_start, long long every_ms);

#endif
