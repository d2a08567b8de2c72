/* SPDX-License-Identifier: BSD-2-Clause */
/* notify.c -- sd_notify(3)'s wire format: a datagram of "NAME=value" lines
 * on the unix socket the service manager named. */
#include <sys/socket.h>
#include <sys/un.h>

#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sched/notify.h"

void
notify_send(const char *state)
{
	const char *path = getenv("NOTIFY_SOCKET");
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	size_t len;
	int fd;

	if (path == NULL || (path[0] != '/' && path[0] != '@') ||
	    (len = strlen(path)) >= sizeof(sa.sun_path))
		return;
	memcpy(sa.sun_path, path, len);
	if (path[0] == '@')	/* the abstract namespace starts with a NUL */
		sa.sun_path[0] = '\0';
	if ((fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0)) < 0)
		return;
	(void)sendto(fd, state, strlen(state), MSG_NOSIGNAL, (struct sockaddr *)&sa,
	    (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len));
	close(fd);
}
