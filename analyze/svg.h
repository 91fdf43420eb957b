/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What kmemflight's pictures are drawn with: SVG written as text, and
 * the font its labels are set in, measured with FreeType from the file
 * fontconfig picks, so that a label is placed and cut by its real width.
 * Both libraries are opened at run time (dlopen), only to draw.
 */
#ifndef KMT_SVG_H
#define KMT_SVG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "../lib/kmt.h"

struct kmt_font {
	void *ft_so, *fc_so;	/* the libraries, opened by kmt_font_open() */
	void *lib;		/* FT_Library */
	void *face;		/* FT_Face */
	unsigned int upem;	/* font units per em */
	unsigned int fallback;	/* advance of a character the font lacks */
	char family[128];	/* the family fontconfig matched */
	char file[512];
};

/*
 * The font for @family ("DejaVu Sans"; NULL: the default sans-serif):
 * 0, or a negative errno with @err set (no font, or one FreeType cannot
 * read).
 */
int kmt_font_open(struct kmt_font *fn, const char *family, struct kmt_err *err);
void kmt_font_close(struct kmt_font *fn);
/* The advance width of UTF-8 text @s at @px pixels, unkerned. */
double kmt_font_width(const struct kmt_font *fn, const char *s, double px);
/*
 * @s into @buf as it fits in @max px: whole, or cut at a character with
 * "…" after it; "" if not even one character and "…" fit.  Returns the
 * width of what it wrote.
 */
double kmt_font_fit(const struct kmt_font *fn, const char *s, double px,
		    double max, char *buf, size_t size);

/* @s as XML character data or attribute text: escapes, bad UTF-8 as U+FFFD. */
void kmt_svg_esc(FILE *f, const char *s);

/* "12.5 MiB", "300 KiB", "512 B": bytes with a binary unit, 3 digits */
void kmt_svg_bytes(uint64_t v, char *buf, size_t size);

/*
 * Write a picture or export with @fn to @path: into a new file beside it
 * (O_EXCL, so no symlink is followed), synced, renamed over @path once
 * whole; NULL or "-": to standard output.  0, or a negative errno with
 * @err set (the old file stays as it was).
 */
int kmt_out_write(const char *path, int (*fn)(FILE *f, void *arg), void *arg,
		  struct kmt_err *err);

#endif
