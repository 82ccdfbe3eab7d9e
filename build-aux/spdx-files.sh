# spdx-files.sh - the source files that carry an SPDX line; sourced by
# build-aux/spdx.sh (adds the lines) and tests/check_spdx.sh (checks them).
# spdx_files DIR: one path per line, relative to DIR.
spdx_files() {
	(cd "$1" && find . \( -name .git -o -name build-san -o -name autom4te.cache \
		-o -path ./tests/data -o -path ./debian/vlocksim \
		-o -path ./debian/.debhelper -o -path './vlocksim-*' -o -path ./out \
		-o -path ./_build -o -path ./_inst \) -prune -o \
		-type f \( -name '*.c' -o -name '*.h' -o -name '*.sh' -o -name '*.gp' \
		-o -name Makefile.am -o -name configure.ac -o -path ./.ci/run \
		-o -path ./debian/rules \) -print |
		grep -v -e '/config\.h$' -e '^\./build-aux/spdx' | sed 's|^\./||' | LC_ALL=C sort)
}
