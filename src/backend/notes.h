/* SPDX-License-Identifier: BSD-2-Clause */
/* notes.h -- the shared libraries lockrun loads with dlopen() when a URL
 * (or `cron --listen`) needs them, named once: the loaders (tls.c,
 * pg_conn.c, mysql_conn.c, web/mhd.c),
 * --version and the ELF .note.dlopen section use these names. */
#ifndef LR_NOTES_H
#define LR_NOTES_H

#include <stdio.h>

#define NOTES_SSL	"libssl.so.3"		/* rediss://; Debian libssl3 */
#define NOTES_PQ	"libpq.so.5"		/* postgres://; Debian libpq5 */
#define NOTES_MARIADB	"libmariadb.so.3"	/* mysql://; Debian libmariadb3 */
#define NOTES_MHD	"libmicrohttpd.so.12"	/* cron --listen; Debian libmicrohttpd12 */

/* "lockrun VERSION", then a line per optional part: built in or not, and
 * what it loads. */
void	notes_version(FILE *fp, const char *version);

#endif
