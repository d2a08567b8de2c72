/* SPDX-License-Identifier: BSD-2-Clause */
/* browser.h -- headless chromium for the status page's tests (web_test.c,
 * page_test.c): load a page as a browser does, and read what it built. */
#ifndef LR_TEST_BROWSER_H
#define LR_TEST_BROWSER_H

/* chromium, headless, on url with the options what ("--dump-dom >FILE",
 * "--screenshot=FILE"), its stderr to the scratch file chromium.err;
 * system()'s status. Debian's package. */
int	chromium(const char *what, const char *url);

/* dom with every attribute's value emptied (the browser writes them all
 * between double quotes, a quote inside as &quot;): what is left is
 * elements and text. */
void	without_attribute_values(char *dom);

#endif
