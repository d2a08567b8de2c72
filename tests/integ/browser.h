/* SPDX-License-Identifier: BSD-2-Clause */
/* browser.h -- headless chromium for the status page's tests (web_test.c,
 * page_test.c): load a page as a browser does, and read what it built. */
#ifndef LR_TEST_BROWSER_H
#define LR_TEST_BROWSER_H

#include <stddef.h>

/* chromium, headless, on url with the options what ("--dump-dom >FILE",
 * "--screenshot=FILE"), its stderr to the scratch file chromium.err;
 * system()'s status. Debian's package. */
int	chromium(const char *what, const char *url);

/* dom with every attribute's value emptied (the browser writes them all
 * between double quotes, a quote inside as &quot;): what is left is
 * elements and text. */
void	without_attribute_values(char *dom);

/* The story of the run pages' tests (page_test.c, logs_sql_test.c): a
 * config's tasks, "bad" printing a line holding a tag, one holding U+202E
 * (RIGHT-TO-LEFT OVERRIDE) and one on its standard error, and exiting 2,
 * its on_failure hook printing a tag too; "good" exiting 0; neither due
 * while a test runs. */
#define PAGE_STORY "tasks:\n  bad:\n    schedule: '0 3 1 1 *'\n    command: [sh, -c, \"" \
	"echo one; echo '<script>alert(1)</script>'; echo 'left\\u202Eright'; " \
	"echo cannot open in.csv >&2; exit 2\"]\n" \
	"    on_failure: [sh, -c, \"echo '<b>paged</b>'\"]\n" \
	"  good:\n    schedule: '0 3 1 1 *'\n    command: 'true'\n"

/* What bad's run page says, as served and as a browser builds it: the
 * lines escaped, U+202E shown as its code point, the hook's lines under a
 * line naming it (regular expressions). */
#define HOOK_LINES "<span class=\"section\">--- on_failure hook ---</span>\n" \
	"<span class=\"line out\">&lt;b&gt;paged&lt;/b&gt;</span>\n"
#define RUN_LINES "<span class=\"line out\">one</span>\n" \
	"<span class=\"line out\">&lt;script&gt;alert\\(1\\)&lt;/script&gt;</span>\n" \
	"<span class=\"line out\">left<span class=\"ctl\">&lt;U\\+202E&gt;</span>right</span>\n"

/* The path of the first run the page lists as failed, from body's
 * "Failed: <a ... href=PATH>", into path[n]; NULL when none. */
const char *failed_link(const char *body, char *path, size_t n);

/* chromium on the status page a scheduler serves on port, once bad's
 * run failed: the failed run is linked from the task's strip, and the
 * link, followed as a click would, opens the run's page with its lines
 * escaped (RUN_LINES), no script in it. */
void	browser_follows_a_failed_runs_link(int port);

#endif
