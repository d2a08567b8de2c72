/* SPDX-License-Identifier: BSD-2-Clause */
/* notify.h -- systemd's readiness protocol, without libsystemd. */
#ifndef LR_NOTIFY_H
#define LR_NOTIFY_H

/* Send state ("READY=1", "STOPPING=1") as one datagram to the unix socket
 * $NOTIFY_SOCKET names (a path, or "@name" in the abstract namespace);
 * nothing when it is unset. Failure is ignored: readiness is advice. */
void	notify_send(const char *state);

/* systemd's watchdog (WatchdogSec=): ping this often (ms; 0: none), next
 * at real_ms() next. */
struct watchdog {
	long long	ms;
	long long	next;
};

/* Read WATCHDOG_USEC (for this process, if WATCHDOG_PID says which) into
 * d, and take both out of the environment the runs inherit. */
void	notify_watchdog_setup(struct watchdog *d);
/* WATCHDOG=1 when its time came (or the clock went back past a period). */
void	notify_watchdog_ping(struct watchdog *d, long long now_ms);

#endif
