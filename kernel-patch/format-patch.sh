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

# mm/kmemtrace/Makefile grows with the series too: each patch adds the
# objects of the files it creates.
makefile_with() {	# OBJECTS...: the final Makefile, of its objects only those
	keep=$(echo "$@" | sed 's/ /|/g')
	mkdir -p "$work/mm/kmemtrace"
	grep -vE "^obj-y \+= " "$full/mm/kmemtrace/Makefile" > "$work/mm/kmemtrace/Makefile"
	grep -E "^obj-y \+= ($keep)\$" "$full/mm/kmemtrace/Makefile" >> "$work/mm/kmemtrace/Makefile"
	g add -f mm/kmemtrace/Makefile
}

add() {	# FILES...: the final version of each
	for f in "$@"; do
		mkdir -p "$work/$(dirname "$f")"
		cp "$full/$f" "$work/$f"
		g add -f "$f"
	done
}

edit() {	# PATCH: one of patches/, whole
	patch -s -p1 -d "$work" < "$here/patches/$1"
	g add -f -A .
}

commit() {	# SUBJECT BODY
	g commit -q -s -m "$1" -m "$2"
}

maintainers_with "uapi/linux/kmemtrace.h|trace/kmemtrace"
add include/uapi/linux/kmemtrace.h Documentation/trace/kmemtrace-format.rst
commit "kmemtrace: add the trace format" \
"Define the kmemtrace record, sub-buffer and file format in one uapi
header shared by the kernel recorder and user space, and specify it in
Documentation/trace/kmemtrace-format.rst.

A record is a header byte (event type, context, whether a pid follows),
a 16-bit time delta from the record before it (or an escape and the
absolute time), the pid when it changed, and the event's fields, each
at a fixed width given by its encoding: 8, 16, 24 or 32 bits, a kernel
text address as a 32-bit offset from _stext, a direct-map pointer as a
32-bit count of 8-byte units from PAGE_OFFSET.  A value too wide for
its slot writes the slot's escape and the full value after it, so any
value can be recorded.  This is ABI 2; ABI 1 wrote LEB128 varints, and
the format keeps its encodings so that readers still read it.

Records go into sub-buffers with a fixed header (magic, CPU, sequence
number, base time, the CPU's count of lost events), written per CPU and
read whole.  The recorder describes itself: its ABI version, word size,
page size, bases, and the layout of every event type, field by field,
so that a reader needs no compiled-in knowledge of the layouts."

for p in kernel-sched-build_utility.c.patch kernel-sched-clock.c.patch \
	include-linux-sched-clock.h.patch; do
	edit "$p"
done
commit "sched/clock: let a tracer keep a copy of local_clock()" \
"A tracer that times its records with local_clock() can often compute
sched_clock() itself, cheaper than the call, from a copy of the
architecture's scale (perf's user page does as much for user space).
Once sched_clock is stable, local_clock() is that plus
__sched_clock_offset.  Before, through the whole boot up to
sched_clock_init_late(), it is sched_clock() filtered through the CPU's
sched_clock_data: the tick window's clock (the tick's gtod plus the
sched_clock() elapsed since), kept from going back and clamped to the
window's top.  Within a window, that is again sched_clock() plus a
constant, up to the top, from any moment when the window's clock is at
or ahead of the CPU's: only this file knows when that ends.

local_clock_copy_window() gives the constant and the limit for a
sched_clock() value read on this CPU, in every mode, or says that none
holds.  A per-CPU limit, local_clock_copy_until, says up to what time
the copy holds: the tracer compares its time with it, one load and a
compare, instead of a call.  Whatever could make local_clock() differ
from the copy sets the limit to 0 first (local_clock_copy_stale()): a
tick, another CPU raising this one's clock in sched_clock_remote(),
sched_clock changing regime (sched_clock_init(), marked stable or
unstable), and the architecture, for its part of the copy.  The copy's
times are not kept in scd->clock (that would be a cmpxchg per record):
instead the tick, which starts a new window, first brings scd->clock up
to now, so that no later local_clock() is behind a time the copy gave.
A copy taken across a change is dropped when it is committed: each
change bumps a per-CPU generation, by a busy count while another CPU
raises the clock, so that no copy is taken meanwhile.

Only with CONFIG_KMEMTRACE, its only user, and only once the tracer
enables it (a static key): local_clock() itself is unchanged, and so
are sched_clock_tick() and sched_clock_remote() until then.  A record
that reads the TSC while another CPU raises its CPU's clock may be
behind the raised clock: the two are concurrent, and ordering them
would cost a fence per record.

kmemtrace, later in this series, uses it for every record, the boot's
included, which it exists to record: 97 of its instructions per event
went to local_clock() until the late initcall, and now 17 do."

maintainers_with "^F:.(include/|mm/kmemtrace/|Documentation/trace/kmemtrace)"
edit mm-Kconfig.debug.patch
add include/linux/kmemtrace.h mm/kmemtrace/internal.h mm/kmemtrace/buffer.h \
	mm/kmemtrace/buffer.c
makefile_with buffer.o
commit "mm: kmemtrace: a pool of sub-buffers that the kernel owns" \
"kmemtrace records the kmem tracepoints from right after
kmem_cache_init(), long before trace_init(), into sub-buffers that the
kernel owns until user space reads them: no process context is needed
to record.  This patch adds the buffers and the option; nothing builds
them until the recorder is hooked into mm at the end of the series.

The sub-buffers are one pool for the machine, whatever its number of
CPUs; each CPU takes one from the pool when it opens one (a bit of a
free bitmap, test_and_clear_bit(): no lock, so an NMI may) and a reader
gives it back.  Each CPU writes its own sequence of sub-buffers, and
each CPU's slots say which block of the pool each sequence number has.
A writer reserves space with one CPU-local cmpxchg on a state word
that holds the write position, the current sequence number and the
low half of the last time, so an IRQ or NMI that records inside a
write simply retries; the next sub-buffer's block is taken before the
reservation that opens it, so that whoever writes it first finds its
memory.  Records are written straight into the reserved space, fields
at fixed offsets (the fast path, inline in buffer.h for the probes),
and committed with a count per sub-buffer that readers check before
they copy it.  When the pool has no free sub-buffer, boot mode drops
the event and counts it, keeping the earliest events; flight mode
(added later) reuses the CPU's oldest.

The time is local_clock().  Where the architecture can say what
sched_clock() is on a CPU (ARCH_HAS_KMEMTRACE_CLOCK, added for x86 by
the next patch), each CPU keeps a copy of local_clock() as that plus a
constant (local_clock_copy_window()), taken when it opens a sub-buffer
or when a task finds it stale, and computes the time itself for as long
as local_clock_copy_until allows.
A clock that steps back is recorded as an absolute time, where it
happened.

The general path writes any record field by field, escaping values
too wide for their slot: for the rare events, and for the hot ones
whose values do not fit their fast path."

maintainers_with "^F:.(arch/x86/include/|include/|mm/kmemtrace/|Documentation/trace/kmemtrace)"
add arch/x86/include/asm/kmemtrace.h
for p in arch-x86-Kconfig.patch arch-x86-kernel-tsc.c.patch; do
	edit "$p"
done
commit "x86/tsc: give kmemtrace sched_clock() as a scale of the TSC" \
"kmemtrace times every record with local_clock(), some 40 instructions
of its 150 per event, most of them calls and the cyc2ns latch, and 97
before sched_clock is stable.  While sched_clock is the TSC,
sched_clock() on a CPU is that CPU's cyc2ns offset plus the TSC scaled,
and local_clock() is that plus a constant for as long as
kernel/sched/clock.c's local_clock_copy_until allows: the recorder can
compute it itself, as perf's user page lets user space do, if it knows
when those numbers change.

arch_kmt_clock_get() copies them for the calling CPU, and tsc.c calls
local_clock_copy_stale() after every change: a new cyc2ns scale (the
refined calibration, cpufreq on a TSC that is not constant, a CPU set
up), the offsets rewritten on resume from suspend or hibernation, the
TSC marked unstable (before sched_clock leaves its stable mode), so
that a copy that is no longer the clock it copied is never used.
arch_kmt_clock_read() scales the TSC with two 32x32 products, the same
nanoseconds as mul_u64_u32_shr().

arch_kmt_clock_slow() calls the recorder's kmt_clock_slow(), for a
stale copy, through a thunk that keeps every register but RAX, as
preempt_schedule_thunk does (added with the recorder's build, in the
patch that hooks it into mm): the recorder's fast path, which calls
nothing else, makes that call without saving the registers a call may
clobber.

Only with CONFIG_KMEMTRACE: without it nothing changes in tsc.c."

add mm/kmemtrace/probes.c
edit mm-slab.h.patch
makefile_with buffer.o probes.o
commit "mm: kmemtrace: record the slab and page allocators" \
"Probes on the kmem tracepoints (kmalloc, kmem_cache_alloc, kfree,
kmem_cache_free, mm_page_alloc, mm_page_free, mm_page_free_batched)
write their fixed layouts with a few plain stores; BUILD_BUG_ON()s tie
their sizes and encodings to the layouts of the uapi header.  Each
tries kmt_reserve_fast() first, the record that needs no pid, no
absolute time and no new sub-buffer, short enough to save few
registers and call nothing but the clock without a copy, and goes out
of line to the general path for anything else:
about 117 guest instructions per event on x86 (QEMU, -icount), 155
without the fast path, against 592 for an ftrace kmem event.
kmem_cache events carry a small cache id (a field of struct
kmem_cache); the name and sizes reach the trace once per cache.

No kmem tracepoint fires for kmem_cache_alloc_bulk(),
kmem_cache_free_bulk() and kfree_bulk(), through which kfree_rcu() and
the maple tree free, nor for the pages alloc_pages_bulk() takes from
the per-CPU lists for vmalloc() and the kernel stacks: hooks behind a
static key that is on only while the recorder records take each object
and page as an event.  vmalloc() reports each area it maps and vfree()
each it releases, with the caller vmalloc() was given, so that an
area's pages are put to the function that asked for them.

With kmemtrace.page_stack=N each page allocation carries N return
addresses: the page tracepoints have no caller."

add mm/kmemtrace/wrappers.c include/linux/kmemtrace_types.h
for p in include-linux-sched.h.patch kernel-fork.c.patch; do
	edit "$p"
done
makefile_with buffer.o probes.o wrappers.o
commit "mm: kmemtrace: name the callers behind allocation wrappers" \
"An allocation made through an out-of-line wrapper (kvmalloc(),
kstrdup_const(), kasprintf(), mempool_alloc_slab() ...) has the wrapper
as its call site.  The recorder finds the wrappers' extents in kallsyms
by their addresses when it starts (a search by name costs some 20000
instructions each: 0.56 M of the boot for 28), keeps a bit per 4 KiB
of kernel text so that the hot probes spot their call sites with one
test, and records those allocations with the return addresses after
the call site, out to the first frame outside every wrapper.

Unwinding for them costs some 3000 instructions per allocation, five
times an ftrace event.  So a wrapper may keep its own return address:
kmemtrace_wrapper(), a class (linux/cleanup.h) at its start, pushes it
on a stack of four entries in the task while the kmem probes are
attached (a static key of its own, on before they attach and followed
by a grace period, off after they are gone: a no-op otherwise) and pops
it when the wrapper returns.  An interrupt pushes above the task's
entries and pops its own before it returns, as current->alloc_tag is
saved and restored.  The probe takes the return addresses from there
when the innermost entry is the wrapper's that holds the call site and
each address still in a wrapper is followed by that wrapper's entry,
and unwinds otherwise (also for a return address that function_graph
or a kretprobe replaced).  With CONFIG_DEBUG_VM it unwinds as well and
warns if the two differ.  The stats file counts both kinds per CPU.

The stack grows task_struct by 72 bytes with CONFIG_KMEMTRACE, next to
the sanitizers' contexts, and copy_process() empties it."

add mm/kmemtrace/early.c
makefile_with buffer.o probes.o wrappers.o early.o
commit "mm: kmemtrace: memblock and the pages before the probes" \
"memblock reserves the boot memory (the memmap, the per-CPU areas, the
kernel image, the hash tables) from the first lines of setup_arch(),
before the recorder can start: memblock reports every range it adds,
removes, reserves, allocates and frees, with the first function
outside memblock as the caller, and so do memblock_free_late() and
free_reserved_area().  Until the recorder starts, those events wait in
an init-time array sized by CONFIG_KMEMTRACE_MEMBLOCK_EARLY; those that
do not fit are counted.

The page allocator works from mem_init() on, the tracepoint probes
only once registered (registering one allocates): the pages allocated
in between (the vmalloc area's page tables, the boot caches' slabs)
wait in a second init-time array, behind a static key that is on only
until then.  Both go into the trace first, in order, at their own
times."

add mm/kmemtrace/tasks.c
makefile_with buffer.o probes.o wrappers.o early.o tasks.o
commit "mm: kmemtrace: boot phases and tasks" \
"Mark the boot's phases in the trace: each initcall level, each
initcall's start and end, and each program pid 1 executes.  And say
who allocates once user space runs: every task made, renamed,
executing or moved to another cgroup v2 group, with its parent, its
command and its cgroup, and every cgroup made, so that readers put each
allocation in its process and systemd unit.

The fork and exec probes run with preemption off, where cgroup_path()
may not be called (kernfs_rename_lock sleeps on PREEMPT_RT): they give
the cgroup's id, which needs no lock.  The paths come from the
cgroup_mkdir and cgroup_attach_task tracepoints, which hand them over,
and from the cgroup tree that user space keeps at the save."

add mm/kmemtrace/latency.c
makefile_with buffer.o probes.o wrappers.o early.o tasks.o latency.o
commit "mm: kmemtrace: direct reclaim, shrinkers and compaction" \
"With the reclaim and compaction groups (kmemtrace.events=...,latency)
the recorder also records the allocations that stall: direct reclaim
and direct compaction with the allocation behind them (order, GFP
flags, task, stack), the inactive lists shrunk, each shrinker called
and what it freed, and the zones compacted."

add mm/kmemtrace/flight.c
makefile_with buffer.o probes.o wrappers.o early.o tasks.o latency.o flight.o
commit "mm: kmemtrace: flight mode and its triggers" \
"In flight mode (kmemtrace.mode=flight) each CPU holds at most its share
of the pool (the pool over the online CPUs, rounded down), then reuses
its oldest sub-buffer instead of dropping new events, and counts what
it overwrote: the buffers hold the latest events for as long as the
machine runs, and a CPU that starts recording late still finds its
share.  Triggers freeze them: the OOM killer choosing a victim
(or a memory cgroup's, off by default), a page or slab allocation
failure the kernel warns of, a direct reclaim longer than
kmemtrace.stall_us, a write to tracefs.  The trigger writes a record
of what happened and sets a flag that every CPU's writers test on
their slow path, which is safe with the OOM killer's locks held or in
an interrupt; poll() on tracefs kmemtrace/frozen wakes the reader that
saves the window."

add mm/kmemtrace/setup.c
makefile_with buffer.o probes.o wrappers.o early.o tasks.o latency.o flight.o setup.o
commit "mm: kmemtrace: the pool, slots for each CPU, event groups, enable" \
"Allocate the pool (kmemtrace.size, 16 MiB by default, in boot mode;
kmemtrace.flight_size, 4 MiB, in flight mode; kmemtrace.subbufs sets
its number of sub-buffers instead), each node's share in
proportion to its CPUs, and the boot CPU's slots before the probes
attach, from kmemtrace_init(); every other CPU's slots from a CPU hotplug
prepare callback before that CPU runs: CPUs that never come up cost
nothing, and one that goes offline keeps what it holds until it is
read.  A CPU without memory for its slots still comes up; its events are
counted as lost.  fail_kmemtrace_slots= (CONFIG_FAIL_KMEMTRACE_SLOTS)
injects that failure.

Once recording is off and everything recorded has been read, the pool
and the slots can be given back to the page allocator, and enabling
again allocates them again.  The hotplug state goes first; the writers
outside a tracepoint's probe (the bulk and vmalloc hooks, the general
path) test that the buffers exist with preemption off, and a grace
period passes before anything is freed.

The events come in groups (kmem, boot, reclaim, compaction) chosen
with kmemtrace.events= and attached together.  Off unless booted with
kmemtrace.enable=1 or enabled through tracefs; an invalid parameter
keeps it off, with a message that says which."

add mm/kmemtrace/tracefs.c
makefile_with buffer.o probes.o wrappers.o early.o tasks.o latency.o flight.o setup.o tracefs.o
commit "mm: kmemtrace: the tracefs interface" \
"The recorder's files are in tracefs, kmemtrace/, root only: the
header (the recorder's self-description), a data file per CPU that
hands out whole sub-buffers and blocks or polls for the next, flush,
free_buffer (the memory back once all is read, refused before),
enable, events, mode, triggers, frozen, stall_us, and read-only
stats, topology and caches.  tracefs and not debugfs, so that a kernel
locked down in integrity mode (what Secure Boot gives) can still be
read; each file checks at open, as ftrace's do, so that lockdown for
confidentiality closes them.  Reading consumes, so one reader per CPU
at a time."

add mm/kmemtrace/persist.c
makefile_with buffer.o probes.o wrappers.o early.o tasks.o latency.o flight.o setup.o tracefs.o persist.o
commit "mm: kmemtrace: keep the pool across a reboot in a reserve_mem= region" \
"With reserve_mem=SIZE:ALIGN:NAME and kmemtrace.persist=NAME the pool's
blocks are the named region's, the reservation that ftrace's persistent
ring buffer uses, which the next boot of the same kernel finds at the
same address: after a panic, a watchdog's reset or a warm reboot, the
sub-buffers nobody read are still there.  The region has a header (the
layout, the build id of the kernel that wrote it, its command line,
mode and _stext); each block the header of the sub-buffer it holds.
A block given back to the pool has its magic cleared first.  An open
sub-buffer's header says how many of its bytes are whole records: the
commit that completes a prefix raises it, with interrupts off, before
the count that lets the block go.

At boot a region this kernel wrote is scanned: each CPU's newest run of
consecutive sequence numbers is kept for kmemtrace/previous/ (data,
info, release) and the pool comes from the page allocator until it is
released; another kernel's region is left as it is until the recorder
takes it.  A panic notifier makes a panic a trigger: it freezes in
flight mode, and writes the trigger's record in boot mode."

maintainers_with "^F:.(arch/|include/|mm/kmemtrace/|Documentation/trace/kmemtrace)"
add arch/x86/kernel/kmemtrace_64.S
for p in mm-Makefile.patch mm-mm_init.c.patch mm-slab_common.c.patch \
	mm-slub.c.patch mm-page_alloc.c.patch mm-vmalloc.c.patch \
	mm-memblock.c.patch mm-oom_kill.c.patch arch-x86-kernel-Makefile.patch; do
	edit "$p"
done
commit "mm: kmemtrace: hook the recorder into mm" \
"Build the recorder, with x86's thunk for its clock, and call it from
mm: kmemtrace_init() from mm_core_init() right after
kmem_cache_init(), and the early page hand-over before mem_init(); the
cache ids from the slab caches' creation; the bulk hooks in SLUB and
alloc_pages_bulk(); the vmalloc areas; memblock's events; the flight
recorder's triggers in the OOM killer and where the page and slab
allocators warn of a failure.

Every hook is a static key that is off unless the recorder records, or
compiles away without CONFIG_KMEMTRACE.  memblock=debug now names the
first caller outside memblock for allocations and for memblock_free()
too, instead of memblock's own functions."

for p in mm-util.c.patch mm-mempool.c.patch; do
	edit "$p"
done
commit "mm: kmemtrace: kvmalloc() and mempool creation keep their callers" \
"kmemtrace looks past allocation wrappers to their callers.  Unwinding
for each such allocation costs the recorder some 3000 instructions, five
times an ftrace kmem event.  The wrappers in mm/ that do not end in a
tail call (__kvmalloc_node_noprof(), kvrealloc_noprof(), kvmemdup(),
vmemdup_user(), strndup_user(), mempool_init_node(),
mempool_init_noprof(), mempool_create_node_noprof()) now call
kmemtrace_wrapper() first, so that the recorder finds their callers on
the task's stack of wrapper entries: on a QEMU guest (-icount) the
recorder's event for an allocation through kvmalloc() costs 376
instructions instead of 3302, against 593 for an ftrace kmem event and
159 for the recorder's ordinary one.  The record is the same.

Those that end in a tail call (kstrdup_const(), kmemdup_array(),
mempool_alloc_slab(), mempool_kmalloc()) are left alone: they leave no
frame, and no call site is in them.

Without CONFIG_KMEMTRACE kmemtrace_wrapper() is empty; with it and the
recorder off it is a static branch, and a test of a local when the
wrapper returns: a kvmalloc()/kvfree() pair of 8 KiB takes 222
instructions instead of 209 on a kernel without CONFIG_JUMP_LABEL."

for p in lib-kasprintf.c.patch lib-kobject.c.patch \
	drivers-base-core.c.patch drivers-base-devres.c.patch; do
	edit "$p"
done
commit "lib, driver core: kasprintf() and the kobject, device and devm_ helpers keep their callers for kmemtrace" \
"kasprintf(), kobject_set_name_vargs(), kobject_set_name(),
kobject_add(), kobject_init_and_add(), dev_set_name(), devm_kstrdup(),
devm_kvasprintf(), devm_kasprintf() and devm_kmemdup() allocate for
their callers without passing the caller's address down, so kmemtrace
names their callers by unwinding, at some 3000 instructions per
allocation.  They now call kmemtrace_wrapper() first, as the mm/
wrappers do: a no-op branch unless the recorder's probes are attached.
On the QEMU test boot some 900 allocations go through them, the device
and kobject names."

edit net-core-skbuff.c.patch
commit "net: kmalloc_reserve() keeps its caller for kmemtrace" \
"An skb head allocated by kmalloc_reserve() has it as its call site;
kmemtrace names its caller (__alloc_skb(), pskb_expand_head() ...) by
unwinding while it records.  kmalloc_reserve() now calls
kmemtrace_wrapper() first, as the mm/ wrappers do: a no-op branch
unless the recorder's probes are attached."

maintainers_with "^F:.(Documentation|arch/|include/|mm/)"
add Documentation/trace/kmemtrace.rst Documentation/ABI/testing/tracefs-kmemtrace
for p in Documentation-trace-index.rst.patch \
	Documentation-admin-guide-kernel-parameters.txt.patch; do
	edit "$p"
done
commit "Documentation: kmemtrace: document the recorder and its ABI" \
"Describe the boot parameters, the tracefs interface and its ABI, the
flight recorder, what the recorder costs in time and memory, and how
to save and read a boot-time trace."

maintainers_with "."
add samples/kmemtrace/Makefile samples/kmemtrace/kmemtrace-retain.c \
	samples/kmemtrace/kmemtrace-bench.c samples/kmemtrace/kmemtrace-bench-rb.c \
	samples/kmemtrace/kmemtrace-stress.c samples/kmemtrace/kmemtrace-leak.c
for p in samples-Kconfig.patch samples-Makefile.patch; do
	edit "$p"
done
commit "samples: kmemtrace: a known boot-time regression, a cost benchmark, a stress, a leak" \
"SAMPLE_KMEMTRACE_RETAIN: a late initcall that keeps 1 MiB (256 objects
of 4 KiB) allocated from one function.  A gate that compares the boot
footprints of two kernels must report exactly this growth, at this
function; kmemflight's boot regression test builds a kernel with it.

SAMPLE_KMEMTRACE_BENCH: /sys/kernel/debug/kmemtrace-bench times N
kmalloc()/kfree() and N alloc_page()/__free_page() pairs on every online
CPU, so that the cost of kmemtrace and of ftrace's kmem events can be
compared in one boot.

SAMPLE_KMEMTRACE_BENCH_RB: /sys/kernel/debug/kmemtrace-bench-rb attaches
kmemtrace's kmem probes writing the same records through the tracing
ring buffer (ring_buffer_lock_reserve()/ring_buffer_unlock_commit()):
what moving the recorder onto kernel/trace/ring_buffer.c would cost per
event, in instructions and in bytes, measured in the same boot.

SAMPLE_KMEMTRACE_STRESS: /sys/kernel/debug/kmemtrace-stress makes every
online CPU allocate from a kthread, a timer and a hard-irq hrtimer at
once, and counts the pairs of each; a trace of the run must hold exactly
those events, in those contexts.

SAMPLE_KMEMTRACE_LEAK: /sys/kernel/debug/kmemtrace-leak keeps kmalloc()ing
from ZONE_DMA until an allocation fails, then frees it all: a page and
a slab allocation failure, which freeze the recorder in flight mode,
without the OOM killer and without starving the rest of the machine."

# every file of the final tree is in a patch, as it is there
if ! diff -r -x .git "$work" "$full" >&2; then
	echo "$0: the series does not make the final tree (above: what differs)" >&2
	exit 1
fi
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
