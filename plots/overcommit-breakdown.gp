# SPDX-License-Identifier: GPL-2.0-or-later
# overcommit-breakdown.gp - where the extra time of an overcommitted
# kernel-build guest goes (issue 28): stacked bars per overcommit point and
# lock, from bench/profile/overcommit.sh's overcommit.dat, with kernbench's
# Elapsed Time as points; one panel per lock (the .dat's data blocks, index 0
# ticket, index 1 pv-ticket), each on its own scale: pv-ticket's bars are a
# few hundred seconds where ticket's are thousands.  Variables: dat (the .dat), out (file name without
# extension).  Drawn by:
#   gnuplot -e "dat='out/overcommit/overcommit.dat'; out='out/overcommit/overcommit'" plots/overcommit-breakdown.gp
set ylabel "seconds per build (vCPU-seconds / 8)"
set style data histograms
set style histogram rowstacked
set style fill solid 0.8 border -1
set boxwidth 0.7
set key inside left top vertical noenhanced font ",8"
set grid ytics
set xtics rotate by -30 noenhanced
set label 1 "bars: vCPU-seconds / 8 per build of the guest's steal, zone + lru lock waits (split by lock.c's wait clocks), IPI waits, woken tasks waiting, idle; points: kernbench Elapsed Time; 1/10 builds x10.\nA lock wait counts the waiter's own steal too (its vCPU preempted while it waited), so the bars can add up to more than the time." at screen 0.01, screen 0.04 font ",8" noenhanced
set bmargin 7
set offsets 0, 0, graph 0.08, 0	# room above the tallest point
do for [fmt in "png svg"] {
    if (fmt eq "png") { set terminal pngcairo size 1150,620 enhanced font ",10" } \
    else { set terminal svg size 1150,620 enhanced font ",10" }
    set output out.".".fmt
    set multiplot layout 1,2 title "kernbench guest (8 vCPUs, X5570 8 pCPUs, no PLE): where the time goes under overcommit" noenhanced
    do for [i=0:1] {
        if (i == 1) { unset key }
        plot dat index i using 4:xtic(sprintf("%sx %s", strcol(1), strcol(2))) title "steal (runnable)", \
             '' index i using 5 title "lock wait: holder preempted", \
             '' index i using 6 title "lock wait: hand-over (next waiter preempted or halted)", \
             '' index i using 7 title "lock wait: holder running", \
             '' index i using 8 title "IPI wait", \
             '' index i using 9 title "woken, waiting to run", \
             '' index i using 10 title "guest idle", \
             '' index i using 0:3 with linespoints lw 2 pt 7 title "Elapsed Time (s)"
        set key inside left top vertical noenhanced font ",8"
    }
    unset multiplot
}
