// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the input is a budget file (kmemflight diff
 * --budget).  Every limit read has a category, a limit and a key where
 * its category needs one, and checks growth without crashing.
 */
#include <string.h>

#include "fuzz.h"
#include "../../analyze/footprint.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kmt_fp_limit *l = NULL;
	struct kmt_err err;
	size_t nr = 0, i;

	if (kmt_fp_parse_budget("fuzz", (const char *)data, size, &l, &nr, &err)) {
		CHECK(!strncmp(err.msg, "fuzz:", 5) || !strcmp(err.msg, "out of memory"));
		return 0;
	}
	for (i = 0; i < nr; i++) {
		CHECK(l[i].cat >= 0 && l[i].cat <= KMT_FP_TOTAL);
		CHECK(l[i].has_bytes || l[i].has_pct);
		CHECK((l[i].cat == KMT_FP_TOTAL) == !l[i].key);
		CHECK(l[i].spec[0] && !strncmp(l[i].src, "fuzz:", 5));
		CHECK(!kmt_fp_limit_over(&l[i], 100, 100));
		CHECK(!kmt_fp_limit_over(&l[i], 100, 0));
		kmt_fp_limit_over(&l[i], 0, UINT64_MAX);
		kmt_fp_limit_over(&l[i], UINT64_MAX - 1, UINT64_MAX);
	}
	kmt_fp_free_limits(l, nr);
	return 0;
}
