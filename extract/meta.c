// SPDX-License-Identifier: GPL-2.0
/*
 * What every saved file carries besides its events, whatever their
 * source: kallsyms, build-id and the META lines.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>

#include "meta.h"
#include "recorder.h"

size_t kmf_text_symbols(char *buf, size_t len, bool *hidden)
{
	char *s, *nl, *w = buf;

	*hidden = true;
	for (s = buf; s < buf + len; s = nl + 1) {
		char *sp = strchr(s, ' ');

		nl = memchr(s, '\n', buf + len - s);
		if (!nl)
			nl = buf + len;
		if (!sp || sp + 2 >= nl || !strchr("tTwW", sp[1]))
			continue;
		if (strspn(s, "0") != (size_t)(sp - s))
			*hidden = false;
		memmove(w, s, nl - s);
		w += nl - s;
		*w++ = '\n';
	}
	return (size_t)(w - buf);
}

/* Keep only text symbols: that is what callsites resolve to. */
int kmf_read_kallsyms(char **out, size_t *out_len, bool *hidden)
{
	const char *env = getenv("KMEMFLIGHT_KALLSYMS");
	char *buf;
	size_t len;
	int ret;

	ret = kmt_read_file(env && *env ? env : "/proc/kallsyms", &buf, &len);
	if (ret)
		return ret;
	*out = buf;
	*out_len = kmf_text_symbols(buf, len, hidden);
	return 0;
}

/* The GNU build-id from /sys/kernel/notes, as hex. */
void kmf_read_build_id(char *hex, size_t size)
{
	char *buf;
	size_t len, off = 0, i;

	hex[0] = '\0';
	if (kmt_read_file("/sys/kernel/notes", &buf, &len))
		return;
	while (off + 12 <= len) {
		uint32_t namesz, descsz, type;

		memcpy(&namesz, buf + off, 4);
		memcpy(&descsz, buf + off + 4, 4);
		memcpy(&type, buf + off + 8, 4);
		off += 12;
		if (namesz > len - off)
			break;
		{
			size_t desc = off + ((namesz + 3) & ~3u);

			if (desc > len || descsz > len - desc)
				break;
			if (type == 3 && namesz == 4 && !memcmp(buf + off, "GNU", 4)) {
				for (i = 0; i < descsz && 2 * i + 2 < size; i++)
					snprintf(hex + 2 * i, 3, "%02x",
						 (unsigned char)buf[desc + i]);
				break;
			}
			off = desc + ((descsz + 3) & ~3u);
		}
	}
	free(buf);
}

/* The capacity of a buffer kmf_append() grew to @len bytes of text. */
static size_t append_cap(size_t len)
{
	size_t cap = 64;

	while (cap < len + 1)
		cap *= 2;
	return cap;
}

int kmf_append(char **buf, size_t *len, const char *fmt, ...)
{
	va_list ap;
	char *line, *nb;
	size_t cap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&line, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -ENOMEM;
	/* grow by doubling: a caller appends a line at a time, 100k times */
	cap = append_cap(*len + (size_t)n);
	if (!*buf || cap != append_cap(*len)) {
		nb = realloc(*buf, cap);
		if (!nb) {
			free(line);
			return -ENOMEM;
		}
		*buf = nb;
	}
	memcpy(*buf + *len, line, (size_t)n + 1);
	*len += (size_t)n;
	free(line);
	return 0;
}

static void one_line(char *s)
{
	char *nl = strchr(s, '\n');

	if (nl)
		*nl = '\0';
}

int kmf_build_meta(char **meta, size_t *len, unsigned int nr_cpus)
{
	return kmf_build_meta_cmdline(meta, len, nr_cpus, NULL);
}

int kmf_build_meta_cmdline(char **meta, size_t *len, unsigned int nr_cpus,
			   const char *boot_cmdline)
{
	struct utsname u;
	char *cmdline = NULL, build_id[129];
	size_t clen;
	time_t now = time(NULL);
	struct tm tm;
	char when[64];
	int ret = 0;

	*meta = NULL;
	*len = 0;
	uname(&u);
	if (boot_cmdline)
		cmdline = strdup(boot_cmdline);
	else if (kmt_read_file("/proc/cmdline", &cmdline, &clen) == 0)
		one_line(cmdline);
	kmf_read_build_id(build_id, sizeof(build_id));
	gmtime_r(&now, &tm);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
	ret |= kmf_append(meta, len, "release=%s\n", u.release);
	ret |= kmf_append(meta, len, "version=%s\n", u.version);
	ret |= kmf_append(meta, len, "machine=%s\n", u.machine);
	ret |= kmf_append(meta, len, "hostname=%s\n", u.nodename);
	ret |= kmf_append(meta, len, "cmdline=%s\n", cmdline ? cmdline : "");
	ret |= kmf_append(meta, len, "build_id=%s\n", build_id);
	ret |= kmf_append(meta, len, "saved_at=%s\n", when);
	ret |= kmf_append(meta, len, "cpus=%u\n", nr_cpus);
	ret |= kmf_append(meta, len, "tool=kmemflight %s\n", KMT_VERSION);
	free(cmdline);
	return ret ? -ENOMEM : 0;
}

/*
 * --no-addresses: every kernel address of the file made relative to the
 * base it is recorded against, _stext and the direct map, which become 0:
 * kallsyms, the escaped addresses of the records and the two bases of the
 * format.  Callsites still resolve and objects still pair; where KASLR put
 * the kernel is gone.  Symbols are kept whole, "ADDR TYPE NAME" lines.
 */
int kmf_relative_kallsyms(char **ksyms, size_t *len, uint64_t text_base)
{
	char *out = NULL, *s, *end, *nl;
	size_t olen = 0;
	int ret = 0;

	if (!*ksyms)
		return 0;
	for (s = *ksyms, end = *ksyms + *len; s < end && !ret; s = nl + 1) {
		char *sp = memchr(s, ' ', (size_t)(end - s));
		uint64_t a;

		nl = memchr(s, '\n', (size_t)(end - s));
		if (!nl)
			nl = end;
		if (!sp || sp > nl)
			continue;
		a = strtoull(s, NULL, 16);
		ret = kmf_append(&out, &olen, "%016" PRIx64 "%.*s\n", a - text_base,
			     (int)(nl - sp), sp);
	}
	if (ret) {
		free(out);
		return ret;
	}
	free(*ksyms);
	*ksyms = out;
	*len = olen;
	return 0;
}

