/* SPDX-License-Identifier: BSD-2-Clause */
/* unlock_test.c -- `lockrun unlock`: a running holder stops, nothing is
 * freed unconfirmed, keys outside lockrun's are refused. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <criterion/parameterized.h>

#include "harness.h"
#include "json.h"

TestSuite(unlock, .init = suite_setup, .fini = suite_teardown, .timeout = 60);

#define T_MIDDAY 1781524800.0	/* 2026-06-15T12:00:00Z: far from any day's or hour's end */
#define OWNER "ffffffffffffffffffffffffffffffff"	/* an owner id, for values set by hand */
#define VALUE OWNER " 41 web-3 4141 2026-06-15T12:00:00.000Z"

/* The events of a task's history, newest first, and who recorded them:
 * "event host holder" per entry, holder "-" when null. */
struct events {
	char	line[16][160];
	size_t	n;
};

static int
collect(const struct json *o, void *arg)
{
	struct events *ev = arg;
	const struct json *holder = json_get(o, "holder");

	cr_assert(ev->n < sizeof(ev->line) / sizeof(ev->line[0]));
	cr_assert(json_is(json_get(o, "event"), "string"));
	cr_assert(json_is(json_get(o, "host"), "string"));
	snprintf(ev->line[ev->n++], sizeof(ev->line[0]), "%s %s %s",
	    json_str(json_get(o, "event")), json_str(json_get(o, "host")),
	    json_is(holder, "string") ? json_str(holder) : "-");
	return 0;
}

static void
history_of(struct events *ev, const char *name)
{
	struct result r;
	char err[256] = "";

	LR(&r, "history", "--redis", fx.url, "--json", name);
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	ev->n = 0;
	cr_assert(json_lines(r.out, collect, ev, err, sizeof(err)) >= 0, "%s in %s", err,
	    r.out);
}

/* Standard input is /dev/null for lockrun, which inherits it, whatever
 * the tests were started from. */
static void
no_terminal(void)
{
	cr_assert(freopen("/dev/null", "r", stdin) != NULL);
}

/* A pseudo-terminal as standard input, so that lockrun sees a terminal;
 * returns the other side, to type on. */
static int
terminal(void)
{
	int m = posix_openpt(O_RDWR | O_NOCTTY), s;

	cr_assert(m >= 0, "posix_openpt: %s", strerror(errno));
	cr_assert(grantpt(m) == 0 && unlockpt(m) == 0);
	s = open(ptsname(m), O_RDWR | O_NOCTTY);
	cr_assert(s >= 0, "open %s: %s", ptsname(m), strerror(errno));
	cr_assert(eq(int, dup2(s, STDIN_FILENO), STDIN_FILENO));
	close(s);
	return m;
}

static void
type(int m, const char *s)
{
	cr_assert(eq(sz, (size_t)write(m, s, strlen(s)), strlen(s)));
}

/* The stdout of a lockrun started in the background: the harness links
 * pidN.err to its file, and the stdout file has the same name in .out. */
static void
stdout_of(pid_t pid, char *buf, size_t n)
{
	char link[64], path[PATH_MAX], err[PATH_MAX];
	ssize_t len;
	FILE *fp;

	snprintf(link, sizeof(link), "pid%d.err", (int)pid);
	redis_path(&fx, link, path, sizeof(path));
	len = readlink(path, err, sizeof(err) - 1);
	cr_assert(len > 4, "readlink %s", path);
	err[len] = '\0';
	memcpy(err + len - 3, "out", 3);
	fp = fopen(err, "r");
	cr_assert(fp != NULL, "%s", err);
	len = (ssize_t)fread(buf, 1, n - 1, fp);
	buf[len] = '\0';
	fclose(fp);
}

static char *
get(const char *key, char *buf, size_t n)
{
	redisReply *r = rcmd("GET %s", key);

	snprintf(buf, n, "%s", r->type == REDIS_REPLY_STRING ? r->str : "(nil)");
	freeReplyObject(r);
	return buf;
}

/* --- a running holder ------------------------------------------------ */

Test(unlock, a_running_holder_stops_and_does_not_take_it_back)
{
	char err[1024], want[768];
	struct result r;
	struct events ev;
	pid_t holder;
	long child;
	struct gate g;

	gate_open(&g, "");
	holder = LR_START("--redis", fx.url, "--host", "alpha", "--ttl", "3s", "-k", "run",
	    "--", "sh", "-c", gate_sh_then(&g, "", "exec sleep 1000"));
	child = gate_wait(&g);

	LR(&r, "unlock", "--redis", fx.url, "--yes", "--host", "ops", "run");
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	snprintf(want, sizeof(want), "^key     lockrun:\\{run\\}\nholder  alpha pid %d\n"
	    "since   [0-9-]{10}T[0-9:]{8}\\.[0-9]{3}Z\ntoken   [0-9]+\n"
	    "ttl     [0-9smh]+ left \\([0-9]+ms\\)\nunlock  alpha pid %d is told to stop "
	    "at its next renewal, within ~[0-9smh]+; newcomers are skipped until it has "
	    "stopped or its lease ends \\(in [0-9smh]+\\); run unlock again to free it at "
	    "once\ntold    alpha pid %d to stop; lockrun:\\{run\\} stays held until it "
	    "has\n$", (int)holder, (int)holder, (int)holder);
	cr_assert(matches(r.out, want), "stdout: %s", r.out);

	/* its next renewal finds its tombstone: lost, the command stopped,
	 * and the tombstone deleted at its release */
	POLL_UNTIL(!alive(holder));
	cr_assert(eq(int, alive(holder), 0), "the holder stopped");
	cr_assert(eq(int, lr_wait(holder), 128 + SIGTERM), "the command got SIGTERM");
	cr_assert(eq(int, alive((pid_t)child), 0));
	cr_assert(strstr(lr_stderr_of(holder, err, sizeof(err)), "LOST LOCK lockrun:{run}: "
	    "it was freed and a later token drawn since (another run took it, or lockrun "
	    "unlock freed it); stopping the command") != NULL,
	    "stderr: %s", err);
	cr_assert(eq(int, key_exists("lockrun:{run}"), 0), "not taken back");

	history_of(&ev, "run");
	snprintf(want, sizeof(want), "unlocked ops alpha %d", (int)holder);
	cr_assert(eq(sz, ev.n, 3));
	cr_assert(eq(str, ev.line[0], "lost alpha -"));
	cr_assert(eq(str, ev.line[1], want));
	cr_assert(eq(str, ev.line[2], "ran alpha -"));
}

/* Issue 18: newcomers are skipped while an unlocked holder stops its
 * tree, then one runs; the job holds a file lock for its whole tree, so
 * a newcomer that ran beside it would find it held (99). */
Test(unlock, newcomers_wait_until_the_unlocked_holders_tree_is_gone)
{
	const char *lockf = scratch("job.lock");
	char before[512], probe[256], err[2048];
	struct result r, u;
	pid_t holder;
	long sleeper;
	struct gate g;

	gate_open(&g, "");
	snprintf(before, sizeof(before), "exec 9>%s; flock -n 9 || echo OVERLAP; ", lockf);
	snprintf(probe, sizeof(probe), "exec 9>%s; flock -n 9 || exit 99", lockf);
	holder = LR_START("--redis", fx.url, "--host", "alpha", "--ttl", "3s", "-k", "unl",
	    "--", "sh", "-c", gate_sh_child(&g, before));
	sleeper = gate_wait(&g);
	LR(&u, "unlock", "--redis", fx.url, "--yes", "--host", "ops", "unl");
	cr_assert(eq(int, u.status, 0), "stderr: %s", u.err);
	r.status = 75;
	POLL_UNTIL((LR(&r, "--redis", fx.url, "-k", "unl", "-E", "75", "--", "sh", "-c",
	    probe), r.status != 75));
	cr_assert(eq(int, r.status, 0), "a newcomer ran beside the unlocked holder's "
	    "tree (99), or never ran; stderr: %s", r.err);
	cr_assert(eq(int, alive((pid_t)sleeper), 0), "the holder's tree is gone");
	cr_assert(eq(int, lr_wait(holder), 128 + SIGTERM), "the command got SIGTERM");
	cr_assert(strstr(lr_stderr_of(holder, err, sizeof(err)), "LOST LOCK lockrun:{unl}: "
	    "it was freed and a later token drawn") != NULL, "stderr: %s", err);
	cr_assert(matches(u.out, "\ntold    alpha pid [0-9]+ to stop; lockrun:\\{unl\\} "
	    "stays held until it has\n$"), "stdout: %s", u.out);
	cr_assert(eq(int, key_exists("lockrun:{unl}"), 0), "released by the newcomer");
}

/* The holder is gone for good (a dead machine): a second unlock of its
 * tombstone frees it at once. Meanwhile newcomers and status say why the
 * key is held. */
Test(unlock, a_second_unlock_frees_the_tombstone_at_once)
{
	struct result r;
	char v[256];
	long long pttl;

	freeReplyObject(rcmd("SET lockrun:{dead} %s PX 30000", VALUE));
	LR(&r, "unlock", "--redis", fx.url, "--yes", "--host", "ops", "dead");
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	cr_assert(eq(str, get("lockrun:{dead}", v, sizeof(v)), "unlocked:" VALUE));
	pttl = key_pttl("lockrun:{dead}");
	cr_assert(pttl > 0 && pttl <= 30000, "the holder's lease kept: %lld", pttl);

	LR(&r, "--redis", fx.url, "-v", "-k", "dead", "-E", "75", "--", "true");
	cr_assert(eq(int, r.status, 75), "newcomers are skipped");
	cr_assert(strstr(r.err, "skipped: lockrun:{dead} is held by web-3 pid 4141 since "
	    "2026-06-15T12:00:00.000Z (token 41) (unlocked, stopping)") != NULL, "%s", r.err);
	LR(&r, "status", "--redis", fx.url, "-l", "dead");
	cr_assert(matches(r.out, "\ndead +unlocked +web-3:4141 "), "status: %s", r.out);

	LR(&r, "unlock", "--redis", fx.url, "--yes", "--host", "ops", "dead");
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	cr_assert(matches(r.out, "\nstate   unlocked: its holder was told to stop\n.*"
	    "\nunlock  frees it at once: no holder is running under it\n"
	    "freed   lockrun:\\{dead\\}\n$"), "stdout: %s", r.out);
	cr_assert(eq(int, key_exists("lockrun:{dead}"), 0));
	LR(&r, "--redis", fx.url, "-k", "dead", "-E", "75", "--", "true");
	cr_assert(eq(int, r.status, 0), "a newcomer runs");
}

/* What --min-hold keeps after the run ended has no holder running: it is
 * marked so, and unlock frees it at once. */
Test(unlock, a_min_hold_leftover_is_freed_at_once)
{
	struct result r;
	char v[256];

	LR(&r, "--redis", fx.url, "--host", "alpha", "-k", "mh", "--min-hold", "60s", "--",
	    "true");
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	cr_assert(matches(get("lockrun:{mh}", v, sizeof(v)), "^released:[0-9a-f]+ [0-9]+ "
	    "alpha [0-9]+ "), "value: %s", v);
	LR(&r, "status", "--redis", fx.url, "-l", "mh");
	cr_assert(matches(r.out, "\nmh +min-hold +alpha:[0-9]+ "), "status: %s", r.out);
	LR(&r, "unlock", "--redis", fx.url, "--yes", "--host", "ops", "mh");
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	cr_assert(matches(r.out, "\nstate   ended: kept for the rest of --min-hold\n.*"
	    "\nunlock  frees it at once: no holder is running under it\n"
	    "freed   lockrun:\\{mh\\}\n$"), "stdout: %s", r.out);
	cr_assert(eq(int, key_exists("lockrun:{mh}"), 0));
}

/* --- confirming ------------------------------------------------------ */

Test(unlock, free_key_exits_zero)
{
	struct result r;

	no_terminal();
	LR(&r, "unlock", "--redis", fx.url, "nobody");
	cr_assert(eq(int, r.status, 0));
	cr_assert(eq(str, r.out, "lockrun:{nobody} is free: nothing to unlock\n"));
	cr_assert(eq(str, r.err, ""));
	cr_assert(eq(int, key_exists("lockrun:{nobody}:history"), 0), "nothing recorded");
}

Test(unlock, without_yes_or_a_terminal_frees_nothing)
{
	struct result r;
	char v[256];

	no_terminal();
	freeReplyObject(rcmd("SET lockrun:{kept} %s PX 30000", VALUE));
	LR(&r, "unlock", "--redis", fx.url, "kept");
	cr_assert(eq(int, r.status, 1));
	cr_assert(eq(str, r.out, ""), "nothing said of what it would do");
	cr_assert(eq(str, r.err, "lockrun: unlock: not done: lockrun:{kept} (held by web-3 "
	    "pid 4141) is not freed without a terminal to confirm on (give --yes)\n"));
	cr_assert(eq(str, get("lockrun:{kept}", v, sizeof(v)), VALUE));
	cr_assert(eq(int, key_exists("lockrun:{kept}:history"), 0));
}

/* The issue's case: a running holder, unlock from a script without
 * --yes: one line, exit 1, nothing claims the holder was told to stop,
 * and it runs on to its own end. */
Test(unlock, without_a_terminal_a_running_holder_runs_on)
{
	struct result r;
	struct gate g;
	redisReply *before, *after;
	pid_t job;
	long sh;

	no_terminal();
	gate_open(&g, "");
	job = LR_START("--redis", fx.url, "-k", "runs", "--", "sh", "-c", gate_sh(&g));
	sh = gate_wait(&g);
	before = rcmd("GET lockrun:{runs}");
	LR(&r, "unlock", "--redis", fx.url, "runs");
	cr_assert(eq(int, r.status, 1));
	cr_assert(eq(str, r.out, ""));
	cr_assert(matches(r.err, "^lockrun: unlock: not done: lockrun:\\{runs\\} \\(held by "
	    "[^ ]+ pid [0-9]+\\) is not freed without a terminal to confirm on \\(give "
	    "--yes\\)\n$"), "%s", r.err);
	cr_assert(strstr(r.err, "told to stop") == NULL);
	after = rcmd("GET lockrun:{runs}");
	cr_assert(eq(str, after->str, before->str), "the lock is as it was");
	freeReplyObject(before);
	freeReplyObject(after);
	cr_assert(eq(int, alive((pid_t)sh), 1), "the command runs on");
	gate_release(&g);
	cr_assert(eq(int, lr_wait(job), 0), "and ends as its own");
}

Test(unlock, yes_on_the_terminal_unlocks_it)
{
	struct result r;
	char v[256];
	int m = terminal();

	freeReplyObject(rcmd("SET lockrun:{tty} %s PX 30000", VALUE));
	type(m, "y\n");
	LR(&r, "unlock", "--redis", fx.url, "tty");
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	cr_assert(eq(str, r.err, "free it? [y/N] "));
	/* a holder with a lease may be running: told to stop, not freed */
	cr_assert(matches(r.out, "\ntold    web-3 pid 4141 to stop; lockrun:\\{tty\\} stays "
	    "held until it has\n$"), "stdout: %s", r.out);
	cr_assert(eq(str, get("lockrun:{tty}", v, sizeof(v)), "unlocked:" VALUE));
	close(m);
}

Test(unlock, anything_else_on_the_terminal_keeps_it)
{
	struct result r;
	char v[256];
	int m = terminal();

	freeReplyObject(rcmd("SET lockrun:{tty-no} %s PX 30000", VALUE));
	type(m, "\n");		/* the default: no */
	LR(&r, "unlock", "--redis", fx.url, "tty-no");
	cr_assert(eq(int, r.status, 1));
	cr_assert(eq(str, r.err, "free it? [y/N] lockrun: unlock: lockrun:{tty-no} not freed\n"));
	cr_assert(eq(str, get("lockrun:{tty-no}", v, sizeof(v)), VALUE));
	close(m);
}

/* The lock changes hands while the question is asked: the new holder is
 * not the one the operator agreed to free, so nothing is freed; the output
 * shows the new holder and says so, with status 1. */
Test(unlock, frees_only_the_holder_it_showed)
{
	static const char later[] = OWNER " 42 web-9 9999 2026-06-15T12:00:05.000Z";
	char err[1024], out[2048];
	pid_t lr;
	int m = terminal();

	freeReplyObject(rcmd("SET lockrun:{race} %s PX 30000", VALUE));
	lr = LR_START("unlock", "--redis", fx.url, "race");
	POLL_UNTIL(strstr(lr_stderr_of(lr, err, sizeof(err)), "free it? [y/N] ") != NULL);
	cr_assert(strstr(err, "free it?") != NULL, "no question: %s", err);
	freeReplyObject(rcmd("SET lockrun:{race} %s PX 30000", later));
	type(m, "y\n");
	cr_assert(eq(int, lr_wait(lr), 1));
	stdout_of(lr, out, sizeof(out));
	cr_assert(matches(out, "^key     lockrun:\\{race\\}\nholder  web-3 pid 4141\n.*"
	    "the lock changed hands since it was shown; it holds now:\n"
	    "key     lockrun:\\{race\\}\nholder  web-9 pid 9999\n"
	    "since   2026-06-15T12:00:05.000Z\ntoken   42\n$"),
	    "stdout: %s", out);
	cr_assert(strstr(lr_stderr_of(lr, err, sizeof(err)), "lockrun: unlock: "
	    "lockrun:{race} not freed: its holder changed") != NULL, "%s", err);
	cr_assert(eq(int, key_exists("lockrun:{race}"), 1), "the new holder keeps it");
	/* `history race` would say no such task: there is none */
	cr_assert(eq(int, key_exists("lockrun:{race}:history"), 0), "nothing recorded");
	close(m);
}

/* --- keys ------------------------------------------------------------ */

Test(unlock, a_slot_key_given_in_full)
{
	const char *env[6];
	char buf[3][128];
	struct result r;
	struct events ev;

	faketime_frozen_env(env, buf, T_MIDDAY + 10);
	lr_run_env(&r, env, (const char *const[]){ "--redis", fx.url, "--one-server",
	    "--clock-tolerance", "0",
	    "--host", "alpha", "-k", "slotted", "--", "sh", "-c", "echo $PPID", NULL });
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	cr_assert(eq(int, key_exists("lockrun:{slotted}:slot:20260615T1200Z"), 1));
	LR(&r, "unlock", "--redis", fx.url, "--yes", "--host", "ops",
	    "lockrun:{slotted}:slot:20260615T1200Z");
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	cr_assert(matches(r.out, "\nfreed   lockrun:\\{slotted\\}:slot:20260615T1200Z\n$"),
	    "stdout: %s", r.out);
	cr_assert(eq(int, key_exists("lockrun:{slotted}:slot:20260615T1200Z"), 0));

	/* recorded with the slot in ISO 8601, as the run recorded it */
	LR(&r, "history", "--redis", fx.url, "--json", "-n", "1", "slotted");
	{
		char err[256] = "";
		struct json *j = json_parse(r.out, err, sizeof(err));
		cr_assert(j != NULL, "%s in %s", err, r.out);
		cr_assert(eq(str, (char *)json_str(json_get(j, "event")), "unlocked"));
		cr_assert(eq(str, (char *)json_str(json_get(j, "slot")), "2026-06-15T12:00:00Z"));
		json_free(j);
	}
	history_of(&ev, "slotted");
	cr_assert(eq(sz, ev.n, 3));
	cr_assert(matches(ev.line[0], "^unlocked ops alpha [0-9]+$"), "%s", ev.line[0]);
	cr_assert(eq(str, ev.line[2], "ran alpha -"));
}

Test(unlock, a_value_not_written_by_lockrun_is_shown_as_is)
{
	struct result r;

	freeReplyObject(rcmd("SET lockrun:{raw} %b", "odd\x1bvalue", (size_t)9));
	LR(&r, "unlock", "--redis", fx.url, "--yes", "raw");
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	cr_assert(eq(str, r.out, "key     lockrun:{raw}\nvalue   odd?value\n"
	    "ttl     none: it never expires\nfreed   lockrun:{raw}\n"));
}

struct word {
	char	s[64];
};

ParameterizedTestParameters(unlock, refuses_what_is_not_a_lock_key)
{
	static struct word cases[] = {
		{ "other:{x}" }, { "lockrun:{x}:fence" }, { "lockrun:{x}:history" },
		{ "lockrun:{x}:last" }, { "lockrun:{x" }, { "lockrun:{}" }, { "lockrun:{x}y" },
		{ "lockrun:{x}:slot:" }, { "lockrun:{x}:slot:2026-06-15" },
		{ "lockrun:{x}:slot:20260615T1200Zjunk" }, { "lockrun:{x}:slot:20260615X1200Z" },
		{ "lockrun:{a b}" }, { "{x}" },
	};

	return cr_make_param_array(struct word, cases, sizeof(cases) / sizeof(cases[0]));
}

ParameterizedTest(struct word *w, unlock, refuses_what_is_not_a_lock_key)
{
	struct result r;
	char want[512];

	LR(&r, "unlock", "--redis", fx.url, "--yes", w->s);
	cr_assert(eq(int, r.status, 64), "%s", w->s);
	snprintf(want, sizeof(want), "lockrun: unlock: \"%s\" is not a lock key under the "
	    "prefix \"lockrun:\" (expected lockrun:{NAME} or lockrun:{NAME}:slot:STAMP)\n"
	    "Try 'lockrun unlock --help' for more information.\n", w->s);
	cr_assert(eq(str, r.err, want));
}

Test(unlock, a_key_under_another_prefix_with_that_prefix)
{
	struct result r;

	freeReplyObject(rcmd("SET app:{x} %s", VALUE));
	LR(&r, "unlock", "--redis", fx.url, "--prefix", "app:", "--yes", "app:{x}");
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	cr_assert(eq(int, key_exists("app:{x}"), 0));
	cr_assert(eq(int, key_exists("app:{x}:history"), 1));
}

Test(unlock, usage_errors_are_64)
{
	struct result r;

	LR(&r, "unlock", "--redis", fx.url, "--yes");
	cr_assert(eq(int, r.status, 64));
	cr_assert(eq(str, r.err, "lockrun: unlock: no task or key named\n"
	    "Try 'lockrun unlock --help' for more information.\n"));
	LR(&r, "unlock", "--redis", fx.url, "--yes", "a", "b");
	cr_assert(eq(int, r.status, 64));
	cr_assert(matches(r.err, "^lockrun: unlock: one lock at a time"), "%s", r.err);
	LR(&r, "unlock", "--redis", fx.url, "--yes", "a b");
	cr_assert(eq(int, r.status, 64));
	cr_assert(matches(r.err, "^lockrun: unlock: task \"a b\" may not contain spaces"),
	    "%s", r.err);
}

Test(unlock, redis_down_is_69)
{
	struct result r;
	char url[64];

	snprintf(url, sizeof(url), "redis://127.0.0.1:%d", fx.port);
	redis_halt(&fx);
	LR(&r, "unlock", "--redis", url, "--yes", "job");
	cr_assert(eq(int, r.status, 69));
	cr_assert(matches(r.err, "^lockrun: redis 127\\.0\\.0\\.1:[0-9]+: cannot connect: "
	    "Connection refused \\(URL from --url; no password\\)\n$"), "stderr: %s", r.err);
}

/* --- history settings ------------------------------------------------- */

/* A config whose task keeps its history 2h; returns its path. */
static const char *
config_2h(void)
{
	const char *path = scratch("lockrun.yaml");
	FILE *fp = fopen(path, "w");

	cr_assert(fp != NULL);
	fprintf(fp, "redis:\n  url: %s\nprefix: \"cfg:\"\ntasks:\n  job:\n"
	    "    command: [true]\n    history_ttl: 2h\n", fx.url);
	fclose(fp);
	return path;
}

Test(unlock, records_with_the_tasks_history_settings)
{
	struct result r;
	long long ttl;

	freeReplyObject(rcmd("SET cfg:{job} %s", VALUE));
	LR(&r, "unlock", "-c", config_2h(), "--yes", "job");
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	cr_assert(eq(int, key_exists("cfg:{job}"), 0));
	ttl = key_pttl("cfg:{job}:history");
	cr_assert(ttl > 3600000 && ttl <= 7200000, "PTTL %lld: the task's 2h", ttl);
}

Test(unlock, command_line_history_settings_win)
{
	struct result r;
	long long ttl;

	freeReplyObject(rcmd("SET cfg:{job} %s", VALUE));
	LR(&r, "unlock", "-c", config_2h(), "--history-ttl", "1h", "--yes", "job");
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	ttl = key_pttl("cfg:{job}:history");
	cr_assert(ttl > 0 && ttl <= 3600000, "PTTL %lld: the command line's 1h", ttl);
}

Test(unlock, history_zero_records_nothing)
{
	struct result r;

	freeReplyObject(rcmd("SET lockrun:{quiet} %s", VALUE));
	LR(&r, "unlock", "--redis", fx.url, "--history", "0", "--yes", "quiet");
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	cr_assert(eq(int, key_exists("lockrun:{quiet}"), 0));
	cr_assert(eq(int, key_exists("lockrun:{quiet}:history"), 0));
}
