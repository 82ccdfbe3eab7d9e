#!/bin/sh
# Regenerate the build system (configure, Makefile.in).
set -e
cd "$(dirname "$0")"
autoreconf -fi
