/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * kind_none.c - no hypervisor: threads on bare metal.
 *
 * vCPUs stand for CPUs and the "host scheduler" for CPU placement; there are
 * no VM exits and a spin is just a spin.  The default kind of a struct hv.
 */
#include "hv/kind.h"

const struct hv_kind_ops kind_none_ops = {
	.name = "none",
	.desc = "no hypervisor: threads on bare metal (vCPUs stand for CPUs)",
};
