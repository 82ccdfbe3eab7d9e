/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * hv_io.h - a guest device access (the workload's `io:`) and the path it
 * takes to its device on each kind of host, with the round trip it costs.
 *
 * PIO: the exit qualification gives port, size and direction, so the exit
 * handler needs no instruction decode (LNX-6.12 vmx.c handle_io ->
 * kvm_fast_pio; Xen 4.19 vmx.c EXIT_REASON_IO_INSTRUCTION -> handle_pio);
 * the port is served in the kernel or sent to user space (KVM_EXIT_IO to
 * QEMU, an ioreq to Xen's device model).  MMIO: an EPT misconfiguration
 * exit gives only the guest-physical address.  On KVM a write to an
 * ioeventfd address is signalled from the exit handler with no decode
 * (LNX-6.12 vmx.c handle_ept_misconfig: kvm_io_bus_write on
 * KVM_FAST_MMIO_BUS, kvm_skip_emulated_instruction); any other access goes
 * through kvm_mmu_page_fault into the x86 emulator, which fetches and
 * decodes the instruction (x86.c x86_emulate_instruction,
 * emulator_read_write) before an in-kernel device or KVM_EXIT_MMIO to QEMU
 * and the re-entry.  Xen decodes every MMIO (hvm/emulate.c handle_mmio ->
 * hvm_emulate_one) and has no fast path: an ioeventfd-style doorbell is a
 * synchronous ioreq to the device model (common/ioreq.c ioreq_send).  On bare
 * metal the access is an uncached device access and no exit.
 * Costs (machine.c): pio_kernel, pio_user as measured; MMIO's full path adds
 * mmio_decode to the PIO path of the same end; the fast path is mmio_fast.
 */
#ifndef VS_HV_IO_H
#define VS_HV_IO_H

struct machine;
struct hv_kind_ops;

/* The workload's `io:` kinds, in the order of compile.c's io_names. */
enum guest_io { IO_PIO_KERNEL, IO_PIO_USER, IO_MMIO_KERNEL, IO_MMIO_USER, IO_HYPERCALL,
	IO_MMIO_IOEVENTFD, IO_NKINDS };

/* The path an access took (metrics io_path_NAME, hv_io_path_name). */
enum io_path { IOP_DEVICE, IOP_PIO_KERNEL, IOP_PIO_USER, IOP_MMIO_FAST, IOP_MMIO_KERNEL,
	IOP_MMIO_USER, IOP_HYPERCALL, IOP_N };

/* The path of an access of this kind on this host, and its round trip in ns
 * (*ns): the vCPU's time from the access to the next instruction. */
enum io_path hv_io_route(const struct hv_kind_ops *, const struct machine *,
    enum guest_io, double *ns);
/* 1 if the path is a VM exit (every path but a bare-metal device access). */
int hv_io_exits(enum io_path);
const char *hv_io_path_name(enum io_path);

#endif
