#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# e2e_labvm_tcg.sh - `vlocksim lab-vm`'s VM plumbing under QEMU's TCG: one
# boot, one setting (timings meaningless; the initramfs, QEMU's command line,
# the pinning of the vCPU threads, the guest's output parsed into the
# measured table are real).  Skipped (77) where qemu-system-x86_64, a static
# busybox (busybox-static), a readable /boot/vmlinuz-* or lockbench-static
# is missing: the CI machine need not have them.
. "$(dirname "$0")/e2e_lib.sh"

kernel=
for k in /boot/vmlinuz-*; do
	[ -r "$k" ] && kernel=$k
done
if ! command -v qemu-system-x86_64 >/dev/null 2>&1 || [ -z "$kernel" ] ||
    ! "$VS" lab-vm --help >/dev/null 2>&1 ||
    [ ! -x "$top_builddir/bench/lab/lockbench-static" ]; then
	echo "skip: needs qemu-system-x86_64, a readable /boot/vmlinuz-* and" \
	    "bench/lab/lockbench-static"
	exit 77
fi
case $(file -L /bin/busybox 2>/dev/null) in
*"statically linked"*) ;;
*) echo "skip: /bin/busybox is not static (Debian: busybox-static)"; exit 77 ;;
esac

O=$tmp/vm
run lab-vm --accel tcg --out "$O" --kernel "$kernel" --vcpus 1 --pin yes --pvspin off \
    --timeout 600 -- --locks ticket --threads 1,2 --duration 0.05 --warmup 0.01 --reps 2
check "a TCG boot: exit 0" [ "$rc" -eq 0 ]
S=v1-pin-nopv-tcg
for f in lab-vm.txt $S-measured.csv $S-lab-table.csv $S-lockbench.csv \
    $S-lockbench-threads.csv $S-console.log $S-qemu.txt; do
	check "$f written" [ -s "$O/$f" ]
done
check "no initramfs left behind" [ ! -e "$O/lab-vm.cpio" ]
cpus=$(getconf _NPROCESSORS_ONLN)
check "QEMU: TCG, vCPUs 1x the CPUs, the guest without PV spinlocks" sh -c "
	grep -q -- '-accel tcg' '$O/$S-qemu.txt' && grep -q -- '-smp $cpus ' '$O/$S-qemu.txt' &&
	grep -q 'nopvspin' '$O/$S-qemu.txt'"
check "every vCPU thread pinned" sh -c "
	[ \$(grep '^# pinning:' '$O/$S-qemu.txt' | grep -o 'vCPU [0-9]* (thread [0-9]*) -> CPU' |
	    wc -l) -eq $cpus ]"
check "the guest saw its command line and its CPUs" sh -c "
	grep -q '^# inside: a QEMU guest (TCG emulation: timings meaningless), $cpus vCPUs' \
	    '$O/$S-measured.csv' && grep -q 'guest_kernel: ' '$O/$S-measured.csv'"
check "the guest's lockbench: 2 rows x 2 replications, all valid" sh -c "
	[ \$(grep -c '^ticket,[12],[01],' '$O/$S-lockbench.csv') -eq 4 ] &&
	[ \$(grep -c ',1\$' '$O/$S-lockbench.csv') -eq 4 ] &&
	grep -q '^# cpus: $cpus\$' '$O/$S-lockbench.csv'"
check "the measured table: lab's format" sh -c "
	[ \$(grep -c '^t[12],ticket,ops_per_sec,1/s,[0-9.]*,[0-9.]*,2\$' '$O/$S-measured.csv') -eq 2 ] &&
	[ \$(grep -c '^t2-wait,ticket,wait_mean_ns,ns,' '$O/$S-measured.csv') -eq 1 ]"
check "lab-vm.txt: the setting's rows" sh -c "
	[ \$(grep -c '^$S  *ticket  *[12] ' '$O/lab-vm.txt') -eq 2 ]"
e2e_finish
