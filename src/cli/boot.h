/* SPDX-License-Identifier: BSD-2-Clause */
/* boot.h -- a task with schedule: '@reboot', for run.c. */
#ifndef LR_BOOT_H
#define LR_BOOT_H

#include "cli/run_state.h"
#include "core/err.h"

/* A life long enough for any boot: a record of one outlives its uptime. */
#define LR_BOOT_TTL_MS	(10LL * 366 * 86400 * 1000)

/* The run of a @reboot task claims this host's boot once, in the backend
 * next to the task's other records, as a one-server run claims a slot:
 * the key prefix{name}:boot:HOST:BOOT_ID (BOOT_ID from
 * /proc/sys/kernel/random/boot_id) in l's slot key, kept LR_BOOT_TTL_MS;
 * the history's slot field says "boot:BOOT_ID". Returns 0, or -1 with e
 * (EX_OSERR) when the boot id cannot be read. */
int	boot_claim(struct lr_run *r, struct lr_lock *l, struct lr_err *e);

#endif
