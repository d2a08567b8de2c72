/* SPDX-License-Identifier: BSD-2-Clause */
/* boot.c -- once per boot of each host (boot.h): the run of a @reboot task
 * claims "this host's boot" where a one-server run claims its slot, in the
 * same round trip as its no-overlap lock; a second run in the same boot
 * (a scheduler restarted, lockrun -t by hand) is skipped as a slot that
 * already ran, and a new boot has a new id. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/boot.h"

#define BOOT_ID_PATH	"/proc/sys/kernel/random/boot_id"

/* The boot id, "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx", into id[n]. */
static int
boot_id(char *id, size_t n, struct lr_err *e)
{
	int fd = open(BOOT_ID_PATH, O_RDONLY | O_CLOEXEC);
	ssize_t got;

	if (fd < 0)
		return lr_errf(e, EX_OSERR, "%s: %s", BOOT_ID_PATH, strerror(errno));
	got = read(fd, id, n - 1);
	close(fd);
	if (got < 0)
		return lr_errf(e, EX_OSERR, "%s: %s", BOOT_ID_PATH, strerror(errno));
	id[got] = '\0';
	id[strcspn(id, "\n")] = '\0';
	if (strlen(id) != 36 || strspn(id, "0123456789abcdef-") != 36)
		return lr_errf(e, EX_OSERR, "%s: not a boot id", BOOT_ID_PATH);
	return 0;
}

int
boot_claim(struct lr_run *r, struct lr_lock *l, struct lr_err *e)
{
	struct lr_ctx *x = r->x;
	char id[64];

	if (boot_id(id, sizeof(id), e) != 0)
		return -1;
	snprintf(l->keys.slot, sizeof(l->keys.slot), "%s{%s}:boot:%s:%s", x->prefix,
	    r->name, ctx_host(x), id);
	snprintf(l->keys.slot_iso, sizeof(l->keys.slot_iso), "boot:%s", id);
	l->slot_ttl_ms = LR_BOOT_TTL_MS;
	return 0;
}
