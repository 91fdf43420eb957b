// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the input is /proc/kallsyms text.  Load it, check the
 * table, then look up and format addresses around every symbol.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

static void lookup(const struct kmt_symtab *st, uint64_t addr)
{
	const struct kmt_sym *s = kmt_symtab_find(st, addr);
	char buf[48], tiny[5], one[1];

	if (s) {
		CHECK(s->addr <= addr);
		/* the first of its address, and no later symbol is closer */
		CHECK(s == st->syms || s[-1].addr != s->addr);
		CHECK(s + 1 == st->syms + st->nr || s[1].addr == s->addr ||
		      s[1].addr > addr);
		{
			const struct kmt_sym *e = s;

			while (e + 1 < st->syms + st->nr && e[1].addr <= addr)
				e++;
			CHECK(e->addr == s->addr);
		}
	} else {
		CHECK(!st->nr || st->syms[0].addr > addr);
	}
	kmt_symtab_format(st, addr, false, buf, sizeof(buf));
	CHECK(memchr(buf, '\0', sizeof(buf)) != NULL);
	if (!s || addr - s->addr >= (1u << 20)) {
		char want[24];

		snprintf(want, sizeof(want), "0x%" PRIx64, addr);
		CHECK(!strcmp(buf, want));
	} else {
		/* printed with %.*s: a NUL in the name ends it */
		size_t n = strnlen(s->name, s->name_len);

		CHECK(!strncmp(buf, s->name, n < 32 ? n : 32));
		CHECK(n >= 32 || buf[n] == '+');
	}
	kmt_symtab_format(st, addr, true, tiny, sizeof(tiny));
	CHECK(!strncmp(tiny, "0x", 2));
	kmt_symtab_format(st, addr, false, one, sizeof(one));
	CHECK(one[0] == '\0');
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data;
	struct kmt_symtab st;
	size_t i, j;

	if (kmt_symtab_load(&st, text, size))
		return 0;
	CHECK(st.nr <= size / 5 + 1);
	for (i = 0; i < st.nr; i++) {
		const struct kmt_sym *s = &st.syms[i];

		CHECK(s->addr != 0);
		CHECK(s->name_len > 0);
		CHECK(s->name >= text && s->name_len <= (size_t)(text + size - s->name));
		/* the type is a text one, the name has no separator in it */
		CHECK(s->name - text >= 3 && strchr("tTwW", s->name[-2]) &&
		      s->name[-2] != '\0');
		for (j = 0; j < s->name_len; j++)
			CHECK(s->name[j] != '\n' && s->name[j] != '\t' &&
			      s->name[j] != ' ');
		if (i)
			CHECK(st.syms[i - 1].addr <= s->addr);
	}
	lookup(&st, 0);
	lookup(&st, UINT64_MAX);
	for (i = 0; i < st.nr && i < 256; i++) {
		lookup(&st, st.syms[i].addr);
		lookup(&st, st.syms[i].addr - 1);
		lookup(&st, st.syms[i].addr + 1);
		lookup(&st, st.syms[i].addr + (1u << 20));
	}
	kmt_symtab_free(&st);
	return 0;
}
