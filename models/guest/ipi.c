/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ipi.c - the guest kernel's IPIs (ipi.h): sending, function calls that
 * wait, TLB shootdowns and their paravirtual variants.
 */
#include "guest/ipi.h"

#include <stdlib.h>

#include "engine.h"
#include "guest/kernel.h"
#include "hv/hv.h"
#include "rng.h"
#include "stats.h"

/* Linux arch/x86/include/asm/kvm_para.h: KVM_IPI_CLUSTER_SIZE (2 * BITS_PER_LONG) */
#define PV_IPI_SPAN 128
/* Linux arch/x86/kernel/apic/x2apic_cluster.c: 16 CPUs per logical cluster */
#define X2APIC_CLUSTER 16

/* A sender's outstanding smp_call_function_many (one at a time: the sender
 * waits with preemption disabled, Linux kernel/smp.c). */
struct ipi_call {
	int active;		/* waiting for acknowledgements */
	int left;		/* targets that have not run the function yet */
	uint32_t seq;		/* tells a late acknowledgement from a new call's */
	double func_ns;		/* the function's time on each target */
	sim_time_t t0;		/* when the call began (for the wait) */
	guest_fn done;
};

struct ipi {
	struct gkernel *k;
	struct vm *vm;
	struct ipi_config cfg;
	struct gk_stats *st;
	int ncpu, nmm;
	struct ipi_call *call;	/* per sender vCPU */
	int *pend;		/* [target * ncpu + sender]: calls to run */
	double *pend_ns;	/* [target * ncpu + sender]: the functions' time */
	int *npend;		/* per target */
	int *loaded;		/* per vCPU: the mm loaded (lazy TLB keeps it over idle) */
	unsigned char *mm_cpus;	/* [mm * ncpu + vCPU]: mm_cpumask */
	unsigned char *pv_flush;	/* per vCPU: KVM_VCPU_FLUSH_TLB set in its steal time */
	int *idx;		/* scratch: a multicast's targets */
	sim_time_t *wake_at;	/* per vCPU: when an IPI woke it, until it takes it; -1 */
	struct hv_ipi_path path;	/* the host's delivery (kind_op_ipi_path) */
	int path_known;		/* path read (the kind is set up after ipi_new) */
};

static struct sim *
isim(const struct ipi *ip)
{
	return ip->vm->hv->sim;
}

struct ipi *
ipi_new(struct gkernel *k, const struct ipi_config *cfg, int nmm, struct gk_stats *st)
{
	struct ipi *ip = xcalloc(1, sizeof *ip);
	int n = gk_ncpus(k), i;

	ip->k = k;
	ip->vm = gk_cpu(k, 0)->v->vm;
	ip->cfg = *cfg;
	ip->st = st;
	ip->ncpu = n;
	ip->nmm = nmm;
	ip->call = xcalloc((size_t)n, sizeof *ip->call);
	ip->pend = xcalloc((size_t)n * (size_t)n, sizeof *ip->pend);
	ip->pend_ns = xcalloc((size_t)n * (size_t)n, sizeof *ip->pend_ns);
	ip->npend = xcalloc((size_t)n, sizeof *ip->npend);
	ip->loaded = xcalloc((size_t)n, sizeof *ip->loaded);
	ip->mm_cpus = xcalloc((size_t)(nmm > 0 ? nmm : 1) * (size_t)n, 1);
	ip->pv_flush = xcalloc((size_t)n, 1);
	ip->idx = xcalloc((size_t)n, sizeof *ip->idx);
	ip->wake_at = xcalloc((size_t)n, sizeof *ip->wake_at);
	for (i = 0; i < n; i++) {
		ip->loaded[i] = -1;
		ip->wake_at[i] = -1;
	}
	return ip;
}

void
ipi_free(struct ipi *ip)
{
	if (ip == NULL)
		return;
	free(ip->call);
	free(ip->pend);
	free(ip->pend_ns);
	free(ip->npend);
	free(ip->loaded);
	free(ip->mm_cpus);
	free(ip->pv_flush);
	free(ip->idx);
	free(ip->wake_at);
	free(ip);
}

/* The host's delivery path, read once the kind is set up. */
static const struct hv_ipi_path *
ipi_path(struct ipi *ip)
{
	if (!ip->path_known) {
		ip->path = kind_op_ipi_path(ip->vm->hv->kind, ip->vm->hv);
		ip->path_known = 1;
	}
	return &ip->path;
}

/* The guest's mode as sent: PV send-IPI only where the host offers it (Linux
 * 4.19 kvm.c kvm_setup_pv_ipi tests KVM_FEATURE_PV_SEND_IPI), else native. */
static int
send_mode(const struct ipi_config *cfg, const struct hv_ipi_path *p)
{
	return cfg->mode == IPI_PV && !p->pv_send_ipi ? IPI_PHYS : cfg->mode;
}

/* PV send-IPI's hypercall or Xen's EVTCHNOP_send, rather than an ICR write */
static int
sent_by_hypercall(const struct ipi_config *cfg, const struct hv_ipi_path *p, int n)
{
	return p->evtchn || (send_mode(cfg, p) == IPI_PV && n > 1);
}

/*
 * The exits a multicast costs the sender.  x2APIC physical: one ICR write per
 * destination (x2apic_phys.c __x2apic_send_IPI_mask); cluster: one per
 * logical cluster of 16 (x2apic_cluster.c); PV: one KVM_HC_SEND_IPI per
 * window of 128 APIC IDs (Linux 4.19 kvm.c __send_ipi_mask).  A single
 * destination is always one native ICR write (apic->send_IPI is not
 * replaced by the PV hooks; smp_call_function_many sends a lone target
 * through smp_call_function_single), physical but in cluster mode.  IPI
 * virtualization takes the physical unicast writes without an exit (not
 * logical ones, nor hypercalls: d588bb9be1da).  Xen's event channels: one
 * EVTCHNOP_send per destination (Linux xen_send_IPI_mask).  Bare metal: none.
 */
int
ipi_send_exits(const struct ipi_config *cfg, const struct hv_ipi_path *p, const int *idx,
    int n)
{
	int i, exits = 0, min = -1, mode = send_mode(cfg, p);

	if (!p->exits || n <= 0)
		return 0;
	if (p->evtchn)
		return n;
	if (n == 1 || mode == IPI_PHYS)
		return p->ipiv && mode != IPI_CLUSTER ? 0 : n;
	for (i = 0; i < n; i++) {
		if (mode == IPI_CLUSTER) {
			if (min < 0 || idx[i] / X2APIC_CLUSTER != min) {
				exits++;
				min = idx[i] / X2APIC_CLUSTER;
			}
		} else if (min < 0 || idx[i] >= min + PV_IPI_SPAN) {
			exits++;	/* the bitmap so far goes out; a new window starts */
			min = idx[i];
		}
	}
	return exits;
}

/* What the sender's exits cost it (ns). */
static double
send_cost(struct ipi *ip, int exits, int n)
{
	const struct machine *m = ip->vm->hv->m;

	if (exits == 0)
		return 0;
	return exits * (sent_by_hypercall(&ip->cfg, ipi_path(ip), n) ? m->exit_hypercall_ns :
	    m->exit_ipi_ns);
}

static void
count_exits(struct ipi *ip, int exits, int n)
{
	ip->st->ipi_exits += (uint64_t)exits;
	if (sent_by_hypercall(&ip->cfg, ipi_path(ip), n))
		ip->vm->hv->st.exits_hypercall += (uint64_t)exits;
	else
		ip->vm->hv->st.exits_ipi += (uint64_t)exits;
}

/*
 * The host delivers one destination of an IPI from s (KVM lapic.c
 * __apic_accept_irq, Xen vlapic_set_irq or evtchn_send; README "IPIs"):
 * its work in the sender's exit (exited: the sender trapped; IPI
 * virtualization and bare metal post or send in hardware), then by where
 * the target is: running in guest mode, kvm_vcpu_kick / vcpu_kick send a
 * host IPI to its pCPU, an external-interrupt exit whose re-entry injects
 * (posted interrupts: the notification is taken in guest mode, no exit);
 * halted, kvm_vcpu_wake_up / vcpu_unblock wake it (guest_interrupt ->
 * guest_kick -> hv_wake; the pCPU's exit from its C-state belongs to that
 * wake path, not to this charge); preempted, the interrupt waits in the
 * IRR / PIR until its next entry injects it (vcpu_enter_guest).  Returns the
 * sender's share (ns).
 */
static double
deliver(struct ipi *ip, struct vcpu *s, struct vcpu *t, int exited)
{
	const struct hv_ipi_path *p = ipi_path(ip);
	const struct machine *m = ip->vm->hv->m;
	double work = 0;

	if (exited) {
		int tp = t->pcpu != NULL ? t->pcpu->id : t->last_pcpu;
		int sp = s->pcpu != NULL ? s->pcpu->id : s->last_pcpu;

		work = p->deliver_lines * m->line_ns[machine_dist(m, sp, tp)] +
		    p->deliver_atomics * m->atomic_ns;
		ip->st->ipi_deliver_ns += work;
	}
	switch (guest_irq_at(t)) {
	case GI_RUNNING:
		ip->st->ipi_to_running++;
		if (p->exits && !p->posted) {
			ip->st->ipi_kicks++;
			ip->st->ipi_deliver_ns += m->exit_irq_ns;
			guest_overhead(t, m->exit_irq_ns);
		}
		break;
	case GI_WAKES:
		ip->st->ipi_wakes++;
		if (ip->wake_at[t->idx] < 0)
			ip->wake_at[t->idx] = isim(ip)->now;
		break;
	default:
		ip->st->ipi_to_waiting++;
		break;
	}
	guest_interrupt(t);
	return work;
}

/* Linux 3.2 sched/core.c: a CPU gets an IPI only if it is not polling need_resched */
static void
ipi_resched(struct ipi *ip, int from, struct gcpu *to)
{
	struct vcpu *s;
	int exits;
	double cost;

	if (to->polling) {
		guest_interrupt(to->v);
		return;
	}
	ip->st->ipis++;
	if (from < 0) {
		guest_interrupt(to->v);	/* from an interrupt: nobody sends */
		return;
	}
	/* native_smp_send_reschedule: one ICR write (or Xen's EVTCHNOP_send) */
	s = gk_cpu(ip->k, from)->v;
	exits = ipi_send_exits(&ip->cfg, ipi_path(ip), &to->idx, 1);
	count_exits(ip, exits, 1);
	cost = send_cost(ip, exits, 1);
	ip->st->ipi_sender_ns += cost;
	cost += deliver(ip, s, to->v, exits > 0);
	if (cost > 0)
		guest_overhead(s, cost);
}

static void ack_ev(void *s, void *arg, int64_t data);

/* Linux kernel/smp.c generic_smp_call_function_interrupt (flush_smp_call_function_queue):
 * run every queued function; each sender sees its csd unlocked after it. */
static void
ipi_irq(struct ipi *ip, struct gcpu *c)
{
	int s, n = ip->ncpu, t = c->idx;
	double ns = 0, at;

	if (ip->wake_at[t] >= 0) {
		/* the IPI that woke it is taken: the host's wake path, done */
		ip->st->ipi_wake_ns += (double)(isim(ip)->now - ip->wake_at[t]);
		ip->wake_at[t] = -1;
	}
	if (ip->npend[t] == 0)
		return;
	for (s = 0; s < n; s++)
		ns += ip->pend_ns[t * n + s];
	/* the handler's functions run before the interrupted activity resumes */
	at = guest_overhead(c->v, ns);
	for (s = 0; s < n; s++) {
		int j;

		for (j = 0; j < ip->pend[t * n + s]; j++) {
			ip->st->ipis_received++;
			hv_probe(ip->vm->hv, PR_IPI_RECV, c->v->id, c->v->pcpu ? c->v->pcpu->id : -1,
			    NULL, ip->vm->vcpus[s]->id);
			if (ip->call[s].active)
				sim_after(isim(ip), sim_ns(at), ack_ev, ip,
				    (int64_t)s | (int64_t)ip->call[s].seq << 20);
		}
		ip->pend[t * n + s] = 0;
		ip->pend_ns[t * n + s] = 0;
	}
	ip->npend[t] = 0;
}

/* A target has run the function (csd_unlock): the last one releases the sender. */
static void
ack_ev(void *s, void *arg, int64_t data)
{
	struct ipi *ip = arg;
	int sender = (int)(data & 0xfffff);
	struct ipi_call *call = &ip->call[sender];
	struct vcpu *v = ip->vm->vcpus[sender];

	if (!call->active || call->seq != (uint32_t)(data >> 20) || --call->left > 0)
		return;
	/* the sender sees the csd flag one cache-line transfer later */
	guest_spin_met(v, ip->vm->hv->m->line_ns[HW_SOCKET]);
}

/* The sender has seen every acknowledgement. */
static void
call_done(struct vcpu *v)
{
	struct ipi *ip = gk_ipi(v->vm->kernel);
	struct ipi_call *call = &ip->call[v->idx];
	double w = (double)(isim(ip)->now - call->t0);
	guest_fn done = call->done;

	call->active = 0;
	hist_add(ip->st->ipi_wait, w > 1 ? w : 1);
	ip->st->ipi_wait_ns += w;
	hv_probe(ip->vm->hv, PR_IPI_WAIT_END, v->id, v->pcpu->id, NULL, 0);
	gk_preempt_enable(v);
	done(v);
}

/* KVM x86.c record_steal_time: a KVM_VCPU_FLUSH_TLB request is a flush on entry */
static void
ipi_entry(struct ipi *ip, struct gcpu *c)
{
	if (!ip->pv_flush[c->idx])
		return;
	ip->pv_flush[c->idx] = 0;
	gk_entry_due(ip->k, -1);
	ip->st->pv_tlb_flushed++;
	hv_probe(ip->vm->hv, PR_TLB_PV_FLUSH, c->v->id, c->v->pcpu->id, NULL, 0);
	guest_overhead(c->v, ip->cfg.flush_ns);
}

/* Linux 4.16 arch/x86/mm/tlb.c switch_mm_irqs_off: leave prev's cpumask, join next's;
 * a kernel thread or the idle loop keeps the old mm (enter_lazy_tlb) */
static void
ipi_switch_mm(struct ipi *ip, struct gcpu *c, const struct task *t)
{
	int mm = t->mm, i = c->idx;

	if (mm < 0 || ip->loaded[i] == mm)
		return;
	if (ip->loaded[i] >= 0)
		ip->mm_cpus[ip->loaded[i] * ip->ncpu + i] = 0;
	ip->mm_cpus[mm * ip->ncpu + i] = 1;
	ip->loaded[i] = mm;
}

/*
 * Send one function call to the n targets in ip->idx (ascending), then wait
 * if told.  Linux kernel/smp.c smp_call_function_many: queue a csd per
 * target, arch_send_call_function_ipi_mask, then csd_lock_wait each.
 */
static int
multicast(struct ipi *ip, struct vcpu *v, int n, double func_ns, int wait, double local_ns,
    guest_fn done)
{
	struct ipi_call *call = &ip->call[v->idx];
	const struct machine *m = ip->vm->hv->m;
	int exits = ipi_send_exits(&ip->cfg, ipi_path(ip), ip->idx, n), i;
	double cost = send_cost(ip, exits, n);

	if (n == 0) {
		if (local_ns > 0) {
			guest_work(v, local_ns, done);
			return 1;
		}
		return 0;
	}
	VS_ASSERT(!call->active);
	ip->st->ipi_calls++;
	ip->st->ipis_sent += (uint64_t)n;
	count_exits(ip, exits, n);
	call->active = wait;
	call->left = n;
	call->seq++;
	call->func_ns = func_ns;
	call->t0 = isim(ip)->now;
	call->done = done;
	ip->st->ipi_sender_ns += cost;
	gk_preempt_disable(v);		/* get_cpu(): the caller keeps its vCPU */
	for (i = 0; i < n; i++) {
		struct gcpu *c = gk_cpu(ip->k, ip->idx[i]);
		int at = c->idx * ip->ncpu + v->idx;

		ip->pend[at]++;
		ip->pend_ns[at] += func_ns;
		ip->npend[c->idx]++;
		hv_probe(ip->vm->hv, PR_IPI_SEND, v->id, v->pcpu->id, NULL, c->v->id);
		/* within the sender's exit (KVM kvm_irq_delivery_to_apic, Xen vlapic_ipi) */
		cost += deliver(ip, v, c->v, exits > 0);
	}
	if (!wait) {
		gk_preempt_enable(v);
		guest_work(v, cost + local_ns, done);
		return 1;
	}
	hv_probe(ip->vm->hv, PR_IPI_WAIT_START, v->id, v->pcpu->id, NULL, n);
	guest_spin_wait(v, call_done);
	guest_overhead(v, cost + local_ns);	/* the sends and the local run come first */
	if (ip->cfg.pv_sched_yield && !hv_native(ip->vm->hv)) {
		/* Linux 5.3 kvm.c kvm_smp_send_call_func_ipi: yield to the first preempted target */
		for (i = 0; i < n; i++) {
			struct vcpu *t = gk_cpu(ip->k, ip->idx[i])->v;
			struct hv *hv = ip->vm->hv;

			if (!gk_vcpu_is_preempted(t))
				continue;
			hv->st.exits_hypercall++;
			ip->st->pv_yields++;
			guest_overhead(v, m->exit_hypercall_ns);
			kind_op_sched_yield(hv->kind, hv, v, t);
			break;
		}
	}
	return 1;
}

/* A target can take an IPI: not the sender, not a vCPU that is done for good. */
static int
target_ok(struct ipi *ip, int sender, int i)
{
	return i != sender && !gk_cpu(ip->k, i)->finished;
}

int
ipi_call(struct vcpu *v, enum ipi_to to, int target, int wait, double func_ns, guest_fn done)
{
	struct ipi *ip = gk_ipi(v->vm->kernel);
	int n = 0, i, s = v->idx;

	if (to == IPI_TO_ONE) {
		if (target_ok(ip, s, target % ip->ncpu))
			ip->idx[n++] = target % ip->ncpu;
	} else if (to == IPI_TO_RANDOM) {
		int cand = 0, pick;

		for (i = 0; i < ip->ncpu; i++)
			cand += target_ok(ip, s, i);
		if (cand > 0) {
			pick = (int)(rng_uniform(v->rng) * cand);
			for (i = 0; i < ip->ncpu; i++)
				if (target_ok(ip, s, i) && pick-- == 0)
					ip->idx[n++] = i;
		}
	} else {
		for (i = 0; i < ip->ncpu; i++)
			if (target_ok(ip, s, i))
				ip->idx[n++] = i;
	}
	/* on_each_cpu: the function also runs locally, after the sends */
	return multicast(ip, v, n, func_ns, wait, to == IPI_TO_ALL ? func_ns : 0, done);
}

/* Linux 4.16 arch/x86/mm/tlb.c flush_tlb_mm_range: local flush, then
 * flush_tlb_others to the rest of mm_cpumask (native_flush_tlb_others, or
 * kvm_flush_tlb_others with PV TLB flush), waiting */
int
ipi_flush_tlb(struct vcpu *v, int mm, guest_fn done)
{
	struct ipi *ip = gk_ipi(v->vm->kernel);
	int n = 0, i, s = v->idx, marked = 0;

	if (mm < 0)
		mm = gk_current(v)->mm;
	VS_ASSERT(mm >= 0 && mm < ip->nmm);
	for (i = 0; i < ip->ncpu; i++) {
		struct vcpu *t = gk_cpu(ip->k, i)->v;

		if (!ip->mm_cpus[mm * ip->ncpu + i] || !target_ok(ip, s, i))
			continue;
		/* Linux 4.16 kvm.c kvm_flush_tlb_others: a preempted vCPU is marked, not sent to */
		if (ip->cfg.pv_tlb_flush && gk_vcpu_is_preempted(t)) {
			if (!ip->pv_flush[i]) {
				ip->st->pv_tlb_marked++;
				gk_entry_due(ip->k, 1);
			}
			ip->pv_flush[i] = 1;
			marked++;
			continue;
		}
		ip->idx[n++] = i;
	}
	if (n + marked > 0)
		ip->st->tlb_shootdowns++;	/* NR_TLB_REMOTE_FLUSH */
	return multicast(ip, v, n, ip->cfg.flush_ns, 1, ip->cfg.flush_ns, done);
}

const struct gk_smp_ops ipi_smp_ops = {
	.resched = ipi_resched,
	.irq = ipi_irq,
	.entry = ipi_entry,
	.switch_mm = ipi_switch_mm,
};
