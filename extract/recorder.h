/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KMT_RECORDER_H
#define KMT_RECORDER_H

#include "../lib/kmt.h"

/* The kernel recorder's debugfs directory and its format. */
struct kmt_recorder {
	char dir[1024];
	char *header;		/* raw debugfs kmemtrace/header */
	size_t header_len;
	struct kmt_format fmt;
	struct kmt_layout_info layout[KMT_EV_MAX + 1];
};

struct kmt_cpu_stats {
	unsigned int cpu;
	uint64_t events;
	uint64_t lost;
};

/* All of a file (NUL-terminated, malloc'd); kmt_read_fd closes @fd. */
int kmt_read_file(const char *path, char **buf, size_t *len);
int kmt_read_fd(int fd, char **buf, size_t *len);
int kmt_recorder_open(struct kmt_recorder *r, struct kmt_err *err);
void kmt_recorder_close(struct kmt_recorder *r);
int kmt_recorder_enabled(struct kmt_recorder *r, bool *on);
int kmt_recorder_set(struct kmt_recorder *r, bool on);
int kmt_recorder_flush(struct kmt_recorder *r);
int kmt_recorder_stats(struct kmt_recorder *r, struct kmt_cpu_stats **out,
		       unsigned int *nr, struct kmt_err *err);
/* The message for a failed open() of a per_cpu data file. */
int kmt_recorder_open_error(const char *path, int errnum, struct kmt_err *err);
/* Read every complete sub-buffer of one CPU without blocking. */
int kmt_recorder_drain(struct kmt_recorder *r, unsigned int cpu,
		       uint8_t **data, size_t *size, struct kmt_err *err);

#endif
