/* SPDX-License-Identifier: BSD-2-Clause */
/* listen_test.c -- what bounds `lockrun cron --listen`'s clients: slow
 * clients holding connections, slow readers of a large page, a public
 * address, the bearer token, the Host header, the unix socket's mode and
 * its removal; the real binary against a real Redis. */
#include <sys/socket.h>
#include <sys/stat.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "crons.h"
#include "harness.h"
#include "http.h"

TestSuite(listen, .init = suite_setup, .fini = suite_teardown, .timeout = 180);

#define BODY_MAX (256 * 1024)
#define TASKS "tasks:\n" \
	"  ok:\n    schedule: '0 0 1 1 *'\n    command: 'true'\n" \
	"  other:\n    schedule: '0 0 1 1 *'\n    command: 'true'\n"

/* GET /healthz from 127.0.0.2, a monitor apart from the slow clients,
 * given sec seconds to answer: the status, -1 for none. */
static int
healthz_within(int port, int sec)
{
	static char body[256];
	struct timespec t0, t1;
	int code;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	code = http_to(&(struct http_to){ .from = "127.0.0.2", .timeout_s = sec }, port,
	    "/healthz", body, sizeof(body), NULL, 0);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	cr_log_info("/healthz: %d in %ld ms", code, (long)((t1.tv_sec - t0.tv_sec) * 1000 +
	    (t1.tv_nsec - t0.tv_nsec) / 1000000));
	return code;
}

/* The resident memory of pid, in kB. */
static long
rss_kb(pid_t pid)
{
	char path[64], line[256];
	long kb = -1;
	FILE *fp;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	fp = fopen(path, "r");
	cr_assert(fp != NULL, "%s: %s", path, strerror(errno));
	while (fgets(line, sizeof(line), fp))
		if (sscanf(line, "VmRSS: %ld kB", &kb) == 1)
			break;
	fclose(fp);
	return kb;
}

/* Does pid map AddressSanitizer (make SANITIZE=1), whose quarantine
 * keeps what is freed: its RSS says nothing of lockrun's? */
static int
sanitized(pid_t pid)
{
	char path[64], line[512];
	int found = 0;
	FILE *fp;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	if ((fp = fopen(path, "r")) == NULL)
		return 0;
	while (fgets(line, sizeof(line), fp))
		found |= strstr(line, "libasan") != NULL;
	fclose(fp);
	return found;
}

Test(listen, trickling_clients_leave_healthz_answered)
{
	enum { N = 100 };
	int fds[N], port, open_ = 0;
	char from[32];
	pid_t pid;

	pid = LR_START("cron", "-v", "-c", write_config(TASKS), "--listen", "127.0.0.1:0");
	port = http_port_of(pid);
	cr_assert(eq(int, healthz_within(port, 10), 200));
	/* 100 clients, each a byte of a request every 5 s: half of them from
	 * the address /healthz is asked from, the rest from four others */
	for (int i = 0; i < N; i++) {
		if (i % 2)
			snprintf(from, sizeof(from), "127.0.1.%d", 1 + i / 2 % 4);
		else
			snprintf(from, sizeof(from), "127.0.0.2");
		open_ += (fds[i] = http_open(from, port, "G")) >= 0;
	}
	cr_log_info("%d of %d connected", open_, N);
	for (int round = 0; round < 4; round++) {
		for (int s = 0; s < 5; s++) {	/* asked every second: answered in 2 */
			cr_assert(eq(int, healthz_within(port, 2), 200),
			    "/healthz unanswered in round %d", round);
			pace_ms(1000);
		}
		for (int i = 0; i < N; i++)
			if (fds[i] >= 0 && send(fds[i], "E", 1, MSG_NOSIGNAL) != 1) {
				close(fds[i]);
				fds[i] = -1;
			}
	}
	for (int i = 0; i < N; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	kill(pid, SIGTERM);
	cr_assert(eq(int, lr_wait(pid), 0));
}

Test(listen, slow_readers_of_a_large_page_share_one_copy)
{
	enum { TASKS_N = 10000, READERS = 60 };
	static char cfg[TASKS_N * 64 + 64], body[1 << 20];
	size_t len = 0;
	int fds[READERS], port, open_ = 0;
	long kb, max_kb = 0;
	char from[32];
	pid_t pid;

	len += (size_t)snprintf(cfg + len, sizeof(cfg) - len, "tasks:\n");
	for (int i = 0; i < TASKS_N; i++)
		len += (size_t)snprintf(cfg + len, sizeof(cfg) - len, "  task-%05d:\n    "
		    "schedule: '0 0 1 1 *'\n    command: 'true'\n", i);
	pid = LR_START("cron", "-v", "-c", write_config(cfg), "--listen", "127.0.0.1:0");
	port = http_port_of(pid);
	POLL_UNTIL(http_to(&(struct http_to){ .from = "127.0.0.2" }, port, "/readyz", body,
	    sizeof(body), NULL, 0) == 200);
	cr_log_info("RSS before the readers: %ld kB", rss_kb(pid));

	/* 60 readers, from addresses of their own, that read nothing, coming
	 * over 6 s: the page is built again for the later ones */
	for (int i = 0; i < READERS; i++) {
		snprintf(from, sizeof(from), "127.0.2.%d", 1 + i);
		open_ += (fds[i] = http_open(from, port, "GET / HTTP/1.1\r\n"
		    "Host: 127.0.0.1\r\n\r\n")) >= 0;
		pace_ms(100);
		if ((kb = rss_kb(pid)) > max_kb)
			max_kb = kb;
	}
	cr_assert(eq(int, open_, READERS));
	for (int s = 0; s < 20; s++) {
		if ((kb = rss_kb(pid)) > max_kb)
			max_kb = kb;
		pace_ms(250);
	}
	cr_log_info("RSS with %d slow readers: at most %ld kB", READERS, max_kb);
	if (!sanitized(pid))
		cr_assert(max_kb < 64 * 1024, "the scheduler grew to %ld kB", max_kb);
	cr_assert(eq(int, healthz_within(port, 10), 200));
	for (int i = 0; i < READERS; i++)
		close(fds[i]);

	/* the page says how many there are and where the rest are */
	cr_assert(eq(int, http_to(&(struct http_to){ .from = "127.0.0.2" }, port, "/", body,
	    sizeof(body), NULL, 0), 200));
	cr_assert(strstr(body, "10000 tasks") != NULL, "%.300s", body);
	cr_assert(strstr(body, "9000 more are not shown") != NULL, "%.2000s", body);
	cr_assert(strstr(body, "task-00999") != NULL && strstr(body, "task-01000") == NULL,
	    "%zu bytes", strlen(body));
	cr_log_info("the page: %zu bytes", strlen(body));

	kill(pid, SIGTERM);
	cr_assert(eq(int, lr_wait(pid), 0));
}

Test(listen, a_public_address_warns_and_the_token_guards_all_but_healthz)
{
	static char body[BODY_MAX], cfgbody[2048];
	const char *tok = write_scratch("token", "s3cret-token\n");
	struct result res;
	char hostport[64];
	int port;
	pid_t pid;

	/* no token: said once, at the start */
	pid = LR_START("cron", "-v", "-c", write_config(TASKS), "--listen", "0.0.0.0:0");
	port = http_port_at(pid, "0.0.0.0");
	POLL_UNTIL(stderr_matching(pid, "--listen 0.0.0.0:0: other hosts can read the "
	    "status page and /metrics, which ask for no authentication") == 1);
	POLL_UNTIL(http_get(port, "/metrics", body, BODY_MAX, NULL, 0) == 200);
	cr_assert(eq(int, http_get(port, "/metrics", body, BODY_MAX, NULL, 0), 200), "%s", body);
	kill(pid, SIGTERM);
	cr_assert(eq(int, lr_wait(pid), 0));

	/* a token file others can read is refused, as a password_file is */
	chmod(tok, 0644);
	snprintf(cfgbody, sizeof(cfgbody), "listen_token_file: %s\n"
	    "listen_names: 'lockrun.test, other.test'\n" TASKS, tok);
	LR(&res, "cron", "-c", write_config(cfgbody), "--listen", "0.0.0.0:0");
	cr_assert(eq(int, res.status, 78), "%s", res.err);
	cr_assert(strstr(res.err, "listen_token_file") != NULL, "%s", res.err);
	/* it guards root's page: no group bits, and root's or the scheduler's */
	chmod(tok, 0640);
	LR(&res, "cron", "-c", write_config(cfgbody), "--listen", "0.0.0.0:0");
	cr_assert(eq(int, res.status, 78), "%s", res.err);
	cr_assert(strstr(res.err, "chmod go-rwx") != NULL, "%s", res.err);
	chmod(tok, 0600);
	cr_assert(eq(int, chown(tok, 65534, 65534), 0));
	LR(&res, "cron", "-c", write_config(cfgbody), "--listen", "0.0.0.0:0");
	cr_assert(eq(int, res.status, 78), "%s", res.err);
	cr_assert(strstr(res.err, "owned by uid 65534") != NULL, "%s", res.err);
	cr_assert(eq(int, chown(tok, 0, 0), 0));

	pid = LR_START("cron", "-v", "-c", write_config(cfgbody), "--listen", "0.0.0.0:0");
	port = http_port_at(pid, "0.0.0.0");
	cr_assert(eq(int, stderr_matching(pid, "no authentication"), 0));
	cr_assert(eq(int, http_get(port, "/metrics", body, BODY_MAX, NULL, 0), 401), "%s", body);
	cr_assert(eq(int, http_get(port, "/", body, BODY_MAX, NULL, 0), 401), "%s", body);
	cr_assert(eq(int, http_get(port, "/readyz", body, BODY_MAX, NULL, 0), 401), "%s", body);
	cr_assert(eq(int, http_get(port, "/run/t/1", body, BODY_MAX, NULL, 0), 401), "%s", body);
	cr_assert(eq(int, http_get(port, "/healthz", body, BODY_MAX, NULL, 0), 200), "%s", body);
	cr_assert(eq(int, http_to(&(struct http_to){ .headers = "Authorization: Bearer "
	    "s3cret-tokem\r\n" }, port, "/metrics", body, BODY_MAX, NULL, 0), 401));
	POLL_UNTIL(http_to(&(struct http_to){ .headers = "Authorization: Bearer "
	    "s3cret-token\r\n" }, port, "/metrics", body, BODY_MAX, NULL, 0) == 200);
	cr_assert(eq(int, http_to(&(struct http_to){ .headers = "Authorization: Bearer "
	    "s3cret-token\r\n" }, port, "/metrics", body, BODY_MAX, NULL, 0), 200), "%s", body);
	cr_assert(strstr(body, "lockrun_scheduler_backend_up") != NULL, "%s", body);

	/* the Host: an address, localhost or a name listed; not another */
	cr_assert(eq(int, http_to(&(struct http_to){ .headers = "Host: evil.example\r\n" },
	    port, "/healthz", body, BODY_MAX, NULL, 0), 421), "%s", body);
	cr_assert(eq(int, http_to(&(struct http_to){ .headers = "Host: lockrun.test.evil\r\n"
	    "Authorization: Bearer s3cret-token\r\n" }, port, "/metrics", body, BODY_MAX,
	    NULL, 0), 421), "%s", body);
	cr_assert(eq(int, http_to(&(struct http_to){ .headers = "Host: evil.example\r\n"
	    "Authorization: Bearer s3cret-token\r\n" }, port, "/run/t/1", body, BODY_MAX,
	    NULL, 0), 421), "%s", body);
	snprintf(hostport, sizeof(hostport), "Host: other.test:%d\r\n", port);
	cr_assert(eq(int, http_to(&(struct http_to){ .headers = hostport }, port, "/healthz",
	    body, BODY_MAX, NULL, 0), 200), "%s", body);
	cr_assert(eq(int, http_to(&(struct http_to){ .headers = "Host: LockRun.Test\r\n" },
	    port, "/healthz", body, BODY_MAX, NULL, 0), 200), "%s", body);
	cr_assert(eq(int, http_to(&(struct http_to){ .headers = "Host: localhost\r\n" },
	    port, "/healthz", body, BODY_MAX, NULL, 0), 200), "%s", body);
	cr_assert(eq(int, http_to(&(struct http_to){ .headers = "Host: [::1]:80\r\n" },
	    port, "/healthz", body, BODY_MAX, NULL, 0), 200), "%s", body);
	kill(pid, SIGTERM);
	cr_assert(eq(int, lr_wait(pid), 0));
}

Test(listen, a_unix_socket_is_0660_and_removed_at_exit)
{
	static char body[256];
	char dir[] = "/tmp/lrwebXXXXXX", path[64], err[4096];
	struct result res;
	const char *cfg;
	struct stat st;
	mode_t old;
	pid_t pid;

	cr_assert(mkdtemp(dir) != NULL);	/* fx.dir may be too long for a sun_path */
	snprintf(path, sizeof(path), "%s/web.sock", dir);

	cfg = write_config(TASKS);
	old = umask(0);		/* what the socket would get from the umask: 0777 */
	pid = LR_START("cron", "-v", "-c", cfg, "--listen", path);
	umask(old);
	POLL_UNTIL(stderr_matching(pid, "serving .* on unix:") == 1);
	cr_assert(eq(int, stat(path, &st), 0), "%s: %s", strerror(errno),
	    lr_stderr_of(pid, err, sizeof(err)));
	cr_assert(eq(int, S_ISSOCK(st.st_mode) ? 1 : 0, 1), "not a socket");
	cr_assert(eq(int, (int)(st.st_mode & 07777), 0660), "mode %o", st.st_mode & 07777);
	cr_assert(eq(int, http_to(&(struct http_to){ .unix_path = path }, 0, "/healthz", body,
	    sizeof(body), NULL, 0), 200));
	kill(pid, SIGTERM);
	cr_assert(eq(int, lr_wait(pid), 0));
	cr_assert(eq(int, stat(path, &st), -1), "the socket is left behind");
	cr_assert(eq(int, errno, ENOENT));

	/* a folder another user can change is refused, named */
	cr_assert(eq(int, chown(dir, 65534, 65534), 0));
	LR(&res, "cron", "-c", cfg, "--listen", path);
	cr_assert(eq(int, res.status, 78), "%s", res.err);
	cr_assert(strstr(res.err, "owned by uid 65534") != NULL, "%s", res.err);
	cr_assert(eq(int, stat(path, &st), -1), "no socket made there");
	rmdir(dir);
}
