/* SPDX-License-Identifier: BSD-2-Clause */
/* rlink.h -- one connection to one Redis server: connect (TCP or a unix
 * socket, then TLS), AUTH and SELECT, queue and write commands, read
 * replies, each within its deadline. It knows nothing of Sentinel or
 * Cluster: sentinel.c and rcluster.c choose the address, rconn.c routes.
 * lockrun owns the socket (and its TLS session): hiredis only formats
 * commands and parses replies, so every transport is one pollable fd. */
#ifndef LR_RLINK_H
#define LR_RLINK_H

#include <sys/socket.h>

#include <stddef.h>

#include "core/err.h"
#include "backend/redis/rreader.h"
#include "backend/redis/tls.h"

struct redisReader;
struct redisReply;

/* A resolved address; len 0: none yet. */
struct lr_addr {
	struct sockaddr_storage	ss;
	socklen_t		len;
};

/* What a new connection does before it takes commands. The strings are
 * borrowed and must outlive the link. */
struct rlink_setup {
	int			 tls;		/* TLS first (rediss://) */
	const char		*tls_host;	/* the name TLS checks, unless
						 * tls_opts->server_name says */
	const struct lr_tls_opts *tls_opts;	/* NULL: the defaults */
	const char		*user;		/* AUTH user, or "" */
	const char		*password;	/* AUTH password, or "" */
	int			 db;		/* SELECT when not 0 */
};

struct lr_link {
	int			 fd;		/* non-blocking; -1 when closed */
	struct lr_tls		*tls;		/* the TLS session, or NULL */
	struct redisReader	*reader;	/* replies parsed from what was read */
	char			 head[32];	/* the first bytes the server sent on
						 * this connection, for a server that
						 * is not Redis */
	size_t			 nhead;
	struct rreader_bounds	 bounds;	/* what one reply may hold (rreader.h) */
	char			*out;		/* commands formatted, not yet sent */
	size_t			 outlen, outcap;
	char			 why[200];	/* why the connection last broke */
	enum lr_err_kind	 why_kind;	/* and what kind of failure that is */
	char			 timeout_why[48]; /* "no answer within 2s" */
	char			 where[300];	/* "127.0.0.1:6379", for messages */
	struct rlink_setup	 setup;
	long long		 connect_timeout_ms;
	long long		 command_timeout_ms;
	/* AUTH/SELECT can go out with the first command (rlink_defer()) */
	int			 defer;		/* the next connect queues them */
	int			 pending;	/* their replies, not read yet */
	int			 pending_auth;	/* the first of them answers AUTH */
	int			 hs_failed;	/* one was an error: hs_err says */
	struct lr_err		 hs_err;
};

void	rlink_init(struct lr_link *l);		/* closed, nothing allocated */

/* host:port's first IPv4 address, else its first IPv6 one (hiredis's
 * order); a numeric address is taken as it is. Returns 0, or getaddrinfo's
 * error (gai_strerror() names it). */
int	rlink_lookup(const char *host, int port, struct lr_addr *a);

/* A connected, non-blocking, close-on-exec socket to a within ms, in
 * l->fd (l->where names it in messages). Returns 0, or -1 with
 * e = EX_UNAVAILABLE, lr_err_broke(e). */
int	rlink_dial(struct lr_link *l, const struct lr_addr *a, long long ms,
	    struct lr_err *e);

/* After rlink_dial(): TLS as l->setup says (all within ms), then AUTH and
 * SELECT as needed, in one round trip, or queued (rlink_defer()). Returns
 * 0, or -1 with the link closed and e = EX_UNAVAILABLE (lr_err_broke(e)
 * when unreachable or timed out, clear when AUTH was refused) or
 * EX_CONFIG (no such db, TLS settings lockrun cannot use). */
int	rlink_ready(struct lr_link *l, long long ms, struct lr_err *e);

/* rlink_dial() then rlink_ready(), within ms in all. */
int	rlink_connect(struct lr_link *l, const struct lr_addr *a, long long ms,
	    struct lr_err *e);

/* Set the command timeout, and the words that report it. */
void	rlink_set_command_timeout(struct lr_link *l, long long ms);

/* A reconnect that must be done within cap_ms: connect, then AUTH/SELECT,
 * each within half of it, and no longer than its own timeout. Sets the
 * command timeout to its share and returns the connect timeout's;
 * rlink_uncap() puts the timeouts back as they were in *saved. */
struct rlink_timeouts {
	long long	connect_ms, command_ms;
};
long long rlink_cap(struct lr_link *l, long long cap_ms, struct rlink_timeouts *saved);
void	rlink_uncap(struct lr_link *l, const struct rlink_timeouts *saved);

/* Make the next rlink_ready() queue AUTH and SELECT instead of waiting for
 * their answers, so that they go out with the first command and cost no
 * round trip of their own. Their answers are read, and taken out of the
 * stream of replies, before that command's; a refusal does not stop the
 * command, which Redis has run by then (as the "default" user, or in
 * database 0): the caller asks rlink_handshake_error(). */
void	rlink_defer(struct lr_link *l);

/* -1 with e set as a refused AUTH or SELECT is reported, when one of the
 * deferred handshake's answers was an error; else 0. */
int	rlink_handshake_error(const struct lr_link *l, struct lr_err *e);

/* Queue a command (argv: C strings), or one formatted already
 * (cmd[0..len)). Returns 0, or -1 when closed (or out of memory: then
 * closed). */
int	rlink_append(struct lr_link *l, int argc, const char **argv);
int	rlink_append_raw(struct lr_link *l, const char *cmd, size_t len);

/* Write out what is queued, within the command timeout. Returns 0, or -1
 * with e = EX_UNAVAILABLE, lr_err_broke(e) (the link is closed). doing
 * names the command in messages. */
int	rlink_flush(struct lr_link *l, const char *doing, struct lr_err *e);

/* Write out what is queued, then wait for the next reply, within the
 * command timeout. Returns it (the caller frees it with freeReplyObject)
 * or NULL with e as rlink_flush() sets it. */
struct redisReply *rlink_reply(struct lr_link *l, const char *doing, struct lr_err *e);

/* rlink_append() then rlink_reply(). */
struct redisReply *rlink_command(struct lr_link *l, const char *doing, int argc,
	    const char **argv, struct lr_err *e);

/* Without blocking, read what has arrived (call when the socket is
 * readable). Returns 1 with *r set, 0 when no reply is complete yet, -1
 * with e as above. */
int	rlink_read(struct lr_link *l, struct redisReply **r, const char *doing,
	    struct lr_err *e);

/* Let one reply hold up to n objects (rreader.h). */
void	rlink_allow_objects(struct lr_link *l, size_t n);

/* Note why the link is no good (a reply that says so), and close it: a
 * lost transport (LR_ERR_TIMEOUT when why is l->timeout_why). Returns -1. */
int	rlink_break(struct lr_link *l, const char *why);

/* Report why the link broke while doing what, as EX_UNAVAILABLE with
 * e->kind the break's: "redis HOST: DOING: no answer within 2s";
 * LR_ERR_DATA for a reply over the bound (rreader.h), which closed the
 * link, Redis holding no session, and which the request's own data made;
 * LR_ERR_PROTOCOL for a stream that is not RESP. Returns -1. */
int	rlink_fail(const struct lr_link *l, const char *doing, struct lr_err *e);

int	rlink_is_open(const struct lr_link *l);
void	rlink_close(struct lr_link *l);		/* may be connected again */
void	rlink_free(struct lr_link *l);		/* closed, buffers freed */

#endif
