/* SPDX-License-Identifier: BSD-2-Clause */
/* table.h -- the one table printer for people: a header line, then a line
 * per row, columns aligned. */
#ifndef LR_TABLE_H
#define LR_TABLE_H

#include <stddef.h>
#include <stdio.h>

#define TABLE_COLS_MAX	16	/* columns beyond are not printed */

/* Point cell[0..ncols) at row i's cells (each a string, "-" for none);
 * they need only last until the next call. */
typedef void	(*table_row_fn)(void *arg, size_t i, const char **cell);

/* Print heads, then nrows rows from row(arg, i, cell), to fp: columns two
 * spaces apart, each as wide as its widest cell, no padding after the
 * last. Every cell is written through text_visible()'s rule, so that
 * control bytes from a server or a lock value never reach the terminal.
 * Each row is asked for twice (to measure, then to print) rather than
 * kept: the caller decides what to hold. */
void	table_print(FILE *fp, const char *const *heads, int ncols, size_t nrows,
	    table_row_fn row, void *arg);

#endif
