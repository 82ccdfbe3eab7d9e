/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "hw/machine.h"

#include <stdlib.h>
#include <string.h>

#include "yconf.h"

/*
 * Defaults: a Nehalem-EP Xeon X5570 (2.93 GHz), the machine of seeds 000
 * and 001.  Sources in ../shared/model-reference.md §7: exit round trip
 * ~2000 cycles (SplitX, WIOV 2011); vmcall 3898, PIO in-kernel 7237, PIO to
 * QEMU 20574 cycles (kvm-unit-tests 00bfecaa); line transfers ~80 cycles in a
 * socket, ~300 across (Molka PACT'09, unverified); PAUSE ~10 cycles.
 * Memory bandwidth (written as a size, meaning per second): a Nehalem-EP
 * socket's three DDR3-1333 channels give ~17 GB/s of STREAM, one core alone
 * ~10 GB/s (Molka PACT'09 and Intel's X5570 STREAM figures, unverified).
 */
static const char *const machine_keys = "name, sockets, cores_per_socket, "
    "threads_per_core, clock, costs";
static const char *const cost_keys = "line_same_core, line_sibling, line_socket, "
    "line_remote, atomic, ctx_switch, wake_ipi, smt_busy_slowdown, "
    "smt_spin_slowdown, exit_hlt, exit_hypercall, exit_ple, pio_kernel, pio_user, "
    "mmio_kernel, mmio_user, pause, mem_bw_core, mem_bw_socket, guest_ctx_switch, "
    "exit_ipi, irq, timer_tick, mlp, release_visibility";

static const struct yc_node no_costs = { .kind = YC_MAP };

static int
cost(const struct yc_node *c, const char *key, double hz, double def_cycles,
    double *out, struct vs_err *err)
{
	return yc_get_qty(c, key, UNIT_TIME, hz, def_cycles * 1e9 / hz, 0, 1e12,
	    out, err);
}

/* The pCPU numbering of machine.h, as tables. */
static void
machine_topo(struct machine *m)
{
	int i;

	m->core_id = xcalloc((size_t)m->npcpus, sizeof *m->core_id);
	m->socket_id = xcalloc((size_t)m->npcpus, sizeof *m->socket_id);
	for (i = 0; i < m->npcpus; i++) {
		m->core_id[i] = i / m->threads_per_core;
		m->socket_id[i] = i / (m->threads_per_core * m->cores_per_socket);
	}
}

int
machine_from_yaml(struct machine *m, const struct yc_node *n, struct vs_err *err)
{
	const struct yc_node *c;
	const char *name;
	int64_t v;
	double hz;
	int i;

	memset(m, 0, sizeof *m);
	if (yc_expect(n, YC_MAP, "a mapping of machine settings", err))
		return -1;
	if (yc_get_str(n, "name", "machine", &name, err))
		return -1;
	m->name = xstrdup(name);
	if (yc_get_int(n, "sockets", 1, 1, 64, &v, err))
		return -1;
	m->sockets = (int)v;
	if (yc_get_int(n, "cores_per_socket", 4, 1, 1024, &v, err))
		return -1;
	m->cores_per_socket = (int)v;
	if (yc_get_int(n, "threads_per_core", 1, 1, 8, &v, err))
		return -1;
	m->threads_per_core = (int)v;
	m->npcpus = m->sockets * m->cores_per_socket * m->threads_per_core;
	if (m->npcpus > 4096)
		return yc_err(n, err, "machine has %d pCPUs; at most 4096 are supported",
		    m->npcpus);
	if (yc_get_qty(n, "clock", UNIT_FREQ, 0, 2.93e9, 1e6, 1e11, &hz, err))
		return -1;
	m->hz = hz;
	machine_topo(m);

	c = yc_find(n, "costs");
	if (c != NULL && yc_expect(c, YC_MAP, "a mapping of costs", err))
		return -1;
	if (c == NULL)
		c = &no_costs;	/* every cost takes its default */
	if (cost(c, "line_same_core", hz, 4, &m->line_ns[HW_SAME], err) ||
	    cost(c, "line_sibling", hz, 12, &m->line_ns[HW_SIBLING], err) ||
	    cost(c, "line_socket", hz, 80, &m->line_ns[HW_SOCKET], err) ||
	    cost(c, "line_remote", hz, 300, &m->line_ns[HW_REMOTE], err) ||
	    cost(c, "atomic", hz, 20, &m->atomic_ns, err) ||
	    cost(c, "ctx_switch", hz, 6000, &m->ctx_switch_ns, err) ||
	    cost(c, "wake_ipi", hz, 8000, &m->wake_ipi_ns, err) ||
	    cost(c, "exit_hlt", hz, 2000, &m->exit_hlt_ns, err) ||
	    cost(c, "exit_hypercall", hz, 3898, &m->exit_hypercall_ns, err) ||
	    cost(c, "exit_ple", hz, 2000, &m->exit_ple_ns, err) ||
	    cost(c, "pio_kernel", hz, 7237, &m->pio_kernel_ns, err) ||
	    cost(c, "pio_user", hz, 24615, &m->pio_user_ns, err) ||
	    cost(c, "mmio_kernel", hz, 7237, &m->mmio_kernel_ns, err) ||
	    cost(c, "mmio_user", hz, 24615, &m->mmio_user_ns, err) ||
	    cost(c, "pause", hz, 10, &m->pause_ns, err))
		return -1;
	/*
	 * The guest kernel's costs (model-reference §7.2, placeholders): a task
	 * switch as the host's; an IPI's sender exit on the x2APIC ICR write, as a
	 * vmcall round trip (kvm-unit-tests x86/vmexit.c measures "ipi"); an
	 * interrupt's injection and EOI exit, one exit round trip (SplitX); a
	 * LAPIC timer tick, two (the hrtimer's kick and the next deadline's MSR
	 * write).
	 */
	if (cost(c, "guest_ctx_switch", hz, 6000, &m->guest_ctx_switch_ns, err) ||
	    cost(c, "exit_ipi", hz, 3898, &m->exit_ipi_ns, err) ||
	    cost(c, "irq", hz, 2000, &m->irq_ns, err) ||
	    cost(c, "timer_tick", hz, 4000, &m->timer_tick_ns, err))
		return -1;
	if (yc_get_num(c, "smt_busy_slowdown", 1.3, 1, 10, &m->smt_busy_slowdown, err) ||
	    yc_get_num(c, "smt_spin_slowdown", 1.15, 1, 10, &m->smt_spin_slowdown, err))
		return -1;
	/* A size per second: `mem_bw_socket: 16GiB` is 16 GiB/s; stored per ns. */
	if (yc_get_qty(c, "mem_bw_core", UNIT_SIZE, 0, 10e9, 1, 1e15, &m->mem_bw_core, err) ||
	    yc_get_qty(c, "mem_bw_socket", UNIT_SIZE, 0, 17e9, 1, 1e15, &m->mem_bw_socket,
	    err))
		return -1;
	/* Memory-level parallelism of a streaming copy: L1D fill buffers
	 * (10 on Nehalem to Haswell, secondary source in models/README.md); the
	 * default 1 charges every line serially, as before it existed. */
	if (yc_get_int(c, "mlp", 1, 1, 64, &v, err))
		return -1;
	m->mlp = (int)v;
	/* MESI (Sorin/Hill/Wood 2011, ch. 6-7; lock.c lock_own_ns): on by default */
	if (yc_get_bool(c, "release_visibility", 1, &m->release_visibility, err))
		return -1;
	/* the farthest transfer between two of this machine's pCPUs */
	m->line_far_ns = m->line_ns[HW_SAME];
	for (i = 1; i < m->npcpus; i++)
		if (m->line_ns[machine_dist(m, 0, i)] > m->line_far_ns)
			m->line_far_ns = m->line_ns[machine_dist(m, 0, i)];
	m->mem_bw_core *= 1e-9;
	m->mem_bw_socket *= 1e-9;
	if (yc_check_unused(c, cost_keys, err))
		return -1;
	return yc_check_unused(n, machine_keys, err);
}

void
machine_free(struct machine *m)
{
	free(m->name);
	free(m->core_id);
	free(m->socket_id);
	m->name = NULL;
	m->core_id = m->socket_id = NULL;
}

double
machine_cycles_to_ns(const struct machine *m, double cycles)
{
	return cycles * 1e9 / m->hz;
}
