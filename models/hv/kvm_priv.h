/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * kvm_priv.h - KVM's per-run state, shared by kind_kvm.c (PLE, directed yield,
 * PV hypercalls) and kvm_halt_poll.c (halt polling).  Private to models/hv.
 */
#ifndef VS_KVM_PRIV_H
#define VS_KVM_PRIV_H

#include <stdint.h>
#include <stdio.h>

#include "param.h"
#include "util.h"

struct yc_node;
struct machine;
struct hv;
struct vcpu;
struct metrics;

enum kvm_hp_mode { KVM_HP_OFF, KVM_HP_FIXED, KVM_HP_DYNAMIC };

struct kvm_hp_cfg {
	enum kvm_hp_mode mode;
	int given;			/* the scenario has a halt_poll key (metrics shown) */
	double fixed_ns;		/* fixed: the window of every halt */
	double max_ns;			/* dynamic: halt_poll_ns */
	double grow, grow_start_ns, shrink;
};

/* Per vCPU halt-polling state and counters. */
struct kvm_hp_vcpu {
	double cur_ns;			/* vcpu->halt_poll_ns */
	double window_ns;		/* this halt's window (0: it does not poll) */
	double poll_ns;			/* pCPU time spent polling, all halts */
	uint64_t polls_ok, polls_fail;	/* halt_successful_poll, attempted - successful */
	uint64_t grows, shrinks;
};

/* hypervisor.* keys of kvm (kind_kvm.c), halt_poll's among them. */
extern const struct vs_param kvm_params[];
int kvm_hp_parse(const struct yc_node *hv, const struct machine *, struct kvm_hp_cfg *,
    struct vs_err *);
double kvm_hp_begin(const struct kvm_hp_cfg *, struct kvm_hp_vcpu *);
void kvm_hp_end(const struct kvm_hp_cfg *, struct kvm_hp_vcpu *, double halt_ns,
    double poll_ns, int waited);
void kvm_hp_list(FILE *);

#endif
