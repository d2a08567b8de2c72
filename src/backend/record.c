/* SPDX-License-Identifier: BSD-2-Clause */
/* record.c -- building and freeing the records every backend returns. */
#include <stdlib.h>
#include <string.h>

#include "backend/record.h"

int
record_field_add(struct lr_fields *fl, const char *f, const char *v)
{
	if (v == NULL || *v == '\0')
		return 0;
	if (fl->n == LR_FIELDS_MAX)
		return -1;
	if ((fl->f[fl->n] = strdup(f)) == NULL)
		return -1;
	if ((fl->v[fl->n] = strdup(v)) == NULL) {
		free(fl->f[fl->n]);
		return -1;
	}
	fl->n++;
	return 0;
}

const char *
record_field_get(const struct lr_fields *fl, const char *f)
{
	for (size_t i = 0; i < fl->n; i++)
		if (strcmp(fl->f[i], f) == 0)
			return fl->v[i];
	return NULL;
}

void
record_fields_free(struct lr_fields *fl)
{
	for (size_t i = 0; i < fl->n; i++) {
		free(fl->f[i]);
		free(fl->v[i]);
	}
	fl->n = 0;
}

void
record_hist_free(struct lr_hist *h)
{
	for (size_t i = 0; i < h->n; i++)
		record_fields_free(&h->e[i].fields);
	free(h->e);
	h->e = NULL;
	h->n = 0;
}

const char *const record_counter_names[NCOUNTERS] = {
	"runs", "skipped_held", "skipped_slot", "failures", "lost", "timeouts",
	"retries",
};

int
record_counter_index(const char *name)
{
	for (int i = 0; i < NCOUNTERS; i++)
		if (strcmp(record_counter_names[i], name) == 0)
			return i;
	return -1;
}

void
record_state_free(struct lr_state *s)
{
	free(s->value);
	free(s->paused);
	free(s->missed_slot);
	s->value = s->paused = s->missed_slot = NULL;
	for (size_t i = 0; i < s->nplaces; i++)
		free(s->places[i]);
	free(s->places);
	free(s->places_ttl);
	s->places = NULL;
	s->places_ttl = NULL;
	s->nplaces = 0;
	record_fields_free(&s->last);
}
