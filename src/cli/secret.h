/* SPDX-License-Identifier: BSD-2-Clause */
/* secret.h -- a password lockrun was handed leaves no copy that another
 * process could read: not in its environment block, not in its argv. */
#ifndef LR_SECRET_H
#define LR_SECRET_H

#include <stddef.h>

/* Overwrite the value of the environment variable name where it lies,
 * then unset it. unsetenv() alone only drops the pointer: the bytes stay
 * in the block the kernel shows as /proc/PID/environ (lockrun's, and the
 * guard's, which copies it). */
void	secret_env_wipe(const char *name);

/* secret_env_wipe() the variable name if it holds a URL with a password
 * in it (secret_url_mask() would find one). */
void	secret_env_url_wipe(const char *name);

/* Overwrite every password in url (url_password_spans()) with 'x', in
 * place: for an argv string, what /proc/PID/cmdline and ps show. Returns
 * how many were found. */
size_t	secret_url_mask(char *url);

#endif
