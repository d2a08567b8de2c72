/* SPDX-License-Identifier: BSD-2-Clause */
/* session_test.c -- one run, one blast radius (issue 41): a run cron
 * starts, a user: task and a hook each lead a session of their own, with
 * no controlling terminal (a plain `lockrun -- cmd` keeps lockrun's, as
 * flock(1) does); a SIGHUP sent to the scheduler's process group reaches
 * the scheduler alone, which reloads and leaves its runs running; a user:
 * task holds fds 0 to 2 alone, none of the environment lockrun was given,
 * and finds its command in its own PATH with its own rights. lockrun is
 * started here in a session of its own (setsid), on a pty as its
 * controlling terminal where one is wanted, as from a root shell. */
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "crons.h"
#include "harness.h"

TestSuite(session, .init = suite_setup, .fini = suite_teardown, .timeout = 90);

/* How lockrun is started: on a pty of its own as its controlling
 * terminal (tty), with fd3 open on that file (NULL: none), env added. */
struct how {
	int		 tty;
	const char	*fd3;
	const char	*const *env;
};

/* Start lockrun with args as the leader of a new session (so that its
 * process group is its pid), as h says; its stderr is where lr_stderr_of()
 * finds it. *master is the pty's master end, which the caller keeps open
 * while lockrun runs (closed, it would hang the terminal up), or -1. */
static pid_t
start_session(const struct how *h, int *master, const char *const args[])
{
	const char *bin = getenv("LOCKRUN_BIN");
	const char *argv[32] = { bin ? bin : "./lockrun" };
	char slave[128] = "", err[256], name[64], link[256];
	static int seq;
	size_t n = 1;
	pid_t pid;

	for (size_t i = 0; args[i] && n < 31; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	*master = -1;
	if (h->tty) {
		*master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
		cr_assert(ge(int, *master, 0), "posix_openpt: %s", strerror(errno));
		cr_assert(eq(int, grantpt(*master), 0));
		cr_assert(eq(int, unlockpt(*master), 0));
		cr_assert(eq(int, ptsname_r(*master, slave, sizeof(slave)), 0));
	}
	snprintf(err, sizeof(err), "%s/session%d.err", fx.dir, seq++);
	fflush(NULL);
	if ((pid = fork()) == 0) {
		int in, o, e;

		if (setsid() == -1)
			_exit(120);
		if (h->tty) {
			/* the session's controlling terminal, and lockrun's stdin */
			if ((in = open(slave, O_RDWR)) < 0 || ioctl(in, TIOCSCTTY, 0) != 0)
				_exit(120);
		} else if ((in = open("/dev/null", O_RDONLY)) < 0)
			_exit(120);
		o = open("/dev/null", O_WRONLY);
		e = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		if (o < 0 || e < 0 || dup2(in, 0) < 0 || dup2(o, 1) < 0 || dup2(e, 2) < 0)
			_exit(120);
		/* what a root shell may hold: a descriptor on a root-only file,
		 * not close-on-exec (dup2 clears it) */
		if (h->fd3 && ((o = open(h->fd3, O_RDONLY)) < 0 || dup2(o, 3) != 3))
			_exit(120);
		for (size_t i = 0; h->env && h->env[i]; i++)
			putenv((char *)h->env[i]);
		execv(argv[0], (char *const *)argv);
		_exit(121);
	}
	cr_assert(pid > 0, "fork failed");
	snprintf(name, sizeof(name), "pid%d.err", (int)pid);
	snprintf(link, sizeof(link), "%s/%s", fx.dir, name);
	cr_assert(eq(int, symlink(err, link), 0), "symlink: %s", strerror(errno));
	return pid;
}

/* A path in fx.dir, in the caller's buffer (scratch() recycles its own). */
static const char *
path_in(char *buf, size_t n, const char *name)
{
	snprintf(buf, n, "%s/%s", fx.dir, name);
	return buf;
}

/* Commands and hooks run as nobody write their findings in fx.dir. */
static void
dir_for_nobody(void)
{
	cr_assert(geteuid() == 0, "these tests run as root");
	cr_assert(getpwnam("nobody") != NULL, "this host has a user nobody");
	cr_assert(eq(int, chmod(fx.dir, 0777 | S_ISVTX), 0));
}

/* A config only root may write (a user: needs it, files_trusted()). */
static const char *
root_config(const char *body)
{
	const char *cfg = write_config(body);

	cr_assert(eq(int, chmod(cfg, 0600), 0));
	return cfg;
}

/* A shell line that says whether /dev/tty opens, and if not why. */
#define TRY_TTY "(exec 3<>/dev/tty) 2>&1 && echo opened || echo refused"

Test(session, a_user_task_a_hook_and_a_cron_run_started_from_a_terminal_have_none)
{
	char asuser[256], hook[256], plain[256], run[256], ticked[256], body[2048], line[600];
	struct how tty = { .tty = 1 };
	int master, st;
	pid_t pid;

	dir_for_nobody();
	path_in(asuser, sizeof(asuser), "asuser.out");
	path_in(hook, sizeof(hook), "hook.out");
	path_in(plain, sizeof(plain), "plain.out");
	path_in(run, sizeof(run), "run.out");
	path_in(ticked, sizeof(ticked), "ticked.out");
	snprintf(body, sizeof(body), "tasks:\n"
	    "  asuser:\n    user: nobody\n    output: %s\n    shell: true\n"
	    "    command: '" TRY_TTY "'\n"
	    "  hooked:\n    command: [true]\n"
	    "    on_success: [sh, -c, '(" TRY_TTY ") > %s']\n"
	    "  scheduled:\n    every: 1s\n    output: %s\n    shell: true\n"
	    "    command: '" TRY_TTY "'\n"
	    "  minutely:\n    schedule: '* * * * *'\n    output: %s\n    shell: true\n"
	    "    command: '" TRY_TTY "'\n", asuser, hook, run, ticked);
	root_config(body);

	/* lockrun -t, as root from a terminal: the user's command and the
	 * hook find none (ENXIO) */
	pid = start_session(&tty, &master, (const char *const[]){ "-c",
	    scratch("lockrun.yaml"), "-t", "asuser", NULL });
	st = lr_wait(pid);
	close(master);
	cr_assert(eq(int, st, 0), "%s", lr_stderr_of(pid, line, sizeof(line)));
	cr_assert(matches(file_peek(asuser), "No such device or address\nrefused\n$"),
	    "the user: task opened root's terminal: %s", file_peek(asuser));

	/* --foreground does not give it the terminal back, and says so */
	pid = start_session(&tty, &master, (const char *const[]){ "-c",
	    scratch("lockrun.yaml"), "-t", "asuser", "--foreground", NULL });
	st = lr_wait(pid);
	close(master);
	cr_assert(eq(int, st, 0), "%s", lr_stderr_of(pid, line, sizeof(line)));
	cr_assert(matches(file_peek(asuser), "No such device or address\nrefused\n$"),
	    "with --foreground: %s", file_peek(asuser));
	cr_assert(matches(lr_stderr_of(pid, line, sizeof(line)), "--foreground does not "
	    "apply to a task with user: nobody"), "%s", line);

	pid = start_session(&tty, &master, (const char *const[]){ "-c",
	    scratch("lockrun.yaml"), "-t", "hooked", NULL });
	st = lr_wait(pid);
	close(master);
	cr_assert(eq(int, st, 0), "%s", lr_stderr_of(pid, line, sizeof(line)));
	cr_assert(matches(file_peek(hook), "No such device or address\nrefused\n$"),
	    "the hook opened the terminal: %s", file_peek(hook));

	/* a plain lockrun -- cmd keeps the terminal, as flock(1) does: the
	 * terminal given here is one a command can open */
	pid = start_session(&tty, &master, (const char *const[]){ "--redis", fx.url,
	    "-k", "plain", "--", "sh", "-c", "(" TRY_TTY ") > \"$0\"", plain, NULL });
	st = lr_wait(pid);
	close(master);
	cr_assert(eq(int, st, 0), "%s", lr_stderr_of(pid, line, sizeof(line)));
	cr_assert(eq(str, (char *)file_peek(plain), "opened\n"));

	/* cron in the foreground of a terminal: its runs have none */
	pid = start_session(&tty, &master, (const char *const[]){ "cron", "-v", "-c",
	    scratch("lockrun.yaml"), NULL });
	POLL_UNTIL(lines_matching(run, "^(opened|refused)$") >= 1 || !alive(pid));
	cron_stop(pid);
	close(master);
	cr_assert(matches(file_peek(run), "^[^\n]*No such device or address\nrefused\n"),
	    "a cron run opened the scheduler's terminal: %s", file_peek(run));

	/* tick from a terminal: its run (the minute's task) has none either */
	pid = start_session(&tty, &master, (const char *const[]){ "tick", "-c",
	    scratch("lockrun.yaml"), NULL });
	st = lr_wait(pid);
	close(master);
	cr_assert(eq(int, st, 0), "%s", lr_stderr_of(pid, line, sizeof(line)));
	cr_assert(matches(file_peek(ticked), "No such device or address\nrefused\n$"),
	    "a tick run opened the terminal: %s", file_peek(ticked));
}

/* A task whose first run says its pid on ready, waits for the file go,
 * and appends its pid to done; a later run of it, once done exists, ends
 * at once. */
static int
gated_task(char *buf, size_t n, const char *name, const char *user, const char *ready,
    const char *go, const char *done)
{
	return snprintf(buf, n, "  %s:\n%s%s%s    every: 1s\n    no_overlap: true\n"
	    "    shell: true\n    command: '[ -e %s ] && exit 0; echo $$ >> %s; "
	    "while [ ! -e %s ]; do sleep 0.05; done; echo $$ >> %s'\n", name,
	    user ? "    user: " : "", user ? user : "", user ? "\n" : "", done, ready, go,
	    done);
}

/* SIGHUP to the scheduler's process group (a supervisor that signals the
 * group, timeout(1), dumb-init): the scheduler reads its config again and
 * its runs, root's and a user's, go on and end as they would have. */
Test(session, sighup_to_the_schedulers_group_reloads_and_every_run_goes_on)
{
	char r1[256], r2[256], d1[256], d2[256], go[256], body[4096], err[16384];
	struct how none = { 0 };
	long p1, p2;
	int master;
	size_t k;
	pid_t pid;

	dir_for_nobody();
	path_in(r1, sizeof(r1), "root.ready");
	path_in(r2, sizeof(r2), "user.ready");
	path_in(d1, sizeof(d1), "root.done");
	path_in(d2, sizeof(d2), "user.done");
	path_in(go, sizeof(go), "go");
	k = (size_t)snprintf(body, sizeof(body), "tasks:\n");
	k += (size_t)gated_task(body + k, sizeof(body) - k, "rootjob", NULL, r1, go, d1);
	gated_task(body + k, sizeof(body) - k, "userjob", "nobody", r2, go, d2);
	root_config(body);

	pid = start_session(&none, &master, (const char *const[]){ "cron", "-v", "-c",
	    scratch("lockrun.yaml"), NULL });
	POLL_UNTIL((file_lines(r1) >= 1 && file_lines(r2) >= 1) || !alive(pid));
	cr_assert(alive(pid), "%s", lr_stderr_of(pid, err, sizeof(err)));
	p1 = strtol(file_peek(r1), NULL, 10);
	p2 = strtol(file_peek(r2), NULL, 10);

	cr_assert(eq(int, kill(-pid, SIGHUP), 0), "the scheduler leads its group");
	POLL_UNTIL(stderr_matching(pid, "read .* again: 2 scheduled tasks") == 1);
	cr_assert(eq(int, stderr_matching(pid, "read .* again: 2 scheduled tasks"), 1),
	    "%s", lr_stderr_of(pid, err, sizeof(err)));

	write_scratch("go", "");
	POLL_UNTIL(file_lines(d1) >= 1 && file_lines(d2) >= 1);
	cron_stop(pid);
	lr_stderr_of(pid, err, sizeof(err));
	/* the runs that were running when SIGHUP came are those that ended */
	cr_assert(eq(long, strtol(file_peek(d1), NULL, 10), p1), "root's run: %s", err);
	cr_assert(eq(long, strtol(file_peek(d2), NULL, 10), p2), "the user's run: %s", err);
	cr_assert(eq(int, file_lines(r1), 1), "started once: %s", err);
	cr_assert(eq(int, file_lines(r2), 1), "started once: %s", err);
	cr_assert(eq(int, stderr_matching(pid, "status 129|SIGHUP|HUP"), 0), "%s", err);
	cr_assert(stderr_matching(pid, "^rootjob: .*released .*status 0\\)") >= 1, "%s", err);
	cr_assert(stderr_matching(pid, "^userjob: .*released .*status 0\\)") >= 1, "%s", err);
}

/* A user: task run by a lockrun that holds a root-only file on fd 3 and
 * a secret in its environment: its command, and its hook, hold fds 0 to 2
 * alone and have only the user's environment, PATH included. */
Test(session, a_user_task_holds_fds_0_to_2_and_only_its_own_environment)
{
	char secret[256], cmd[256], hook[256], body[2048], err[4096];
	const char *env[] = { "LR_TEST_SECRET=x", "PGPASSWORD=hunter2", NULL };
	struct how h = { .fd3 = secret, .env = env };
	struct passwd *pw;
	char *text;
	int master;
	pid_t pid;

	dir_for_nobody();
	pw = getpwnam("nobody");
	path_in(secret, sizeof(secret), "shadow");
	write_scratch("shadow", "root:secret\n");
	cr_assert(eq(int, chmod(secret, 0600), 0));
	path_in(cmd, sizeof(cmd), "cmd.out");
	path_in(hook, sizeof(hook), "hook.out");
	snprintf(body, sizeof(body), "tasks:\n  who:\n    user: nobody\n    output: %s\n"
	    "    shell: true\n    env:\n      MINE: 'yes'\n"
	    "    command: 'ls /proc/$$/fd; echo --; env | sort'\n"
	    "    on_success: [sh, -c, 'exec > %s; ls /proc/$$/fd; echo --; env | sort']\n",
	    cmd, hook);
	root_config(body);
	pid = start_session(&h, &master, (const char *const[]){ "-c",
	    scratch("lockrun.yaml"), "-t", "who", NULL });
	cr_assert(eq(int, lr_wait(pid), 0), "%s", lr_stderr_of(pid, err, sizeof(err)));

	for (int i = 0; i < 2; i++) {
		const char *what = i ? "its hook" : "the command";
		char want[512];

		text = file_text(i ? hook : cmd);
		cr_assert(matches(text, "^0\n1\n2\n--\n"), "%s holds more: %s", what, text);
		cr_assert(matches(text, "LR_TEST_SECRET|PGPASSWORD|hunter2") == 0,
		    "%s has lockrun's environment: %s", what, text);
		cr_assert(matches(text, "\nPATH=/usr/local/bin:/usr/bin:/bin\n"), "%s: %s",
		    what, text);
		snprintf(want, sizeof(want), "\nHOME=%s\n", pw->pw_dir);
		cr_assert(strstr(text, want) != NULL, "%s: %s", what, text);
		cr_assert(matches(text, "\nLOGNAME=nobody\n"), "%s: %s", what, text);
		cr_assert(matches(text, "\nUSER=nobody\n"), "%s: %s", what, text);
		cr_assert(matches(text, "\nMINE=yes\n"), "%s: %s", what, text);
		cr_assert(matches(text, "\nLOCKRUN_TASK=who\n"), "%s: %s", what, text);
		cr_assert(matches(text, "\nLOCKRUN_TOKEN=[0-9]+\n"), "%s: %s", what, text);
		free(text);
	}
}

/* Where a user: task's command is found: in the user's PATH (the default
 * one, or its env's), with the user's rights, never in root's. */
Test(session, a_user_task_finds_its_command_in_its_own_path_with_its_own_rights)
{
	char rootbin[256], private[256], id[300], out[256], body[2048], env[300],
	    want[64], err[4096];
	const char *envs[] = { env, NULL };
	struct how h = { .env = envs };
	int master;
	pid_t pid;

	dir_for_nobody();
	/* root's PATH holds a false id, which any user could run */
	path_in(rootbin, sizeof(rootbin), "rootbin");
	cr_assert(eq(int, mkdir(rootbin, 0755), 0));
	snprintf(id, sizeof(id), "%s/id", rootbin);
	write_scratch("rootbin/id", "#!/bin/sh\necho root\\'s id\n");
	cr_assert(eq(int, chmod(id, 0755), 0));
	/* a folder only root may search, with a program anyone may run */
	path_in(private, sizeof(private), "private");
	cr_assert(eq(int, mkdir(private, 0700), 0));
	write_scratch("private/lr-private", "#!/bin/sh\necho ran\n");
	snprintf(id, sizeof(id), "%s/lr-private", private);
	cr_assert(eq(int, chmod(id, 0755), 0));
	path_in(out, sizeof(out), "id.out");
	snprintf(body, sizeof(body), "tasks:\n"
	    "  mine:\n    user: nobody\n    output: %s\n    command: [id, -u]\n"
	    "  hidden:\n    user: nobody\n    env:\n      PATH: '%s:/usr/bin:/bin'\n"
	    "    command: [lr-private]\n", out, private);
	root_config(body);
	snprintf(env, sizeof(env), "PATH=%s", rootbin);	/* root's: nothing else */

	pid = start_session(&h, &master, (const char *const[]){ "-c",
	    scratch("lockrun.yaml"), "-t", "mine", NULL });
	cr_assert(eq(int, lr_wait(pid), 0), "%s", lr_stderr_of(pid, err, sizeof(err)));
	snprintf(want, sizeof(want), "%u\n", (unsigned)getpwnam("nobody")->pw_uid);
	cr_assert(eq(str, (char *)file_peek(out), want), "not the user's id");

	pid = start_session(&h, &master, (const char *const[]){ "-c",
	    scratch("lockrun.yaml"), "-t", "hidden", NULL });
	cr_assert(eq(int, lr_wait(pid), 126), "%s", lr_stderr_of(pid, err, sizeof(err)));
	cr_assert(matches(lr_stderr_of(pid, err, sizeof(err)), "cannot run lr-private as "
	    "user nobody: Permission denied"), "%s", err);
}

/* Ctrl-C at the terminal of a scheduler in the foreground: the terminal
 * signals the scheduler's group, which its runs are no longer in; the
 * scheduler passes SIGINT on to each run, which stops its command, and
 * exits 0 once they have ended. */
Test(session, ctrl_c_at_the_schedulers_terminal_stops_its_runs_through_it)
{
	char ready[256], body[1024], err[16384];
	struct how tty = { .tty = 1 };
	int master;
	long sh;
	pid_t pid;

	path_in(ready, sizeof(ready), "ready");
	snprintf(body, sizeof(body), "tasks:\n  long:\n    every: 1s\n    shell: true\n"
	    "    command: 'echo $$ >> %s; exec sleep 60'\n", ready);
	root_config(body);
	pid = start_session(&tty, &master, (const char *const[]){ "cron", "-v", "-c",
	    scratch("lockrun.yaml"), NULL });
	POLL_UNTIL(file_lines(ready) >= 1 || !alive(pid));
	cr_assert(alive(pid), "%s", lr_stderr_of(pid, err, sizeof(err)));
	sh = strtol(file_peek(ready), NULL, 10);
	cr_assert(eq(int, (int)write(master, "\003", 1), 1), "^C typed");
	cr_assert(eq(int, lr_wait(pid), 0), "%s", lr_stderr_of(pid, err, sizeof(err)));
	close(master);
	lr_stderr_of(pid, err, sizeof(err));
	cr_assert(eq(int, alive((pid_t)sh), 0), "the command outlived it: %s", err);
	cr_assert(matches(err, "\nlockrun: long [^ ]*: ended, status 130 "), "%s", err);
	cr_assert(eq(int, stderr_matching(pid, "starter is gone"), 0), "%s", err);
}
