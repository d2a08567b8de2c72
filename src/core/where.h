/* SPDX-License-Identifier: BSD-2-Clause */
/* where.h -- where a task runs: on one server a slot or on every server
 * (run_on:), and on which servers at all (hosts:, host_match:); pure. */
#ifndef LR_WHERE_H
#define LR_WHERE_H

#include <stddef.h>

/* run_on: one claims each slot once across the fleet (the slot key
 * prefix{name}:slot:STAMP); all claims it once per server (the slot key
 * prefix{name}:slot:STAMP@HOST, keys_slot_host()). */
enum lr_run_on { RUN_ON_ONE, RUN_ON_ALL };

/* Does a task with hosts (NULL-terminated, or NULL: not given) and match
 * (an fnmatch(3) pattern, or NULL: not given) run on host? With neither,
 * every host runs it; else a host runs it when hosts lists it (byte for
 * byte) or it matches the pattern. Returns 1 or 0, with why in why[n]
 * ("web1 is in hosts", "web3 is not in hosts [web1, web2]"). */
int	where_here(char *const *hosts, const char *match, const char *host, char *why,
	    size_t n);

#endif
