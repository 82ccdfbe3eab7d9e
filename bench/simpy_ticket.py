#!/usr/bin/python3
"""SimPy side of `make bench`: bench/peer-ticket.yaml's model in SimPy Classic
(Debian python3-simpy 2.3.1).  N vCPUs, each pinned to its own CPU, loop:
compute for Exp(ncs) ns, take a FIFO lock (a Resource of capacity 1, which
queues waiters in arrival order as a ticket lock serves them), hold it for
the handoff plus Exp(cs) ns, release it.  One acquisition = four SimPy
events (hold, request, hold, release).

usage: simpy_ticket.py N SIM_SECONDS CS_NS NCS_NS HANDOFF_NS SEED
prints one line: acquisitions=A events=E cpu_s=C wall_s=W
(cpu_s is this process's CPU time for the simulation alone.)"""
import random
import sys
import time

from SimPy.Simulation import (Process, Resource, activate, hold, initialize,
                              release, request, simulate)


def main(argv):
    n, secs = int(argv[1]), float(argv[2])
    cs, ncs, handoff, seed = float(argv[3]), float(argv[4]), float(argv[5]), int(argv[6])
    rng = random.Random(seed)
    count = [0]

    def draw(mean):
        return rng.expovariate(1.0 / mean) if mean > 0 else 0.0

    class Vcpu(Process):
        def loop(self, lock):
            while True:
                yield hold, self, draw(ncs)
                yield request, self, lock
                yield hold, self, handoff + draw(cs)
                yield release, self, lock
                count[0] += 1

    initialize()
    lock = Resource(capacity=1)  # default queue: FIFO
    for _ in range(n):
        v = Vcpu()
        activate(v, v.loop(lock))
    c0, w0 = time.process_time(), time.perf_counter()
    simulate(until=secs * 1e9)
    cpu, wall = time.process_time() - c0, time.perf_counter() - w0
    print(f"acquisitions={count[0]} events={4 * count[0]} cpu_s={cpu:.4f} wall_s={wall:.4f}")


if __name__ == "__main__":
    main(sys.argv)
