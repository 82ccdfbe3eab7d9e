#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The issue-11 exploration: ebizzy and hackbench in an 8- and a 32-vCPU KVM
# guest at 1x-3x overcommit under host CFS, PLE off/on, PV TLB flush off/on,
# x2APIC physical vs PV send-IPI.  Writes OUT/{ebizzy,hackbench}-{8,32}/
# results.csv and plots.  Usage: ipi-sweep.sh [OUT] [VLOCKSIM]  (a few minutes)
set -e
out=${1:-out/ipi}
vs=${2:-./vlocksim}
dir=$(dirname "$0")
common="--vary vms[1].count=0,1,2 --vary hypervisor.ple.enabled=false,true"
"$vs" sweep "$dir/ipi-ebizzy.yaml" $common --vary vms[0].guest.ipi.pv_tlb_flush=false,true \
    --vary vms[0].guest.ipi.mode=physical,pv --plot guest.records_per_sec \
    --plot guest.ipi_wait_share --out "$out/ebizzy-8"
"$vs" sweep "$dir/ipi-ebizzy-32.yaml" $common --vary vms[0].guest.ipi.pv_tlb_flush=false,true \
    --vary vms[0].guest.ipi.mode=physical,pv --plot guest.records_per_sec \
    --plot guest.ipi_wait_share --out "$out/ebizzy-32"
"$vs" sweep "$dir/ipi-hackbench.yaml" $common --vary vms[0].guest.ipi.mode=physical,pv \
    --plot completion_seconds --out "$out/hackbench-8"
"$vs" sweep "$dir/ipi-hackbench-32.yaml" $common --vary vms[0].guest.ipi.mode=physical,pv \
    --plot completion_seconds --out "$out/hackbench-32"
