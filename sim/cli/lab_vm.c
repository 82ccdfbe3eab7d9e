/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lab_vm.c - lockbench inside a guest: whether this machine's /dev/kvm can
 * run a stock guest, the guest's initramfs (busybox-static and a static
 * lockbench), QEMU's command line, the run (vCPU threads pinned or not,
 * the host's halt_poll_ns, `perf kvm stat` beside it) and the guest's
 * output split back into lockbench's files.  cmd_lab_vm.c drives it.
 */
#define _GNU_SOURCE	/* sched_setaffinity, CPU_SET */
#include "config.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lab.h"

/* ---- can this machine run a stock guest? ---- */

#define KVM_IOCTL_API_VERSION 0xAE00	/* <linux/kvm.h> KVM_GET_API_VERSION: _IO(0xAE, 0) */

static int
exists(const char *p)
{
	struct stat st;

	return stat(p, &st) == 0;
}

static void
cpu_flags(struct lab_vm_probe *p)
{
	char line[8192];
	FILE *f = fopen("/proc/cpuinfo", "r");

	if (f == NULL)
		return;
	while (fgets(line, sizeof line, f) != NULL)
		if (strncmp(line, "flags", 5) == 0) {
			char *tok, *save;

			for (tok = strtok_r(line, " \t\n", &save); tok; tok = strtok_r(NULL, " \t\n",
			    &save))
				if (strcmp(tok, "vmx") == 0 || strcmp(tok, "svm") == 0)
					p->vmx_svm = 1;
			break;
		}
	fclose(f);
}

void
lab_vm_probe_read(struct lab_vm_probe *p)
{
	int fd;

	memset(p, 0, sizeof *p);
	p->dev_kvm = exists("/dev/kvm");
	if (p->dev_kvm && (fd = open("/dev/kvm", O_RDWR | O_CLOEXEC)) >= 0) {
		p->dev_open = 1;
		p->api = ioctl(fd, KVM_IOCTL_API_VERSION, 0);
		close(fd);
	} else if (p->dev_kvm) {
		p->open_errno = errno;
	}
	cpu_flags(p);
	p->kvm_intel = exists("/sys/module/kvm_intel");
	p->kvm_amd = exists("/sys/module/kvm_amd");
	p->kvm_pvm = exists("/sys/module/kvm_pvm");
}

int
lab_vm_can_kvm(const struct lab_vm_probe *p, char **why)
{
	*why = NULL;
	if (!p->dev_kvm)
		*why = xstrdup("no /dev/kvm (no kvm module loaded)");
	else if (!p->dev_open)
		*why = xasprintf("/dev/kvm: %s", strerror(p->open_errno));
	else if (p->api != 12)	/* Documentation/virt/kvm/api.rst: KVM_API_VERSION 12 */
		*why = xasprintf("/dev/kvm answers KVM_GET_API_VERSION with %d, not 12", p->api);
	else if (p->kvm_pvm && !p->kvm_intel && !p->kvm_amd)
		/* PVM (kvm_pvm.ko) runs guests without VMX/SVM, in the host's user
		 * mode: only kernels built as PVM guests boot there. */
		*why = xasprintf("/dev/kvm is PVM's (module kvm_pvm loaded, no kvm_intel or "
		    "kvm_amd; /proc/cpuinfo has %s): it runs only guest kernels built for PVM, "
		    "not a stock one", p->vmx_svm ? "vmx/svm" : "no vmx or svm");
	else if (!p->kvm_intel && !p->kvm_amd)
		*why = xasprintf("neither kvm_intel nor kvm_amd is loaded (/proc/cpuinfo has %s)",
		    p->vmx_svm ? "vmx/svm" : "no vmx or svm");
	else if (!p->vmx_svm)
		*why = xstrdup("/proc/cpuinfo has no vmx or svm flag");
	return *why == NULL;
}

/* ---- the initramfs: a newc cpio (the kernel's usr/gen_init_cpio format) ---- */

struct cpio {
	FILE *f;
	unsigned ino;
	long off;
};

static void
cpio_pad(struct cpio *c)
{
	while (c->off % 4 != 0) {
		fputc(0, c->f);
		c->off++;
	}
}

/* One entry: header, name, data (Documentation/driver-api/early-userspace/
 * buffer-format.rst: "070701", 13 eight-digit hex fields, 4-byte padding). */
static void
cpio_entry(struct cpio *c, const char *name, unsigned mode, unsigned rmaj, unsigned rmin,
    const void *data, size_t len)
{
	size_t nlen = strlen(name) + 1;

	c->off += fprintf(c->f, "070701%08X%08X%08X%08X%08X%08X%08lX%08X%08X%08X%08X%08lX%08X",
	    ++c->ino, mode, 0u, 0u, (mode & 0170000) == 0040000 ? 2u : 1u, 0u,
	    (unsigned long)len, 0u, 0u, rmaj, rmin, (unsigned long)nlen, 0u);
	fwrite(name, 1, nlen, c->f);
	c->off += (long)nlen;
	cpio_pad(c);
	if (len > 0) {
		fwrite(data, 1, len, c->f);
		c->off += (long)len;
		cpio_pad(c);
	}
}

static int
cpio_file(struct cpio *c, const char *name, const char *path, struct vs_err *err)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	if (f == NULL)
		return vs_errf(err, NULL, 0, 0, "vlocksim lab-vm: %s: %s", path, strerror(errno));
	if (fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
		fclose(f);
		return vs_errf(err, NULL, 0, 0, "vlocksim lab-vm: %s: cannot size it", path);
	}
	buf = xmalloc((size_t)n + 1);
	if (fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		fclose(f);
		return vs_errf(err, NULL, 0, 0, "vlocksim lab-vm: %s: short read", path);
	}
	fclose(f);
	cpio_entry(c, name, 0100755, 0, 0, buf, (size_t)n);
	free(buf);
	return 0;
}

/* ' inside '...' for the guest's sh */
static void
sh_quote(FILE *f, const char *s)
{
	fputc('\'', f);
	for (; *s; s++)
		if (*s == '\'')
			fputs("'\\''", f);
		else
			fputc(*s, f);
	fputc('\'', f);
}

/* The guest's /init: lockbench's CSVs to the second serial port between
 * markers (LAB_VM_MARK), the kernel's messages on the first, then off. */
static char *
init_script(char *const *bench_args)
{
	char *s = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&s, &len);
	int i;

	if (f == NULL)
		vs_fatal("out of memory");
	fputs("#!/bin/busybox sh\n"
	    "# vlocksim lab-vm: the guest's init (sim/cli/lab_vm.c)\n"
	    "/bin/busybox --install -s /bin\n"
	    "mount -t proc proc /proc\nmount -t sysfs sys /sys\n"
	    "mount -t devtmpfs dev /dev 2>/dev/null\n"
	    "stty -F /dev/ttyS1 raw -echo 2>/dev/null\n"
	    "out=/dev/ttyS1\n", f);
	fprintf(f, "{\necho '" LAB_VM_MARK " begin'\n"
	    "echo \"# guest_kernel: $(uname -r)\"\n"
	    "echo \"# guest_cmdline: $(cat /proc/cmdline)\"\n"
	    "echo \"# guest_cpus: $(nproc)\"\n"
	    "echo '" LAB_VM_MARK " lockbench.csv'\n"
	    "/lab/lockbench");
	for (i = 0; bench_args != NULL && bench_args[i] != NULL; i++) {
		fputc(' ', f);
		sh_quote(f, bench_args[i]);
	}
	fprintf(f, " --per-thread /tmp/threads.csv\nrc=$?\n"
	    "echo '" LAB_VM_MARK " lockbench-threads.csv'\n"
	    "cat /tmp/threads.csv\n"
	    "echo \"" LAB_VM_MARK " end $rc\"\n"
	    "} >$out 2>&1\n"
	    "sync\npoweroff -f\n");
	fclose(f);
	return s;
}

int
lab_vm_initramfs(const char *path, const char *busybox, const char *lockbench,
    char *const *bench_args, struct vs_err *err)
{
	static const char *const dirs[] = { "bin", "dev", "lab", "proc", "sys", "tmp", NULL };
	struct cpio c = { 0 };
	char *init;
	int i, rc;

	if ((c.f = fopen(path, "wb")) == NULL)
		return vs_errf(err, NULL, 0, 0, "vlocksim lab-vm: %s: %s", path, strerror(errno));
	for (i = 0; dirs[i] != NULL; i++)
		cpio_entry(&c, dirs[i], 0040755, 0, 0, NULL, 0);
	/* the console the kernel opens before /init (devices.txt: 5,1) */
	cpio_entry(&c, "dev/console", 0020600, 5, 1, NULL, 0);
	init = init_script(bench_args);
	cpio_entry(&c, "init", 0100755, 0, 0, init, strlen(init));
	free(init);
	rc = cpio_file(&c, "bin/busybox", busybox, err) ||
	    cpio_file(&c, "lab/lockbench", lockbench, err);
	cpio_entry(&c, "TRAILER!!!", 0, 0, 0, NULL, 0);
	if (fclose(c.f) != 0 && rc == 0)
		rc = vs_errf(err, NULL, 0, 0, "vlocksim lab-vm: %s: %s", path, strerror(errno));
	return rc ? -1 : 0;
}

/* Is this ELF file statically linked (no PT_INTERP)?  A dynamic one has no
 * loader or libraries in the initramfs. */
int
lab_vm_is_static(const char *path)
{
	unsigned char h[64], ph[56];
	unsigned long long phoff;
	unsigned phnum, phsz, i;
	FILE *f = fopen(path, "rb");
	int st = 0;

	if (f == NULL)
		return 0;
	if (fread(h, 1, 64, f) != 64 || memcmp(h, "\177ELF", 4) != 0 || h[4] != 2 || h[5] != 1)
		goto out;	/* 64-bit little-endian only: an x86-64 guest */
	memcpy(&phoff, h + 32, 8);
	phsz = h[54] | (unsigned)h[55] << 8;
	phnum = h[56] | (unsigned)h[57] << 8;
	if (phsz != sizeof ph)
		goto out;
	st = 1;
	for (i = 0; i < phnum && st; i++) {
		unsigned type;

		if (fseek(f, (long)(phoff + (unsigned long long)i * phsz), SEEK_SET) != 0 ||
		    fread(ph, 1, sizeof ph, f) != sizeof ph) {
			st = 0;
			break;
		}
		type = ph[0] | (unsigned)ph[1] << 8 | (unsigned)ph[2] << 16 | (unsigned)ph[3] << 24;
		if (type == 3)	/* PT_INTERP */
			st = 0;
	}
out:
	fclose(f);
	return st;
}

/* ---- QEMU's command line ---- */

char **
lab_vm_argv(const struct lab_vm_cfg *c)
{
	char **v = xcalloc(48, sizeof *v);
	int n = 0;

	v[n++] = xstrdup(c->qemu);
	v[n++] = xstrdup("-name");
	/* debug-threads: vCPU threads named "CPU n/KVM" (or /TCG), so they can be pinned */
	v[n++] = xstrdup("vlocksim-lab,debug-threads=on");
	v[n++] = xstrdup("-accel");
	v[n++] = xstrdup(c->kvm ? "kvm" : "tcg,thread=multi");
	v[n++] = xstrdup("-cpu");
	v[n++] = xstrdup(c->kvm ? "host" : "max");
	v[n++] = xstrdup("-smp");
	v[n++] = xasprintf("%d", c->vcpus);
	v[n++] = xstrdup("-m");
	v[n++] = xasprintf("%d", c->mem_mb);
	v[n++] = xstrdup("-nodefaults");
	v[n++] = xstrdup("-no-user-config");
	v[n++] = xstrdup("-display");
	v[n++] = xstrdup("none");
	v[n++] = xstrdup("-no-reboot");
	v[n++] = xstrdup("-kernel");
	v[n++] = xstrdup(c->kernel);
	v[n++] = xstrdup("-initrd");
	v[n++] = xstrdup(c->initrd);
	v[n++] = xstrdup("-append");
	/* nopvspin: Documentation/admin-guide/kernel-parameters.txt (x86 KVM guest,
	 * 5.9+): native qspinlock instead of the paravirt one */
	v[n++] = xasprintf("console=ttyS0 panic=-1 rdinit=/init%s", c->pvspin ? "" :
	    " nopvspin");
	v[n++] = xstrdup("-serial");
	v[n++] = xasprintf("file:%s", c->console);
	v[n++] = xstrdup("-serial");
	v[n++] = xasprintf("file:%s", c->output);
	return v;
}

void
lab_vm_argv_free(char **v)
{
	int i;

	for (i = 0; v != NULL && v[i] != NULL; i++)
		free(v[i]);
	free(v);
}

/* ---- running it ---- */

static void
sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* QEMU's vCPU threads ("CPU n/KVM", "CPU n/TCG"): tids[n], how many found. */
static int
vcpu_threads(pid_t pid, int *tids, int max)
{
	char path[320], comm[64];
	struct dirent *e;
	DIR *d;
	int found = 0, n;

	snprintf(path, sizeof path, "/proc/%d/task", (int)pid);
	if ((d = opendir(path)) == NULL)
		return 0;
	while ((e = readdir(d)) != NULL) {
		FILE *f;

		if (!isdigit((unsigned char)e->d_name[0]))
			continue;
		snprintf(path, sizeof path, "/proc/%d/task/%s/comm", (int)pid, e->d_name);
		if ((f = fopen(path, "r")) == NULL)
			continue;
		if (fgets(comm, sizeof comm, f) != NULL && sscanf(comm, "CPU %d/", &n) == 1 &&
		    n >= 0 && n < max)
			tids[n] = atoi(e->d_name);
		fclose(f);
	}
	closedir(d);
	for (n = 0; n < max; n++)
		found += tids[n] != 0;
	return found;
}

/* vCPU n on pCPU n mod the CPUs (the model's `pin: true`). */
static int
pin_threads(pid_t pid, int vcpus, int cpus, char **text, struct vs_err *err)
{
	int *tids = xcalloc((size_t)vcpus, sizeof *tids), i, tries;
	char *s = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&s, &len);

	if (f == NULL)
		vs_fatal("out of memory");
	for (tries = 0; tries < 3000 && vcpu_threads(pid, tids, vcpus) < vcpus; tries++)
		sleep_ms(10);
	for (i = 0; i < vcpus; i++) {
		cpu_set_t set;

		if (tids[i] == 0) {
			fclose(f);
			free(s);
			free(tids);
			return vs_errf(err, NULL, 0, 0, "vlocksim lab-vm: QEMU's vCPU thread %d not "
			    "found in /proc/%d/task", i, (int)pid);
		}
		CPU_ZERO(&set);
		CPU_SET(i % cpus, &set);
		if (sched_setaffinity(tids[i], sizeof set, &set) != 0) {
			fclose(f);
			free(s);
			free(tids);
			return vs_errf(err, NULL, 0, 0, "vlocksim lab-vm: pinning vCPU %d (thread "
			    "%d): %s", i, tids[i], strerror(errno));
		}
		fprintf(f, "%svCPU %d (thread %d) -> CPU %d", i ? ", " : "", i, tids[i], i % cpus);
	}
	fclose(f);
	free(tids);
	*text = s;
	return 0;
}

static pid_t
spawn(char *const *argv, const char *log)
{
	pid_t pid;

	fflush(NULL);
	if ((pid = fork()) == 0) {
		int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		if (fd >= 0) {
			dup2(fd, STDOUT_FILENO);
			dup2(fd, STDERR_FILENO);
			close(fd);
		}
		fd = open("/dev/null", O_RDONLY);
		if (fd >= 0) {
			dup2(fd, STDIN_FILENO);
			close(fd);
		}
		execvp(argv[0], argv);
		fprintf(stderr, "%s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	return pid;
}

int
lab_vm_run(const struct lab_vm_cfg *c, char *const *argv, const char *qemu_log,
    const char *perf_data, const char *perf_log, struct lab_vm_result *r, struct vs_err *err)
{
	pid_t pid, perf = -1;
	int st, waited = 0;
	time_t t0 = time(NULL);

	memset(r, 0, sizeof *r);
	if ((pid = spawn(argv, qemu_log)) < 0)
		return vs_errf(err, NULL, 0, 0, "vlocksim lab-vm: fork: %s", strerror(errno));
	if (c->pin && pin_threads(pid, c->vcpus, c->cpus, &r->pinning, err) != 0) {
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
		return -1;
	}
	if (perf_data != NULL) {
		char pidarg[16];
		char *pv[] = { (char *)"perf", (char *)"kvm", (char *)"stat", (char *)"record",
			(char *)"-q", (char *)"-o", (char *)perf_data, (char *)"-p", pidarg, NULL };

		snprintf(pidarg, sizeof pidarg, "%d", (int)pid);
		perf = spawn(pv, perf_log);
	}
	for (;;) {
		pid_t w = waitpid(pid, &st, WNOHANG);

		if (w == pid) {
			waited = 1;
			break;
		}
		if (w < 0 && errno != EINTR)
			break;
		if (difftime(time(NULL), t0) > c->timeout_s) {
			r->timed_out = 1;
			kill(pid, SIGKILL);
			waitpid(pid, &st, 0);
			waited = 1;
			break;
		}
		sleep_ms(50);
	}
	r->seconds = difftime(time(NULL), t0);
	if (perf > 0) {
		int pst;

		kill(perf, SIGINT);	/* perf record writes its file on SIGINT */
		waitpid(perf, &pst, 0);
		r->perf_ok = WIFEXITED(pst) && WEXITSTATUS(pst) == 0;
	}
	if (r->timed_out)
		return vs_errf(err, NULL, 0, 0, "vlocksim lab-vm: the guest did not power off "
		    "within %d s (killed; its console: %s)", c->timeout_s, c->console);
	if (!waited || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
		return vs_errf(err, NULL, 0, 0, "vlocksim lab-vm: QEMU failed (%s)", qemu_log);
	return 0;
}

/* ---- the guest's output ---- */

static int
write_part(const char *dir, const char *name, const char *text, size_t len, struct vs_err *err)
{
	char *p = xasprintf("%s/%s", dir, name);
	int rc = vs_write_file_atomic(p, text, len, err);

	free(p);
	return rc;
}

int
lab_vm_split(const char *output, const char *dir, char **guest_header, struct vs_err *err)
{
	char *text = lab_read_text(output, err), *p, *q, *part = NULL, *hdr;
	size_t hlen = 0;
	FILE *h;
	int rc = -1, ended = 0, status = -1;
	const size_t ml = strlen(LAB_VM_MARK);
	char *buf = NULL;
	size_t blen = 0;
	FILE *b = NULL;

	if (text == NULL)
		return -1;
	/* the tty's \r\n to \n */
	for (p = q = text; *p; p++)
		if (*p != '\r')
			*q++ = *p;
	*q = '\0';
	if ((h = open_memstream(&hdr, &hlen)) == NULL)
		vs_fatal("out of memory");
	for (p = strtok(text, "\n"); p != NULL; p = strtok(NULL, "\n")) {
		if (strncmp(p, LAB_VM_MARK " ", ml + 1) == 0) {
			const char *what = p + ml + 1;

			if (b != NULL) {
				fclose(b);
				b = NULL;
				if (write_part(dir, part, buf, blen, err)) {
					free(buf);
					goto out;
				}
				free(buf);
				buf = NULL;
			}
			free(part);
			part = NULL;
			if (strncmp(what, "end ", 4) == 0) {
				status = atoi(what + 4);
				ended = 1;
				break;
			}
			if (strcmp(what, "begin") != 0) {
				part = xstrdup(what);
				if ((b = open_memstream(&buf, &blen)) == NULL)
					vs_fatal("out of memory");
			}
			continue;
		}
		if (b != NULL)
			fprintf(b, "%s\n", p);
		else
			fprintf(h, "%s\n", p);
	}
	if (b != NULL) {
		fclose(b);
		free(buf);
	}
	if (!ended)
		vs_errf(err, NULL, 0, 0, "vlocksim lab-vm: %s: the guest's output ends before its "
		    "end mark (see the console log)", output);
	else if (status != 0)
		vs_errf(err, NULL, 0, 0, "vlocksim lab-vm: lockbench exited %d in the guest (%s)",
		    status, output);
	else
		rc = 0;
out:
	fclose(h);
	free(part);
	free(text);
	if (rc == 0 && guest_header != NULL)
		*guest_header = hdr;
	else
		free(hdr);
	return rc;
}
