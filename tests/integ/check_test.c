/* SPDX-License-Identifier: BSD-2-Clause */
/* check_test.c -- `lockrun check` asks the server, not only PING: a key
 * of the wrong type, a user without a permission the run needs, a replica
 * and a cluster node are each named, with status 69; a healthy setup says
 * so. Real binary, real redis-server (a second one for the replica). */
#include <sys/stat.h>
#include <sys/wait.h>

#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "harness.h"

TestSuite(check, .init = suite_setup, .fini = suite_teardown, .timeout = 60);

static void
ok(const char *fmt, const char *arg)
{
	redisReply *r = rcmd(fmt, arg);

	cr_assert(r->type != REDIS_REPLY_ERROR, "%s: %s", fmt, r->str);
	freeReplyObject(r);
}

Test(check, a_healthy_server_and_keys_pass)
{
	struct result res;

	LR(&res, "check", "--redis", fx.url, "-k", "fine", "--", "true");
	cr_assert(eq(int, res.status, 0), "%s", res.err);
	cr_assert(strstr(res.out, "keys        lockrun:{fine}: types and permissions ok\n") != NULL,
	    "%s", res.out);
}

Test(check, a_key_of_the_wrong_type_is_named)
{
	struct result res;

	ok("SET %s x", "lockrun:{typed}:history");
	ok("RPUSH %s x", "lockrun:{typed}:last");
	LR(&res, "check", "--redis", fx.url, "-k", "typed", "--", "true");
	cr_assert(eq(int, res.status, 69));
	cr_assert(strstr(res.err, "lockrun:{typed}:history holds a string, not a stream\n") != NULL,
	    "%s", res.err);
	cr_assert(strstr(res.err, "lockrun:{typed}:last holds a list, not a hash\n") != NULL,
	    "%s", res.err);
	cr_assert(strstr(res.out, "types and permissions ok") == NULL);
}

/* The user may run the scripts but not write the history: a run would go
 * on without recording anything; check says which command, on which key. */
Test(check, a_missing_permission_is_named)
{
	struct result res;
	char url[160];

	ok("ACL SETUSER %s on >pw ~lockrun:* +@all -xadd", "noxadd");
	snprintf(url, sizeof(url), "redis://noxadd:pw@127.0.0.1:%d", fx.port);
	LR(&res, "check", "--redis", url, "-k", "perm", "--", "true");
	cr_assert(eq(int, res.status, 69));
	cr_assert(strstr(res.err, "the Redis user may not run XADD on lockrun:{perm}:history\n") != NULL,
	    "%s", res.err);
	cr_assert(strstr(res.err, "may not run GET") == NULL, "%s", res.err);
	/* and the run indeed records nothing */
	LR(&res, "--redis", url, "-k", "perm", "--", "true");
	cr_assert(eq(int, res.status, 0), "%s", res.err);
	cr_assert(eq(int, key_exists("lockrun:{perm}:history"), 0));
}

Test(check, a_replica_is_named)
{
	struct redis_fixture rep;
	struct result res;
	char port[16], want[128];
	const char *extra[] = { "--replicaof", "127.0.0.1", port, NULL };

	snprintf(port, sizeof(port), "%d", fx.port);
	cr_assert(redis_start(&rep, extra) == 0);
	LR(&res, "check", "--redis", rep.url, "-k", "rep", "--", "true");
	redis_stop(&rep);
	cr_assert(eq(int, res.status, 69));
	snprintf(want, sizeof(want), "this server is a read-only replica of 127.0.0.1:%d; "
	    "point lockrun at the master\n", fx.port);
	cr_assert(strstr(res.err, want) != NULL, "%s", res.err);
}

/* A cluster node that does not own the task's slot answers the script
 * with an error: check passes it on, named, with 69. */
Test(check, a_cluster_node_without_the_slot_is_named)
{
	struct redis_fixture node;
	struct result res;
	const char *extra[] = { "--cluster-enabled", "yes", "--cluster-config-file",
	    "nodes.conf", NULL };

	cr_assert(redis_start(&node, extra) == 0);
	LR(&res, "check", "--redis", node.url, "-k", "cl", "--", "true");
	redis_stop(&node);
	cr_assert(eq(int, res.status, 69));
	cr_assert(strstr(res.err, "the Redis Cluster is down (CLUSTERDOWN") != NULL, "%s", res.err);
}

/* check without -t checks each task as its run would: a command that is
 * not there is a line naming the task and its command's place, and a
 * non-zero exit; the next three fire times of a task with a schedule are
 * printed in its zone; the server is reached all the same. */
Test(check, without_t_every_task_is_checked_as_its_run_would)
{
	struct result res;
	/* after write_config()'s two lines of redis: */
	const char *cfg = write_config("tasks:\n"
	    "  fine:\n    command: [true]\n"
	    "    schedule: '0 9 * * *'\n    timezone: Asia/Kathmandu\n"
	    "  gone:\n    command: [no-such-command-anywhere, --all]\n"
	    "  path:\n    env:\n      PATH: /nonexistent\n    command: [true]\n"
	    "  inwd:\n    cwd: /\n    command: [./no-such-file-here]\n");

	LR(&res, "check", "-c", cfg);
	/* the problems first (stderr), then one line that counts them */
	cr_assert(eq(int, res.status, 1), "%s", res.err);
	cr_assert(matches(res.out, "^config +[^ ]*lockrun\\.yaml: 3 of 4 tasks have problems "
	    "\\(said above\\)\n"), "%s", res.out);
	cr_assert(matches(res.err, "^lockrun: [^ ]*lockrun\\.yaml:9:14: tasks\\.gone: cannot run "
	    "no-such-command-anywhere: command not found in PATH\n"), "%s", res.err);
	cr_assert(matches(res.err, "\nlockrun: [^ ]*lockrun\\.yaml:13:14: tasks\\.path: cannot "
	    "run true: command not found in PATH\n"), "%s", res.err);
	cr_assert(matches(res.err, "\nlockrun: [^ ]*lockrun\\.yaml:16:14: tasks\\.inwd: cannot "
	    "run /\\./no-such-file-here: No such file or directory\n$"), "%s", res.err);
	cr_assert(matches(res.out, "\ntask +fine +lockrun:\\{fine\\}\n +next "
	    "[0-9-]+ 09:00\\+05:45, [0-9-]+ 09:00\\+05:45, [0-9-]+ 09:00\\+05:45 "
	    "\\(Asia/Kathmandu\\)\n"), "%s", res.out);
	cr_assert(strstr(res.out, ": reachable\n") != NULL, "%s", res.out);
}

/* A task file named .yml is read as a .yaml one is: a file in the
 * tasks_dir is never skipped for its name; both for one task is an
 * error naming both. */
Test(check, a_yml_file_in_the_tasks_dir_is_read)
{
	struct result res;
	const char *cfg = write_config("tasks_dir: tasks.d\n");

	cr_assert(eq(int, mkdir(scratch("tasks.d"), 0755), 0));
	write_scratch("tasks.d/a.yaml", "command: [\"true\"]\n");
	write_scratch("tasks.d/backup.yml", "command: [\"true\"]\nschedule: '0 3 * * *'\n");
	LR(&res, "check", "-c", cfg);
	cr_assert(eq(int, res.status, 0), "%s", res.err);
	cr_assert(matches(res.out, "^config +[^ ]*: ok, 2 tasks\n"), "%s", res.out);
	cr_assert(matches(res.out, "\ntask +backup +lockrun:\\{backup\\}\n"), "%s", res.out);
	LR(&res, "-c", cfg, "-t", "backup");
	cr_assert(eq(int, res.status, 0), "%s", res.err);
	write_scratch("tasks.d/backup.yaml", "command: [\"true\"]\n");
	LR(&res, "check", "-c", cfg);
	cr_assert(eq(int, res.status, 78), "%s", res.err);
	cr_assert(ne(ptr, strstr(res.err, "backup.yaml and "), NULL), "%s", res.err);
	cr_assert(ne(ptr, strstr(res.err, "backup.yml: task backup is defined twice"), NULL),
	    "%s", res.err);
}

/* check run by a user not root (a CI linting the config) checks a user:
 * task for what it can, says what it did not try, and passes. */
Test(check, a_user_task_is_checked_by_a_user_not_root)
{
	char cmd[2048], out[256], errf[256];
	const char *cfg;
	int st;

	cr_assert(eq(int, chmod(fx.dir, 0755), 0));
	cfg = write_config("tasks:\n  who:\n    user: nobody\n    command: [\"true\"]\n");
	cr_assert(eq(int, chmod(cfg, 0644), 0));
	snprintf(out, sizeof(out), "%s", scratch("check.out"));
	snprintf(errf, sizeof(errf), "%s", scratch("check.err"));
	snprintf(cmd, sizeof(cmd), "setpriv --reuid nobody --regid %u --clear-groups "
	    "%s -c %s check > %s 2> %s", (unsigned)getpwnam("nobody")->pw_gid,
	    getenv("LOCKRUN_BIN"), cfg, out, errf);
	st = system(cmd);
	st = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	cr_assert(eq(int, st, 0), "%s: %s", cmd, file_peek(errf));
	cr_assert(matches(file_peek(errf), "^lockrun: [^ ]*\\.yaml:5:5: tasks\\.who\\.user: not "
	    "root \\(uid [0-9]+\\): the switch to user \"nobody\" is not tried; a run of it "
	    "needs lockrun run as root\n$"), "%s", file_peek(errf));
	cr_assert(matches(file_peek(out), "\ntask +who +lockrun:\\{who\\}\n"), "%s",
	    file_peek(out));
}
