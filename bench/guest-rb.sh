#!/bin/sh
# In the ring-buffer size guest (bench/ring-buffer.sh): the
# kmemtrace-bench-rb sample wrote the boot's kmem events into the tracing
# ring buffer from an early initcall; print what it holds.
set -eu

rb=/sys/kernel/debug/kmemtrace-bench-rb
[ -r "$rb" ] || { echo "no $rb: a kernel without the kmemtrace-bench-rb sample" >&2; exit 1; }
sed 's/^/rb /' "$rb"
