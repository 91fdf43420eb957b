// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the input is a perf.data file (kmemflight import).
 * Whatever the header claims, every sample's callchain and raw data must
 * lie within the input, and the tracing data's formats too.
 */
#include <string.h>

#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *end = data + size;
	struct kmt_perf_tracing td;
	struct kmt_perf_sample s;
	struct kmt_perf p;
	struct kmt_err err;
	uint64_t off = 0, n = 0;
	unsigned int i;
	int ret;

	ret = kmt_perf_open_mem(&p, data, size, &err);
	if (ret) {
		CHECK(ret == -ENOMEM || err.msg[0]);
		kmt_perf_close(&p);
		return 0;
	}
	CHECK(p.nr_attrs > 0);
	CHECK(p.data >= data && p.data + p.data_size <= end);
	while ((ret = kmt_perf_next(&p, &off, &s, &err)) > 0) {
		CHECK(off <= p.data_size);
		if (s.kind == KMT_PERF_SAMPLE) {
			CHECK(s.attr < p.nr_attrs);
			if (s.nr_callchain)
				CHECK(s.callchain >= data &&
				      s.callchain + 8 * (uint64_t)s.nr_callchain <= end);
			if (s.raw)
				CHECK(s.raw >= data && s.raw + s.raw_size <= end);
		} else {
			CHECK(s.kind == KMT_PERF_LOST);
		}
		n++;
	}
	CHECK(ret == 0 || err.msg[0]);
	if (!kmt_perf_tracing(&p, &td, &err)) {
		for (i = 0; i < td.nr_formats; i++)
			CHECK((const uint8_t *)td.formats[i].text >= data &&
			      (const uint8_t *)td.formats[i].text + td.formats[i].len <= end);
		if (td.kallsyms_len)
			CHECK((const uint8_t *)td.kallsyms + td.kallsyms_len <= end);
	}
	kmt_perf_tracing_free(&td);
	kmt_perf_close(&p);
	(void)n;
	return 0;
}
