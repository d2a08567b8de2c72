/* log.h -- lockrun's own messages on stderr. */
#ifndef LR_LOG_H
#define LR_LOG_H

void	log_setup(int verbose, int quiet);

/* "lockrun: ..." unless -q: something the operator should know. */
void	lr_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* "lockrun: ..." always: why lockrun stops with a non-zero status. */
void	lr_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* "lockrun: ..." only with -v: what was decided. */
void	lr_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
