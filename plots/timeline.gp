# SPDX-License-Identifier: GPL-2.0-or-later
# timeline.gp - a short window of one run (vlocksim run --timeline FILE.png).
# Per vCPU (a row each, the first at the top): the upper band is its runstate,
# the lower band its lock state; marks above are exits and kicks.
# Variables: datafile, out, fmt (png|svg), ttl, ytl (ytics list), nv, x0, x1 (µs).
# datafile index 0: x0_us x1_us y kind; index 1: x_us y kind (sim/trace/timeline.h).
set title ttl noenhanced
set xlabel "simulated time (µs)"
set xrange [x0:x1]
set yrange [-0.7:nv - 0.35]
eval "set ytics (".ytl.")"
set ytics nomirror noenhanced
set grid xtics
set key outside right top vertical noenhanced
set style fill solid 1.0 border	# the border keeps sub-pixel bars visible
h = 0.15
array bn[7] = ["running", "runnable (preempted)", "blocked", "offline", \
    "lock: waiting (spinning)", "lock: waiting, halted", "lock: holding"]
array bc[7] = ["#2ca02c", "#ff7f0e", "#c7c7c7", "#7f7f7f", "#d62728", "#9467bd", "#1f77b4"]
array mn[5] = ["HLT exit", "PLE exit", "I/O exit", "hypercall exit", "kick"]
array mp[5] = [9, 7, 1, 3, 2]
array mc[5] = ["black", "#d62728", "#8c564b", "#17becf", "#9467bd"]
ht = nv > 12 ? 900 : 260 + 55 * nv
if (fmt eq "svg") { set terminal svg size 1200,ht font ",10" } \
else { set terminal pngcairo size 1200,ht font ",10" }
set output out
# lock: holding under waiting under halted, so contention shows through
plot for [k in "0 1 2 3 6 4 5"] datafile index 0 using (($1+$2)/2):($4 == int(k) ? $3 : 1/0):(($2-$1)/2):(h) \
        with boxxyerror lc rgb bc[int(k)+1] title bn[int(k)+1], \
     for [k=0:4] datafile index 1 using 1:($3 == k ? $2 : 1/0) \
        with points pt mp[k+1] ps 0.8 lc rgb mc[k+1] title mn[k+1]
unset output
