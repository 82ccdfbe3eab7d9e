/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lab.h - `vlocksim lab` (cmd_lab.c): lockbench measured on this machine,
 * written as a validation case, calibrated on one declared row and the
 * other rows predicted.  lab_host.c says what the machine is; lab_bench.c
 * runs lockbench and reads its CSV; lab_files.c writes the case.
 */
#ifndef VS_LAB_H
#define VS_LAB_H

#include <stddef.h>

#include "util.h"

/* ---- lab_host.c: the machine and its kernel ---- */

struct lab_host {
	char hostname[64];
	char kernel[128];	/* uname -r */
	char kernel_build[256];	/* uname -v */
	char cpu[128];		/* /proc/cpuinfo model name */
	char hv_cpuid[16];	/* CPUID 0x40000000 vendor ("KVMKVMKVM"), "" on bare metal */
	char sys_hypervisor[32];	/* /sys/hypervisor/type (Xen), "" if none */
	int cpus;		/* online */
	int hypervisor_flag;	/* /proc/cpuinfo flags: hypervisor */
	int kmajor, kminor;
	int hz;			/* CONFIG_HZ of the running kernel; 0: not found */
	char hz_source[64];	/* where hz came from */
};

void lab_host_read(struct lab_host *);
/* Is this machine itself a VM (any of the three signs)? */
int lab_host_is_vm(const struct lab_host *);
/* "a VM (cpuinfo flag hypervisor, CPUID KVMKVMKVM)" or "bare metal (...)" */
char *lab_host_vm_text(const struct lab_host *);
/* The running kernel's fair scheduler as vlocksim names it: EEVDF from 6.6. */
const char *lab_host_scheduler(const struct lab_host *);
/* DELAY_DEQUEUE is on by default from 6.12 (kernel/sched/features.h). */
int lab_host_delay_dequeue(const struct lab_host *);
/* EEVDF's sysctl_sched_base_slice before the CPU-count factor: 0.7ms from 6.15. */
const char *lab_host_base_slice(const struct lab_host *);

/* ---- lab_bench.c: lockbench ---- */

/* Where lockbench is: --lockbench; beside this vlocksim (a build tree's
 * bench/lab/, an installed tree's ../libexec/vlocksim/); the configured
 * pkglibexecdir.  NULL when none is executable. */
char *lab_lockbench_find(const char *given);

/* lockbench's --sample: the machine over `secs` before anything runs. */
struct lab_idle {
	double load1, others, steal;	/* 1-min load; CPU shares in [0, 1] */
};
int lab_sample(const char *lockbench, double secs, struct lab_idle *, struct vs_err *err);

/* Run lockbench ARGV (argv[0] its path) with stdout to the file `out`, or
 * into *text (malloc'd); -1 + err if it fails or exits non-zero. */
int lab_spawn(char *const *argv, const char *out, struct vs_err *err);
int lab_capture(char *const *argv, char **text, struct vs_err *err);
/* A whole file (malloc'd), or NULL + err. */
char *lab_read_text(const char *path, struct vs_err *err);

/* One (lock, threads) of lockbench's CSV: its replications summarised. */
struct lab_stat {
	double mean, sd, min, max;
	int n;
};

enum lab_col {
	LC_OPS, LC_JAIN, LC_MIN_SHARE, LC_MAX_SHARE, LC_WAIT, LC_HO_MEAN, LC_HO_P50,
	LC_HO_P99, LC_HOLD, LC_DELAY, LC_CS, LC_IVCS, LC_LOAD0, LC_LOAD1, LC_OTHERS,
	LC_STEAL, LC_IDLE, LC_RATE, LC_NCOLS
};

struct lab_row {
	char *lock, *model;	/* lockbench's name, the vlocksim lock */
	int threads;
	struct lab_stat s[LC_NCOLS];
	int busy;		/* a replication with others' CPU or steal over the limit */
	int packed;		/* a replication where CPUs idled while threads waited */
	int invalid;		/* a replication failed the exclusion check */
};

struct lab_bench {
	/* the header's `# key: value` lines */
	int cpus, cpus_allowed;	/* online; in lockbench's affinity mask */
	double compute_ns, hold_ns, iters_per_ns, iters_per_ns_median, clock_ns;
	double loop_ns, section_ns;	/* lockbench's own loop, no lock; 0: not given */
	double duration, warmup;
	int reps;
	struct lab_row *rows;
	int nrows;
};

/* Read lockbench's CSV; rows with others_cpu > max_others or steal >
 * max_steal in a replication are marked busy, rows where more than
 * LAB_PACKED of the CPU time was idle while the threads waited runnable more
 * than LAB_PACKED of theirs packed.  models: lockbench --list. */
#define LAB_PACKED 0.1
int lab_bench_load(struct lab_bench *, const char *csv, const char *models_csv,
    double max_others, double max_steal, struct vs_err *err);
void lab_bench_free(struct lab_bench *);
/* The row of LOCK with N threads, or NULL. */
const struct lab_row *lab_bench_find(const struct lab_bench *, const char *lock, int threads);

/* ---- lab_files.c: the case ---- */

struct lab_case {
	const char *name;	/* the case's name (lab) */
	const char *cal_lock;	/* the calibration row */
	int cal_threads;
	double line_ns;		/* the probe's line_socket, the fit's start (<= 0: 100 ns) */
	double sim_duration_ms;
	int sim_reps;
	double tol_rel;
	double max_others, max_steal;
	struct lab_idle idle;	/* before the measurement */
	const char *date;	/* UTC, ISO 8601 */
	const char *setting;	/* where lockbench ran when not on this machine itself
				 * (a guest's configuration), or NULL */
};

/* Into dir: measured.csv, lab-table.csv, scenario.yaml, row-tN-LOCK.yaml,
 * case.yaml, calibration.yaml, calibrated.yaml (the fit's start). */
int lab_write_case(const char *dir, const struct lab_case *, const struct lab_host *,
    const struct lab_bench *, struct vs_err *err);
/* Into dir: PREFIX-measured.csv and PREFIX-lab-table.csv only (a guest's
 * measurement; lc->setting says where it ran). */
int lab_write_measured(const char *dir, const char *prefix, const struct lab_case *,
    const struct lab_host *, const struct lab_bench *, struct vs_err *err);

/* ---- lab_vm.c: lockbench in a guest under QEMU ---- */

/* What /dev/kvm and the CPU say. */
struct lab_vm_probe {
	int dev_kvm, dev_open, open_errno, api;
	int vmx_svm;			/* /proc/cpuinfo flags */
	int kvm_intel, kvm_amd, kvm_pvm;	/* /sys/module/ */
};
void lab_vm_probe_read(struct lab_vm_probe *);
/* 1 if /dev/kvm can run a stock guest; else 0 and *why (malloc'd). */
int lab_vm_can_kvm(const struct lab_vm_probe *, char **why);

/* The guest's output: lines of the second serial port; a part begins with
 * "LAB_VM_MARK NAME" and the last line is "LAB_VM_MARK end STATUS". */
#define LAB_VM_MARK "#@vlocksim-lab"

/* A newc cpio: busybox, lockbench (both static) and an /init that runs
 * lockbench with bench_args (NULL-terminated) and powers off. */
int lab_vm_initramfs(const char *path, const char *busybox, const char *lockbench,
    char *const *bench_args, struct vs_err *err);
/* An x86-64 ELF without an interpreter? */
int lab_vm_is_static(const char *path);

struct lab_vm_cfg {
	const char *qemu, *kernel, *initrd;
	const char *console, *output;	/* the guest's ttyS0 and ttyS1, as files */
	int kvm;			/* else TCG */
	int vcpus, cpus, mem_mb;
	int pin;			/* vCPU n's thread on CPU n mod cpus */
	int pvspin;			/* 0: nopvspin on the guest's command line */
	int timeout_s;
};
char **lab_vm_argv(const struct lab_vm_cfg *);
void lab_vm_argv_free(char **);

struct lab_vm_result {
	char *pinning;		/* "vCPU 0 (thread T) -> CPU 0, ..." or NULL */
	double seconds;
	int timed_out, perf_ok;
};
/* Run QEMU (argv) to the guest's power-off, its own messages into qemu_log;
 * with perf_data, `perf kvm stat record` of it beside (perf_log). */
int lab_vm_run(const struct lab_vm_cfg *, char *const *argv, const char *qemu_log,
    const char *perf_data, const char *perf_log, struct lab_vm_result *, struct vs_err *err);
/* The guest's output file into dir/lockbench.csv and dir/lockbench-threads.csv;
 * the lines before the first part (the guest's kernel and command line) into
 * *guest_header.  -1 + err when the end mark is missing or lockbench failed. */
int lab_vm_split(const char *output, const char *dir, char **guest_header,
    struct vs_err *err);

#endif
