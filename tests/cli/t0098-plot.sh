#!/bin/sh
# shellcheck disable=SC2016,SC1091,SC2034 # SVGCHECK is used inside the test strings
# kmemflight plot on "mktrace plot" (tests/unit/mktrace.c), worked out
# by hand: held at the end, memblock 2 MiB (setup_arch's reservation);
# the recorder's buffers 64 x 4 KiB; vmalloc 256 KiB (vmap_user's 64
# pages); slab objects 4096 (early_table_init) + 32 x 256 (dev_probe,
# 64 allocated, 32 freed) = 12288; other pages: 1 MiB (core_hash_init's
# order-8 block) + 256 KiB - 256 KiB - 12288 = 1036288; 3670016 in all.
# The phases: early 0-1 ms (4096 allocated, held), core 1-2 ms (1 MiB),
# device 2-3 ms (16384 allocated, 8192 held), /init 3-4 ms (256 KiB).
# Each picture is rendered by librsvg (tests/cli/svgcheck.py render):
# valid, not blank, nothing drawn outside it.
. "$(dirname "$0")/lib.sh"

SVGCHECK="python3 $TEST_DIR/svgcheck.py"

test_expect_success 'plot --help, and usage errors exit 2' '
	"$KMF" plot --help > out &&
	grep -q "^usage: kmemflight plot" out &&
	"$MKTRACE" plot t.kmt &&
	test_must_fail --code=2 "$KMF" plot -o x.svg 2> err &&
	grep -q "missing <file> to draw" err &&
	test_must_fail --code=2 "$KMF" plot -o x.svg t.kmt t.kmt t.kmt 2> err &&
	grep -q "not 3 files" err &&
	test_must_fail --code=2 "$KMF" plot --callers 0 -o x.svg t.kmt 2> err &&
	grep -q "callers wants 1 to 16" err &&
	test_must_fail --code=2 "$KMF" plot --width 100 -o x.svg t.kmt 2> err &&
	grep -q "width wants 640 to 4000" err &&
	test_must_fail --code=2 "$KMF" plot --time 3ms,1ms -o x.svg t.kmt 2> err &&
	grep -q "the start first" err &&
	test_must_fail --code=2 "$KMF" plot --bogus -o x.svg t.kmt &&
	test_must_fail --code=2 "$KMF" plot --without buffers,stacks -o x.svg t.kmt 2> err &&
	grep -qx "kmemflight plot: --without: no kind .stacks.: the kinds are memblock, buffers, vmalloc, slab and pages" err &&
	test_must_fail --code=2 "$KMF" plot --without slab, -o x.svg t.kmt 2> err &&
	grep -q "no kind .." err &&
	test ! -e x.svg
'

test_expect_success 'plot -n: gone, -n is watch'"'"'s --keep; the message says --callers' '
	"$MKTRACE" plot t.kmt &&
	test_must_fail --code=2 "$KMF" plot -n 2 -o x.svg t.kmt 2> err &&
	printf "%s\n" "kmemflight plot: option '"'"'-n'"'"' is now '"'"'--callers <N>'"'"' (-n is watch'"'"'s --keep)" \
		"Try '"'"'kmemflight plot --help'"'"'." > want &&
	test_cmp want err &&
	test ! -e x.svg
'

test_expect_success 'plot: a missing, corrupt or empty-range trace fails, and leaves the old picture' '
	"$MKTRACE" plot t.kmt &&
	echo keep > x.svg &&
	test_must_fail "$KMF" plot -o x.svg nothere.kmt 2> err &&
	grep -q "nothere.kmt" err &&
	head -c 300 t.kmt > cut.kmt &&
	test_must_fail "$KMF" plot -o x.svg cut.kmt 2> err &&
	grep -q "cut.kmt" err &&
	test_must_fail "$KMF" plot --time 1s,2s -o x.svg t.kmt 2> err &&
	grep -q "no event of t.kmt falls within --time" err &&
	test "$(cat x.svg)" = keep &&
	test "$(ls)" = "$(printf "cut.kmt\nerr\nt.kmt\nx.svg")"
'

test_expect_success 'plot: kinds, phases and callers with the bytes worked out by hand' '
	"$MKTRACE" plot t.kmt &&
	"$KMF" plot -o t.svg t.kmt 2> err &&
	test ! -s err &&
	$SVGCHECK render t.svg &&
	$SVGCHECK values t.svg | sed "s|$PWD/||" > got &&
	test_cmp "$TEST_DIR/expect/plot.values" got
'

test_expect_success 'plot: phases before the clock ran are drawn and named, though of no length' '
	"$MKTRACE" plot-noclock t.kmt &&
	"$KMF" plot -o t.svg t.kmt 2> err &&
	test ! -s err &&
	$SVGCHECK render t.svg &&
	$SVGCHECK values t.svg | grep "^phase" > got &&
	cat > want <<-\EOF &&
	phase early start=0 end=0 alloc=0 held=0 label=early (above)
	phase console start=0 end=1000000 alloc=4096 held=4096 label=console
	phase core start=1000000 end=2000000 alloc=1048576 held=1048576 label=core
	phase device start=2000000 end=3000000 alloc=16384 held=8192 label=device
	phase /init start=3000000 end=4000000 alloc=262144 held=262144 label=/init
	EOF
	test_cmp want got &&
	grep -c "the kernel&apos;s clock was not running yet\|the kernel'"'"'s clock was not running yet" t.svg > n &&
	test "$(cat n)" = 2 &&
	"$KMF" report --phase t.kmt > rep &&
	grep -q "^ early (0.000000) " rep &&
	grep -q "^ level console (0.000000) " rep
'

test_expect_success 'plot: the initcall level early and the time before the first level have two names' '
	"$MKTRACE" plot-phases t.kmt &&
	"$KMF" plot --width 4000 -o t.svg t.kmt &&
	$SVGCHECK values t.svg | grep "^phase early " > got &&
	cat > want <<-\EOF &&
	phase early start=9000000 end=180800000 alloc=1024 held=1024 label=early
	phase early start=413500000 end=556700000 alloc=1024 held=1024 label=level early
	EOF
	test_cmp want got
'

test_expect_success 'plot: phases too narrow for their names are named in a row above, with leader lines' '
	"$MKTRACE" plot-phases t.kmt &&
	"$KMF" plot -o t.svg t.kmt &&
	$SVGCHECK render t.svg &&
	$SVGCHECK values t.svg | grep "^phase" | sed "s/ start=.* label=/ /" > got &&
	cat > want <<-\EOF &&
	phase early early
	phase console console
	phase early level early (above)
	phase pure pure (above)
	phase core core (above)
	phase postcore postcore (above)
	phase arch arch (above)
	phase subsys subsys
	phase fs fs
	phase device device
	phase late late
	phase /init /init
	EOF
	test_cmp want got &&
	"$KMF" plot --width 640 -o t.svg t.kmt &&
	$SVGCHECK render t.svg &&
	$SVGCHECK values t.svg > got &&
	! grep "^phase.*label=-" got &&
	test "$(grep -c "^phase.*(above)" got)" -ge 5 &&
	"$MKTRACE" plot t.kmt &&
	"$KMF" plot -o t.svg t.kmt &&
	! grep -q "class=\"leader\"" t.svg
'

test_expect_success 'plot: a column'"'"'s tooltip has the exact bytes of each kind and caller' '
	"$MKTRACE" plot t.kmt &&
	"$KMF" plot -o t.svg t.kmt &&
	$SVGCHECK column t.svg 2900000 > got &&
	cat > want <<-\EOF &&
	at 0.002900000 s
	held: 3,407,872 bytes (3.25 MiB)
	  other pages: 1,036,288 bytes (1012 KiB)
	  slab objects: 12,288 bytes (12.0 KiB)
	  vmalloc areas: 0 bytes
	  the recorder'"'"'s buffers: 262,144 bytes (256 KiB)
	  memblock, reserved at boot: 2,097,152 bytes (2.00 MiB)
	memblock: setup_arch+0x10 2,097,152 bytes (2.00 MiB)
	pages: core_hash_init+0x20 1,048,576 bytes (1.00 MiB)
	pages: vmap_user+0x40 0 bytes
	slab: dev_probe+0x30 8,192 bytes (8.00 KiB)
	slab: early_table_init+0x10 4,096 bytes (4.00 KiB)
	EOF
	test_cmp want got
'

test_expect_success 'plot base new: the base'"'"'s total and callers dashed over the new boot' '
	"$MKTRACE" plot-base base.kmt &&
	"$MKTRACE" plot new.kmt &&
	"$KMF" plot -o o.svg base.kmt new.kmt &&
	$SVGCHECK render o.svg &&
	$SVGCHECK values o.svg > got &&
	grep -qx "base total=2883584" got &&
	grep -qx "base-caller end=524288" got &&
	grep -qx "caller pages core_hash_init+0x20 end=1048576" got &&
	grep -qx "legend base (dashed) base.kmt" got &&
	test "$(grep -c "^base-caller" got)" = 4 &&
	$SVGCHECK column o.svg 3900000 | grep -qx "base: 2,883,584 bytes (2.75 MiB)"
'

test_expect_success 'plot base new: each file'"'"'s own span in the subtitle, and the axis they share once' '
	"$MKTRACE" plot-phases base.kmt &&
	"$MKTRACE" plot new.kmt &&
	"$KMF" plot -o o.svg base.kmt new.kmt &&
	$SVGCHECK render o.svg &&
	$SVGCHECK values o.svg | grep "^subtitle" > got &&
	cat > want <<-\EOF &&
	subtitle new.kmt: 170 events from 0.000000000 s to 0.004000000 s; held at the end: 3,670,016 bytes (3.50 MiB)
	subtitle base (dashed) base.kmt: 24 events from 0.009000000 s to 2.353058776 s; held at its end: 273,408 bytes (267 KiB)
	subtitle both on one time axis, from 0.000000000 s to 2.353058776 s
	EOF
	test_cmp want got
'

test_expect_success 'plot base new: the base'"'"'s legend row, a long path, wraps; at 640 pixels it keeps the file name' '
	d=a-directory-with-a-long-name/and-another-one-below-it/and-a-third-one-here &&
	mkdir -p $d &&
	"$MKTRACE" plot-base $d/base.kmt &&
	"$MKTRACE" plot new.kmt &&
	"$KMF" plot -o o.svg $d/base.kmt new.kmt &&
	$SVGCHECK render o.svg &&
	$SVGCHECK values o.svg > got &&
	! grep "^legend.*…\|^subtitle.*…\|^paneltitle.*…" got &&
	sed -n "/^legend base/,/^legend memblock/p" got > rows &&
	cat > want <<-\EOF &&
	legend base (dashed) a-directory-with-a-long-name/
	legend and-another-one-below-it/and-a-third-one-here/
	legend base.kmt
	legend memblock setup_arch+0x10: 2.00 MiB
	EOF
	test_cmp want rows &&
	"$KMF" plot --width 640 -o o.svg $d/base.kmt new.kmt &&
	$SVGCHECK render o.svg &&
	$SVGCHECK values o.svg > got &&
	grep -qx "legend …/and-a-third-one-here/base.kmt" got &&
	grep -qx "legend memblock, reserved at boot:" got &&
	grep -qx "legend 2.00 MiB" got
'

test_expect_success 'plot --width 4000: a subtitle of 460 characters that fits is whole' '
	d=$(printf "%060d/" 1 2 3 4 5 6) &&
	mkdir -p "$d" &&
	"$MKTRACE" plot "${d}t.kmt" &&
	"$KMF" plot --width 4000 -o t.svg "${d}t.kmt" &&
	$SVGCHECK values t.svg | grep "^subtitle" > got &&
	echo "subtitle ${d}t.kmt: 170 events from 0.000000000 s to 0.004000000 s; held at the end: 3,670,016 bytes (3.50 MiB)" > want &&
	test_cmp want got
'

test_expect_success 'plot --width 640: the lower panel'"'"'s note wraps, not cut' '
	"$MKTRACE" plot-import t.kmt &&
	"$KMF" plot --width 640 -o t.svg t.kmt 2> err &&
	$SVGCHECK render t.svg &&
	$SVGCHECK values t.svg | grep "^paneltitle" > got &&
	cat > want <<-\EOF &&
	paneltitle The caller holding most at the end (pages have
	paneltitle no callers: no callchains, perf kmem --page
	paneltitle record)
	EOF
	test_cmp want got
'

test_expect_success 'plot: what is held is drawn as steps, each sample'"'"'s value held until the next' '
	"$MKTRACE" plot-base base.kmt &&
	"$MKTRACE" plot new.kmt &&
	"$KMF" plot -o o.svg base.kmt new.kmt &&
	$SVGCHECK steps o.svg > out &&
	grep -qx "15 areas and lines, all in steps" out
'

test_expect_success 'plot: the callers'"'"' lines in colours of their own, none a kind'"'"'s' '
	"$MKTRACE" big 3000 t.kmt &&
	"$KMF" plot --callers 16 -o t.svg t.kmt &&
	grep -o "width=\"12\" height=\"12\" fill=\"#[0-9a-f]*\"" t.svg |
		grep -o "#[0-9a-f]*" | sort -u > kinds &&
	grep -o "class=\"line\" stroke=\"#[0-9a-f]*\"" t.svg | grep -o "#[0-9a-f]*" |
		sort -u > lines &&
	test "$(wc -l < kinds)" = 5 &&
	test "$(wc -l < lines)" = 16 &&
	! grep -xFf kinds lines
'

test_expect_success 'plot: a kind the trace could not have recorded is "not recorded", one it recorded and is 0 is 0 B' '
	"$MKTRACE" plot-import t.kmt &&
	"$KMF" plot -o t.svg t.kmt 2> err &&
	$SVGCHECK values t.svg | grep "^legend" > got &&
	cat > want <<-\EOF &&
	legend other pages: 12.0 KiB
	legend slab objects: 4.03 KiB
	legend vmalloc areas: not recorded
	legend the recorder'"'"'s buffers: not recorded
	legend memblock, reserved at boot: not recorded
	legend slab alloc_thing+0x10: 4.03 KiB
	EOF
	test_cmp want got &&
	$SVGCHECK column t.svg 5003000000 > got &&
	grep -qx "  vmalloc areas: not recorded" got &&
	grep -qx "  the recorder'"'"'s buffers: not recorded" got &&
	grep -q "buffers: not recorded: an import from perf: no kmemtrace recorder, so no buffers of its own</title>" t.svg &&
	"$MKTRACE" abi1 t.kmt &&
	"$KMF" plot -o t.svg t.kmt &&
	$SVGCHECK values t.svg > got &&
	grep -qx "legend vmalloc areas: not recorded" got &&
	grep -qx "legend other pages: 0 B" got &&
	grep -q "vmalloc areas: not recorded: its recorder is older than vmalloc" t.svg &&
	"$MKTRACE" plot-nokmem t.kmt &&
	"$KMF" plot -o t.svg t.kmt &&
	$SVGCHECK values t.svg | grep "^legend" > got &&
	cat > want <<-\EOF &&
	legend other pages: not recorded
	legend slab objects: not recorded
	legend vmalloc areas: not recorded
	legend the recorder'"'"'s buffers: 256 KiB
	legend memblock, reserved at boot: not recorded
	EOF
	test_cmp want got &&
	grep -q "slab objects: not recorded: kmemtrace.events left out kmem" t.svg &&
	"$MKTRACE" plot-base t.kmt &&
	"$KMF" plot -o t.svg t.kmt &&
	$SVGCHECK values t.svg > got &&
	grep -qx "legend vmalloc areas: 0 B" got
'

test_expect_success 'plot of an import: titled by its tracer, no boot phase made up' '
	"$MKTRACE" plot-import t.kmt &&
	"$KMF" plot -o t.svg t.kmt 2> err &&
	$SVGCHECK render t.svg &&
	$SVGCHECK values t.svg > got &&
	grep -qx "title Kernel memory over what perf recorded, 6.12.0-test" got &&
	grep -qx "paneltitle The caller holding most at the end (pages have no callers: no callchains, perf kmem --page record)" got &&
	! grep -q "^phase" got &&
	! grep -q "class=\"band\"\|class=\"phasename\"" t.svg &&
	"$MKTRACE" plot-nokmem t.kmt &&
	"$KMF" plot -o t.svg t.kmt &&
	$SVGCHECK values t.svg > got &&
	grep -qx "title Kernel memory over the boot, 6.12.0-test" got &&
	test "$(grep -c "^phase" got)" = 4
'

test_expect_success 'plot --without buffers,memblock: those kinds and their callers left out of the stack, said so' '
	"$MKTRACE" plot-base base.kmt &&
	"$MKTRACE" plot new.kmt &&
	"$KMF" plot --without buffers,memblock -o o.svg base.kmt new.kmt &&
	$SVGCHECK render o.svg &&
	$SVGCHECK values o.svg > got &&
	grep "^kind\|^base total\|^caller" got > kinds &&
	cat > want <<-\EOF &&
	kind vmalloc end=262144 max=262144
	kind slab end=12288 max=20480
	kind pages end=1036288 max=1044480
	base total=524288
	caller pages core_hash_init+0x20 end=1048576
	caller pages vmap_user+0x40 end=262144
	caller slab dev_probe+0x30 end=8192
	caller slab early_table_init+0x10 end=4096
	EOF
	test_cmp want kinds &&
	grep -qx "legend the recorder'"'"'s buffers: 256 KiB, left out" got &&
	grep -qx "legend memblock, reserved at boot: 2.00 MiB, left out" got &&
	grep -q "^subtitle new.kmt: .* held at the end: 3,670,016 bytes (3.50 MiB)$" got &&
	grep -c "fill=\"none\" stroke=\"#[0-9a-f]*\"/>" o.svg > n &&
	test "$(cat n)" = 2 &&
	$SVGCHECK column o.svg 2900000 > col &&
	grep -qx "held: 3,407,872 bytes (3.25 MiB)" col &&
	grep -qx "drawn (--without): 1,048,576 bytes (1.00 MiB)" col &&
	grep -qx "  memblock, reserved at boot: 2,097,152 bytes (2.00 MiB), left out" col &&
	"$KMF" plot --without slab --without pages -o o.svg new.kmt &&
	$SVGCHECK values o.svg > got &&
	! grep "^caller slab\|^caller pages\|^kind slab\|^kind pages" got &&
	grep -qx "caller memblock setup_arch+0x10 end=2097152" got
'

test_expect_success 'plot --time 1ms,3ms: the axis and what is held then' '
	"$MKTRACE" plot t.kmt &&
	"$KMF" plot --time 1ms,3ms --callers 2 -o t.svg t.kmt &&
	$SVGCHECK render t.svg &&
	$SVGCHECK values t.svg > got &&
	grep -q "^subtitle t.kmt: 100 events from 0.001000000 s to 0.003000000 s; held at the end: 3,407,872 bytes (3.25 MiB)$" got &&
	! grep -q "^kind vmalloc" got &&
	grep -qx "kind slab end=12288 max=20480" got &&
	test "$(grep -c "^caller" got)" = 2 &&
	! grep -q "^phase /init" got
'

test_expect_success 'plot: the stack at the end is what report --footprint explains' '
	"$MKTRACE" footprint f.kmt &&
	"$KMF" plot -o f.svg f.kmt &&
	$SVGCHECK render f.svg &&
	sum=$($SVGCHECK values f.svg | sed -n "s/^kind [a-z]* end=\([0-9]*\) .*/\1/p" | paste -sd+ | bc) &&
	"$KMF" report --footprint --json f.kmt > fp.json &&
	explained=$(python3 -c "import json; print(json.load(open(\"fp.json\"))[\"explained\"])") &&
	echo "$sum = $explained" &&
	test "$sum" = 37052416 &&
	test "$sum" = "$explained"
'

test_expect_success 'plot --width 640: a long caller name loses its offset, then its end; values kept, nothing outside' '
	"$MKTRACE" longnames t.kmt &&
	"$KMF" plot --width 640 -o t.svg t.kmt &&
	$SVGCHECK render t.svg > out &&
	grep -qx "rendered 640x722, nothing outside it" out &&
	$SVGCHECK values t.svg > got &&
	grep -qx "legend slab alloc_thing_with_a_…: 3.00 KiB" got &&
	grep -qx "legend slab alloc_thing_with_a_nam…: 32 B" got &&
	grep -qx "legend slab helper_init+0x5: 4.00 KiB" got &&
	"$KMF" plot --width 1300 -o t.svg t.kmt &&
	$SVGCHECK values t.svg > got &&
	grep -qx "legend slab alloc_thing_with_a_name_longer_than_its_column: 32 B" got &&
	grep -qx "legend slab helper_init+0x5: 4.00 KiB" got
'

test_expect_success 'plot of a flight recorder save: the window and its trigger' '
	"$MKTRACE" flight t.kmt &&
	"$KMF" plot -o t.svg t.kmt &&
	$SVGCHECK render t.svg &&
	$SVGCHECK values t.svg > got &&
	grep -qx "trigger oom ts=9000" got &&
	grep -qx "title Kernel memory over the flight recorder'"'"'s window, 6.12.0-test" got &&
	grep -q "class=\"short\"" t.svg
'

test_expect_success 'plot -o replaces a symlink, never writes through it; no -o writes to a pipe' '
	"$MKTRACE" plot t.kmt &&
	echo victim > victim &&
	ln -s victim t.svg &&
	"$KMF" plot -o t.svg t.kmt &&
	test ! -L t.svg &&
	test "$(cat victim)" = victim &&
	"$KMF" plot t.kmt | head -c 38 > head &&
	test "$(cat head)" = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>" &&
	test "$(ls)" = "$(printf "head\nt.kmt\nt.svg\nvictim")"
'

test_expect_success 'plot -o a pipe writes into it; -o a directory fails' '
	"$MKTRACE" plot t.kmt &&
	mkfifo p &&
	{ cat p > got & } &&
	"$KMF" plot -o p t.kmt &&
	wait &&
	test -p p &&
	head -c 5 got | grep -qx "<?xml" &&
	mkdir d &&
	test_must_fail "$KMF" plot -o d t.kmt 2> err &&
	grep -q "d is a directory" err &&
	test "$(ls d)" = ""
'

test_expect_success 'plot: the processes in a panel of their own, apart from the callers, as report --phase counts them' '
	"$MKTRACE" tasks t.kmt &&
	"$KMF" plot -o t.svg t.kmt &&
	$SVGCHECK render t.svg &&
	$SVGCHECK values t.svg > got &&
	grep "^caller" got > lines &&
	cat > want <<-\EOF &&
	caller slab helper_init+0x5 end=1536
	caller slab alloc_thing+0x10 end=364
	caller slab alloc_thing+0x40 end=48
	caller process systemd end=8256
	caller process (udev-worker) end=1024
	caller process systemd-udevd end=512
	caller process swapper/0 end=200
	caller process swapper end=100
	caller process [softirq] end=32
	caller process [unknown task] end=16
	EOF
	test_cmp want lines &&
	grep -qx "axis held by process" got &&
	grep -qx "paneltitle The 3 callers holding most at the end (pages have no callers: no page stacks, kmemtrace.page_stack=N)" got &&
	grep -qx "paneltitle The 7 processes whose allocations hold most at the end (slab and pages)" got &&
	grep -qx "legend systemd: 8.06 KiB" got &&
	grep -c "<g class=\"processes\"" t.svg > n &&
	test "$(cat n)" = 1 &&
	"$KMF" plot --callers 2 -o t.svg t.kmt &&
	$SVGCHECK values t.svg | grep "^caller" > lines &&
	printf "%s\n" "caller slab helper_init+0x5 end=1536" "caller slab alloc_thing+0x10 end=364" \
		"caller process systemd end=8256" "caller process (udev-worker) end=1024" > want &&
	test_cmp want lines &&
	"$KMF" report --phase t.kmt > report &&
	grep -q "^ systemd  *|  *64 |  *64 |  *8192 |  *8192 |" report &&
	"$MKTRACE" plot t.kmt &&
	"$KMF" plot -o t.svg t.kmt &&
	! grep -q "held by process\|class=\"processes\"" t.svg
'

test_expect_success 'plot without a font to measure its labels with: a clear error, no picture' '
	"$MKTRACE" plot t.kmt &&
	printf "<?xml version=\"1.0\"?>\n<fontconfig><dir>%s/none</dir><cachedir>%s/cache</cachedir></fontconfig>\n" \
		"$PWD" "$PWD" > fonts.conf &&
	test_must_fail env FONTCONFIG_FILE="$PWD/fonts.conf" "$KMF" plot -o t.svg t.kmt 2> err &&
	grep -qx "kmemflight plot: error: no font for .DejaVu Sans.: install one (Debian: fonts-dejavu-core)" err &&
	test ! -e t.svg
'

test_done
