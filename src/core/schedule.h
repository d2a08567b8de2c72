/* SPDX-License-Identifier: BSD-2-Clause */
/* schedule.h -- which slot a run belongs to, and how long its key lives. */
#ifndef LR_SCHEDULE_H
#define LR_SCHEDULE_H

#include <stddef.h>
#include <time.h>

#include "core/cron.h"

struct lr_err;

/* Slots are the fire times of a cron schedule, or fixed periods of
 * every_ms aligned to the Unix epoch. */
struct lr_schedule {
	int		reboot;		/* "@reboot": no fire times, no slots: once
					 * per boot of each host (cli/boot.c) */
	int		has_cron;
	struct lr_cron	cron;
	long long	every_ms;	/* without a cron schedule */
	long long	tolerance_ms;	/* a start this early still gets the slot */
};

/* The default tolerance: 5s, and never more than a quarter of the
 * shortest gap between fire times (so --every 2s gets 500ms). A tolerance
 * given must be under half that gap, and when fire times can be under a
 * minute apart, at most a quarter of it: a start early by the tolerance
 * joins the coming slot, and one late by up to the rest of the gap keeps
 * its own, so neither takes the slot before or after. */
#define SCHEDULE_TOLERANCE_MS 5000

/* The schedule of a start-up task: run once per boot of each host. */
#define LR_REBOOT	"@reboot"

/* Set s from a task's settings: expr (NULL: use every_ms), tz (NULL: the
 * local zone; checked even without expr), tolerance_ms (LR_UNSET: the
 * default). Returns 0, or -1 with e and *pos: the byte offset of the
 * fault in expr, or -1 when the fault is not in expr (zone, tolerance). */
int	schedule_init(struct lr_schedule *s, const char *expr, const char *tz,
	    long long every_ms, long long tolerance_ms, int *pos, struct lr_err *e);

/* The slot of a run started at now_ms (Unix ms, UTC): the latest fire time
 * at or before now + tolerance, so that a server whose clock is a little
 * fast, or that starts a little early, joins the slot of the fire time it
 * was started for, and one that starts late keeps its own. (time_t)-1 if
 * the schedule has no fire time in reach. */
time_t	schedule_slot(const struct lr_schedule *s, long long now_ms);

/* The first fire time after t. */
time_t	schedule_next(const struct lr_schedule *s, time_t t);

/* How long the key of slot must live, taken at now_ms: until no server can
 * map a start to it any more -- the next fire time plus the tolerance (a
 * slow clock still sees the slot that long). At least 1s. */
long long schedule_slot_ttl_ms(const struct lr_schedule *s, long long now_ms, time_t slot);

/* The spacing the key stamp must resolve: a minute for 5-field cron
 * schedules, a second for 6-field ones, the period for fixed ones. */
long long schedule_stamp_ms(const struct lr_schedule *s);

/* The shortest time there can be between two fire times, in ms: the
 * period, or what cron_min_gap() finds. */
long long schedule_gap_ms(const struct lr_schedule *s);

/* Can a fire time fall off a whole minute (a period that is no whole
 * number of minutes, a 6-field schedule with seconds other than 0)? Such
 * a schedule is for `lockrun cron` only: tick runs once a minute. */
int	schedule_subminute(const struct lr_schedule *s);

#endif
