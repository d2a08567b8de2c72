/* SPDX-License-Identifier: BSD-2-Clause */
/* mail.c -- a run's output mailed (mail.h): a message on the mailer's
 * standard input, "sendmail -t -oi" as cron(8) calls it, with the end of
 * the output lockrun keeps for the run's story (keep_output bytes). */
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/mail.h"
#include "core/file.h"
#include "core/text.h"
#include "out/log.h"
#include "proc/spawn.h"

/* The message: headers, then the output's lines without their stream
 * byte. A header value from the config or the host is made one line. */
static void
write_message(FILE *fp, const struct lr_run *r, const char *tail, size_t n, int status)
{
	const struct lr_ctx *x = r->x;
	char to[512], host[300], name[300];

	text_one_line(to, sizeof(to), x->t.mailto);
	text_one_line(host, sizeof(host), x->host);
	text_one_line(name, sizeof(name), r->name);
	fprintf(fp, "To: %s\nSubject: lockrun <%s> %s: status %d\n"
	    "Content-Type: text/plain; charset=UTF-8\nAuto-Submitted: auto-generated\n\n",
	    to, host, name, status);
	for (size_t i = 0; i < n; ) {
		const char *nl = memchr(tail + i, '\n', n - i);
		size_t end = nl ? (size_t)(nl - tail) + 1 : n;

		fwrite(tail + i + 1, 1, end - i - 1, fp);	/* less the stream's byte */
		i = end;
	}
}

void
mail_output(const struct lr_run *r, const char *tail, size_t n, int status)
{
	const struct lr_ctx *x = r->x;
	const char *mailer = file_mailer();
	long long waited = 0;
	int p[2], st = 0;
	pid_t pid, got;
	FILE *fp;

	if (x->t.mailto == NULL || *x->t.mailto == '\0' || tail == NULL || n == 0)
		return;
	if (mailer == NULL) {
		lr_warn("mailto %s: no mailer (%s is not there): the output is not mailed",
		    x->t.mailto, FILE_MAILER);
		return;
	}
	if (pipe2(p, O_CLOEXEC) != 0 || (pid = fork()) < 0) {
		lr_warn("mailto %s: cannot start %s: %s", x->t.mailto, mailer, strerror(errno));
		return;
	}
	if (pid == 0) {
		dup2(p[0], STDIN_FILENO);
		execl(mailer, mailer, "-t", "-oi", (char *)NULL);
		_exit(127);
	}
	close(p[0]);
	if ((fp = fdopen(p[1], "w")) != NULL) {
		signal(SIGPIPE, SIG_IGN);	/* a mailer that stops reading */
		write_message(fp, r, tail, n, status);
		fclose(fp);
	} else
		close(p[1]);
	/* bounded: a mailer that hangs does not keep the run for ever */
	while ((got = waitpid(pid, &st, WNOHANG)) == 0 && waited < x->t.hook_timeout_ms) {
		spawn_sleep(50);
		waited += 50;
	}
	if (got == 0) {
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
		lr_warn("mailto %s: %s did not finish: stopped", x->t.mailto, mailer);
	} else if (got > 0 && !(WIFEXITED(st) && WEXITSTATUS(st) == 0))
		lr_warn("mailto %s: %s failed (status %d)", x->t.mailto, mailer,
		    WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
}
