#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# check_spdx.sh - every source file names its licence with an SPDX line.
# Skipped (77) while no file has one: the lead adds them tree-wide with
# build-aux/spdx.sh; from then on a new file without the line fails here.
: "${top_srcdir:=$(dirname "$0")/..}"
. "$top_srcdir/build-aux/spdx-files.sh"
files=$(spdx_files "$top_srcdir")
tagged=0
missing=""
for f in $files; do
	if grep -Eq '^(/\* |# )SPDX-License-Identifier: GPL-2.0-or-later' "$top_srcdir/$f"; then
		tagged=$((tagged + 1))
	else
		missing="$missing $f"
	fi
done
if [ "$tagged" -eq 0 ]; then
	echo "skip: no SPDX lines yet (run build-aux/spdx.sh)"
	exit 77
fi
if [ -n "$missing" ]; then
	echo "files without 'SPDX-License-Identifier: GPL-2.0-or-later' (run build-aux/spdx.sh):"
	for f in $missing; do echo "  $f"; done
	exit 1
fi
echo "ok - $tagged files carry the SPDX line"
