#!/bin/sh
# shellcheck disable=SC2016,SC1091
# report --phase on "mktrace tasks" (tests/unit/mktrace.c): who allocated,
# by process name and by the systemd unit of its cgroup, followed through
# the task records (fork, exec, rename, cgroup moves and cgroups made,
# cgroups named by id, their paths from those records and from the tree
# at the save), and the same on "tasks-v0", written as recorders did
# before the cgroup id (paths in every record).  Kept at the end,
# worked out by hand: swapper 100, swapper/0 200, systemd 64 + an 8 KiB
# page, systemd-udevd 512 (and 128 freed), (udev-worker) 1024, [softirq]
# 32, [unknown task] 16; by unit: getty@tty1.service 8192 (cloned into a
# cgroup below it), systemd-udevd.service 1536, init.scope 64, the root
# cgroup 348.
. "$(dirname "$0")/lib.sh"

test_expect_success 'report --phase: by process and by unit, what each allocated and kept' '
	"$MKTRACE" tasks t.kmt &&
	"$KMF" report --phase t.kmt > out 2> err &&
	sed -n "/^Processes by/,\$p" out > got &&
	test_cmp "$TEST_DIR/expect/tasks.phase" got &&
	test ! -s err && columns_aligned got
'

test_expect_success 'a trace of a recorder before the cgroup id: the same bytes' '
	"$MKTRACE" tasks-v0 t.kmt &&
	"$KMF" report --phase t.kmt > out 2> err &&
	sed -n "/^Processes by/,\$p" out > got &&
	test_cmp "$TEST_DIR/expect/tasks-v0.phase" got &&
	test ! -s err &&
	sed "s/|  *[0-9]*\$//" "$TEST_DIR/expect/tasks.phase" > ids &&
	sed "s/|  *[0-9]*\$//" got > paths &&
	test_cmp ids paths
'

test_expect_success 'report --phase --json and --csv: the same rows' '
	"$MKTRACE" tasks t.kmt &&
	"$KMF" report --phase --json t.kmt > j &&
	python3 -c "
import json, sys
d = json.load(open(\"j\"))
p = {r[\"process\"]: (r[\"slab_retained\"], r[\"page_retained\"]) for r in d[\"processes\"]}
u = {r[\"unit\"]: (r[\"slab_retained\"], r[\"page_retained\"]) for r in d[\"units\"]}
assert p == {\"systemd\": (64, 8192), \"(udev-worker)\": (1024, 0), \"systemd-udevd\": (512, 0),
	\"swapper/0\": (200, 0), \"swapper\": (100, 0), \"[softirq]\": (32, 0),
	\"[unknown task]\": (16, 0)}, p
assert u == {\"getty@tty1.service\": (0, 8192), \"systemd-udevd.service\": (1536, 0),
	\"-\": (348, 0), \"init.scope\": (64, 0)}, u
" &&
	"$KMF" report --phase --csv t.kmt > c &&
	grep -qx "systemd-udevd.service,1664,1536,0,0,6" c &&
	grep -qx "(udev-worker),1024,1024,0,0,2" c
'

test_expect_success 'report --phase -l 2: the first two rows of each' '
	"$MKTRACE" tasks t.kmt &&
	"$KMF" report --phase -l 2 t.kmt > out &&
	sed -n "/^Processes by/,/^\$/p" out | grep -c "^ [^ -]" > n &&
	test "$(cat n)" = 4
'

test_expect_success 'dump prints the task records, with cgroup ids and the cgroups made' '
	"$MKTRACE" tasks t.kmt &&
	"$KMF" dump t.kmt | grep " task " > got &&
	grep -qx "440 0 task:1 task op=mkdir pid=1 comm=systemd cgroup=/init.scope cgroup_id=2" got &&
	grep -qx "700 1 task:20 task op=exec pid=20 comm=systemd-udevd filename=/lib/systemd/systemd-udevd cgroup_id=4" got &&
	grep -qx "1300 0 task:1 task op=new pid=30 ppid=1 comm=systemd cgroup_id=9" got &&
	test "$(wc -l < got)" = 12
'

test_expect_success 'dump prints the task records of a recorder before the cgroup id' '
	"$MKTRACE" tasks-v0 t.kmt &&
	"$KMF" dump t.kmt | grep " task " > got &&
	grep -qx "650 0 task:1 task op=cgroup pid=20 threadgroup=1 comm=(md-udevd) cgroup=/system.slice/systemd-udevd.service" got &&
	grep -qx "900 1 task:20 task op=new pid=21 ppid=20 comm=systemd-udevd" got &&
	grep -qx "950 1 task:21 task op=rename pid=21 comm=(udev-worker)" got &&
	grep -qx "400 0 task:1 task op=exec pid=1 comm=systemd filename=/sbin/init cgroup=/" got &&
	test "$(wc -l < got)" = 9
'

test_expect_success 'a trace without task records says so, and no table' '
	"$MKTRACE" phases p.kmt &&
	"$KMF" report --phase p.kmt > out &&
	grep -q "^(no task records: who allocated in user space needs a recorder that writes them" out &&
	! grep -q "^Processes by" out
'

test_done
