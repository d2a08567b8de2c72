/* SPDX-License-Identifier: BSD-2-Clause */
/* mail.h -- a run's output mailed, as cron(8) mails a job's (mailto:, a
 * crontab's MAILTO), through the host's sendmail. */
#ifndef LR_MAIL_H
#define LR_MAIL_H

#include <stddef.h>

#include "cli/run_state.h"

/* Mail tail[n] (tail_text()'s lines, each its stream's byte first) to
 * x->t.mailto when it holds any output, with the task, host and status
 * in the subject; what the mailer could not take is a warning. The
 * mailer is stopped after the hook timeout. */
void	mail_output(const struct lr_run *r, const char *tail, size_t n, int status);

#endif
