/* SPDX-License-Identifier: BSD-2-Clause */
/* web_load.h -- load on `lockrun cron --listen`, for the bench. */
#ifndef LR_WEB_LOAD_H
#define LR_WEB_LOAD_H

#include <sys/types.h>

#define WEB_CLIENTS	200	/* clients that ask for the page, never read it */

/* The port a `cron -v --listen 127.0.0.1:0` said it serves on (its
 * stderr in the file err); 0 if it did not. */
int	web_port(const char *err);

/* Fork a child that connects WEB_CLIENTS clients that ask for / and never
 * read the answer, one that never finishes its request, and then asks for
 * /metrics again and again, until it is killed. Returns its pid. */
pid_t	web_clients(int port);

#endif
