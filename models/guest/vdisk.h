/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vdisk.h - a VM's virtual disk: requests served one at a time, in order,
 * by the device behind it (QEMU's block layer on one host disk).  A task that
 * reads blocks until its request completes; the completion is an interrupt.
 * What decides a cold kernel build is the queue at the disk, not a latency
 * per read, so the disk is a FIFO single server (Kleinrock, Queueing Systems
 * vol. 1, M/G/1), not a delay.
 */
#ifndef VS_VDISK_H
#define VS_VDISK_H

#include <stdint.h>

#include "guest/guest.h"

struct vdisk;
struct sim;
struct task;

struct vdisk *vdisk_new(struct sim *);
void vdisk_free(struct vdisk *);
struct ffs;
/* d in a snapshot of a periodic run (ring_ff.c, ffsnap.h) */
void vdisk_ffs(struct ffs *, struct vdisk *);
/* The current task of v submits a request of service_ns and sleeps until done. */
void vdisk_read(struct vdisk *, struct vcpu *, double service_ns, guest_fn resume);
/* Time the device was busy (ns) and requests served. */
double vdisk_busy_ns(const struct vdisk *);
uint64_t vdisk_requests(const struct vdisk *);
/* The warm-up ends: both start again from now. */
void vdisk_stats_reset(struct vdisk *);

#endif
