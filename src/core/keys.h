/* SPDX-License-Identifier: BSD-2-Clause */
/* keys.h -- Redis key names for a task: {prefix}{name}, :slot:<stamp>,
 * :fence, :history, :last, :counts, :pause, :missed, :trigger. */
#ifndef LR_KEYS_H
#define LR_KEYS_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#define KEY_NAME_MAX	200	/* bytes in a task or key name */
#define KEY_PREFIX_MAX	100	/* bytes in the prefix */
#define KEY_HOST_MAX	64	/* bytes in a host a slot key ends with
				 * (keys_slot_host(): HOST_NAME_MAX) */
#define KEY_MAX		(KEY_PREFIX_MAX + KEY_NAME_MAX + 40 + 1 + KEY_HOST_MAX)

struct lr_keys {
	char	stable[KEY_MAX];	/* prefix{name}: no-overlap lock */
	char	slot[KEY_MAX];		/* prefix{name}:slot:20261121T1745Z */
	char	fence[KEY_MAX];		/* prefix{name}:fence: token counter */
	char	hist[KEY_MAX];		/* prefix{name}:history: stream of decisions */
	char	last[KEY_MAX];		/* prefix{name}:last: hash, the last run */
	char	counts[KEY_MAX];	/* prefix{name}:counts: hash, the counters */
	char	pause[KEY_MAX];		/* prefix{name}:pause: who paused it, until
					 * (a SQL row; Redis keeps it in :counts) */
	char	missed[KEY_MAX];	/* prefix{name}:missed: slots that ran nowhere
					 * (a SQL row; Redis keeps it in :counts) */
	char	trigger[KEY_MAX];	/* prefix{name}:trigger: a run asked for now */
	char	ended[KEY_MAX];		/* prefix{name}:ended: a SQL row
					 * prefix{name}:ended:<token> for each run
					 * whose end is recorded (Redis keeps them
					 * in :counts) */
	char	runs[KEY_MAX];		/* prefix{name}:runs: hash, the runs' stories
					 * (output tail, reason), kept per task */
	char	slot_iso[64];		/* 2026-11-21T17:45:00Z, for LOCKRUN_SLOT */
};

/* Return NULL if name may be a task or key name, else why not. Names are
 * the Redis Cluster hash tag, so they may not contain braces; whitespace
 * and control characters (C0, C1, DEL, bidi: core/text.h) are refused so
 * keys stay readable in redis-cli and on a terminal. */
const char *key_name_problem(const char *name);

/* Return NULL if name may be a task's name, else why not: a key name
 * (above) that is also a file name of its own in tasks_dir, with no '/'
 * and no leading '.', so `-t NAME` never reads outside that folder.
 * Every place a task name is read uses it: -t, the tasks: keys, the
 * tasks_dir's file names. */
const char *keys_name_problem(const char *name);

/* Return NULL if host may end a slot key (keys_slot_host()), else why
 * not: a key name (above) of at most KEY_HOST_MAX bytes, without '@'. */
const char *key_host_problem(const char *host);

/* Return NULL if prefix is acceptable, else why not (no braces, bounded). */
const char *key_prefix_problem(const char *prefix);

/* Derive a key name from a command line, for runs without -k or -t:
 * the base name of the program (bytes outside [A-Za-z0-9._-] become '_'),
 * a '-', and 16 hex digits of FNV-1a 64 over every argument and its NUL.
 * Stable across runs and hosts for the same argv. For a shell command,
 * argv is the one string, and the program is its first word. */
void	key_derive(char *const argv[], char *buf, size_t n);

/* FNV-1a 64 of key's bytes: the SQL backends' session lock id
 * (PostgreSQL's advisory lock key; MySQL's lock name, for keys too long
 * for GET_LOCK). */
uint64_t key_hash64(const char *key);

/* Fill k for task name under prefix. slot_start is the UTC start of the
 * slot, or (time_t)-1 when one-server is off; whole-minute slots are
 * stamped to the minute (20261121T1745Z), others to the second. */
void	keys_build(struct lr_keys *k, const char *prefix, const char *name,
	    time_t slot_start, long long every_ms);

/* run_on: all (core/where.h): k's slot key, when it has one, made this
 * host's own, prefix{name}:slot:STAMP@host, so that each host claims
 * each slot once. host passed key_host_problem(). */
void	keys_slot_host(struct lr_keys *k, const char *host);

/* A slot key's stamp as keys_build() writes it (20261121T1745Z, or
 * 20261121T174502Z with seconds) as ISO 8601 into buf[n]:
 * 2026-11-21T17:45:00Z; an "@host" after it (keys_slot_host()) is not
 * read. Returns 0, or -1 (buf "") when s is no stamp. */
int	keys_stamp_iso(const char *s, char *buf, size_t n);

/* What a key names, as keys_build() writes them. */
enum key_kind {
	KEY_STABLE,		/* prefix{name} */
	KEY_SLOT,		/* prefix{name}:slot:<stamp>[@<host>] */
	KEY_FENCE,		/* prefix{name}:fence */
	KEY_HISTORY,		/* prefix{name}:history */
	KEY_LAST,		/* prefix{name}:last */
	KEY_COUNTS,		/* prefix{name}:counts */
	KEY_PAUSE,		/* prefix{name}:pause */
	KEY_MISSED,		/* prefix{name}:missed */
	KEY_TRIGGER,		/* prefix{name}:trigger */
	KEY_ENDED,		/* prefix{name}:ended:<token> (a SQL row) */
	KEY_RUNS		/* prefix{name}:runs */
};

/* A key taken apart by keys_parse(). */
struct lr_key_parts {
	enum key_kind	kind;
	size_t		plen;			/* bytes of prefix before the '{' */
	char		name[KEY_NAME_MAX + 1];	/* between the braces */
	const char	*stamp;			/* a slot key's stamp, in the key
						 * (an "@host" may follow it);
						 * NULL for the others */
};

/* Take key apart into *p: a prefix (which has no brace), '{', a name of
 * 1 to KEY_NAME_MAX bytes, '}', then nothing or one of the suffixes
 * above; a slot key's stamp must read as keys_stamp_iso() reads it.
 * With prefix not NULL, key must begin with exactly that prefix. The name
 * is not otherwise checked (key_name_problem() does that): a key set by
 * hand on the server still parses. Returns 0, or -1 (*p undefined) when
 * key is not shaped so. */
int	keys_parse(const char *key, const char *prefix, struct lr_key_parts *p);

/* A stable key's value, "<id> <token> <host> <pid> <start>", may carry a
 * word glued to its id: "unlocked:" when `lockrun unlock` told its holder
 * to stop (the holder's tombstone, kept for the rest of its lease) or
 * "released:" when the run has ended and --min-hold keeps the key. The
 * parsers that skip the id word read both unchanged. */
enum key_phase { KEY_RUNNING, KEY_UNLOCKED, KEY_RELEASED };
enum key_phase	keys_value_phase(const char *value);

#endif
