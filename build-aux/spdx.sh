#!/bin/sh
# spdx.sh [DIR] - add "SPDX-License-Identifier: GPL-2.0-or-later" to every
# source file of the tree (default: the tree this script is in) that lacks it.
# C sources get a first line /* ... */; scripts and makefiles a "# ..." line
# (after the #! line when there is one).  Idempotent: run it again after
# adding files.  Only sh, find, grep and sed.
set -eu
top=${1:-$(cd "$(dirname "$0")/.." && pwd)}
. "$top/build-aux/spdx-files.sh"
tag='SPDX-License-Identifier: GPL-2.0-or-later'
n=0
for f in $(spdx_files "$top"); do
	p=$top/$f
	grep -Eq '^(/\* |# )SPDX-License-Identifier:' "$p" && continue
	case $f in
	*.c|*.h)
		sed -i "1i /* $tag */" "$p" ;;
	*)
		if head -n 1 "$p" | grep -q '^#!'; then
			sed -i "1a # $tag" "$p"
		else
			sed -i "1i # $tag" "$p"
		fi ;;
	esac
	n=$((n + 1))
done
echo "spdx.sh: $n files tagged"
