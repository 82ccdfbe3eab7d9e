/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * kind_none.c - no hypervisor: threads on bare metal.
 *
 * vCPUs stand for CPUs and the "host scheduler" for CPU placement; there are
 * no VM exits and a spin is just a spin.  Idle is the kernel's own: HLT or
 * MWAIT (Intel SDM vol. 2B MWAIT; Linux intel_idle.c) puts the CPU in a
 * C-state without an exit (hv_idle.c picks it and charges its exit latency
 * on the wake), a wake is an IPI to the CPU (the machine's wake_ipi), and
 * there is no halt polling (kvm_vcpu_halt is KVM's).  No hypervisor answers
 * a hypercall or shares steal time, so the scenario refuses a VM that asks
 * for one (scenario.c refuse_pv_native).  The default kind of a struct hv.
 */
#include "hv/kind.h"

const struct hv_kind_ops kind_none_ops = {
	.name = "none",
	.desc = "no hypervisor: threads on bare metal (vCPUs stand for CPUs)",
	.native = 1,
};
