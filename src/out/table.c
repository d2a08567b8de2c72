/* SPDX-License-Identifier: BSD-2-Clause */
/* table.c -- print aligned tables whose cells cannot drive the terminal. */
#include <stdio.h>
#include <string.h>

#include "core/text.h"
#include "out/table.h"

/* One line: each cell, control bytes as '?', padded to its column's width
 * but the last, which ends the line. */
static void
line_print(FILE *fp, const char **cell, const size_t *width, int ncols)
{
	for (int c = 0; c < ncols; c++) {
		size_t len = strlen(cell[c]);

		text_visible_put(fp, cell[c], len);
		if (c == ncols - 1)
			break;
		for (size_t i = len; i < width[c]; i++)
			putc(' ', fp);
		fputs("  ", fp);
	}
	putc('\n', fp);
}

void
table_print(FILE *fp, const char *const *heads, int ncols, size_t nrows,
    table_row_fn row, void *arg)
{
	size_t width[TABLE_COLS_MAX] = { 0 };
	const char *cell[TABLE_COLS_MAX];

	if (ncols > TABLE_COLS_MAX)
		ncols = TABLE_COLS_MAX;
	for (int c = 0; c < ncols; c++)
		width[c] = strlen(heads[c]);
	for (size_t i = 0; i < nrows; i++) {
		row(arg, i, cell);
		for (int c = 0; c < ncols; c++)
			if (strlen(cell[c]) > width[c])
				width[c] = strlen(cell[c]);
	}
	for (int c = 0; c < ncols; c++)
		cell[c] = heads[c];
	line_print(fp, cell, width, ncols);
	for (size_t i = 0; i < nrows; i++) {
		row(arg, i, cell);
		line_print(fp, cell, width, ncols);
	}
}
