#!/bin/sh
# quickstart.sh - set up vlocksim on Debian 12 and run the default scenario.
# Safe to run again: it installs only what is missing and rebuilds only what changed.
set -e
cd "$(dirname "$0")"

need="gcc make autoconf automake pkg-config libgsl-dev libyaml-dev check gnuplot-nox python3"
missing=""
for p in $need; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
		missing="$missing $p"
done
if [ -n "$missing" ]; then
	echo "quickstart: installing$missing"
	if [ "$(id -u)" -ne 0 ]; then
		echo "quickstart: run as root (or install:$missing)" >&2
		exit 1
	fi
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >/dev/null
fi

[ -x configure ] || autoreconf -fi
[ -f Makefile ] || ./configure -q
make -j"$(nproc)" >/dev/null

./vlocksim run configs/default.yaml --out out/default
echo "quickstart: results in out/default/"
