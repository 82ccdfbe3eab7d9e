#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# mkman.sh VLOCKSIM PAGE.1.in > PAGE.1 - a command's man page: the prose of
# PAGE.1.in with its NAME and SYNOPSIS (the line `.\" @NAME-SYNOPSIS@`) and
# OPTIONS (`.\" @OPTIONS@`) from `VLOCKSIM help --format man CMD`, that is
# from the command's option declarations (sim/cli/opt.h).  The command is in
# the page's name: man/vlocksim-trace-import.1.in is `trace import`.
set -e
vs=$1
in=$2
# A command whose name has a hyphen (lab-vm) is itself; else the hyphen
# parts a group from its command (trace-import: trace import).
cmd=$(basename "$in" .1.in | sed -e 's/^vlocksim-//')
gen=${TMPDIR:-/tmp}/mkman.$$
trap 'rm -f "$gen"' EXIT
if ! "$vs" help --format man "$cmd" > "$gen" 2>/dev/null; then
	cmd=$(echo "$cmd" | sed 's/-/ /')
	# shellcheck disable=SC2086
	"$vs" help --format man $cmd > "$gen"
fi
grep -q '^\.\\" OPTIONS$' "$gen"
awk -v gen="$gen" '
	/^\.\\" @NAME-SYNOPSIS@$/ {
		while ((getline l < gen) > 0 && l != ".\\\" OPTIONS")
			print l
		next
	}
	/^\.\\" @OPTIONS@$/ {
		while ((getline l < gen) > 0)
			print l
		next
	}
	{ print }' "$in"
