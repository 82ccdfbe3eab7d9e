#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# e2e_docs.sh - what the README and the man page point at is really there.
# In `make distcheck` this runs in the unpacked tarball, so a path the README
# names but `make dist` leaves out fails here.  In a git checkout it also checks
# that every tracked file under configs/, plots/ and validation/ is installed
# (listed in Makefile.am's nobase_dist_pkgdata_DATA or _SCRIPTS).
. "$(dirname "$0")/e2e_lib.sh"

# Paths in the README and the man page: configs/..., validation/... and so on,
# without placeholders (NAME, DIR, CASE: upper-case words).
for doc in README.md vlocksim.1 $(cd "$top_srcdir" && ls man/*.1.in); do
	# roff: \- is a hyphen, \fB...\fR fonts; /usr/... are installed paths
	sed -e 's/\\-/-/g' -e 's/\\f[BIRP]//g' "$top_srcdir/$doc" |
		grep -oE '(^|[^A-Za-z0-9_./])(configs|validation|plots|sim|models|tests|traces|build-aux|debian)/[A-Za-z0-9_.*/-]*' |
		sed -e 's/^[^a-z]//' -e 's/[.]$//' | sort -u > "$tmp/paths"
	bad=""
	n=0
	while read -r p; do
		case $p in *[A-Z][A-Z]*) continue ;; esac
		n=$((n + 1))
		# shellcheck disable=SC2086
		set -- $(cd "$top_srcdir" && echo $p)
		[ -e "$top_srcdir/$1" ] || bad="$bad $p"
	done < "$tmp/paths"
	if [ -z "$bad" ]; then
		ok "$doc: the $n paths it names exist"
	else
		notok "$doc names paths that are not in this tree:$bad"
	fi
done

# The trace commands name files of the tree: ../shared/ is the developers'
# folder, absent from a clone (the samples are in traces/).
for doc in README.md vlocksim.1 traces/README.md $(cd "$top_srcdir" && ls man/*.1.in); do
	n=$(grep -v 'never copied\|not copied\|reads them from' "$top_srcdir/$doc" |
	    grep -c '\.\./shared/traces/')
	check "$doc names no ../shared/traces/ path ($n)" [ "$n" -eq 0 ]
done

# The man page's PARAMETERS and METRICS are what `list --format man` prints.
sed -n '/^\.\\" BEGIN list --format man/,/^\.\\" END list --format man/p' \
	"$top_srcdir/vlocksim.1" | sed '1d;$d' > "$tmp/man-lists"
"$VS" list --format man > "$tmp/list-man"
if [ -s "$tmp/list-man" ] && cmp -s "$tmp/man-lists" "$tmp/list-man"; then
	ok "man page PARAMETERS and METRICS agree with vlocksim list (make man-lists)"
else
	notok "man page lists differ from 'vlocksim list --format man' (run make man-lists)"
	diff "$tmp/man-lists" "$tmp/list-man" | head -20 | sed 's/^/#   /'
fi

# The README names every hypervisor kind, host scheduler, lock and guest
# scheduler that `list` knows, and the metrics it uses in examples exist.
"$VS" list --format yaml > "$tmp/list.yaml"
names=$(awk '/^[a-z_]+:/ { sec = $1 } sec ~ /^(kinds|schedulers|locks|guest_schedulers):$/ &&
	/^  - name: / { gsub(/"/, "", $3); print $3 }' "$tmp/list.yaml")
bad=""
for n in $names; do
	grep -q -- "\`$n\`" "$top_srcdir/README.md" || bad="$bad $n"
done
if [ -n "$names" ] && [ -z "$bad" ]; then
	ok "README names every kind, scheduler, lock and guest scheduler of list"
else
	notok "README does not name (in backquotes):$bad"
fi
nm=$(grep -c '^  - {name: ' "$tmp/list.yaml")
check "list --format yaml has parameters and metrics" [ "$nm" -gt 40 ]

if git -C "$top_srcdir" rev-parse --git-dir >/dev/null 2>&1 &&
	[ -f "$top_srcdir/Makefile.am" ]; then
	git -C "$top_srcdir" ls-files configs plots validation | sort > "$tmp/tracked"
	sed -n '/^nobase_dist_pkgdata_\(DATA\|SCRIPTS\)/,/^$/p' "$top_srcdir/Makefile.am" |
		grep -oE '(configs|plots|validation)/[^ \\]+' | sort > "$tmp/dist"
	missing=$(comm -23 "$tmp/tracked" "$tmp/dist")
	if [ -z "$missing" ]; then
		ok "every tracked file of configs/, plots/, validation/ is installed"
	else
		notok "tracked but not in nobase_dist_pkgdata_DATA or _SCRIPTS: $missing"
	fi
else
	skip "not a git checkout: tracked files against Makefile.am"
fi

e2e_finish
