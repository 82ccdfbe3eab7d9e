#!/usr/bin/env python3
# mkdat.py - write guest-sched.dat: the sched_switch/sched_wakeup events of
# guest-sched.txt as a trace-cmd trace.dat, version 6 (trace-cmd
# Documentation/trace-cmd/trace-cmd.dat.v6.5.txt), with one ring-buffer page
# per CPU in the kernel's layout (events/header_page, header_event: a u32
# type_len:5 | time_delta:27 before each record).  The event formats are the
# kernel's sched_switch and sched_wakeup format files (include/trace/events/
# sched.h), with their own ids.  No recorded data: the timeline is
# constructed (see README.md).  Usage: python3 mkdat.py > guest-sched.dat
import struct, sys

HEADER_PAGE = (b"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
    b"\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
    b"\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
    b"\tfield: char data;\toffset:16;\tsize:4080;\tsigned:0;\n")
HEADER_EVENT = (b"# compressed entry header\n\ttype_len    :    5 bits\n"
    b"\ttime_delta  :   27 bits\n\tarray       :   32 bits\n\n"
    b"\tpadding     : type == 29\n\ttime_extend : type == 30\n"
    b"\ttime_stamp : type == 31\n\tdata max type_len  == 28\n")
COMMON = (b"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
    b"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
    b"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
    b"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n")
SWITCH_ID, WAKEUP_ID = 11, 12
SWITCH = (b"name: sched_switch\nID: %d\nformat:\n" % SWITCH_ID + COMMON +
    b"\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
    b"\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n"
    b"\tfield:int prev_prio;\toffset:28;\tsize:4;\tsigned:1;\n"
    b"\tfield:long prev_state;\toffset:32;\tsize:8;\tsigned:1;\n"
    b"\tfield:char next_comm[16];\toffset:40;\tsize:16;\tsigned:0;\n"
    b"\tfield:pid_t next_pid;\toffset:56;\tsize:4;\tsigned:1;\n"
    b"\tfield:int next_prio;\toffset:60;\tsize:4;\tsigned:1;\n\n"
    b"print fmt: \"prev_comm=%s prev_pid=%d prev_prio=%d prev_state=%s ==> next_comm=%s "
    b"next_pid=%d next_prio=%d\", REC->prev_comm, REC->prev_pid, REC->prev_prio, "
    b"(REC->prev_state & 0xff) ? __print_flags(REC->prev_state & 0xff, \"|\", "
    b"{ 0x01, \"S\" }, { 0x02, \"D\" }) : \"R\", REC->next_comm, REC->next_pid, "
    b"REC->next_prio\n")
WAKEUP = (b"name: sched_wakeup\nID: %d\nformat:\n" % WAKEUP_ID + COMMON +
    b"\tfield:char comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
    b"\tfield:pid_t pid;\toffset:24;\tsize:4;\tsigned:1;\n"
    b"\tfield:int prio;\toffset:28;\tsize:4;\tsigned:1;\n"
    b"\tfield:int target_cpu;\toffset:32;\tsize:4;\tsigned:1;\n\n"
    b"print fmt: \"comm=%s pid=%d prio=%d target_cpu=%03d\", REC->comm, REC->pid, "
    b"REC->prio, REC->target_cpu\n")
PAGE = 4096
T0 = 100 * 10**9		# 100 s, as guest-sched.txt

def comm(s):
    return s.encode().ljust(16, b"\0")

def switch(pid, pcomm, ppid, pstate, ncomm, npid):
    return struct.pack("<HBBi16siiq16sii", SWITCH_ID, 0, 0, pid, comm(pcomm), ppid, 120,
                       pstate, comm(ncomm), npid, 120)

def wakeup(pid, wcomm, wpid, cpu):
    return struct.pack("<HBBi16siii", WAKEUP_ID, 0, 0, pid, comm(wcomm), wpid, 120, cpu)

def cpu_events(cpu, pid):
    ms = 10**6
    idle = "swapper/%d" % cpu
    ev = [(0, switch(0, idle, 0, 0, "worker", pid))]
    for k in range(5):
        ev.append(((2 * k + 1) * ms, switch(pid, "worker", pid, 1, idle, 0)))
        ev.append(((2 * k + 2) * ms, wakeup(0, "worker", pid, cpu)))
        ev.append(((2 * k + 2) * ms, switch(0, idle, 0, 0, "worker", pid)))
    return ev

def page(ev):
    data, last = b"", ev[0][0]
    for t, payload in ev:
        assert len(payload) % 4 == 0 and len(payload) // 4 <= 28
        data += struct.pack("<I", (len(payload) // 4) | ((t - last) << 5)) + payload
        last = t
    return struct.pack("<Qq", T0 + ev[0][0], len(data)) + data.ljust(PAGE - 16, b"\0")

def main():
    out = b"\x17\x08\x44tracing6\0" + struct.pack("<BBI", 0, 8, PAGE)
    out += b"header_page\0" + struct.pack("<Q", len(HEADER_PAGE)) + HEADER_PAGE
    out += b"header_event\0" + struct.pack("<Q", len(HEADER_EVENT)) + HEADER_EVENT
    out += struct.pack("<I", 0)				# no ftrace formats
    out += struct.pack("<I", 1) + b"sched\0" + struct.pack("<I", 2)
    out += struct.pack("<Q", len(SWITCH)) + SWITCH + struct.pack("<Q", len(WAKEUP)) + WAKEUP
    out += struct.pack("<I", 0) + struct.pack("<I", 0)	# kallsyms, printk formats
    cmdlines = b"101 worker\n102 worker\n"
    out += struct.pack("<Q", len(cmdlines)) + cmdlines
    out += struct.pack("<I", 2) + b"options  \0" + struct.pack("<H", 0) + b"flyrecord\0"
    head = len(out) + 2 * 16
    start = (head + PAGE - 1) // PAGE * PAGE
    pages = [page(cpu_events(0, 101)), page(cpu_events(1, 102))]
    for i, p in enumerate(pages):
        out += struct.pack("<QQ", start + i * PAGE, PAGE)
    out = out.ljust(start, b"\0") + b"".join(pages)
    sys.stdout.buffer.write(out)

main()
