/* SPDX-License-Identifier: GPL-2.0 */
/* Shared by the libFuzzer targets. */
#ifndef KMT_FUZZ_H
#define KMT_FUZZ_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "../../lib/kmt.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A harness invariant: abort so that libFuzzer reports a crash. */
#define CHECK(cond)							\
	do {								\
		if (!(cond)) {						\
			fprintf(stderr, "%s:%d: check failed: %s\n",	\
				__FILE__, __LINE__, #cond);		\
			abort();					\
		}							\
	} while (0)

#endif
