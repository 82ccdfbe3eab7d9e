#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# e2e_options.sh - every option a command accepts is in its --help, its usage
# line and its man page vlocksim-CMD(1), and every option these list is one
# the binary accepts; each word of a WORD|WORD argument is accepted too.
#
# What the binary accepts is asked of the binary itself: `vlocksim CMD
# --NAME=@@ --zz-not-an-option` fails on --NAME when it is no option of CMD
# ("unrecognized option '--NAME=@@'"), else on its value or on the sentinel
# after it; the sentinel makes every probe stop before anything runs.  The
# names probed are every --name of any command's help, of sim/cli/*.c and of
# the man pages, and every -L letter.
. "$(dirname "$0")/e2e_lib.sh"

SENTINEL=--zz-not-an-option

# accepts CMD OPT: does CMD take OPT (--name or -L)?
accepts() {
	# shellcheck disable=SC2086
	"$VS" $1 "$2=@@" $SENTINEL >/dev/null 2>"$tmp/probe"
	case $2 in
	--*) ! grep -q "unrecognized option '$2=@@'" "$tmp/probe" ;;
	*) ! grep -q "invalid option -- '${2#-}'" "$tmp/probe" ;;
	esac
}

# takes_value CMD OPT WORD: CMD OPT WORD fails only on the sentinel.
takes_value() {
	# shellcheck disable=SC2086
	"$VS" $1 "$2" "$3" $SENTINEL >/dev/null 2>"$tmp/probe"
	grep -q "unrecognized option '$SENTINEL'" "$tmp/probe"
}

# opts_of: the -L and --name of option labels on stdin ("-j N, --jobs N").
opts_of() {
	grep -oE -- '(^|[ ,[])--?[A-Za-z][A-Za-z0-9-]*' | sed 's/^[ ,[]//' | sort -u
}

# The commands, as `vlocksim --help` lists them (name, then operands in capitals).
"$VS" --help > "$tmp/help"
awk '/^commands/ { on = 1; next } /^  --help/ { on = 0 }
	on && /^  [a-z]/ { s = substr($0, 3, 18); n = split(s, w, " "); c = "";
		for (i = 1; i <= n && w[i] ~ /^[a-z][a-z-]*$/; i++) c = c (c == "" ? "" : " ") w[i];
		print c }' "$tmp/help" > "$tmp/cmds"
check "vlocksim --help lists the commands" [ "$(wc -l < "$tmp/cmds")" -ge 8 ]

# Every name that could be an option somewhere.
while read -r c; do
	# shellcheck disable=SC2086
	"$VS" $c --help
done < "$tmp/cmds" | grep '^  -' | sed 's/^  //; s/  .*//' | opts_of > "$tmp/cand"
{
	cat "$tmp/cand"
	cat "$top_srcdir"/sim/cli/*.c "$top_srcdir"/man/*.1.in "$top_srcdir/vlocksim.1" |
	    sed 's/\\-/-/g' | grep -oE -- '--[a-z][a-z0-9-]*[a-z0-9]' | sort -u
} | sort -u > "$tmp/cand.all"
letters=$(echo a b c d e f g h i j k l m n o p q r s t u v w x y z \
    A B C D E F G H I J K L M N O P Q R S T U V W X Y Z)

nman=0
while read -r c; do
	page=$top_builddir/man/vlocksim-$(echo "$c" | tr ' ' -).1
	# shellcheck disable=SC2086
	"$VS" $c --help > "$tmp/chelp"
	grep '^  -' "$tmp/chelp" | sed 's/^  //; s/  .*//' | opts_of > "$tmp/h"
	# the usage lines: up to the first line that starts with neither "usage:" nor spaces
	awk 'NR == 1 || (/^ / && !done) { print; next } { done = 1 }' "$tmp/chelp" |
	    opts_of > "$tmp/u"
	# each option once in the usage line: -j N for "-j N, --jobs N"
	grep '^  -' "$tmp/chelp" | sed 's/^  //; s/  .*//; s/,.*//' | opts_of |
	    grep -v -x -e -h > "$tmp/h.first"
	if cmp -s "$tmp/h.first" "$tmp/u"; then
		ok "$c: the usage line names every option of its list"
	else
		notok "$c: usage line and option list differ"
		diff "$tmp/u" "$tmp/h.first" | sed 's/^/#   /'
	fi
	if [ -f "$page" ]; then
		nman=$((nman + 1))
		sed -n '/^\.SH OPTIONS/,/^\.SH /p' "$page" | grep -A1 '^\.TP' | grep '^\.B' |
		    sed -e 's/\\-/-/g' -e 's/\\f[IPBR]//g' -e 's/^\.B "//' -e 's/"$//' |
		    opts_of > "$tmp/m"
		if cmp -s "$tmp/h" "$tmp/m"; then
			ok "$c: vlocksim-$(echo "$c" | tr ' ' -)(1) OPTIONS has its --help's options"
		else
			notok "$c: --help and the man page's OPTIONS differ"
			diff "$tmp/h" "$tmp/m" | sed 's/^/#   /'
		fi
	else
		notok "$c: no man page $page"
	fi
	bad=""
	while read -r o; do
		case $o in
		-h|--help)	# main.c answers them before the command parses
			# shellcheck disable=SC2086
			"$VS" $c "$o" | grep -q "^usage: vlocksim $c" || bad="$bad $o" ;;
		*) accepts "$c" "$o" || bad="$bad $o" ;;
		esac
	done < "$tmp/h"
	check "$c: every option of its --help is accepted${bad:+ (not:$bad)}" [ -z "$bad" ]
	bad=""
	for o in $(cat "$tmp/cand.all") $(for l in $letters; do echo "-$l"; done); do
		grep -qx -- "$o" "$tmp/h" && continue
		accepts "$c" "$o" || continue
		# getopt_long takes an unambiguous abbreviation: --out of --output
		grep -q -- "^$o" "$tmp/h" && continue
		bad="$bad $o"
	done
	check "$c: accepts no option its --help leaves out${bad:+ (it takes:$bad)}" [ -z "$bad" ]
	# WORD|WORD arguments: each word is taken
	bad=""
	grep '^  -' "$tmp/chelp" | sed 's/^  //; s/  .*//' | grep -E -- '^--[a-z-]+ [a-z.|-]+\|' |
	while read -r o words; do
		for w in $(echo "$words" | tr '|' ' '); do
			takes_value "$c" "$o" "$w" || echo "$o $w"
		done
	done > "$tmp/words"
	check "$c: every word of its WORD|WORD arguments is taken" [ ! -s "$tmp/words" ] ||
	    sed 's/^/#   not taken: /' "$tmp/words"
done < "$tmp/cmds"
ls "$top_srcdir"/man/vlocksim-*.1.in | sed 's,.*/vlocksim-,,; s,\.1\.in$,,' | sort > "$tmp/pages"
tr ' ' - < "$tmp/cmds" | sort > "$tmp/cmdpages"
check "a man page per command, and no page of no command" cmp "$tmp/pages" "$tmp/cmdpages"

# A command of two words: its getopt messages name both.
run trace scenario --no-such-option
check "getopt's messages name the whole command (vlocksim trace scenario:)" \
    grep -q "^vlocksim trace scenario: unrecognized option '--no-such-option'" "$tmp/err"
run trace --help
check "trace --help shows trace import and trace scenario" sh -c \
    "grep -q '^usage: vlocksim trace import ' '$tmp/out' &&
    grep -q '^usage: vlocksim trace scenario ' '$tmp/out'"
run trace export
check "trace export: exit 2, the subcommands shown" sh -c \
    "[ $rc -eq 2 ] && grep -q \"unknown subcommand 'export'\" '$tmp/err' &&
    grep -q '^usage: vlocksim trace import' '$tmp/err'"
run trace export --help
check "trace export --help: exit 2 (no help of a command that does not exist)" sh -c \
    "[ $rc -eq 2 ] && grep -q \"unknown subcommand 'export'\" '$tmp/err'"

e2e_finish
