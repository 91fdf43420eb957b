/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The spool: where `kmemflight attach` keeps the sub-buffers it drains
 * from the kernel until `kmemflight save` turns them into a .kmt file.
 *
 *   DIR/lock     held (flock) by the running attach or save: "PID ROLE"
 *   DIR/header   the recorder's self-description, as read at the start
 *   DIR/boot_id  the boot the events belong to
 *   DIR/cpuN     CPU N's sub-buffers, in the order the kernel gave them
 *   DIR/log      one line per attach start and stop, with its figures
 *
 * Everything is opened relative to one directory descriptor, so the
 * attach keeps writing to the same files after switch_root has moved
 * /run into the real root.
 */
#ifndef KMT_SPOOL_H
#define KMT_SPOOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "../lib/kmt.h"

#define KMT_SPOOL_DEFAULT	"/run/kmemflight"

struct kmt_spool {
	char path[1024];
	int dirfd;
	int lockfd;
};

/* --spool, else $KMEMFLIGHT_SPOOL, else /run/kmemflight. */
const char *kmt_spool_path(const char *opt);
/* Whether the spool was named (--spool, KMEMFLIGHT_SPOOL), not the default. */
bool kmt_spool_named(const char *opt);

/*
 * Open the spool directory, creating it (0700) when @create.  Returns
 * -ENOENT if it does not exist and !@create.  Refuses a symlink and a
 * directory that another user owns or can write to.
 */
int kmt_spool_open(struct kmt_spool *s, const char *path, bool create,
		   struct kmt_err *err);
void kmt_spool_close(struct kmt_spool *s);

/*
 * Take the lock without waiting; -EBUSY with *holder set if taken, and
 * *by_save if the holder is a save rather than an attach.
 */
int kmt_spool_trylock(struct kmt_spool *s, pid_t *holder, bool *by_save,
		      struct kmt_err *err);
/* Record "PID ROLE" in the lock file (ROLE: attach or save). */
int kmt_spool_set_owner(struct kmt_spool *s, const char *role);
/*
 * Take the lock; if a running attach holds it, ask it to stop (SIGTERM)
 * and wait up to @timeout_ms for it to finish its last drain.
 */
int kmt_spool_stop_attach(struct kmt_spool *s, int timeout_ms, pid_t *stopped,
			  struct kmt_err *err);

/*
 * Bind the spool to this boot and recorder: write header and boot_id if
 * the spool is new, else check they are the same.
 */
int kmt_spool_bind(struct kmt_spool *s, const char *header, size_t len,
		   struct kmt_err *err);

/* An O_APPEND descriptor for CPU @cpu's sub-buffers. */
int kmt_spool_cpu_fd(struct kmt_spool *s, unsigned int cpu, struct kmt_err *err);
/* Everything spooled for @cpu (malloc'd); *len 0 if nothing. */
int kmt_spool_read_cpu(struct kmt_spool *s, unsigned int cpu, uint8_t **data,
		       size_t *len, struct kmt_err *err);
/* Append one line to DIR/log. */
int kmt_spool_log(struct kmt_spool *s, const char *line);
/* DIR/log, NUL-terminated (malloc'd), or NULL if there is none. */
char *kmt_spool_read_log(struct kmt_spool *s);
/* Remove the spool's files and the directory, once saved. */
int kmt_spool_remove(struct kmt_spool *s);

/* This boot's id from /proc/sys/kernel/random/boot_id, or "". */
void kmt_boot_id(char *buf, size_t size);

#endif
