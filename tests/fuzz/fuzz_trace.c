/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz_trace.c - libFuzzer target: one trace importer, chosen at build time
 * with -DFUZZ_FMT=TI_FMT_TRACECMD, _XENTRACE, _XENALYZE, _LOCKSTAT, _PERFKVM
 * or _DAT (trace.dat: the structure check, then libtracecmd in a child).
 * What is imported is also summarised, written as YAML and as a measured
 * CSV, the three things `vlocksim trace import` prints.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "trace_in.h"
#include "util.h"

/*
 * malloc as in production: NULL for a size no allocator can give.  trace.dat
 * runs libtracecmd in a child that exists to contain its failures; under
 * ASan's default a request of 2^57 bytes there (a zstd-compressed file's own
 * sizes) was a "crash" of the child that the real binary refuses with exit 2
 * (tests/bad/trace-dat-zstd-alloc.fuzz.dat).  vlocksim's own allocations go
 * through xmalloc, which still aborts on NULL: the fuzzer still sees those.
 */
const char *__asan_default_options(void);
const char *
__asan_default_options(void)
{
	return "allocator_may_return_null=1";
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char path[300];
	struct ti_trace *t;
	struct vs_err err;
	FILE *f;

	if (path[0] == '\0')
		snprintf(path, sizeof path, "%s/vlocksim-fuzz-trace.%d", getenv("TMPDIR") ?
		    getenv("TMPDIR") : "/tmp", (int)getpid());
	if ((f = fopen(path, "wb")) == NULL)
		return 0;
	fwrite(data, 1, size, f);
	fclose(f);
	t = ti_new(0);
	if (ti_import(t, path, FUZZ_FMT, &err) == 0) {
		free(ti_summary(t));
		free(ti_yaml(t));
		free(ti_measured_csv(t, "setup", "command", "note"));
	}
	ti_free(t);
	unlink(path);
	return 0;
}
