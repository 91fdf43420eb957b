// SPDX-License-Identifier: GPL-2.0
/*
 * The pictures' font and text: fontconfig finds the font file a family
 * name stands for, FreeType reads its advance widths (in font units, no
 * hinting: what an SVG renderer uses at any scale), and the labels are
 * placed and cut with those widths.  Kerning is left out: it only ever
 * narrows Latin text, so a label measured without it never overflows.
 *
 * The two libraries are opened when a picture is drawn, not linked:
 * the tool goes into initramfs images (the dracut module), where they
 * and what they pull in (libpng, brotli, expat: 2.3 MB) would be dead
 * weight.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fontconfig/fontconfig.h>
#include <ft2build.h>
#include FT_FREETYPE_H
#include FT_ADVANCES_H

#include "svg.h"

/* One character of UTF-8 at @s: its code point and length; bad: U+FFFD, 1. */
static size_t utf8_next(const unsigned char *s, uint32_t *cp)
{
	unsigned int n, i;
	uint32_t c = s[0];

	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if (c >= 0xc2 && c <= 0xdf) {
		n = 1;
		c &= 0x1f;
	} else if (c >= 0xe0 && c <= 0xef) {
		n = 2;
		c &= 0x0f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		n = 3;
		c &= 0x07;
	} else {
		*cp = 0xfffd;
		return 1;
	}
	for (i = 1; i <= n; i++) {
		if ((s[i] & 0xc0) != 0x80) {
			*cp = 0xfffd;
			return 1;
		}
		c = c << 6 | (s[i] & 0x3f);
	}
	/* overlong forms, surrogates, past U+10FFFF */
	if ((n == 2 && c < 0x800) || (n == 3 && (c < 0x10000 || c > 0x10ffff)) ||
	    (c >= 0xd800 && c <= 0xdfff)) {
		*cp = 0xfffd;
		return 1;
	}
	*cp = c;
	return n + 1;
}

/* The functions used, with the libraries' own prototypes. */
#define FN(name) __typeof__(name) *name
static struct {
	FN(FT_Init_FreeType);
	FN(FT_New_Face);
	FN(FT_Done_Face);
	FN(FT_Done_FreeType);
	FN(FT_Get_Char_Index);
	FN(FT_Get_Advance);
	FN(FcInit);
	FN(FcFini);
	FN(FcNameParse);
	FN(FcConfigSubstitute);
	FN(FcDefaultSubstitute);
	FN(FcFontMatch);
	FN(FcPatternGetString);
	FN(FcPatternDestroy);
} api;
#undef FN

#define FT_SONAME	"libfreetype.so.6"
#define FC_SONAME	"libfontconfig.so.1"

static int sym(void *so, const char *name, void *fnp)
{
	void *p = dlsym(so, name);

	if (!p)
		return -1;
	memcpy(fnp, &p, sizeof(p));	/* POSIX: a function's address */
	return 0;
}

#define SYM(so, name) sym(so, #name, &api.name)

static int load(struct kmt_font *fn, struct kmt_err *err)
{
	fn->ft_so = dlopen(FT_SONAME, RTLD_NOW | RTLD_LOCAL);
	fn->fc_so = fn->ft_so ? dlopen(FC_SONAME, RTLD_NOW | RTLD_LOCAL) : NULL;
	if (!fn->ft_so || !fn->fc_so)
		return kmt_errf(err, ENOENT,
				"drawing needs FreeType and fontconfig (Debian: libfreetype6, libfontconfig1): %s",
				dlerror());
	if (SYM(fn->ft_so, FT_Init_FreeType) || SYM(fn->ft_so, FT_New_Face) ||
	    SYM(fn->ft_so, FT_Done_Face) || SYM(fn->ft_so, FT_Done_FreeType) ||
	    SYM(fn->ft_so, FT_Get_Char_Index) || SYM(fn->ft_so, FT_Get_Advance) ||
	    SYM(fn->fc_so, FcInit) || SYM(fn->fc_so, FcFini) ||
	    SYM(fn->fc_so, FcNameParse) || SYM(fn->fc_so, FcConfigSubstitute) ||
	    SYM(fn->fc_so, FcDefaultSubstitute) || SYM(fn->fc_so, FcFontMatch) ||
	    SYM(fn->fc_so, FcPatternGetString) || SYM(fn->fc_so, FcPatternDestroy))
		return kmt_errf(err, ENOENT, "%s or %s lacks a function: %s",
				FT_SONAME, FC_SONAME, dlerror());
	return 0;
}

int kmt_font_open(struct kmt_font *fn, const char *family, struct kmt_err *err)
{
	FcPattern *pat, *match = NULL;
	FcResult res;
	FcChar8 *file = NULL, *fam = NULL;
	FT_Library lib;
	FT_Face face;
	FT_Fixed adv;
	int ret = 0;

	memset(fn, 0, sizeof(*fn));
	ret = load(fn, err);
	if (ret) {
		kmt_font_close(fn);
		return ret;
	}
	if (!api.FcInit()) {
		kmt_font_close(fn);
		return kmt_errf(err, ENOMEM, "fontconfig did not start");
	}
	pat = api.FcNameParse((const FcChar8 *)(family ? family : "sans-serif"));
	if (pat && api.FcConfigSubstitute(NULL, pat, FcMatchPattern)) {
		api.FcDefaultSubstitute(pat);
		match = api.FcFontMatch(NULL, pat, &res);
	}
	if (!match || api.FcPatternGetString(match, FC_FILE, 0, &file) != FcResultMatch ||
	    api.FcPatternGetString(match, FC_FAMILY, 0, &fam) != FcResultMatch) {
		ret = kmt_errf(err, ENOENT,
			       "no font for '%s': install one (Debian: fonts-dejavu-core)",
			       family ? family : "sans-serif");
		goto out;
	}
	snprintf(fn->file, sizeof(fn->file), "%s", (const char *)file);
	snprintf(fn->family, sizeof(fn->family), "%s", (const char *)fam);
	if (api.FT_Init_FreeType(&lib)) {
		ret = kmt_errf(err, ENOMEM, "FreeType did not start");
		goto out;
	}
	if (api.FT_New_Face(lib, fn->file, 0, &face)) {
		api.FT_Done_FreeType(lib);
		ret = kmt_errf(err, EINVAL, "%s: FreeType cannot read this font",
			       fn->file);
		goto out;
	}
	if (!FT_IS_SCALABLE(face) || !face->units_per_EM) {
		api.FT_Done_Face(face);
		api.FT_Done_FreeType(lib);
		ret = kmt_errf(err, EINVAL, "%s: not a scalable font", fn->file);
		goto out;
	}
	fn->lib = lib;
	fn->face = face;
	fn->upem = face->units_per_EM;
	/* a character the font lacks comes from another: as wide as an M */
	fn->fallback = fn->upem;
	if (!api.FT_Get_Advance(face, api.FT_Get_Char_Index(face, 'M'),
				FT_LOAD_NO_SCALE, &adv) && adv > 0)
		fn->fallback = (unsigned int)adv;
out:
	if (match)
		api.FcPatternDestroy(match);
	if (pat)
		api.FcPatternDestroy(pat);
	api.FcFini();
	if (ret)
		kmt_font_close(fn);
	return ret;
}

void kmt_font_close(struct kmt_font *fn)
{
	if (fn->face)
		api.FT_Done_Face(fn->face);
	if (fn->lib)
		api.FT_Done_FreeType(fn->lib);
	fn->face = fn->lib = NULL;
	if (fn->fc_so)
		dlclose(fn->fc_so);
	if (fn->ft_so)
		dlclose(fn->ft_so);
	fn->fc_so = fn->ft_so = NULL;
}

static unsigned int advance(const struct kmt_font *fn, uint32_t cp)
{
	FT_Face face = fn->face;
	FT_UInt g = api.FT_Get_Char_Index(face, cp);
	FT_Fixed adv;

	if (!g || api.FT_Get_Advance(face, g, FT_LOAD_NO_SCALE, &adv) || adv < 0)
		return fn->fallback;
	return (unsigned int)adv;
}

double kmt_font_width(const struct kmt_font *fn, const char *s, double px)
{
	const unsigned char *p = (const unsigned char *)s;
	uint64_t units = 0;
	uint32_t cp;

	while (*p) {
		p += utf8_next(p, &cp);
		units += advance(fn, cp);
	}
	return (double)units * px / fn->upem;
}

double kmt_font_fit(const struct kmt_font *fn, const char *s, double px,
		    double max, char *buf, size_t size)
{
	const unsigned char *p = (const unsigned char *)s;
	double ell = (double)advance(fn, 0x2026) * px / fn->upem;
	double w = kmt_font_width(fn, s, px), cut = 0;
	size_t len = strlen(s), keep = 0, n;
	uint32_t cp;

	if (!size)
		return 0;
	if (w <= max && len < size) {
		memcpy(buf, s, len + 1);
		return w;
	}
	/* the longest start that leaves room for the ellipsis */
	while (*p) {
		double cw;

		n = utf8_next(p, &cp);
		cw = (double)advance(fn, cp) * px / fn->upem;
		if (cut + cw + ell > max || keep + n + 4 > size)
			break;
		cut += cw;
		keep += n;
		p += n;
	}
	if (!keep) {
		buf[0] = 0;
		return 0;
	}
	memcpy(buf, s, keep);
	memcpy(buf + keep, "\xe2\x80\xa6", 4);
	return cut + ell;
}

void kmt_svg_esc(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	uint32_t cp;
	size_t n;

	while (*p) {
		n = utf8_next(p, &cp);
		switch (cp) {
		case '<':
			fputs("&lt;", f);
			break;
		case '>':
			fputs("&gt;", f);
			break;
		case '&':
			fputs("&amp;", f);
			break;
		case '"':
			fputs("&quot;", f);
			break;
		case '\n':
			fputs("&#10;", f);
			break;
		default:
			if (cp == 0xfffd && n == 1)
				fputs("\xef\xbf\xbd", f);
			else if (cp < 0x20 && cp != '\t')
				fputc('?', f);	/* not allowed in XML 1.0 */
			else
				fwrite(p, 1, n, f);
		}
		p += n;
	}
}

void kmt_svg_bytes(uint64_t v, char *buf, size_t size)
{
	static const char *const unit[] = { "KiB", "MiB", "GiB", "TiB" };
	double d = (double)v;
	int u = -1;

	if (v < 1024) {
		snprintf(buf, size, "%" PRIu64 " B", v);
		return;
	}
	while (d >= 1024 && u < 3) {
		d /= 1024;
		u++;
	}
	snprintf(buf, size, d < 9.995 ? "%.2f %s" : d < 99.95 ? "%.1f %s" : "%.0f %s",
		 d, unit[u]);
}

/*
 * @fn's output into @f, flushed (with @sync, synced to disk) and, unless
 * it is standard output, closed: 0 or a negative errno.
 */
static int emit(FILE *f, int (*fn)(FILE *f, void *arg), void *arg, bool sync)
{
	int ret = fn(f, arg);

	/* a write error: the flush says which (ENOSPC rather than EIO) */
	if (fflush(f) && (!ret || ret == -EIO))
		ret = -errno;
	if (ferror(f) && !ret)
		ret = -EIO;
	if (sync && fsync(fileno(f)) && !ret)
		ret = -errno;
	if (f != stdout && fclose(f) && !ret)
		ret = -errno;
	return ret;
}

int kmt_out_write(const char *path, int (*fn)(FILE *f, void *arg), void *arg,
		  struct kmt_err *err)
{
	char tmp[4096];
	struct stat st;
	bool exists;
	int fd, ret;
	FILE *f;

	if (!path || !strcmp(path, "-")) {
		ret = emit(stdout, fn, arg, false);
		return ret ? kmt_errf(err, -ret, "writing to standard output: %s",
				      strerror(-ret)) : 0;
	}
	exists = !lstat(path, &st);
	/* a device or a pipe (-o /dev/null, -o /dev/stdout) is written, not replaced */
	if (exists && (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode))) {
		f = fopen(path, "w");
		if (!f)
			return kmt_errf(err, errno, "cannot open %s: %s", path,
					strerror(errno));
		ret = emit(f, fn, arg, false);
		return ret ? kmt_errf(err, -ret, "cannot write %s: %s", path,
				      strerror(-ret)) : 0;
	}
	if (exists && S_ISDIR(st.st_mode))
		return kmt_errf(err, EISDIR, "%s is a directory", path);
	if (snprintf(tmp, sizeof(tmp), "%s.tmp.%d", path, (int)getpid()) >=
	    (int)sizeof(tmp))
		return kmt_errf(err, ENAMETOOLONG, "%s: name too long", path);
	/* the messages name @path, the file asked for, never the temporary */
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		return kmt_errf(err, errno, "cannot create %s: %s", path,
				strerror(errno));
	f = fdopen(fd, "w");
	if (!f) {
		ret = errno;
		close(fd);
		unlink(tmp);
		return kmt_errf(err, ret, "cannot create %s: %s", path,
				strerror(ret));
	}
	ret = emit(f, fn, arg, true);
	if (!ret && rename(tmp, path) < 0)
		ret = -errno;
	if (ret) {
		unlink(tmp);
		return kmt_errf(err, -ret, "cannot write %s: %s", path,
				strerror(-ret));
	}
	return 0;
}
