/* SPDX-License-Identifier: BSD-2-Clause */
/* outcome.c -- a run's outcome messages: made, put on the wire and read
 * back, each field checked, and learnt by the scheduler (outcome.h).
 * Pure: the socket is lease_client.c's and leases.c's. */
#include <string.h>

#include "sched/lease_wire.h"
#include "sched/outcome.h"

void
outcome_msg_set(struct outcome_msg *m, int kind, const char *why)
{
	size_t n = why ? strnlen(why, OUTCOME_WHY_MAX) : 0;

	memset(m, 0, sizeof(*m));
	m->kind = kind;
	memcpy(m->why, why ? why : "", n);
	m->why[n] = '\0';
	m->why_len = n;
}

static int
kind_known(int kind)
{
	return kind >= OUTCOME_WAITING && kind < OUTCOME_KINDS;
}

size_t
outcome_encode(const struct outcome_msg *m, void *buf, size_t cap)
{
	struct outcome_head h = { .op = LEASE_OUTCOME, .kind = m->kind,
	    .status = m->status, .why_len = (unsigned)m->why_len, .token = m->token };

	if (!kind_known(m->kind) || m->why_len > OUTCOME_WHY_MAX ||
	    cap < sizeof(h) + m->why_len)
		return 0;
	memcpy(buf, &h, sizeof(h));
	memcpy((char *)buf + sizeof(h), m->why, m->why_len);
	return sizeof(h) + m->why_len;
}

int
outcome_decode(const void *buf, size_t len, struct outcome_msg *m)
{
	struct outcome_head h;

	if (len < sizeof(h))
		return -1;
	memcpy(&h, buf, sizeof(h));
	if (h.op != LEASE_OUTCOME || !kind_known(h.kind) || h.why_len > OUTCOME_WHY_MAX ||
	    len != sizeof(h) + h.why_len)
		return -1;
	m->kind = h.kind;
	m->status = h.status;
	m->token = h.token;
	m->why_len = h.why_len;
	memcpy(m->why, (const char *)buf + sizeof(h), h.why_len);
	m->why[h.why_len] = '\0';
	return 0;
}

/* The reason m gives, as the run said it. */
static void
why(struct run_outcome *o, const struct outcome_msg *m)
{
	memcpy(o->why, m->why, m->why_len);
	o->why[m->why_len] = '\0';
}

void
outcome_apply(struct run_outcome *o, const struct outcome_msg *m)
{
	switch (m->kind) {
	case OUTCOME_WAITING:
		o->waiting = 1;
		break;
	case OUTCOME_RAN:
		o->ran = 1;
		if (m->token > 0)
			o->token = m->token;
		break;
	case OUTCOME_SKIPPED:
		o->skipped = 1;
		why(o, m);
		break;
	case OUTCOME_CLOCK_OFF:
		o->clock_off = 1;
		why(o, m);
		break;
	case OUTCOME_TOO_LATE:
		o->too_late = 1;
		why(o, m);
		break;
	case OUTCOME_FAILED:
		why(o, m);
		break;
	case OUTCOME_EXITED:
		o->exited = 1;
		o->status = m->status;
		break;
	}
}
