/* SPDX-License-Identifier: BSD-2-Clause */
/* ghost_trigger_test.c -- a trigger (`lockrun trigger`) runs once,
 * however the schedulers' one connection stalls, on Redis and
 * PostgreSQL: a take that every scheduler gave up on, delivered by the
 * network after the stall, deletes nothing, and a look that is answered
 * takes it; a triggered run that could not reach the server (69) is
 * started again within its starting_deadline. Real binary, real servers
 * behind a relay that the test freezes (proxy.h); the test asks for the
 * trigger on the server directly; every job holds a flock for its tree,
 * so a second copy shows at once. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "backends.h"
#include "crons.h"
#include "proxy.h"

/* The schedulers a test started: a failed test leaves none behind (one
 * left would look for triggers on whatever server gets its port next). */
static pid_t crons[4];
static size_t ncrons;

static void
teardown(void)
{
	for (size_t i = 0; i < ncrons; i++)
		if (crons[i] > 0 && kill(crons[i], SIGKILL) == 0)
			lr_wait(crons[i]);
	ncrons = 0;
	backends_teardown();
}

TestSuite(ghost_trigger, .init = suite_setup, .fini = teardown, .timeout = 300);

#define TWO(name)							\
	Test(ghost_trigger, redis_##name) { use(BE_REDIS); name(); }	\
	Test(ghost_trigger, pg_##name) { use(BE_PG); name(); }

/* POLL_UNTIL with a bound of 120 s: a stall, the timeouts behind it and a
 * look every 5 s, on a loaded machine. The bound guards against a hang. */
#define LONG_POLL_UNTIL(cond) do {					\
	long long until_ = fixture_ms() + 120000;			\
	while (!(cond) && fixture_ms() < until_)			\
		fixture_tick(20);					\
} while (0)

/* A config through the relay p: task tj, never due by its schedule, whose
 * command appends "tj" to mark under a flock (a second copy appends
 * "overlap"); short timeouts, so that a stall is given up on at once. */
static const char *
trigger_config_within(const struct proxy *p, const char *mark, const char *deadline)
{
	char body[2048], via[300];

	if (be == BE_REDIS)
		snprintf(via, sizeof(via), "%s", p->url);
	else
		snprintf(via, sizeof(via), "postgres://lockrun@127.0.0.1:%d/lockrun", p->port);
	snprintf(body, sizeof(body), "url: '%s'\n%s:\n  connect_timeout: 1s\n"
	    "  command_timeout: 1s\ntasks:\n  tj:\n    schedule: '0 0 1 1 *'\n"
	    "    starting_deadline: %s\n    command: 'flock -n %s.lock sh -c "
	    "''echo tj >> %s; sleep 1'' || echo overlap >> %s'\n", via,
	    be == BE_REDIS ? "redis" : "postgres", deadline, mark, mark, mark);
	return write_scratch("trigger.yaml", body);
}

static const char *
trigger_config(const struct proxy *p, const char *mark)
{
	return trigger_config_within(p, mark, "2m");
}

/* The relay in front of the test's server. */
static void
relay(struct proxy *p)
{
	cr_assert(eq(int, proxy_start(p, be == BE_REDIS ? fx.port : srv.port), 0));
}

/* `lockrun trigger tj`, on the server directly (--url over the config's
 * relay: the task must be in the config it names). */
static void
ask_trigger(void)
{
	struct result r;

	VERB(&r, "trigger", "-c", scratch("trigger.yaml"), "tj");
	cr_assert(eq(int, r.status, 0), "trigger: %s", r.err);
}

/* How many entries of tj's history have field set to value? (0 while
 * it has none) */
static int
history_field_count(const char *field, const char *value)
{
	struct result r;
	int n = 0;
	char want[64];

	VERB(&r, "history", "--json", "-n", "50", "tj");
	if (r.status != 0)
		return 0;
	snprintf(want, sizeof(want), "\"%s\":\"%s\"", field, value);
	for (const char *p = r.out; (p = strstr(p, want)) != NULL; p += strlen(want))
		n++;
	return n;
}

/* How many entries of tj's history are event? (0 while it has none) */
static int
history_count(const char *event)
{
	return history_field_count("event", event);
}

/* Is tj's trigger still there? */
static int
trigger_left(void)
{
	char out[64] = "";

	if (be == BE_REDIS)
		return key_exists("lockrun:{tj}:trigger");
	cr_assert(eq(int, sql_admin(&srv, "SELECT count(*) FROM lockrun_keys WHERE "
	    "k = 'lockrun:{tj}:trigger' AND expires_ms > "
	    "extract(epoch FROM now()) * 1000", out, sizeof(out)), 0));
	return (int)strtol(out, NULL, 10);
}

/* Have the n schedulers connected? On PostgreSQL a take is sent only on
 * a session that is open (a new one needs the server's answers first), so
 * a stall catches one in flight only on a session opened before it. */
static int
connected(int n)
{
	char out[64] = "";

	if (be == BE_REDIS)
		return 1;
	cr_assert(eq(int, sql_admin(&srv, "SELECT count(*) FROM pg_stat_activity WHERE "
	    "usename = 'lockrun' AND backend_type = 'client backend'", out, sizeof(out)), 0));
	return strtol(out, NULL, 10) >= n;
}

/* lockrun cron -v on the test's config, with extra in its environment. */
static pid_t
cron(const char *const *extra)
{
	pid_t pid = lr_start_env(env_with(extra), (const char *const[]){ "cron", "-v", "-c",
	    scratch("trigger.yaml"), NULL });

	cr_assert(lt(sz, ncrons, sizeof(crons) / sizeof(crons[0])));
	return crons[ncrons++] = pid;
}

/* cron_stop(), and the scheduler is no longer ours to kill. */
static void
stop(pid_t pid)
{
	for (size_t i = 0; i < ncrons; i++)
		if (crons[i] == pid)
			crons[i] = 0;
	cron_stop(pid);
}

static int
started(pid_t pid)
{
	return stderr_matching(pid, "tj triggered: started");
}

/*
 * Two schedulers, both through one relay, which the test freezes: every
 * look for triggers stalls. The trigger is asked while it is frozen, and
 * each scheduler gives up on a look (its take waits in the relay). The
 * relay thaws and delivers those takes, late: they delete nothing (before,
 * each was a GETDEL or a DELETE, and the trigger was gone with no run and
 * no trace); a look that is answered takes it, and tj runs once.
 */
static void
a_take_every_scheduler_gave_up_on_deletes_nothing(void)
{
	const char *mark = scratch("tj.mark");
	char err[8192];
	struct proxy p;
	pid_t a, b;

	relay(&p);
	trigger_config(&p, mark);
	a = cron(NULL);
	b = cron(NULL);
	POLL_UNTIL(stderr_matching(a, "cron: 1 scheduled tasks") > 0 &&
	    stderr_matching(b, "cron: 1 scheduled tasks") > 0 && connected(2));
	cr_assert(connected(2), "the schedulers did not connect");
	proxy_freeze(&p);
	ask_trigger();
	LONG_POLL_UNTIL(stderr_matching(a, "cannot look for triggered runs") > 0 &&
	    stderr_matching(b, "cannot look for triggered runs") > 0);
	cr_assert(gt(int, stderr_matching(a, "cannot look for triggered runs"), 0), "%s",
	    lr_stderr_of(a, err, sizeof(err)));
	cr_assert(gt(int, stderr_matching(b, "cannot look for triggered runs"), 0), "%s",
	    lr_stderr_of(b, err, sizeof(err)));
	cr_assert(gt(long, proxy_pending(&p), 0), "no take waits in the relay");
	cr_assert(eq(int, trigger_left(), 1), "%s", lr_stderr_of(a, err, sizeof(err)));
	proxy_thaw(&p);
	LONG_POLL_UNTIL(history_count("released") >= 1);
	cr_assert(eq(int, history_count("released"), 1), "the trigger did not run: %s\n%s",
	    file_peek(mark), lr_stderr_of(a, err, sizeof(err)));
	stop(a);
	stop(b);
	proxy_cut(&p);
	cr_assert(eq(int, file_lines(mark), 1), "%s", file_peek(mark));
	cr_assert(eq(int, lines_matching(mark, "^tj$"), 1), "%s", file_peek(mark));
	cr_assert(eq(int, history_count("triggered"), 1));
	cr_assert(eq(int, started(a) + started(b), 1), "started twice");
	cr_assert(eq(int, trigger_left(), 0), "the trigger is left");
}
TWO(a_take_every_scheduler_gave_up_on_deletes_nothing)

/*
 * A triggered run whose lock request cannot reach the server: the
 * scheduler took the trigger and started the run, whose request the shim
 * holds (LOCKRUN_SHIM_HOLD_SEND) until the test has frozen the relay; the
 * scheduler's connection stalls, the run ends 69, and the scheduler tries
 * it again within its starting_deadline (before, a triggered run was not
 * tried again: the trigger was gone and nothing ran). Thawed, the late
 * request takes nothing, and the retry runs tj once.
 */
static void
a_triggered_run_that_could_not_reach_the_server_runs_on_a_retry(void)
{
	const char *mark = scratch("tr.mark"), *held = scratch("tr.hold");
	const char *env6[6], *extra[8];
	char buf[3][256], hold[300], err[8192];
	struct proxy p;
	size_t n = 0;
	pid_t a;

	relay(&p);
	trigger_config(&p, mark);
	shim_env(env6, buf, NULL, NULL);
	for (; env6[n] != NULL; n++)
		extra[n] = env6[n];
	snprintf(hold, sizeof(hold), "LOCKRUN_SHIM_HOLD_SEND=%s", held);
	extra[n++] = hold;
	extra[n++] = "LOCKRUN_SHIM_HOLD_TEXT={tj}:fence";
	extra[n] = NULL;
	write_scratch("tr.hold", "");
	a = cron(extra);
	POLL_UNTIL(stderr_matching(a, "cron: 1 scheduled tasks") > 0);
	ask_trigger();
	LONG_POLL_UNTIL(started(a) >= 1);
	cr_assert(eq(int, started(a), 1), "%s", lr_stderr_of(a, err, sizeof(err)));
	proxy_freeze(&p);
	cr_assert(eq(int, unlink(held), 0));	/* the run asks now, and stalls */
	LONG_POLL_UNTIL(stderr_matching(a, "tj triggered: the run took no lock \\(status 69\\)"
	    ".*trying again at .*, within its starting_deadline") >= 1);
	cr_assert(ge(int, stderr_matching(a, "tj triggered: the run took no lock \\(status 69\\)"
	    ".*trying again at "), 1), "%s", lr_stderr_of(a, err, sizeof(err)));
	cr_assert(eq(int, file_lines(mark), 0), "%s", file_peek(mark));
	proxy_thaw(&p);
	LONG_POLL_UNTIL(history_count("released") >= 1);
	cr_assert(eq(int, history_count("released"), 1), "the retry did not run: %s",
	    lr_stderr_of(a, err, sizeof(err)));
	stop(a);
	proxy_cut(&p);
	cr_assert(eq(int, file_lines(mark), 1), "%s", file_peek(mark));
	cr_assert(eq(int, lines_matching(mark, "^tj$"), 1), "%s", file_peek(mark));
	cr_assert(eq(int, history_count("triggered"), 1));
	cr_assert(ge(int, started(a), 2), "no retry");
	cr_assert(eq(int, trigger_left(), 0), "the trigger is left");
}
TWO(a_triggered_run_that_could_not_reach_the_server_runs_on_a_retry)

/* The environment of a scheduler whose runs hold their lock requests
 * while held exists (LOCKRUN_SHIM_HOLD_SEND), into extra[]. */
static void
holding(const char **extra, char buf[3][256], char *hold, size_t n, const char *held)
{
	const char *env6[6];
	size_t k = 0;

	shim_env(env6, buf, NULL, NULL);
	for (; env6[k] != NULL; k++)
		extra[k] = env6[k];
	snprintf(hold, n, "LOCKRUN_SHIM_HOLD_SEND=%s", held);
	extra[k++] = hold;
	extra[k++] = "LOCKRUN_SHIM_HOLD_TEXT={tj}:fence";
	extra[k] = NULL;
	write_scratch(strrchr(held, '/') + 1, "");
}

/* The pid of the run scheduler pid said it started for tj's trigger. */
static pid_t
run_pid(pid_t pid)
{
	char err[16384];
	const char *at = strstr(lr_stderr_of(pid, err, sizeof(err)), "tj triggered: started, pid ");

	return at ? (pid_t)strtol(at + strlen("tj triggered: started, pid "), NULL, 10) : 0;
}

/*
 * A scheduler killed (SIGKILL) between its take of a trigger and the
 * start of the run: the run it forked holds its lock request (the shim),
 * so no run of the trigger has started when the scheduler dies. The take
 * only marked the trigger; a second scheduler skips it while the mark's
 * lease holds (starting_deadline and 10 s), then takes it, and tj runs
 * once. Before, the take deleted the trigger, and it was lost with the
 * scheduler: the second one never ran it.
 */
static void
a_trigger_taken_by_a_scheduler_killed_before_the_start_runs_once(void)
{
	const char *mark = scratch("tk.mark"), *held = scratch("tk.hold");
	const char *extra[8];
	char buf[3][256], hold[300], err[8192];
	struct proxy p;
	pid_t a, b, orphan;

	relay(&p);
	trigger_config_within(&p, mark, "3s");
	holding(extra, buf, hold, sizeof(hold), held);
	a = cron(extra);
	POLL_UNTIL(stderr_matching(a, "cron: 1 scheduled tasks") > 0);
	ask_trigger();
	LONG_POLL_UNTIL(started(a) >= 1);
	cr_assert(eq(int, started(a), 1), "%s", lr_stderr_of(a, err, sizeof(err)));
	orphan = run_pid(a);
	cr_assert(gt(int, orphan, 0), "%s", lr_stderr_of(a, err, sizeof(err)));
	cr_assert(eq(int, kill(a, SIGKILL), 0));	/* the run still holds its request */
	lr_wait(a);
	for (size_t i = 0; i < ncrons; i++)	/* no longer ours to kill */
		if (crons[i] == a)
			crons[i] = 0;
	cr_assert(eq(int, trigger_left(), 1), "the take deleted the trigger");
	b = cron(NULL);
	LONG_POLL_UNTIL(history_count("released") >= 1);
	cr_assert(eq(int, history_count("released"), 1), "the trigger did not run: %s",
	    lr_stderr_of(b, err, sizeof(err)));
	stop(b);
	kill(orphan, SIGKILL);		/* its scheduler gone, it took nothing */
	cr_assert(eq(int, unlink(held), 0));
	proxy_cut(&p);
	cr_assert(eq(int, file_lines(mark), 1), "%s", file_peek(mark));
	cr_assert(eq(int, lines_matching(mark, "^tj$"), 1), "%s", file_peek(mark));
	cr_assert(eq(int, history_count("triggered"), 1));
	cr_assert(eq(int, started(b), 1), "started twice");
	cr_assert(eq(int, trigger_left(), 0), "the trigger is left");
}
TWO(a_trigger_taken_by_a_scheduler_killed_before_the_start_runs_once)

/*
 * A trigger whose run cannot reach the server within its
 * starting_deadline (3 s): its lock request held (the shim) until the
 * relay is frozen, then every try ends 69. Its scheduler gives it up and,
 * once the server answers, drops it: "missed" recorded with the slot
 * "triggered", once, and the trigger gone; nothing ran. Before, the
 * trigger went with no trace in the history.
 */
static void
a_trigger_given_up_at_its_deadline_is_recorded_missed_once(void)
{
	const char *mark = scratch("td.mark"), *held = scratch("td.hold");
	const char *extra[8];
	char buf[3][256], hold[300], err[8192];
	struct proxy p;
	pid_t a;

	relay(&p);
	trigger_config_within(&p, mark, "3s");
	holding(extra, buf, hold, sizeof(hold), held);
	a = cron(extra);
	POLL_UNTIL(stderr_matching(a, "cron: 1 scheduled tasks") > 0);
	ask_trigger();
	LONG_POLL_UNTIL(started(a) >= 1);
	cr_assert(eq(int, started(a), 1), "%s", lr_stderr_of(a, err, sizeof(err)));
	proxy_freeze(&p);
	cr_assert(eq(int, unlink(held), 0));	/* the run asks now, and stalls */
	LONG_POLL_UNTIL(stderr_matching(a, "tj triggered: missed") >= 1);
	cr_assert(ge(int, stderr_matching(a, "tj triggered: missed"), 1), "%s",
	    lr_stderr_of(a, err, sizeof(err)));
	proxy_thaw(&p);
	LONG_POLL_UNTIL(history_field_count("slot", "triggered") >= 1);
	cr_assert(eq(int, history_field_count("slot", "triggered"), 1), "%s",
	    lr_stderr_of(a, err, sizeof(err)));
	stop(a);
	proxy_cut(&p);
	cr_assert(eq(int, history_count("missed"), 1));
	cr_assert(eq(int, history_count("triggered"), 0));
	cr_assert(eq(int, file_lines(mark), 0), "%s", file_peek(mark));
	cr_assert(eq(int, trigger_left(), 0), "the trigger is left");
}
TWO(a_trigger_given_up_at_its_deadline_is_recorded_missed_once)
