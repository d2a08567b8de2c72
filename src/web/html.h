/* SPDX-License-Identifier: BSD-2-Clause */
/* html.h -- the status page's and a run's page's HTML: every value read
 * from the config or the backend escaped, and the links to a run's page. */
#ifndef LR_WEB_HTML_H
#define LR_WEB_HTML_H

#include <stddef.h>
#include <stdio.h>

/* s[0..len) (NUL bytes and all) as HTML text: & < > " ' as references; a
 * character not to be shown raw (text_control_len(): C0, DEL, C1, one
 * that reorders or marks the direction of the text) as its code point,
 * "<U+202E>", in a span of class "ctl"; a byte that is not valid UTF-8 as
 * U+FFFD. attr: for an attribute's value (or an SVG <title>), where no
 * tag may go: the code point without the span. */
void	html_escape(FILE *fp, const char *s, size_t len, int attr);

/* The path of run id's page of task name, "/run/NAME/ID", into fp: the
 * name's bytes but letters, digits and "-._~" percent-encoded (a task
 * name holds no '/' and does not begin with '.': one path segment). */
void	html_run_href(FILE *fp, const char *name, long long id);

#endif
