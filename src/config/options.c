/* SPDX-License-Identifier: BSD-2-Clause */
/* options.c -- a task's settings as a config writes them: the command,
 * its environment, hooks, where its output goes, and the scalar options
 * core/task.c knows; each checked where it is written. */
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config/files.h"
#include "config/options.h"
#include "core/cron.h"
#include "core/keys.h"
#include "core/near.h"
#include "core/schedule.h"

/* command: [prog, arg...] runs prog directly; command: "string" runs it
 * with /bin/sh -c, unless shell: says otherwise. With shell: true and a
 * list, the first item is the script and the rest are $0, $1, ... */
static int
parse_command(struct walk *w, const struct yt_node *v, const char *what,
    struct lr_task *t)
{
	size_t n = v->kind == YT_SEQ ? v->nkids : 1;
	char at[PATH_MAX + 32];

	if (v->kind == YT_SEQ && n == 0)
		return walk_bad(w, v, "%s: is an empty list", what);
	if (v->kind == YT_MAP || walk_is_null(v))
		return walk_bad(w, v, "%s: expected a list of strings or a string, got %s",
		    what, walk_kind_of(v));
	snprintf(at, sizeof(at), "%s:%d:%d", w->path, v->line, v->col);
	if ((t->argv = calloc(n + 1, sizeof(char *))) == NULL ||
	    (t->argv_at = strdup(at)) == NULL)
		return lr_errf(w->e, EX_OSERR, "out of memory");
	for (size_t i = 0; i < n; i++) {
		const struct yt_node *a = v->kind == YT_SEQ ? v->kids[i] : v;
		if (a->kind != YT_SCALAR || walk_is_null(a))
			return walk_bad(w, a, "%s: expected a list of strings, got %s in it",
			    what, walk_kind_of(a));
		if ((t->argv[i] = strdup(a->value)) == NULL)
			return lr_errf(w->e, EX_OSERR, "out of memory");
	}
	if (v->kind == YT_SCALAR && t->argv[0][0] == '\0')
		return walk_bad(w, v, "%s: is an empty string", what);
	if (t->shell == LR_UNSET)	/* an explicit shell: wins, wherever it is */
		t->shell = v->kind == YT_SCALAR;
	return 0;
}

static int
parse_env(struct walk *w, const struct yt_node *map, const char *what,
    struct lr_task *t)
{
	struct lr_err te;

	if (walk_want_map(w, map, what) != 0)
		return -1;
	for (size_t i = 0; i < map->nkids; i += 2) {
		const struct yt_node *k = map->kids[i], *v = map->kids[i + 1];
		char item[400];
		const char *val;

		snprintf(item, sizeof(item), "%s.%s", what, k->value);
		if ((val = walk_want_string(w, v, item)) == NULL)
			return -1;
		if (task_add_env(t, k->value, val, &te) != 0)
			return walk_bad(w, k, "%s: %s", what, te.msg);
	}
	return 0;
}

/* A schedule is checked where it is written, pointing at the field at
 * fault; a zone name must exist. */
static int
check_schedule(struct walk *w, const struct yt_node *k, const struct yt_node *v,
    const char *what)
{
	struct lr_cron c;
	struct lr_err ce;
	int pos = 0;

	if (strcmp(k->value, "schedule") == 0 && strcmp(v->value, LR_REBOOT) != 0 &&
	    cron_parse(v->value, &c, &pos, &ce) != 0)
		return lr_errf(w->e, EX_CONFIG, "%s:%d:%d: %s: %s", w->path, v->line,
		    v->col + (v->quoted ? 1 : 0) + pos, what, ce.msg);
	if (strcmp(k->value, "timezone") == 0 &&
	    cron_set_tz(&c, v->value, &ce) != 0)
		return walk_bad(w, v, "%s: %s", what, ce.msg);
	return 0;
}

/* on_start: [program, arg...]: a hook is a list, run without a shell. */
static int
parse_hook(struct walk *w, const struct yt_node *v, const char *what, char ***dst)
{
	if (v->kind != YT_SEQ || v->nkids == 0)
		return walk_bad(w, v, "%s: expected a list [program, args...], got %s", what,
		    v->kind == YT_SEQ ? "an empty list" : walk_kind_of(v));
	strv_free(*dst);
	if ((*dst = calloc(v->nkids + 1, sizeof(char *))) == NULL)
		return lr_errf(w->e, EX_OSERR, "out of memory");
	for (size_t i = 0; i < v->nkids; i++) {
		const struct yt_node *a = v->kids[i];
		if (a->kind != YT_SCALAR || walk_is_null(a))
			return walk_bad(w, a, "%s: expected a list of strings, got %s in it",
			    what, walk_kind_of(a));
		if (((*dst)[i] = strdup(a->value)) == NULL)
			return lr_errf(w->e, EX_OSERR, "out of memory");
	}
	return 0;
}

/* hosts: [web1, web2]: the hosts that run the task (core/where.h), each
 * a name a key may hold (a run_on: all slot key ends with it). */
static int
parse_hosts(struct walk *w, const struct yt_node *v, const char *what, struct lr_task *t)
{
	const char *why;

	if (v->kind != YT_SEQ || v->nkids == 0)
		return walk_bad(w, v, "%s: expected a list of host names, got %s", what,
		    v->kind == YT_SEQ ? "an empty list" : walk_kind_of(v));
	strv_free(t->hosts);
	if ((t->hosts = calloc(v->nkids + 1, sizeof(char *))) == NULL)
		return lr_errf(w->e, EX_OSERR, "out of memory");
	for (size_t i = 0; i < v->nkids; i++) {
		const struct yt_node *a = v->kids[i];
		if (a->kind != YT_SCALAR || walk_is_null(a))
			return walk_bad(w, a, "%s: expected a list of host names, got %s in it",
			    what, walk_kind_of(a));
		if ((why = key_host_problem(a->value)) != NULL)
			return walk_bad(w, a, "%s: host name \"%s\" %s", what, a->value, why);
		if ((t->hosts[i] = strdup(a->value)) == NULL)
			return lr_errf(w->e, EX_OSERR, "out of memory");
	}
	return 0;
}

/* The hook list called name in t, or NULL if name is not a hook. */
static char ***
hook_of(struct lr_task *t, const char *name)
{
	if (strcmp(name, "on_start") == 0)
		return &t->on_start;
	if (strcmp(name, "on_success") == 0)
		return &t->on_success;
	if (strcmp(name, "on_failure") == 0)
		return &t->on_failure;
	if (strcmp(name, "on_missed") == 0)
		return &t->on_missed;
	if (strcmp(name, "when") == 0)	/* a condition, read as a hook is */
		return &t->when;
	return NULL;
}

/* output: inherit, discard, or a file appended to: a relative path is
 * taken from the main config file's folder, wherever the task is
 * written, and kept absolute or as given from that folder. */
static int
parse_output(struct walk *w, const struct yt_node *v, const char *what,
    struct lr_task *t)
{
	const char *s = walk_want_string(w, v, what);
	char path[PATH_MAX];

	if (s == NULL)
		return -1;
	if (*s == '\0')
		return walk_bad(w, v, "%s: is empty (expected inherit, discard or a file)",
		    what);
	if (strcmp(s, "inherit") != 0 && strcmp(s, "discard") != 0) {
		if (files_relative(w->cfg->path, s, path, sizeof(path)) != 0)
			return walk_bad(w, v, "%s: the path is too long", what);
		s = path;
	}
	free(t->output);
	if ((t->output = strdup(s)) == NULL)
		return lr_errf(w->e, EX_OSERR, "out of memory");
	return 0;
}

/* user: or group: (what) names an account lockrun can switch to: lockrun
 * runs as root (which also means the config passed files_trusted()); a
 * name that does not exist on this host is a note. */
static int
check_account(struct walk *w, const struct yt_node *k, const struct yt_node *v,
    const char *what)
{
	int user = strcmp(k->value, "user") == 0;

	if (geteuid() != 0 && !w->cfg->checking)
		return walk_bad(w, k, "%s: lockrun runs as uid %u, not root: it cannot "
		    "run a command as another %s", what, (unsigned)geteuid(),
		    user ? "user" : "group");
	/* one host's accounts are not the fleet's: a name unknown here is
	 * said, not refused (the rest of the config runs); a run of the task
	 * here fails and records why (run.c, run_cannot_start()) */
	if (user ? getpwnam(v->value) == NULL : getgrnam(v->value) == NULL)
		return walk_note(w, v, "%s: no %s \"%s\" on this host: a run of it here "
		    "fails, and its history says why", what, user ? "user" : "group",
		    v->value);
	/* check as a user not root (a CI's lint): the rest is checked */
	if (geteuid() != 0)
		return walk_note(w, k, "%s: not root (uid %u): the switch to %s \"%s\" is "
		    "not tried; a run of it needs lockrun run as root", what,
		    (unsigned)geteuid(), user ? "user" : "group", v->value);
	return 0;
}

/* The keys a task (or the defaults) may have: the one-value settings,
 * then those read their own way. */
static size_t
known_keys(const char *keys[], size_t max)
{
	static const char *const own[] = { "command", "env", "on_start", "on_success",
		"on_failure", "on_missed", "hosts", "when" };
	struct lr_task none;
	const char *name;
	char value[8];
	size_t n = 0;

	task_init(&none);
	for (size_t i = 0; n < max && task_setting(&none, i, &name, value, sizeof(value)) >= 0;
	    i++)
		if (strcmp(name, "on_redis_error") != 0)	/* an old name: not offered */
			keys[n++] = name;
	for (size_t i = 0; n < max && i < sizeof(own) / sizeof(own[0]); i++)
		keys[n++] = own[i];
	return n;
}

/* An unknown key, whatever its value's shape, refused by name with the
 * nearest known keys. */
static int
unknown_key(struct walk *w, const struct yt_node *k, const char *section)
{
	const char *keys[64];
	size_t n = known_keys(keys, 64), near[NEAR_MAX], k_near;
	char hint[256] = "";

	if (strcmp(k->value, "on_redis_error") == 0)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (strcmp(keys[i], k->value) == 0)
			return 0;
	k_near = near_words(k->value, keys, n, near);
	for (size_t i = 0; i < k_near; i++)
		snprintf(hint + strlen(hint), sizeof(hint) - strlen(hint), "%s%s", i == 0 ?
		    " (did you mean " : i + 1 == k_near ? " or " : ", ", keys[near[i]]);
	if (k_near > 0)
		snprintf(hint + strlen(hint), sizeof(hint) - strlen(hint), "?)");
	return walk_bad(w, k, "unknown key \"%s\" in %s%s", k->value, section, hint);
}

/* One task option (or a default, when is_task is 0). */
static int
parse_option(struct walk *w, const struct yt_node *k, const struct yt_node *v,
    const char *section, int is_task, struct lr_task *t)
{
	char what[300], ***hook;
	struct lr_err te;
	int rc;

	snprintf(what, sizeof(what), "%s.%s", section, k->value);
	if (unknown_key(w, k, section) != 0)
		return -1;
	if ((hook = hook_of(t, k->value)) != NULL)
		return parse_hook(w, v, what, hook);
	if (strcmp(k->value, "command") == 0) {
		if (!is_task)
			return walk_bad(w, k, "defaults cannot have a command (give it to a task)");
		return parse_command(w, v, what, t);
	}
	if (strcmp(k->value, "env") == 0)
		return parse_env(w, v, what, t);
	if (strcmp(k->value, "hosts") == 0)
		return parse_hosts(w, v, what, t);
	if (strcmp(k->value, "output") == 0)
		return parse_output(w, v, what, t);
	if (strcmp(k->value, "shell") == 0 && !is_task)	/* it goes with a command */
		return walk_bad(w, k, "defaults cannot have shell (give it to a task)");
	if (v->kind != YT_SCALAR || walk_is_null(v))
		return walk_bad(w, v, "%s: expected a value, got %s", what, walk_kind_of(v));
	rc = task_set(t, k->value, v->value, &te);
	if (rc == 0)
		return walk_bad(w, k, "unknown key \"%s\" in %s", k->value, section);
	if (rc < 0)
		return walk_bad(w, v, "%s: %s", what, te.msg);
	if (strcmp(k->value, "user") == 0 || strcmp(k->value, "group") == 0)
		return check_account(w, k, v, what);
	return check_schedule(w, k, v, what);
}

int
options_parse(struct walk *w, const struct yt_node *map, const char *section,
    int is_task, struct lr_task *t)
{
	const struct yt_node *conc = NULL;
	struct lr_err te;

	if (walk_want_map(w, map, section) != 0)
		return -1;
	for (size_t i = 0; i < map->nkids; i += 2) {
		if (parse_option(w, map->kids[i], map->kids[i + 1], section, is_task, t) != 0)
			return -1;
		if (strcmp(map->kids[i]->value, "concurrency") == 0)
			conc = map->kids[i + 1];
	}
	/* concurrency: with a no_overlap: that says otherwise, or a word
	 * not built yet, is refused where it is written */
	if (conc && task_concurrency_check(t, &te) != 0)
		return walk_bad(w, conc, "%s: %s", section, te.msg);
	return 0;
}


int
options_check(struct walk *w, const struct yt_node *at, const struct lr_task *task)
{
	const char *setting, *why = NULL;
	struct lr_task t;
	struct lr_err te;
	int rc;

	task_init(&t);
	rc = task_resolve(&t, NULL, task, &w->cfg->defaults, NULL, &te);
	if (rc == 0)	/* a task's own setting that changes nothing is a mistake */
		why = task_no_effect(task, &t, 0, &setting);
	task_free(&t);
	if (rc != 0 && te.status == EX_OSERR)
		return lr_errf(w->e, EX_OSERR, "%s", te.msg);
	if (rc != 0)
		return walk_bad(w, at, "tasks.%s: %s", task->name, te.msg);
	if (why)
		return walk_bad(w, at, "tasks.%s: %s %s", task->name, setting, why);
	return 0;
}
