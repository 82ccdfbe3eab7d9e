/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * hv_io.c - the path of a guest device access on each kind of host
 * (hv_io.h has the code it follows).  The kind says whether a device access
 * exits at all (not on a native kind) and whether it has KVM's fast MMIO bus.
 */
#include "hv/hv_io.h"

#include "hv/kind.h"
#include "hw/machine.h"

static const char *const path_names[IOP_N] = { "device", "pio_kernel", "pio_user",
	"mmio_fast", "mmio_kernel", "mmio_user", "hypercall" };

enum io_path
hv_io_route(const struct hv_kind_ops *k, const struct machine *m, enum guest_io kind,
    double *ns)
{
	/* a native kind never gets one: the scenario refuses it (refuse_pv_native) */
	if (kind == IO_HYPERCALL) {
		*ns = m->exit_hypercall_ns;
		return IOP_HYPERCALL;
	}
	if (k->native) {
		/* bare metal: the CPU reads or writes the device, no exit */
		*ns = m->dev_access_ns;
		return IOP_DEVICE;
	}
	switch (kind) {
	case IO_PIO_KERNEL:
		*ns = m->pio_kernel_ns;
		return IOP_PIO_KERNEL;
	case IO_PIO_USER:
		*ns = m->pio_user_ns;
		return IOP_PIO_USER;
	case IO_MMIO_KERNEL:
		/* kvm_mmu_page_fault -> x86_emulate_instruction -> an in-kernel device */
		*ns = m->pio_kernel_ns + m->mmio_decode_ns;
		return IOP_MMIO_KERNEL;
	case IO_MMIO_IOEVENTFD:
		if (k->fast_mmio) {
			/* LNX-6.12 vmx.c handle_ept_misconfig: KVM_FAST_MMIO_BUS */
			*ns = m->mmio_fast_ns;
			return IOP_MMIO_FAST;
		}
		break;	/* Xen: decoded, then a synchronous ioreq (common/ioreq.c) */
	default:
		break;
	}
	/* decode, then KVM_EXIT_MMIO to QEMU and KVM_RUN again, or Xen's ioreq */
	*ns = m->pio_user_ns + m->mmio_decode_ns;
	return IOP_MMIO_USER;
}

int
hv_io_exits(enum io_path p)
{
	return p != IOP_DEVICE;
}

const char *
hv_io_path_name(enum io_path p)
{
	return path_names[p];
}
