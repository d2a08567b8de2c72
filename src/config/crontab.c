/* SPDX-License-Identifier: BSD-2-Clause */
/* crontab.c -- crontab files read as tasks (crontab.h): a line at a time,
 * as cron(8) reads them, each job line checked as a task is (its
 * schedule, zone and settings) so that a line that cannot run is said
 * and left out, never a surprise at its fire time. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/crontab.h"
#include "config/walk.h"
#include "config/files.h"
#include "core/cron.h"
#include "core/file.h"
#include "core/keys.h"
#include "core/schedule.h"
#include "core/task.h"

#define CRONTAB_BYTES_MAX	(1 << 20)	/* a larger crontab is refused */
#define HINT "# lockrun:"

/* What the lines read so far say to the next job line. */
struct reader {
	struct lr_config	*cfg;
	const char		*path;
	int			 users;
	const char		*only;		/* the one task read in full (a run's);
						 * NULL: all of them */
	int			 line;		/* the line being read, from 1 */
	char			**env;		/* the VAR=value lines, in order */
	char			*tz;		/* CRON_TZ or TZ; NULL: local time */
	int			 tz_bad;	/* the line of a zone that is none */
	char			*shell;		/* SHELL; NULL: /bin/sh */
	char			*mailto;	/* MAILTO; NULL or "": no mail */
	int			 mailto_said;
	char			*hint;		/* the `# lockrun:` line's words,
						 * for the next job line; NULL */
	int			 hint_line;
	int			 hint_col;	/* where its words begin */
};

/* A note at line:col of the file; returns 0, or -1 when out of memory. */
static int __attribute__((format(printf, 5, 6)))
note(struct reader *r, int line, int col, int skipped, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return walk_note_add(r->cfg, r->path, line, col, skipped, msg);
}

int
crontab_path_has_users(const char *path)
{
	return strcmp(path, "/etc/crontab") == 0 || strncmp(path, "/etc/cron.d/", 12) == 0;
}

/* The value of a VAR=value line: blanks around it dropped, then one pair
 * of matching quotes, as cron(8) reads it. In place. */
static char *
env_value(char *v)
{
	size_t len;

	v = (char *)crontab_skip_blanks(v);
	len = strlen(v);
	while (len > 0 && crontab_blank(v[len - 1]))
		v[--len] = '\0';
	if (len >= 2 && (v[0] == '"' || v[0] == '\'') && v[len - 1] == v[0]) {
		v[len - 1] = '\0';
		v++;
	}
	return v;
}

static int
replace(char **dst, const char *s)
{
	free(*dst);
	*dst = s ? strdup(s) : NULL;
	return s && *dst == NULL ? -1 : 0;
}

/* A VAR=value line at s (its first non-blank): for the job lines after
 * it. CRON_TZ (and TZ) is their zone, SHELL their shell; MAILTO is said
 * once, there being no mail sent. Returns 0, or -1 when out of memory. */
static int
env_line(struct reader *r, char *s, int col)
{
	char *eq = strchr(s, '='), *name = s, *value, *end = eq;
	struct lr_cron c;
	struct lr_err e;
	char **v;
	size_t n;

	while (end > name && crontab_blank(end[-1]))
		end--;
	*end = '\0';
	value = env_value(eq + 1);
	if (strcmp(name, "CRON_TZ") == 0 || strcmp(name, "TZ") == 0) {
		r->tz_bad = 0;
		if (*value == '\0')
			return replace(&r->tz, NULL);
		if (cron_set_tz(&c, value, &e) != 0) {
			r->tz_bad = r->line;
			return note(r, r->line, col, 1, "%s: %s", name, e.msg);
		}
		if (replace(&r->tz, value) != 0)
			return -1;
		if (strcmp(name, "CRON_TZ") == 0)
			return 0;	/* the schedule's, not the command's */
	} else if (strcmp(name, "SHELL") == 0) {
		if (replace(&r->shell, *value && strcmp(value, "/bin/sh") != 0 ? value :
		    NULL) != 0)
			return -1;
	} else if (strcmp(name, "MAILTO") == 0) {
		if (replace(&r->mailto, value) != 0)
			return -1;
		if (*value && file_mailer() == NULL && !r->mailto_said) {
			r->mailto_said = 1;
			if (note(r, r->line, col, 0, "MAILTO=%s: no mailer (%s) on this host: no "
			    "mail is sent; each run's output is kept with its history (lockrun "
			    "logs NAME)", value, FILE_MAILER) != 0)
				return -1;
		}
	}
	{
		struct lr_task t = { .env = r->env };

		if (task_add_env(&t, name, value, &e) != 0) {
			r->env = t.env;
			return e.status == EX_OSERR ? -1 : note(r, r->line, col, 1, "%s",
			    e.msg);
		}
		r->env = t.env;
	}
	/* a name set again: the later value only, as a shell would keep it */
	n = strv_len(r->env);
	v = r->env;
	for (size_t i = 0; i + 1 < n; i++)
		if (strncmp(v[i], name, strlen(name)) == 0 && v[i][strlen(name)] == '=') {
			free(v[i]);
			memmove(&v[i], &v[i + 1], (n - i) * sizeof(*v));
			break;
		}
	return 0;
}

/* Is the line at s (its first non-blank) a VAR=value line? A job line
 * starts with its minute, or '@'; NAME is a shell's variable name. */
static int
is_env_line(const char *s)
{
	const char *eq = strchr(s, '=');

	if (eq == NULL || !((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') ||
	    *s == '_'))
		return 0;
	for (const char *p = s; p < eq; p++)
		if (!((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') ||
		    (*p >= '0' && *p <= '9') || *p == '_')) {
			const char *q = crontab_skip_blanks(p);
			return q == eq;		/* NAME = value */
		}
	return 1;
}

/* The task of a job line, from the words of its `# lockrun:` line (NAME
 * first, then key=value) and what the lines above it set. */
static int
settings(struct reader *r, struct lr_task *t, char *name, size_t n)
{
	char *save = NULL, *w, *eq;
	struct lr_err e;

	name[0] = '\0';
	if (r->hint == NULL)
		return 0;
	for (w = strtok_r(r->hint, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
		int col = r->hint_col + (int)(w - r->hint), rc;

		if ((eq = strchr(w, '=')) == NULL) {
			const char *why = keys_name_problem(w);

			if (name[0] != '\0')
				return note(r, r->hint_line, col, 1, "\"%s\": a second name "
				    "(one NAME, then key=value settings)", w) == 0 ? 1 : -1;
			if (why != NULL || strlen(w) >= n)
				return note(r, r->hint_line, col, 1, "\"%s\" %s", w, why ? why :
				    "is too long") == 0 ? 1 : -1;
			snprintf(name, n, "%s", w);
			continue;
		}
		*eq = '\0';
		if ((rc = task_set(t, w, eq + 1, &e)) == 1)
			continue;
		if (rc < 0 && e.status == EX_OSERR)
			return -1;
		return note(r, r->hint_line, col, 1, rc == 0 ? "%s: not a setting a crontab "
		    "line takes (ttl, timeout, one_server, no_overlap, retries, ...)" :
		    "%s: %s", w, e.msg) == 0 ? 1 : -1;
	}
	return 0;
}

/* Is name one of cfg's (the config's, a crontab's)? Linear: a crontab
 * is read once, and this file may not ask config.c (it is asked by it). */
static int
has_name(const struct lr_config *cfg, const char *name)
{
	for (size_t i = 0; i < cfg->nnames; i++)
		if (strcmp(cfg->names[i], name) == 0)
			return 1;
	return 0;
}

static const struct lr_task *
task_named(const struct lr_config *cfg, const char *name)
{
	for (size_t i = 0; i < cfg->ntasks; i++)
		if (strcmp(cfg->tasks[i].name, name) == 0)
			return &cfg->tasks[i];
	return NULL;
}

/* Room in cfg for one more name and task. */
static int
grow(struct lr_config *cfg)
{
	char **names = realloc(cfg->names, (cfg->nnames + 2) * sizeof(*names));
	struct lr_task *tasks;

	if (names == NULL)
		return -1;
	cfg->names = names;
	if ((tasks = realloc(cfg->tasks, (cfg->ntasks + 2) * sizeof(*tasks))) == NULL)
		return -1;
	cfg->tasks = tasks;
	return 0;
}

/* Would t run, over the config's defaults? 0, or a note (1). */
static int
try_task(struct reader *r, const struct lr_task *t, int col)
{
	struct lr_schedule sched;
	struct lr_task m;
	struct lr_err e;
	int rc = 0;

	task_init(&m);
	if (task_resolve(&m, NULL, t, &r->cfg->defaults, &sched, &e) != 0)
		rc = e.status == EX_OSERR ? -1 :
		    note(r, r->line, col, 1, "%s", e.msg) == 0 ? 1 : -1;
	task_free(&m);
	return rc;
}

/* Is name taken already (the config's, or an earlier line's)? 1 after a
 * note, 0 if not, -1 out of memory. */
static int
taken(struct reader *r, const char *name)
{
	const struct lr_task *other;

	if (!has_name(r->cfg, name))
		return 0;
	other = task_named(r->cfg, name);
	return note(r, r->line, 1, 1, "task %s is also %s; give this line a name of its own "
	    "with a `# lockrun: NAME` line above it", name, other && other->argv_at ?
	    other->argv_at : "named before it (in the config, or by an earlier line)") == 0 ? 1 : -1;
}

/* A line's name alone into cfg's names (its task not read): 0, or -1
 * out of memory. */
static int
name_only(struct reader *r, const char *name)
{
	struct lr_config *cfg = r->cfg;
	int rc;

	if ((rc = taken(r, name)) != 0)
		return rc < 0 ? -1 : 0;
	if (grow(cfg) != 0 || (cfg->names[cfg->nnames] = strdup(name)) == NULL)
		return -1;
	cfg->nnames++;
	return 0;
}

/* The task t (complete but for its name) into cfg as name: 0, 1 when it
 * was a note instead, -1 out of memory. */
static int
add(struct reader *r, struct lr_task *t, const char *name, int col)
{
	struct lr_config *cfg = r->cfg;
	int rc;

	if ((rc = taken(r, name)) != 0)
		return rc;
	if ((rc = try_task(r, t, col)) != 0)
		return rc;
	if (grow(cfg) != 0 || (t->name = strdup(name)) == NULL ||
	    (cfg->names[cfg->nnames] = strdup(name)) == NULL)
		return -1;
	cfg->nnames++;
	cfg->tasks[cfg->ntasks++] = *t;
	task_init(t);
	return 0;
}

/* The word at *s, its column; *s moves past it and the blanks after. */
static const char *
word(const char **s, const char *line, int *col, size_t *len)
{
	const char *w = *s;

	*col = (int)(w - line) + 1;
	while (**s && !crontab_blank(**s))
		(*s)++;
	*len = (size_t)(*s - w);
	*s = crontab_skip_blanks(*s);
	return w;
}

/* A job line: its schedule (five fields, or one @ word), the user field
 * in the /etc/crontab form, the command. */
static int
job_line(struct reader *r, const char *line, const char *s)
{
	char sched[512] = "", user[256] = "", name[KEY_NAME_MAX], *cmd;
	int cols[5], ncols = *s == '@' ? 1 : 5, col, pos, rc = 0, ucol = 0;
	struct lr_task t;
	struct lr_cron c;
	struct lr_err e;
	size_t len, at;

	for (int i = 0; i < ncols; i++) {
		const char *w = word(&s, line, &cols[i], &len);

		if (len == 0 || strlen(sched) + len + 2 > sizeof(sched))
			return note(r, r->line, cols[i], 1, "%s", len ? "the schedule is too "
			    "long" : "the schedule has fewer than five fields (minute hour "
			    "day-of-month month day-of-week) before the command");
		snprintf(sched + strlen(sched), sizeof(sched) - strlen(sched), "%s%.*s",
		    i ? " " : "", (int)len, w);
	}
	if (r->users) {
		const char *w = word(&s, line, &ucol, &len);

		if (len == 0 || len >= sizeof(user))
			return note(r, r->line, ucol, 1, "no user field (this file is read in "
			    "the /etc/crontab form: the schedule, a user, the command)");
		snprintf(user, sizeof(user), "%.*s", (int)len, w);
	}
	col = (int)(s - line) + 1;
	if (*s == '\0')
		return note(r, r->line, col, 1, "no command after the schedule");
	if (strcmp(sched, "@reboot") != 0 && cron_parse(sched, &c, &pos, &e) != 0) {
		int f = 0;

		for (at = 0; f + 1 < ncols && (size_t)pos > at + strcspn(sched + at, " ");
		    f++)
			at += strcspn(sched + at, " ") + 1;
		return note(r, r->line, cols[f] + (pos - (int)at), 1, "%s", e.msg);
	}
	if (r->tz_bad)
		return note(r, r->line, 1, 1, "the zone set at line %d is not one", r->tz_bad);
	task_init(&t);
	if ((rc = settings(r, &t, name, sizeof(name))) != 0) {
		task_free(&t);
		return rc < 0 ? -1 : 0;
	}
	if (name[0] == '\0')
		crontab_name(r->users ? user : NULL, sched, s, name, sizeof(name));
	/* a run reads its own task only: the others' names, as a config's
	 * tasks not asked for are listed and not read */
	if (r->only != NULL && strcmp(r->only, name) != 0) {
		task_free(&t);
		return name_only(r, name);
	}
	if ((cmd = crontab_command(s)) == NULL ||
	    (!t.schedule && (t.schedule = strdup(sched)) == NULL) ||
	    (!t.timezone && r->tz && (t.timezone = strdup(r->tz)) == NULL) ||
	    (!t.user && r->users && (t.user = strdup(user)) == NULL) ||
	    (!t.mailto && r->mailto && *r->mailto && (t.mailto = strdup(r->mailto)) == NULL) ||
	    (r->env && (t.env = strv_dup(r->env)) == NULL) ||
	    (t.argv = calloc(4, sizeof(*t.argv))) == NULL ||
	    asprintf(&t.argv_at, "%s:%d:%d", r->path, r->line, col) < 0) {
		t.argv_at = NULL;
		free(cmd);
		task_free(&t);
		return -1;
	}
	if (r->shell) {
		t.argv[0] = strdup(r->shell);
		t.argv[1] = strdup("-c");
		t.argv[2] = cmd;
		t.shell = 0;
	} else {
		t.argv[0] = cmd;
		t.shell = 1;
	}
	if (t.argv[0] == NULL || (r->shell && (t.argv[1] == NULL))) {
		task_free(&t);
		return -1;
	}
	rc = add(r, &t, name, col);
	task_free(&t);
	return rc < 0 ? -1 : 0;
}

/* One line, without its newline. */
static int
line(struct reader *r, char *text)
{
	const char *s = crontab_skip_blanks(text);
	int rc;

	if (*s == '\0')
		return 0;
	if (*s == '#') {
		if (strncmp(s, HINT, strlen(HINT)) != 0)
			return 0;
		if (r->hint != NULL && note(r, r->hint_line, 1, 1, "a `# lockrun:` line "
		    "with no job line after it") != 0)
			return -1;
		free(r->hint);
		s = crontab_skip_blanks(s + strlen(HINT));
		r->hint_line = r->line;
		r->hint_col = (int)(s - text) + 1;
		return (r->hint = strdup(s)) == NULL ? -1 : 0;
	}
	if (is_env_line(s))
		return env_line(r, (char *)s, (int)(s - text) + 1);
	rc = job_line(r, text, s);
	free(r->hint);
	r->hint = NULL;
	return rc;
}

int
crontab_parse(struct lr_config *cfg, const char *path, const char *text, int users,
    const char *only, struct lr_err *e)
{
	struct reader r = { .cfg = cfg, .path = path, .users = users, .only = only };
	char *copy = strdup(text), *l, *nl;
	int rc = 0;

	if (copy == NULL)
		return lr_errf(e, EX_OSERR, "out of memory");
	for (l = copy; l != NULL && rc == 0; l = nl) {
		r.line++;
		if ((nl = strchr(l, '\n')) != NULL)
			*nl++ = '\0';
		if (*l == '\0' && nl == NULL)
			break;
		if (l[0] != '\0' && l[strlen(l) - 1] == '\r')
			l[strlen(l) - 1] = '\0';
		rc = line(&r, l);
	}
	if (rc == 0 && r.hint != NULL)
		rc = note(&r, r.hint_line, 1, 1, "a `# lockrun:` line with no job line after "
		    "it");
	free(copy);
	free(r.hint);
	free(r.tz);
	free(r.shell);
	free(r.mailto);
	strv_free(r.env);
	return rc == 0 ? 0 : lr_errf(e, EX_OSERR, "out of memory");
}

int
crontab_read(struct lr_config *cfg, const char *path, int users, const char *only,
    struct lr_err *e)
{
	FILE *fp;
	char *text;
	size_t got;
	int rc;

	if (files_trusted(path, e) != 0)
		return -1;
	if ((fp = fopen(path, "re")) == NULL)
		return lr_errf(e, EX_CONFIG, "crontab %s: %s", path, strerror(errno));
	if ((text = malloc(CRONTAB_BYTES_MAX + 1)) == NULL) {
		fclose(fp);
		return lr_errf(e, EX_OSERR, "out of memory");
	}
	got = fread(text, 1, CRONTAB_BYTES_MAX + 1, fp);
	if (ferror(fp) || got > CRONTAB_BYTES_MAX) {
		rc = lr_errf(e, EX_CONFIG, "crontab %s: %s", path, ferror(fp) ?
		    strerror(errno) : "larger than 1 MiB");
		fclose(fp);
		free(text);
		return rc;
	}
	fclose(fp);
	text[got] = '\0';
	if (memchr(text, '\0', got) != NULL)
		rc = lr_errf(e, EX_CONFIG, "crontab %s: holds a NUL byte: not a text file",
		    path);
	else
		rc = crontab_parse(cfg, path, text, users, only, e);
	free(text);
	return rc;
}
