/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lab_host.c - what `vlocksim lab` records about the machine it measures:
 * kernel, CPU, whether the machine is itself a VM (the cpuinfo `hypervisor`
 * flag, CPUID leaf 0x40000000's vendor, /sys/hypervisor), and the running
 * kernel's scheduler and HZ, which the lab's scenario takes as its host.
 */
#include "config.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <zlib.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include "lab.h"

static void
chomp(char *s)
{
	size_t n = strlen(s);

	while (n > 0 && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
}

static void
read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");

	buf[0] = '\0';
	if (f == NULL)
		return;
	if (fgets(buf, (int)len, f) == NULL)
		buf[0] = '\0';
	fclose(f);
	chomp(buf);
}

static void
read_cpuinfo(struct lab_host *h)
{
	char line[4096], *v;
	FILE *f = fopen("/proc/cpuinfo", "r");

	if (f == NULL)
		return;
	while (fgets(line, sizeof line, f) != NULL) {
		if ((v = strchr(line, ':')) == NULL)
			continue;
		v++;
		while (*v == ' ')
			v++;
		chomp(v);
		if (h->cpu[0] == '\0' && strncmp(line, "model name", 10) == 0)
			snprintf(h->cpu, sizeof h->cpu, "%s", v);
		else if (strncmp(line, "flags", 5) == 0 &&
		    (strstr(v, " hypervisor ") != NULL || strncmp(v, "hypervisor ", 11) == 0))
			h->hypervisor_flag = 1;
	}
	fclose(f);
}

static void
read_cpuid(struct lab_host *h)
{
	h->hv_cpuid[0] = '\0';
#if defined(__x86_64__) || defined(__i386__)
	{
		unsigned a, b, c, d;

		/* Only meaningful when the hypervisor bit (CPUID.1:ECX[31]) is set. */
		__cpuid(1, a, b, c, d);
		if (!(c & (1u << 31)))
			return;
		__cpuid(0x40000000, a, b, c, d);
		memcpy(h->hv_cpuid, &b, 4);
		memcpy(h->hv_cpuid + 4, &c, 4);
		memcpy(h->hv_cpuid + 8, &d, 4);
		h->hv_cpuid[12] = '\0';
	}
#endif
}

/* CONFIG_HZ from /proc/config.gz (CONFIG_IKCONFIG_PROC) or /boot/config-R. */
static void
read_hz(struct lab_host *h)
{
	char path[300], line[256];
	gzFile z;

	h->hz = 0;
	snprintf(path, sizeof path, "/boot/config-%s", h->kernel);
	if ((z = gzopen("/proc/config.gz", "rb")) != NULL)
		snprintf(h->hz_source, sizeof h->hz_source, "/proc/config.gz");
	else if ((z = gzopen(path, "rb")) != NULL)	/* gzread reads plain files too */
		snprintf(h->hz_source, sizeof h->hz_source, "/boot/config-*");
	if (z == NULL)
		return;
	while (gzgets(z, line, sizeof line) != NULL)
		if (strncmp(line, "CONFIG_HZ=", 10) == 0) {
			h->hz = atoi(line + 10);
			break;
		}
	gzclose(z);
}

void
lab_host_read(struct lab_host *h)
{
	struct utsname u;
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	memset(h, 0, sizeof *h);
	if (gethostname(h->hostname, sizeof h->hostname) != 0)
		snprintf(h->hostname, sizeof h->hostname, "this-host");
	h->hostname[sizeof h->hostname - 1] = '\0';
	if (uname(&u) == 0) {
		snprintf(h->kernel, sizeof h->kernel, "%s", u.release);
		snprintf(h->kernel_build, sizeof h->kernel_build, "%s", u.version);
		if (sscanf(u.release, "%d.%d", &h->kmajor, &h->kminor) != 2)
			h->kmajor = h->kminor = 0;
	}
	h->cpus = n > 0 ? (int)n : 1;
	snprintf(h->cpu, sizeof h->cpu, "%s", "");
	read_cpuinfo(h);
	if (h->cpu[0] == '\0')
		snprintf(h->cpu, sizeof h->cpu, "unknown CPU");
	read_cpuid(h);
	read_line("/sys/hypervisor/type", h->sys_hypervisor, sizeof h->sys_hypervisor);
	read_hz(h);
}

int
lab_host_is_vm(const struct lab_host *h)
{
	return h->hypervisor_flag || h->hv_cpuid[0] != '\0' || h->sys_hypervisor[0] != '\0';
}

char *
lab_host_vm_text(const struct lab_host *h)
{
	return xasprintf("%s (/proc/cpuinfo hypervisor flag: %s; CPUID 0x40000000: %s; "
	    "/sys/hypervisor/type: %s)", lab_host_is_vm(h) ? "a VM" : "bare metal",
	    h->hypervisor_flag ? "yes" : "no", h->hv_cpuid[0] ? h->hv_cpuid : "none",
	    h->sys_hypervisor[0] ? h->sys_hypervisor : "none");
}

static int
at_least(const struct lab_host *h, int major, int minor)
{
	return h->kmajor > major || (h->kmajor == major && h->kminor >= minor);
}

const char *
lab_host_scheduler(const struct lab_host *h)
{
	/* LNX-6.6 kernel/sched/fair.c: EEVDF's pick replaced CFS's in 6.6. */
	return at_least(h, 6, 6) ? "eevdf" : "cfs";
}

int
lab_host_delay_dequeue(const struct lab_host *h)
{
	/* LNX-6.12 kernel/sched/features.h: SCHED_FEAT(DELAY_DEQUEUE, true). */
	return at_least(h, 6, 12);
}

const char *
lab_host_base_slice(const struct lab_host *h)
{
	/* LNX-6.15 fair.c (commit 2ae891b8, "sched: Reduce the default slice to
	 * avoid tasks getting an extra tick"): sysctl_sched_base_slice 0.70 ms,
	 * was 0.75 ms from 6.6 */
	return at_least(h, 6, 15) ? "0.7ms" : "0.75ms";
}
