/* SPDX-License-Identifier: BSD-2-Clause */
/* import.c -- `lockrun import-crontab FILE ...`: crontab files written out
 * as the tasks: of a config, for those who move their crontab into the
 * YAML. Read as `cron --crontab` reads them (config/crontab.h), so the
 * output, as a config, gives the same tasks with the same names. */
#include <stdio.h>
#include <string.h>

#include "cli/ctx.h"
#include "config/config.h"
#include "config/crontab.h"
#include "core/text.h"
#include "out/log.h"

/* A YAML double-quoted scalar: JSON's escapes are YAML's too. */
static void
quoted(const char *s)
{
	text_json_fput(stdout, s, strlen(s));
}

static void
print_task(const struct lr_task *t)
{
	const char *name;
	char value[1024];
	int rc;

	printf("  ");
	quoted(t->name);
	printf(":\n");
	for (size_t i = 0; (rc = task_setting(t, i, &name, value, sizeof(value))) >= 0; i++)
		if (rc == 1 && strcmp(name, "shell") != 0) {	/* the command's form says */
			printf("    %s: ", name);
			quoted(value);
			printf("\n");
		}
	if (t->env != NULL) {
		printf("    env:\n");
		for (size_t i = 0; t->env[i]; i++) {
			const char *eq = strchr(t->env[i], '=');

			printf("      %.*s: ", (int)(eq - t->env[i]), t->env[i]);
			quoted(eq + 1);
			printf("\n");
		}
	}
	printf("    command: ");
	if (t->shell == 1)	/* a string: run by /bin/sh -c */
		quoted(t->argv[0]);
	else {
		printf("[");
		for (size_t i = 0; t->argv[i]; i++) {
			printf("%s", i ? ", " : "");
			quoted(t->argv[i]);
		}
		printf("]");
	}
	printf("\n");
}

int
verb_import_crontab(struct lr_ctx *x, struct lr_err *e)
{
	char *const *files = x->cli.cmd;
	struct lr_config cfg;
	int status = 0;

	if (files == NULL || files[0] == NULL)
		return lr_errf(e, EX_USAGE, "`lockrun import-crontab` needs a crontab file");
	config_init(&cfg);
	for (size_t i = 0; files[i]; i++)
		if (crontab_read(&cfg, files[i], crontab_path_has_users(files[i]), NULL, e) != 0) {
			config_free(&cfg);
			return -1;
		}
	printf("# lockrun import-crontab:");
	for (size_t i = 0; files[i]; i++)
		printf(" %s", files[i]);
	printf("\n# each task runs once a slot across the fleet (one_server, no_overlap)\n");
	for (size_t i = 0; i < cfg.nnotes; i++) {
		char line[1024];

		text_one_line(line, sizeof(line), cfg.notes[i].text);
		printf("# %s: %s\n", cfg.notes[i].skipped ? "left out" : "note", line);
		fflush(stdout);
		if (cfg.notes[i].skipped) {
			lr_error("%s; the line is not imported", cfg.notes[i].text);
			status = 1;
		} else
			lr_warn("%s", cfg.notes[i].text);
	}
	printf("tasks:%s\n", cfg.ntasks ? "" : " {}");
	for (size_t i = 0; i < cfg.ntasks; i++)
		print_task(&cfg.tasks[i]);
	config_free(&cfg);
	return status;
}
