#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# e2e_labvm.sh - `vlocksim lab-vm` before any boot: whether /dev/kvm can run
# a stock guest is answered on every machine (0, or 4 with the reason), a
# machine that cannot is refused with 4 and nothing written, bad options and
# a missing kernel get 2.  e2e_labvm_tcg.sh boots a guest.
. "$(dirname "$0")/e2e_lib.sh"

run lab-vm --check
check "--check answers 0 or 4" sh -c "[ $rc -eq 0 ] || [ $rc -eq 4 ]"
if [ "$rc" -eq 4 ]; then
	check "--check says why not" grep -q 'cannot run a stock guest: ..' "$tmp/out"
	if [ -e /sys/module/kvm_pvm ] && [ ! -e /sys/module/kvm_intel ] &&
	    [ ! -e /sys/module/kvm_amd ]; then
		check "a PVM host is named as such" grep -q "PVM's (module kvm_pvm" "$tmp/out"
	fi
	run lab-vm --out "$tmp/no" -- --threads 1
	check "without KVM: exit 4, the reason, nothing written" sh -c "
		[ $rc -eq 4 ] && grep -q 'cannot run the guest under KVM: ' '$tmp/err' &&
		[ ! -e '$tmp/no' ]"
fi
run lab-vm --pin maybe
check "--pin maybe: exit 2" [ "$rc" -eq 2 ]
run lab-vm --accel tcg --out "$tmp/bad" --kernel /nonexistent -- --threads 1
check "a missing kernel: exit 2, nothing written" sh -c "[ $rc -eq 2 ] && [ ! -e '$tmp/bad' ]"

e2e_finish
