// SPDX-License-Identifier: GPL-2.0-only
/*
 * A leak that runs a zone out of memory, to test the flight recorder's
 * triggers.  Writing "dma" to /sys/kernel/debug/kmemtrace-leak makes
 * kmemtrace_leak_dma() kmalloc() 2 KiB objects from ZONE_DMA, keeping
 * every one, until an allocation fails; then it frees them all.  The
 * allocations pass __GFP_RETRY_MAYFAIL, so the failure is reported
 * (warn_alloc(), then SLUB's slab_out_of_memory()) instead of calling
 * the OOM killer, and only ZONE_DMA runs out: the rest of the machine
 * goes on.  Reading the file gives the objects and bytes the last leak
 * held when its allocation failed.
 */

#define pr_fmt(fmt) "kmemtrace-leak: " fmt

#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/init.h>
#include <linux/kernel.h>
#include <linux/mutex.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#define LEAK_SIZE	2048

static DEFINE_MUTEX(leak_mutex);
static unsigned long leak_objects;

/* Leak until an allocation fails, then give it all back. */
static noinline unsigned long kmemtrace_leak_dma(void)
{
	void **head = NULL, **obj;
	unsigned long n = 0;

	for (;;) {
		obj = kmalloc(LEAK_SIZE, GFP_KERNEL | GFP_DMA | __GFP_RETRY_MAYFAIL);
		if (!obj)
			break;
		*obj = head;
		head = obj;
		n++;
		cond_resched();
	}
	while (head) {
		obj = *head;
		kfree(head);
		head = obj;
	}
	return n;
}

static ssize_t leak_write(struct file *file, const char __user *ubuf,
			  size_t count, loff_t *ppos)
{
	char buf[8];

	if (count >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = '\0';
	if (!sysfs_streq(buf, "dma"))
		return -EINVAL;
	mutex_lock(&leak_mutex);
	leak_objects = kmemtrace_leak_dma();
	mutex_unlock(&leak_mutex);
	return count;
}

static int leak_show(struct seq_file *m, void *v)
{
	mutex_lock(&leak_mutex);
	seq_printf(m, "dma %lu %lu\n", leak_objects, leak_objects * LEAK_SIZE);
	mutex_unlock(&leak_mutex);
	return 0;
}

static int leak_open(struct inode *inode, struct file *file)
{
	return single_open(file, leak_show, NULL);
}

static const struct file_operations leak_fops = {
	.owner		= THIS_MODULE,
	.open		= leak_open,
	.read		= seq_read,
	.write		= leak_write,
	.llseek		= seq_lseek,
	.release	= single_release,
};

static int __init kmemtrace_leak_init(void)
{
	debugfs_create_file("kmemtrace-leak", 0600, NULL, NULL, &leak_fops);
	return 0;
}
late_initcall(kmemtrace_leak_init);
