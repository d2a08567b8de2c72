/* SPDX-License-Identifier: BSD-2-Clause */
/* shim_test.c -- the fault shim: it loads into lockrun and fakes what it
 * says it fakes, and nothing while its switches are off. */
#include <sys/random.h>

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "harness.h"

TestSuite(shim, .init = suite_setup, .fini = suite_teardown, .timeout = 30);

/* A DNS outage: hiredis's getaddrinfo() inside lockrun gets EAI_AGAIN. */
Test(shim, gai_fail_file_makes_lockrun_fail_to_resolve_with_69)
{
	const char *down = scratch("dns-down"), *out = scratch("ran");
	const char *env[6];
	char buf[3][256], url[64], script[256], want[256];
	struct result r;
	FILE *fp = fopen(down, "w");

	cr_assert(fp != NULL);
	fclose(fp);
	shim_env(env, buf, down, NULL);
	snprintf(url, sizeof(url), "redis://localhost:%d", fx.port);
	snprintf(script, sizeof(script), "echo ran >> %s", out);
	lr_run_env(&r, env, (const char *const[]){ "--redis", url, "--", "sh", "-c",
	    script, NULL });
	snprintf(want, sizeof(want), "lockrun: redis localhost:%d: cannot resolve "
	    "localhost: Temporary failure in name resolution (URL from --url; no password)\n",
	    fx.port);
	cr_assert(eq(int, r.status, 69));
	cr_assert(eq(str, r.err, want));
	cr_assert(eq(int, file_lines(out), 0), "nothing ran");
}

/* The same shim, its file absent: the real getaddrinfo() answers. */
Test(shim, without_the_file_lockrun_resolves_and_runs)
{
	const char *env[6];
	char buf[3][256], url[64];
	struct result r;

	shim_env(env, buf, scratch("dns-down"), NULL);
	snprintf(url, sizeof(url), "redis://localhost:%d", fx.port);
	lr_run_env(&r, env, (const char *const[]){ "--redis", url, "--", "echo", "ran",
	    NULL });
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	cr_assert(eq(str, r.out, "ran\n"));
}

Test(shim, env_is_null_terminated_with_a_spare_slot)
{
	const char *env[6] = { 0, 0, 0, 0, 0, "SPARE=1" };
	char buf[3][256];

	shim_env(env, buf, "/a", "/b");
	cr_assert(eq(str, (char *)env[1], "LOCKRUN_SHIM_GAI_FAIL=/a"));
	cr_assert(eq(str, (char *)env[2], "LOCKRUN_SHIM_GETRANDOM_EMPTY=/b"));
	cr_assert(eq(str, (char *)env[3], "ASAN_OPTIONS=verify_asan_link_order=0"));
	cr_assert(eq(ptr, (void *)env[4], NULL));
	cr_assert(eq(str, (char *)env[5], "SPARE=1"), "env[5] is the caller's");
	shim_env(env, buf, NULL, NULL);
	cr_assert(eq(int, strncmp(env[0], "LD_PRELOAD=/", 12), 0), "%s", env[0]);
	cr_assert(eq(str, (char *)env[1], "ASAN_OPTIONS=verify_asan_link_order=0"));
	cr_assert(eq(ptr, (void *)env[2], NULL));
}

/* The shim's getrandom(), called directly: lockrun's use of it is for the
 * tests of lockrun to pin, not for this one. */
typedef ssize_t (*getrandom_fn)(void *, size_t, unsigned int);

static getrandom_fn
shim_getrandom(void)
{
	void *h = dlopen(getenv("LOCKRUN_SHIM"), RTLD_NOW | RTLD_LOCAL);
	getrandom_fn f;

	cr_assert(h != NULL, "dlopen: %s", dlerror());
	f = (getrandom_fn)dlsym(h, "getrandom");
	cr_assert(f != NULL, "the shim has no getrandom");
	return f;	/* the library stays loaded for the test's life */
}

Test(shim, getrandom_empty_pool_fails_and_logs_blocking_calls)
{
	const char *log = scratch("getrandom.log");
	getrandom_fn f = shim_getrandom();
	unsigned char b[16];
	ssize_t n;

	setenv("LOCKRUN_SHIM_GETRANDOM_EMPTY", log, 1);
	errno = 0;
	n = f(b, sizeof(b), 0);
	cr_assert(eq(int, (int)n, -1));
	cr_assert(eq(int, errno, ENOSYS));
	cr_assert(eq(int, file_lines(log), 1), "the blocking call is logged");
	errno = 0;
	n = f(b, sizeof(b), GRND_NONBLOCK);
	cr_assert(eq(int, (int)n, -1));
	cr_assert(eq(int, errno, EAGAIN));
	cr_assert(eq(int, file_lines(log), 1), "a non-blocking call is not");
	f(b, sizeof(b), GRND_RANDOM);		/* blocking too */
	cr_assert(eq(int, file_lines(log), 2));
}

Test(shim, getrandom_unset_is_the_real_one)
{
	getrandom_fn f = shim_getrandom();
	unsigned char a[16] = { 0 }, b[16] = { 0 };

	unsetenv("LOCKRUN_SHIM_GETRANDOM_EMPTY");
	cr_assert(eq(int, (int)f(a, sizeof(a), 0), 16));
	cr_assert(eq(int, (int)f(b, sizeof(b), GRND_NONBLOCK), 16));
	cr_assert(ne(int, memcmp(a, b, sizeof(a)), 0), "two draws of 128 bits differ");
}
