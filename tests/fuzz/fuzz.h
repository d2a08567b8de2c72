/* SPDX-License-Identifier: BSD-2-Clause */
/* fuzz.h -- what every fuzz target shares: the libFuzzer entry point, and
 * the input as a C string (the parsers take NUL-terminated text). Each
 * target is linked either with libFuzzer (make fuzz: clang,
 * -fsanitize=fuzzer,address,undefined) or with replay.c's main() (make
 * check: each file of the target's corpus once, through the same entry
 * point, built by the project's compiler). */
#ifndef LR_FUZZ_H
#define LR_FUZZ_H

#include <stddef.h>
#include <stdint.h>

int	LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* data[0..size) as a new NUL-terminated string (a NUL inside ends it
 * early, as it would for the parser); free() it. Aborts when out of
 * memory. */
char	*fuzz_string(const uint8_t *data, size_t size);

#endif
