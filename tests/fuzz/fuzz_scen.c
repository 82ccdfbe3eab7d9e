/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz_scen.c - libFuzzer target: the scenario loader (and, built with
 * -DFUZZ_RUN, a short bounded run of what it accepts).
 *
 * The input is written as examples/in.yaml in a scratch folder whose
 * machines/ and presets/ link to the tree's configs/, so the seeds' includes
 * (../machines/x5570.yaml) resolve.  Lines "#S:PATH=VALUE" (YAML comments)
 * are also applied as --set overrides, up to 16.  Bad input must come back as
 * an error (exit 2 in the CLI); an abort, a leak, a hang or a blow-up of
 * memory is a bug.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "run.h"
#include "scenario.h"
#include "util.h"

#ifndef VS_SRCDIR
#define VS_SRCDIR "."
#endif

static char dir[256], path[300];

static void
setup(void)
{
	static const char *const links[] = { "machines", "presets", "seed000", NULL };
	char src[512], dst[512];
	int i;

	snprintf(dir, sizeof dir, "%s/vlocksim-fuzz.%d", getenv("TMPDIR") ? getenv("TMPDIR") :
	    "/tmp", (int)getpid());
	mkdir(dir, 0777);
	for (i = 0; links[i] != NULL; i++) {
		snprintf(src, sizeof src, "%s/configs/%s", VS_SRCDIR, links[i]);
		snprintf(dst, sizeof dst, "%s/%s", dir, links[i]);
		if (symlink(src, dst) != 0 && access(dst, F_OK) != 0)
			perror(dst);
	}
	snprintf(dst, sizeof dst, "%s/examples", dir);
	mkdir(dst, 0777);
	snprintf(path, sizeof path, "%s/examples/in.yaml", dir);
	/* A fuzzed scenario may be sized for a big machine; the fuzzer's is small. */
	scen_set_mem_limit((size_t)256 << 20);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text, *sets[20], *p, *nl;
	struct scenario sc;
	struct vs_err err;
	int nsets = 0;
	FILE *f;

	if (dir[0] == '\0')
		setup();
	if ((f = fopen(path, "wb")) == NULL)
		return 0;
	fwrite(data, 1, size, f);
	fclose(f);
	text = malloc(size + 1);
	memcpy(text, data, size);
	text[size] = '\0';
	for (p = text; p != NULL && nsets < 16; p = nl) {
		if ((nl = strchr(p, '\n')) != NULL)
			*nl++ = '\0';
		if (strncmp(p, "#S:", 3) == 0)
			sets[nsets++] = p + 3;
	}
#ifdef FUZZ_RUN
	sets[nsets++] = "reps=1";
	sets[nsets++] = "duration=20us";
#endif
	memset(&sc, 0, sizeof sc);
	if (scen_load(&sc, path, sets, nsets, &err) == 0) {
#ifdef FUZZ_RUN
		struct run_opts ro = { 0, 3, NULL };	/* --check=full */
		struct metrics m;

		metrics_init(&m);
		run_once(&sc, sc.seed, &ro, &m, &err);
		metrics_free(&m);
#endif
	}
	scen_free(&sc);
	free(text);
	unlink(path);
	return 0;
}
