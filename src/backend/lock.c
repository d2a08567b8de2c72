/* SPDX-License-Identifier: BSD-2-Clause */
/* lock.c -- the parts of a lock every backend shares: the owner id and
 * description drawn at start, and the value written once it is taken. */
#include <sys/random.h>

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "backend/lock.h"
#include "core/duration.h"
#include "core/text.h"

/* 16 random bytes that never block: getrandom(2) may block at early boot
 * until the pool is ready, outside every timeout, so ask it not to; then
 * /dev/urandom; then the clocks and the pid, which still make the id
 * unique (it is an owner check, not a secret). */
static void
owner_bytes(unsigned char raw[16])
{
	struct timespec rt, mt;
	unsigned long long a, b;
	int fd;

	if (getrandom(raw, 16, GRND_NONBLOCK) == 16)
		return;
	if ((fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC)) >= 0) {
		ssize_t got = read(fd, raw, 16);
		close(fd);
		if (got == 16)
			return;
	}
	clock_gettime(CLOCK_REALTIME, &rt);
	clock_gettime(CLOCK_MONOTONIC, &mt);
	a = (unsigned long long)rt.tv_sec * 1000000000ULL + (unsigned long long)rt.tv_nsec;
	b = ((unsigned long long)mt.tv_nsec << 32) ^ (unsigned long long)getpid();
	memcpy(raw, &a, 8);
	memcpy(raw + 8, &b, 8);
}

void
lock_nonce(char out[CLAIM_NONCE_MAX])
{
	unsigned char raw[16];

	owner_bytes(raw);
	for (size_t i = 0; i < (CLAIM_NONCE_MAX - 1) / 2; i++)
		snprintf(out + 2 * i, 3, "%02x", raw[i]);
}

int
lock_one_place(const char *title, int limit, struct lr_err *e)
{
	if (limit <= 1)
		return 0;
	return lr_errf(e, EX_CONFIG, "limit: %d: a lock in %s has one place so far, a copy "
	    "of the task at a time; places for more are built on Redis only (limit: 1, "
	    "or a redis:// URL)", limit, title);
}

void
lock_init(struct lr_lock *l, const char *host)
{
	unsigned char raw[16];
	struct timespec ts;
	char start[TEXT_ISO_MAX];

	owner_bytes(raw);
	for (size_t i = 0; i < sizeof(raw); i++)
		snprintf(l->id + 2 * i, 3, "%02x", raw[i]);
	clock_gettime(CLOCK_REALTIME, &ts);
	text_iso(ts.tv_sec * 1000LL + ts.tv_nsec / 1000000, TEXT_ISO_MS, start,
	    sizeof(start));
	snprintf(l->owner, sizeof(l->owner), "%s %ld %s", host, (long)getpid(), start);
}

/* A slot claim's deadline is no later than the slot's next fire time N,
 * by the server's clock: then a claim the server accepts always finds an
 * earlier claim of the same slot still there. The earlier claim A wrote
 * the slot key with a TTL of N + tolerance - (A's clock when it reckoned
 * it) (schedule_slot_ttl_ms()), which the server counts from when it ran
 * A, after that reading: the key lives at least until A's clock reads
 * N + tolerance. A later claim B runs, if at all, while the server's
 * clock reads at most N; with the clocks within the tolerance of each
 * other (what a slot itself assumes: a start early by the tolerance joins
 * the coming slot), A's clock then reads at most N + tolerance, so A's key
 * is still there and B finds the slot taken. Without the bound, B could
 * run after the key expired -- a start queued behind a stalled connection
 * -- and take the slot a second time. A claim that could never run in
 * time (N before the earliest) is refused as late, as a request that
 * waited too long is. No window (clock_tolerance 0: the clocks are not
 * compared), no bound on the server: the client still sends no claim
 * past N by its own clock (lock_slot_passed()). */
void
lock_window(struct lr_lock *l, long long sent_ms, long long timeout_ms)
{
	long long left = l->asker_until_mono - mono_ms();

	if (l->asker_until_mono > 0 && left < timeout_ms)
		timeout_ms = left > 0 ? left : 0;
	l->sent_ms = sent_ms;
	l->earliest_ms = sent_ms + l->offset_used_ms - LOCK_EARLY_MS;
	l->deadline_ms = sent_ms + l->offset_used_ms + timeout_ms;
	if (l->slot_ttl_ms > 0 && l->slot_until_ms > 0 && l->deadline_ms > l->slot_until_ms)
		l->deadline_ms = l->slot_until_ms;
	if (l->no_window)
		l->earliest_ms = l->deadline_ms = 0;
}

int
lock_slot_passed(const struct lr_lock *l, long long now_ms)
{
	if (l->slot_ttl_ms <= 0 || l->slot_until_ms <= 0)
		return 0;
	return now_ms + (l->offset_known ? l->offset_ms : 0) > l->slot_until_ms;
}

void
lock_offset_note(struct lr_lock *l, long long server_ms, long long recv_ms)
{
	if (server_ms <= 0)
		return;
	l->rtt_ms = recv_ms - l->sent_ms;
	l->offset_ms = server_ms - (l->sent_ms + recv_ms) / 2;
	l->offset_known = 1;
	l->sync_server_ms = server_ms;
	l->sync_mono_ms = mono_ms() - (l->rtt_ms > 0 ? l->rtt_ms / 2 : 0);
	l->sync_err_ms = l->rtt_ms > 0 ? (l->rtt_ms + 1) / 2 : 0;
}

void
lock_renew_window(struct lr_lock *l)
{
	long long now = mono_ms(), until = now + l->renew_within_ms;

	if (l->asker_until_mono > 0 && l->asker_until_mono < until)
		until = l->asker_until_mono;
	l->renew_sent_mono = now;
	l->renew_deadline_ms = 0;
	if (l->no_window || l->sync_server_ms <= 0)
		return;
	l->renew_deadline_ms = l->sync_server_ms + (until - l->sync_mono_ms) +
	    l->sync_err_ms + LOCK_RENEW_SLACK_MS;
}

void
lock_renew_note(struct lr_lock *l, long long server_ms)
{
	long long now = mono_ms(), rtt = now - l->renew_sent_mono;

	if (server_ms <= 0 || rtt < 0)
		return;
	l->sync_server_ms = server_ms;
	l->sync_mono_ms = now - rtt / 2;
	l->sync_err_ms = (rtt + 1) / 2;
}

long long
lock_server_at(const struct lr_lock *l, long long mono)
{
	if (l->no_window || l->sync_server_ms <= 0)
		return 0;
	return l->sync_server_ms + (mono - l->sync_mono_ms) + l->sync_err_ms;
}

void
lock_took(struct lr_lock *l, long long token)
{
	l->token = token;
	snprintf(l->token_s, sizeof(l->token_s), "%lld", token);
	snprintf(l->value, sizeof(l->value), "%s %lld %s", l->id, token, l->owner);
}

int
lock_pause_parse(const char *v, struct lr_pause_view *p)
{
	int end = 0;

	memset(p, 0, sizeof(*p));
	if (sscanf(v, "%lld %lld %255s %63s%n", &p->since_ms, &p->until_ms, p->host,
	    p->user, &end) != 4 || end == 0)
		return -1;
	p->reason = v + end + (v[end] == ' ');
	return 0;
}
