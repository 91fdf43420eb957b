#!/bin/sh
# Emit the kmemtrace patch as a `git format-patch` series for Linux 6.12.
#
#   kernel-patch/format-patch.sh PRISTINE_GIT_TREE OUTDIR
#
# PRISTINE_GIT_TREE is a git repository whose HEAD is the unmodified 6.12
# source (qemu-tests/build-kernel.sh keeps one in ~/.cache/kmemflight).
# The series is built in a scratch repository holding only the files the
# patch touches, so it applies with `git am` to any 6.12 tree.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
[ $# -eq 2 ] || { echo "usage: $0 PRISTINE_GIT_TREE OUTDIR" >&2; exit 2; }
tree=$1
out=$2
git -C "$tree" rev-parse -q --verify HEAD >/dev/null || {
	echo "$0: $tree is not a git repository with a commit" >&2
	exit 1
}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
g() { git -C "$work" -c user.name="kmemflight" \
	-c user.email="kmemflight@localhost" "$@"; }
g init -q

"$here/apply.sh" --pristine "$tree" "$work"
g add -f -A .
g commit -q -m "Linux 6.12: files touched by kmemtrace"
base=$(g rev-parse HEAD)

# Apply everything in a copy, then commit it in reviewable steps.
full=$(mktemp -d)
cp -a "$work/." "$full/"
rm -rf "$full/.git"
"$here/apply.sh" "$full"

# MAINTAINERS grows with the series: each patch adds the F: lines of the
# files it creates, so every patch is complete on its own.
entry_start="KMEMTRACE BOOT-TIME KERNEL MEMORY FLIGHT RECORDER"
maintainers_with() {	# PATTERN: F: lines of the final entry to keep
	awk -v start="$entry_start" -v keep="$1" '
		$0 == start { inentry = 1 }
		inentry && /^$/ { inentry = 0 }
		inentry && /^F:/ && $0 !~ keep { next }
		{ print }' "$full/MAINTAINERS" > "$work/MAINTAINERS"
	g add -f MAINTAINERS
}

step() {
	subject=$1
	body=$2
	shift 2
	for f in "$@"; do
		mkdir -p "$work/$(dirname "$f")"
		cp "$full/$f" "$work/$f"
		g add -f "$f"
	done
	g commit -q -s -m "$subject" -m "$body"
}

maintainers_with "uapi/linux/kmemtrace.h|trace/kmemtrace"
step "kmemtrace: add the trace format" \
"Define the kmemtrace record, sub-buffer and file format in one uapi
header shared by the kernel recorder and user space, and specify it.
Records are a one-byte header, a LEB128 time delta and LEB128 fields,
so they are compact and read the same on every architecture; the
recorder describes its own record layouts so that readers need no
compiled-in knowledge of them." \
	include/uapi/linux/kmemtrace.h Documentation/trace/kmemtrace-format.rst

maintainers_with "kmemtrace[.]|trace/kmemtrace"
step "mm: add kmemtrace, a boot-time kernel memory flight recorder" \
"Record the kmem tracepoints from right after kmem_cache_init(), long
before trace_init(), into per-CPU buffers that the kernel owns until
user space reads them through tracefs, so no process context is needed.
The boot CPU's buffer is allocated before the probes attach, every other
CPU's by a CPU hotplug prepare callback before that CPU runs: CPUs that
never come up cost nothing, and one that goes offline keeps its buffer
until it is read.  tracefs, not debugfs, so that a kernel locked down in
integrity mode (Secure Boot) can still be read.

Writers reserve space with a single local64 cmpxchg, so an IRQ or NMI
that nests inside a write simply retries; records are encoded straight
into the buffer.  When the buffers are full the earliest events are
kept and every drop is counted per CPU.  kmem_cache events carry a
small cache id; the name and sizes reach the trace once per cache.

No kmem tracepoint fires for kmem_cache_alloc_bulk(),
kmem_cache_free_bulk() and kfree_bulk(), through which kfree_rcu() and
the maple tree free: two hooks there, behind a static key that is on
only while the recorder records, take each object as an event.  So
does a third in alloc_pages_bulk() for the pages of vmalloc() and of
the kernel stacks, which no mm_page_alloc reports.

memblock reserves the boot memory (the memmap, the per-CPU areas, the
kernel image, the hash tables) before the recorder can start: memblock
reports every range it adds, removes, reserves, allocates and frees,
with the first function outside memblock as the caller, and so do
memblock_free_late() and free_reserved_area().  Until the recorder
starts, those events wait in an init-time array sized by
CONFIG_KMEMTRACE_MEMBLOCK_EARLY; those that do not fit are counted.
memblock=debug now names that caller for allocations and for
memblock_free() too, instead of memblock's own functions.

vmalloc() reports each area it maps and vfree() each it releases, with
the caller vmalloc() was given, so the pages of an area are put to the
function that asked for them (alloc_large_system_hash(), a kvmalloc()
user) instead of to vmalloc's internals.

An allocation made through an out-of-line wrapper (kvmalloc(),
kstrdup_const(), kasprintf(), mempool_alloc_slab() ...) has the wrapper
as its call site.  The recorder looks the wrappers up in kallsyms when
it starts, keeps a bit per 4 KiB of kernel text to spot their call
sites, and records those allocations with the return addresses out to
the first frame outside every wrapper.

In flight mode (kmemtrace.mode=flight) a full buffer reuses its oldest
sub-buffer instead of dropping new events, and counts what it overwrote:
the buffers hold the latest events for as long as the machine runs.
Triggers freeze them: the OOM killer choosing a victim, a page or slab
allocation failure the kernel warns of, a write to tracefs.  The
trigger writes a record of what happened and sets a flag that every
CPU's writers test, which is safe with the OOM killer's locks held or
in an interrupt; poll() on tracefs kmemtrace/frozen wakes the reader
that saves the window.  While a reader has a CPU's data file open that
CPU drops instead of overwriting, so that the reader gets a whole
stream.

Off unless booted with kmemtrace.enable=1: the tracepoints and the
static keys stay disabled and the only cost is an id assigned at cache
creation." \
	include/linux/kmemtrace.h mm/kmemtrace.c mm/Kconfig.debug mm/Makefile \
	mm/memblock.c mm/mm_init.c mm/oom_kill.c mm/page_alloc.c mm/slab.h \
	mm/slab_common.c mm/slub.c mm/vmalloc.c

maintainers_with "Documentation|include|mm/"
step "Documentation: kmemtrace: document the recorder and its ABI" \
"Describe the boot parameters, the tracefs interface and its ABI, and
how to save and read a boot-time trace." \
	Documentation/trace/kmemtrace.rst Documentation/trace/index.rst \
	Documentation/ABI/testing/tracefs-kmemtrace \
	Documentation/admin-guide/kernel-parameters.txt

maintainers_with "."
step "samples: kmemtrace: a known boot-time regression, a cost benchmark, a stress, a leak" \
"SAMPLE_KMEMTRACE_RETAIN: a late initcall that keeps 1 MiB (256 objects
of 4 KiB) allocated from one function.  A gate that compares the boot
footprints of two kernels must report exactly this growth, at this
function; kmemflight's boot regression test builds a kernel with it.

SAMPLE_KMEMTRACE_BENCH: /sys/kernel/debug/kmemtrace-bench times N
kmalloc()/kfree() and N alloc_page()/__free_page() pairs on every online
CPU, so that the cost of kmemtrace and of ftrace's kmem events can be
compared in one boot.

SAMPLE_KMEMTRACE_STRESS: /sys/kernel/debug/kmemtrace-stress makes every
online CPU allocate from a kthread, a timer and a hard-irq hrtimer at
once, and counts the pairs of each; a trace of the run must hold exactly
those events, in those contexts.

SAMPLE_KMEMTRACE_LEAK: /sys/kernel/debug/kmemtrace-leak keeps kmalloc()ing
from ZONE_DMA until an allocation fails, then frees it all: a page and
a slab allocation failure, which freeze the recorder in flight mode,
without the OOM killer and without starving the rest of the machine." \
	samples/kmemtrace/Makefile samples/kmemtrace/kmemtrace-retain.c \
	samples/kmemtrace/kmemtrace-bench.c samples/kmemtrace/kmemtrace-stress.c \
	samples/kmemtrace/kmemtrace-leak.c \
	samples/Kconfig samples/Makefile

if [ -n "$(g status --porcelain --ignored)" ]; then
	echo "$0: files not in any patch of the series:" >&2
	g status --porcelain --ignored >&2
	exit 1
fi
mkdir -p "$out"
rm -f "$out"/*.patch
printf 'MAINTAINERS\n*\n' > "$work/.orderfile"
g format-patch -q -O"$work/.orderfile" --cover-letter -o "$(cd "$out" && pwd)" "$base..HEAD" \
	--subject-prefix="RFC PATCH"
cover=$(ls "$out"/0000-*.patch)
sed -i -e 's/\*\*\* SUBJECT HERE \*\*\*/kmemtrace: boot-time kernel memory flight recorder/' \
	-e '/\*\*\* BLURB HERE \*\*\*/{
r '"$here"'/cover-letter.txt
d
}' "$cover"
ls "$out"/*.patch
