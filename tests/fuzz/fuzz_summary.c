// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the input is a summary file (kmemflight summary).
 * What parses must write back and parse again to the same footprint.
 */
#include <string.h>

#include "fuzz.h"
#include "../../analyze/footprint.h"

static void same(const struct kmt_footprint *a, const struct kmt_footprint *b)
{
	size_t i;

	CHECK(!strcmp(a->h.release, b->h.release));
	CHECK(a->h.events == b->h.events && a->h.last_ts == b->h.last_ts &&
	      a->h.lost == b->h.lost && a->h.unknown_cache == b->h.unknown_cache &&
	      a->h.nosyms == b->h.nosyms && a->h.slab == b->h.slab && a->h.pages == b->h.pages);
	CHECK(a->nr == b->nr);
	for (i = 0; i < a->nr; i++) {
		CHECK(a->rows[i].cat == b->rows[i].cat);
		CHECK(!strcmp(a->rows[i].key, b->rows[i].key));
		CHECK(!memcmp(&a->rows[i].v, &b->rows[i].v, sizeof(a->rows[i].v)));
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kmt_footprint fp, again;
	struct kmt_err err;
	char *out = NULL;
	size_t len = 0;
	FILE *f;
	size_t i;

	if (kmt_fp_parse(&fp, (const char *)data, size, &err)) {
		CHECK(err.msg[0]);
		return 0;
	}
	for (i = 0; i < fp.nr; i++) {
		CHECK(fp.rows[i].cat < KMT_FP_NR);
		CHECK(fp.rows[i].key[0]);
	}
	f = open_memstream(&out, &len);
	CHECK(f);
	CHECK(!kmt_fp_write(f, &fp));
	CHECK(!fclose(f));
	CHECK(!kmt_fp_parse(&again, out, len, &err));
	same(&fp, &again);
	kmt_fp_free(&again);
	kmt_fp_free(&fp);
	free(out);
	return 0;
}
