#!/bin/sh
# Apply the kmemtrace patch to a Linux 6.12 source tree.
#
#   kernel-patch/apply.sh [--files] TREE
#   kernel-patch/apply.sh --pristine GIT_TREE DIR
#
# New kernel files are kept in this folder under their kernel paths and
# copied in; edits to existing files are the small patches in patches/,
# applied with patch -p1.  --files prints the paths the patch touches
# and changes nothing.  --pristine copies the existing files the patch
# touches, as committed at HEAD of GIT_TREE, into DIR: a tree that
# apply.sh can then patch.
set -eu

here=$(cd "$(dirname "$0")" && pwd)

new_files() {
	(cd "$here" && find arch include mm samples Documentation -type f 2>/dev/null | LC_ALL=C sort)
}

edited_files() {
	sed -n 's|^+++ b/\([^[:space:]]*\).*|\1|p' "$here"/patches/*.patch | LC_ALL=C sort -u
}

if [ "${1:-}" = "--files" ]; then
	{ new_files; edited_files; } | LC_ALL=C sort -u
	exit 0
fi

if [ "${1:-}" = "--pristine" ] && [ $# -eq 3 ]; then
	for f in $("$0" --files); do
		if git -C "$2" cat-file -e "HEAD:$f" 2>/dev/null; then
			mkdir -p "$3/$(dirname "$f")"
			git -C "$2" show "HEAD:$f" > "$3/$f"
		fi
	done
	exit 0
fi

if [ $# -ne 1 ] || [ ! -d "$1" ]; then
	echo "usage: $0 [--files] TREE | --pristine GIT_TREE DIR" >&2
	exit 2
fi
tree=$1
if [ ! -f "$tree/mm/mm_init.c" ]; then
	echo "$0: $tree is not a Linux source tree (no mm/mm_init.c)" >&2
	exit 1
fi

for p in "$here"/patches/*.patch; do
	if ! patch -s -p1 -N --dry-run -d "$tree" < "$p" >/dev/null; then
		echo "$0: $(basename "$p") does not apply to $tree (already applied, or not 6.12?)" >&2
		exit 1
	fi
done
for p in "$here"/patches/*.patch; do
	patch -s -p1 -N -d "$tree" < "$p"
done
new_files | while read -r f; do
	mkdir -p "$tree/$(dirname "$f")"
	cp "$here/$f" "$tree/$f"
done
