/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KMT_RECORDER_H
#define KMT_RECORDER_H

#include "../lib/kmt.h"

/* The kernel recorder's directory and its format. */
struct kmt_recorder {
	char dir[1024];		/* .../kmemtrace */
	bool debugfs;		/* an older kernel's, in debugfs */
	char *header;		/* raw kmemtrace/header */
	size_t header_len;
	struct kmt_format fmt;
	struct kmt_layout_info layout[KMT_EV_MAX + 1];
};

struct kmt_cpu_stats {
	unsigned int cpu;
	uint64_t events;
	uint64_t lost;
	uint64_t buffer;	/* bytes of its buffer (of the pool: held now), 0: none (yet) */
	bool has_buffer;	/* the kernel says (else: every CPU has one) */
	bool has_slots_col;	/* the kernel has the pool: has_slots says */
	bool has_slots;		/* it may take sub-buffers of the pool */
	uint64_t overwritten;	/* flight mode's reused events (0: none, or no such kernel) */
	uint64_t frozen_dropped;	/* dropped while frozen (0: none, or no such kernel) */
};

/* The recorder's mode and freeze (kernels with flight mode). */
struct kmt_recorder_flight {
	uint32_t mode;		/* enum kmt_mode */
	uint32_t trigger;	/* enum kmt_trigger, 0: armed */
	uint64_t trigger_ts, frozen_ts;
};

/*
 * Whether @c has a buffer to read: with the pool, whether it may take
 * sub-buffers (one that holds none now may have some in the spool).
 */
static inline bool kmt_cpu_has_buffer(const struct kmt_cpu_stats *c)
{
	if (c->has_slots_col)
		return c->has_slots;
	return !c->has_buffer || c->buffer;
}

/* What a kernel locked down for confidentiality allows: nothing of ours. */
#define KMT_LOCKDOWN_CONFIDENTIAL \
	"the kernel is locked down for confidentiality (lockdown=confidentiality in /sys/kernel/security/lockdown), which closes tracefs, and with it the recorder and ftrace; lockdown=integrity, what Secure Boot gives on Debian, Fedora, RHEL and Ubuntu, leaves them open: boot with it, or without lockdown, to save a trace"

/* All of a file (NUL-terminated, malloc'd); kmt_read_fd closes @fd. */
int kmt_read_file(const char *path, char **buf, size_t *len);
int kmt_read_fd(int fd, char **buf, size_t *len);
int kmt_recorder_open(struct kmt_recorder *r, struct kmt_err *err);
void kmt_recorder_close(struct kmt_recorder *r);
int kmt_recorder_enabled(struct kmt_recorder *r, bool *on);
int kmt_recorder_set(struct kmt_recorder *r, bool on);
int kmt_recorder_flush(struct kmt_recorder *r);
/*
 * Give the recorder's buffers back to the page allocator (free_buffer):
 * -EBUSY while it records or a data file is open, -ENOTEMPTY while a CPU
 * holds events not read, -ENODATA when given back already, -ENOENT for a
 * kernel that always keeps them.
 */
int kmt_recorder_release(struct kmt_recorder *r);
/* Release what the previous boot left in the region (previous/release). */
int kmt_recorder_release_previous(struct kmt_recorder *r);
/*
 * The mode and the freeze from tracefs kmemtrace/mode and frozen;
 * -ENOENT for a kernel without flight mode.
 */
int kmt_recorder_flight(struct kmt_recorder *r, struct kmt_recorder_flight *f,
			struct kmt_err *err);
/* Write "0" (arm again) or "1" (freeze: the manual trigger) to frozen. */
int kmt_recorder_freeze(struct kmt_recorder *r, bool freeze);
int kmt_recorder_stats(struct kmt_recorder *r, struct kmt_cpu_stats **out,
		       unsigned int *nr, struct kmt_err *err);
/*
 * The message for a failed open(), read() or write() of a recorder file:
 * names the lockdown mode when that is the cause.  @r may be NULL.
 */
int kmt_recorder_error(const struct kmt_recorder *r, const char *path,
		       int errnum, struct kmt_err *err);
/* The kernel's lockdown mode ("none", "integrity", ...), "" if unknown. */
void kmt_lockdown_mode(char *mode, size_t size);
/* Read every complete sub-buffer of one CPU without blocking. */
int kmt_recorder_drain(struct kmt_recorder *r, unsigned int cpu,
		       uint8_t **data, size_t *size, struct kmt_err *err);

#endif
