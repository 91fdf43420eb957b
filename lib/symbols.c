// SPDX-License-Identifier: GPL-2.0
/*
 * Symbolise kernel addresses from the kallsyms snapshot a trace carries.
 * Names point into the snapshot; nothing is copied.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kmt.h"

static int cmp_sym(const void *a, const void *b)
{
	const struct kmt_sym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/* Prefer the global name when two symbols share an address. */
	if (x->global != y->global)
		return x->global ? -1 : 1;
	/* then the first in the file */
	return x->name < y->name ? -1 : x->name > y->name;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/*
 * Lines look like "ffffffff81000000 T _stext" with an optional
 * "\t[module]" suffix.  Lines that do not parse are skipped: kallsyms is
 * an aid, and a corrupt line must not stop a report.
 */
int kmt_symtab_load(struct kmt_symtab *st, const char *text, size_t len)
{
	const char *s = text, *end, *nl, *q, *name;
	size_t cap = 0;
	uint64_t addr;
	int d;

	memset(st, 0, sizeof(*st));
	if (!text)
		return 0;	/* no KALLSYMS section (and NULL + 0 is undefined) */
	end = text + len;
	for (; s < end; s = nl + 1) {
		nl = memchr(s, '\n', end - s);
		if (!nl)
			nl = end;
		addr = 0;
		for (q = s; q < nl && (d = hexval(*q)) >= 0; q++)
			addr = addr << 4 | (uint64_t)d;
		if (q == s || q + 3 >= nl || q[0] != ' ' || q[2] != ' ')
			continue;
		if (!q[1] || !strchr("tTwW", q[1]))
			continue;
		name = q + 3;
		for (q = name; q < nl && *q != '\t' && *q != ' '; q++)
			;
		if (q == name || !addr)
			continue;
		if (st->nr == cap) {
			struct kmt_sym *n;

			cap = cap ? cap * 2 : 4096;
			n = realloc(st->syms, cap * sizeof(*n));
			if (!n) {
				kmt_symtab_free(st);
				return -ENOMEM;
			}
			st->syms = n;
		}
		st->syms[st->nr].addr = addr;
		st->syms[st->nr].name = name;
		st->syms[st->nr].name_len = (uint32_t)(q - name);
		/* "addr T name": the type letter is two bytes before the name */
		st->syms[st->nr].global = name[-2] >= 'A' && name[-2] <= 'Z';
		st->nr++;
	}
	kmt_symtab_sort(st);
	return 0;
}

void kmt_symtab_sort(struct kmt_symtab *st)
{
	if (st->nr)
		qsort(st->syms, st->nr, sizeof(*st->syms), cmp_sym);
}

void kmt_symtab_free(struct kmt_symtab *st)
{
	free(st->syms);
	memset(st, 0, sizeof(*st));
}

const struct kmt_sym *kmt_symtab_find(const struct kmt_symtab *st,
				      uint64_t addr)
{
	size_t lo = 0, hi = st->nr;

	/* last symbol with sym.addr <= addr */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (st->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	lo--;
	/* among equal addresses take the first */
	while (lo && st->syms[lo - 1].addr == st->syms[lo].addr)
		lo--;
	return &st->syms[lo];
}

void kmt_symtab_format(const struct kmt_symtab *st, uint64_t addr, bool raw,
		       char *buf, size_t size)
{
	uint64_t a = addr - (uint64_t)st->slide;
	const struct kmt_sym *s = raw ? NULL : kmt_symtab_find(st, a);
	char line[192];
	int n;

	/* Past 1 MiB from the nearest symbol it is not that symbol. */
	if (!s || a - s->addr >= (1u << 20)) {
		snprintf(buf, size, "0x%" PRIx64, addr);
		return;
	}
	n = snprintf(buf, size, "%.*s+0x%" PRIx64, (int)s->name_len, s->name,
		     a - s->addr);
	/*
	 * A callsite is a return address: its line is the call's, just
	 * before it.  A function's own address (an initcall) is its line.
	 */
	if (st->line && n > 0 && (size_t)n < size &&
	    !st->line(st->line_ctx, a > s->addr ? a - 1 : a, line, sizeof(line)))
		snprintf(buf + n, size - (size_t)n, " (%s)", line);
}
