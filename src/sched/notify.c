/* SPDX-License-Identifier: BSD-2-Clause */
/* notify.c -- sd_notify(3)'s wire format: a datagram of "NAME=value" lines
 * on the unix socket the service manager named. */
#include <sys/socket.h>
#include <sys/un.h>

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/duration.h"
#include "sched/notify.h"
#include "sched/report.h"

static struct report_once failed;	/* a notification not sent */

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
	/* the service manager not told: said, once a minute (its watchdog
	 * may then stop us, the line saying why) */
	if ((fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0)) < 0) {
		report_fault(&failed, errno, "cannot tell the service manager %s on "
		    "NOTIFY_SOCKET %s: socket", state, path);
		return;
	}
	if (sendto(fd, state, strlen(state), MSG_NOSIGNAL, (struct sockaddr *)&sa,
	    (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len)) < 0)
		report_fault(&failed, errno, "cannot tell the service manager %s on "
		    "NOTIFY_SOCKET %s: sendto", state, path);
	close(fd);
}

/* systemd's watchdog (WatchdogSec=): told WATCHDOG_USEC, for this process
 * (WATCHDOG_PID, if set), ping at half that period, from the timer that
 * starts the runs: if this loop stops, so do the pings. Not the runs'. */
void
notify_watchdog_setup(struct watchdog *d)
{
	const char *usec = getenv("WATCHDOG_USEC"), *pid = getenv("WATCHDOG_PID");

	if (usec && (pid == NULL || strtoll(pid, NULL, 10) == (long long)getpid()) &&
	    strtoll(usec, NULL, 10) > 0) {
		d->ms = strtoll(usec, NULL, 10) / 2000;
		if (d->ms == 0)
			d->ms = 1;
		d->next = real_ms();
	}
	unsetenv("WATCHDOG_USEC");
	unsetenv("WATCHDOG_PID");
}

/* Ping when its time came, or when the clock was stepped back so far that
 * the next ping would come late. */
void
notify_watchdog_ping(struct watchdog *d, long long now_ms)
{
	if (d->ms == 0 || (now_ms < d->next && d->next - now_ms <= d->ms))
		return;
	notify_send("WATCHDOG=1");
	d->next = now_ms + d->ms;
}
