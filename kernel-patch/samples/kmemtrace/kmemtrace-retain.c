// SPDX-License-Identifier: GPL-2.0-only
/*
 * A known boot-time memory regression, for testing the gates that
 * compare boot footprints (kmemflight diff): a late initcall that
 * allocates 256 objects of 4 KiB and keeps them for good, from one
 * function, so that a gate must report this function on top, with
 * 1 MiB retained more than a kernel built without this sample.
 */

#define pr_fmt(fmt) "kmemtrace-retain: " fmt

#include <linux/init.h>
#include <linux/kernel.h>
#include <linux/slab.h>

#define RETAIN_OBJS	256
#define RETAIN_SIZE	4096

/* Referenced, so that nothing takes them for a leak. */
static void *retained[RETAIN_OBJS];

static int __init kmemtrace_retain_init(void)
{
	int i;

	for (i = 0; i < RETAIN_OBJS; i++) {
		retained[i] = kmalloc(RETAIN_SIZE, GFP_KERNEL);
		if (!retained[i])
			return -ENOMEM;
	}
	pr_info("retained %d objects of %d bytes\n", RETAIN_OBJS, RETAIN_SIZE);
	return 0;
}
late_initcall(kmemtrace_retain_init);
