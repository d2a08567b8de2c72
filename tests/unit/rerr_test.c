/* SPDX-License-Identifier: BSD-2-Clause */
/* rerr_test.c -- every error class, and the text shown for it. */
#include <string.h>

#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <criterion/parameterized.h>

#include "backend/redis/rerr.h"

/* Arrays, not pointers: Criterion runs each case in a new process. */
struct case_ {
	char		reply[128];
	enum rerr_class	cls;
	char		why[256];
};

ParameterizedTestParameters(rerr, classifies)
{
	static struct case_ cases[] = {
		{ "NOSCRIPT No matching script. Please use EVAL.", RERR_NOSCRIPT,
		    "the script cache is empty (NOSCRIPT No matching script. Please use EVAL.)" },
		{ "BUSY Redis is busy running a script.", RERR_RETRY,
		    "Redis is busy running a script (BUSY Redis is busy running a script.)" },
		{ "LOADING Redis is loading the dataset in memory", RERR_RETRY,
		    "Redis is loading its dataset (LOADING Redis is loading the dataset in memory)" },
		{ "TRYAGAIN Multiple keys request during rehashing of slot", RERR_RETRY,
		    "the cluster asks to try again (TRYAGAIN Multiple keys request during "
		    "rehashing of slot)" },
		{ "READONLY You can't write against a read only replica. script: 4f1b, "
		    "on @user_script:30.", RERR_REFUSED,
		    "this server is a read-only replica; point lockrun at the master (READONLY "
		    "You can't write against a read only replica.)" },
		{ "MOVED 3999 10.0.0.7:6381", RERR_REFUSED, "this is a Redis Cluster node and "
		    "the key lives on another node (MOVED 3999 10.0.0.7:6381)" },
		{ "ASK 3999 10.0.0.7:6381", RERR_REFUSED, "this is a Redis Cluster node and "
		    "the key is being moved to another node (ASK 3999 10.0.0.7:6381)" },
		{ "WRONGTYPE Operation against a key holding the wrong kind of value",
		    RERR_REFUSED, "a key lockrun uses holds another type of value (does "
		    "something else write under the prefix?) (WRONGTYPE Operation against a "
		    "key holding the wrong kind of value)" },
		{ "ERR The user executing the script can't run this command or subcommand "
		    "script: 9d, on @user_script:1.", RERR_REFUSED, "the Redis user lacks a "
		    "permission lockrun needs (see lockrun(7), Redis permissions) (ERR The user "
		    "executing the script can't run this command or subcommand)" },
		{ "ERR unknown command 'EVALSHA'", RERR_REFUSED,
		    "refused: ERR unknown command 'EVALSHA'" },
		/* a code is a whole word: "BUSYGROUP" is not "BUSY" */
		{ "BUSYGROUP Consumer Group name already exists", RERR_REFUSED,
		    "refused: BUSYGROUP Consumer Group name already exists" },
	};

	return cr_make_param_array(struct case_, cases, sizeof(cases) / sizeof(cases[0]));
}

ParameterizedTest(struct case_ *c, rerr, classifies)
{
	struct lr_err e = { 0, "", LR_ERR_TRANSPORT };

	cr_assert(eq(int, (int)rerr_classify(c->reply, &e), (int)c->cls), "%s", c->reply);
	cr_assert(eq(str, e.msg, c->why));
	cr_assert(eq(int, e.status, EX_UNAVAILABLE));
	cr_assert(not(lr_err_broke(&e)), "Redis answered: not a transport failure");
}

/* The kind comes from the code word alone: a plain ERR is a refusal
 * whatever its text says (its words may pick the hint, nothing more);
 * NOAUTH and WRONGPASS are the credentials'. */
Test(rerr, the_kind_is_the_code_words_not_the_texts)
{
	static const struct {
		const char		*reply;
		enum lr_err_kind	 kind;
	} cases[] = {
		{ "ERR Protocol error: unauthenticated multibulk length", LR_ERR_REFUSED },
		{ "ERR The user executing the script can't run this command or subcommand",
		    LR_ERR_REFUSED },
		{ "ERR WRONGTYPE in the text of a plain ERR", LR_ERR_REFUSED },
		{ "NOAUTH Authentication required.", LR_ERR_AUTH },
		{ "WRONGPASS invalid username-password pair", LR_ERR_AUTH },
		{ "NOPERM this user has no permissions to run the 'set' command",
		    LR_ERR_REFUSED },
		{ "WRONGTYPE Operation against a key holding the wrong kind of value",
		    LR_ERR_DATA },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct lr_err e = LR_ERR_INIT;

		rerr_classify(cases[i].reply, &e);
		cr_assert(eq(int, (int)e.kind, (int)cases[i].kind), "%s", cases[i].reply);
	}
}

Test(rerr, a_long_reply_is_cut_not_overrun)
{
	struct lr_err e = LR_ERR_INIT;
	char reply[1200] = "LOADING ";

	memset(reply + 8, 'x', sizeof(reply) - 9);
	rerr_classify(reply, &e);
	cr_assert(eq(sz, strlen(e.msg), sizeof(e.msg) - 1));
	cr_assert(eq(int, strncmp(e.msg, "Redis is loading its dataset (LOADING xx", 40), 0));
}
