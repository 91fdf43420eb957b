/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmemflight save --boot-dir DIR: where a service saves every boot, one
 * file per boot named by its boot id (DIR/boot-BOOT_ID.kmt), the
 * summary next to it (DIR/boot-BOOT_ID.summary), and only the newest
 * boots kept.
 */
#ifndef KMF_BOOTDIR_H
#define KMF_BOOTDIR_H

#include "../lib/kmt.h"

#define KMF_BOOTDIR_MAX_KEEP	10000

struct kmf_bootdir {
	int dirfd;
	const char *prefix;	/* of the files it keeps: "boot-", "flight-" */
	char id[64];		/* this boot's id */
	char kmt[96];		/* boot-ID.kmt */
	char path[4200];	/* DIR/boot-ID.kmt */
};

/* Make DIR (0700) if it is not there, and name this boot's file. */
int kmf_bootdir_open(struct kmf_bootdir *b, const char *dir, struct kmt_err *err);
/*
 * kmemflight watch: make DIR (0700) if it is not there, and name a new
 * file in it, DIR/flight-YYYYMMDDTHHMMSSZ-TRIGGER.kmt (-2, -3, ... when
 * that name is taken).
 */
int kmf_flightdir_open(struct kmf_bootdir *b, const char *dir,
		       const char *trigger, struct kmt_err *err);
/* Write DIR/boot-ID.summary of the saved file, atomically, 0600. */
int kmf_bootdir_summary(struct kmf_bootdir *b, struct kmt_err *err);
/*
 * Keep this boot's (flight's) file and the newest @keep - 1 others (by modification
 * time); remove the rest with their summaries.  *removed counts them.
 */
int kmf_bootdir_rotate(struct kmf_bootdir *b, unsigned int keep,
		       unsigned int *removed, struct kmt_err *err);
void kmf_bootdir_close(struct kmf_bootdir *b);

#endif
