#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# host-variants.sh - the sweep of host-variants.yaml: host scheduler (cfs,
# eevdf) x cgroups (none, per-vm) x halt polling (off, dynamic) x directed
# yield (3.2, 5.3) x 1x-3x, for a pv-qspinlock guest with a kernel.  Writes
# out/host-variants/results.csv and sweep-guest.ops_per_sec.png (a line per
# combination against the hog VMs' count).  About 2 CPU-seconds.
set -e
cd "$(dirname "$0")/../.."
./vlocksim sweep configs/examples/host-variants.yaml --vary 'vms[1].count=0,1,2' \
    --vary hypervisor.scheduler=cfs,eevdf --vary hypervisor.params.groups=none,per-vm \
    --vary hypervisor.halt_poll.policy=off,dynamic \
    --vary hypervisor.directed_yield.version=3.2,5.3 \
    --plot guest.ops_per_sec -j "$(nproc)" --out out/host-variants "$@"
