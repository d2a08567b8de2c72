/* SPDX-License-Identifier: BSD-2-Clause */
/* runas.h -- a task's user: and group:, for run.c. */
#ifndef LR_RUNAS_H
#define LR_RUNAS_H

#include "cli/run_state.h"
#include "core/err.h"

/* With x->t.user: look the user up (and x->t.group), fill r->creds (uid,
 * gid, the groups initgroups(3) would give) for the command and its hooks,
 * and put HOME, USER, LOGNAME and SHELL from the user's entry before the
 * task's own env (which still wins): with the LOCKRUN_ variables and a
 * PATH (LR_USER_PATH unless env sets one), the whole of the command's
 * environment (spawn.c, spawn_envp()). lockrun itself, its guard and its
 * lock stay root's. A user of uid 0 changes nothing (r->creds left
 * zero): no boundary is crossed. Returns 0 (nothing to do without
 * user:); 1 with e (EX_CONFIG) when a name is unknown on this host, which
 * the run says and records once it holds its lock (run.c); or -1 with e:
 * EX_CONFIG when lockrun is not root, EX_OSERR. */
int	run_as_prepare(struct lr_run *r, struct lr_err *e);

#endif
