/* SPDX-License-Identifier: BSD-2-Clause */
/* prom.h -- a strict parser of the Prometheus text exposition format, for
 * the tests of `lockrun status --format prometheus` (status_test.c, the
 * backends suites). */
#ifndef LR_TEST_PROM_H
#define LR_TEST_PROM_H

#include <stddef.h>

struct sample {
	char	name[128];
	char	labels[512];	/* name="value" pairs as written, for duplicates */
	char	task[256];	/* the task label, unescaped */
	double	value;
};

struct prom {
	struct sample	s[256];
	size_t		n;
	char		family[64][128];	/* families typed, in order */
	int		typed[64];
	int		helped[64];
	int		histogram[64];		/* typed histogram */
	size_t		nfam;
	int		last_fam;		/* family of the last sample */
	char		why[512];
};

/* Parse text strictly: every line ends with '\n', no blank lines, HELP
 * and TYPE once each before a family's samples, a family's samples
 * together, names as the format has them, counters named *_total, a
 * histogram's samples NAME_bucket (with le), NAME_sum and NAME_count, each
 * series once. Returns 0, or -1 with p->why. */
int	prom_parse(const char *text, struct prom *p);

/* The value of name{task="task"}, or NaN when there is no such sample. */
double	prom_get(const struct prom *p, const char *name, const char *task);

/* The same, of the sample whose labels also hold label (`reason="held"`). */
double	prom_get_label(const struct prom *p, const char *name, const char *task,
	    const char *label);

/* Parse text with prom_parse(), failing the test on an error, and every
 * value finite; and with `promtool check metrics` if it is on PATH. */
void	prom_check(const char *text, struct prom *p);

#endif
