#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Regenerate the build system (configure, Makefile.in).
set -e
cd "$(dirname "$0")"
autoreconf -fi
