/* SPDX-License-Identifier: BSD-2-Clause */
/* entry.h -- lockrun's life from a command line: main()'s, and that of each
 * run a scheduler (tick, cron) forks. */
#ifndef LR_CLI_ENTRY_H
#define LR_CLI_ENTRY_H

#include "config/config.h"

/* Parse argv, read the config (or take loaded, a config already read in
 * full, as the scheduler that forked this run holds it), run the verb.
 * Returns lockrun's exit status, or does not return. */
int	lockrun_main(int argc, char **argv, const struct lr_config *loaded);

#endif
