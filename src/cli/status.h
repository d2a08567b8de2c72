/* SPDX-License-Identifier: BSD-2-Clause */
/* status.h -- what `lockrun status` read of each task, shared by its table
 * and JSON (status.c); the rows are web/rows.h's. */
#ifndef LR_STATUS_H
#define LR_STATUS_H

#include <stdio.h>

#include "cli/ctx.h"
#include "web/rows.h"

/* Row w as one JSON object on a line (the fields are listed in
 * lockrun(1)); prefix names its key. */
void	status_json_print(const char *prefix, const struct row *w, FILE *fp);

/* --html FILE: the status page (web/page.h) of the n tasks read (rows,
 * their names and keys), with each one's history read now, written whole
 * to x->cli.html. Returns 0, or -1 with e. */
int	status_html(struct lr_ctx *x, const struct row *rows, const char *const *names,
	    const struct lr_keys *keys, size_t n, struct lr_err *e);

#endif
