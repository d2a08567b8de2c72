/* SPDX-License-Identifier: BSD-2-Clause */
/* status.h -- what `lockrun status` read of each task, shared by its table
 * and JSON (status.c); the rows are web/rows.h's. */
#ifndef LR_STATUS_H
#define LR_STATUS_H

#include <stdio.h>

#include "web/rows.h"

/* Row w as one JSON object on a line (the fields are listed in
 * lockrun(1)); prefix names its key. */
void	status_json_print(const char *prefix, const struct row *w, FILE *fp);

#endif
