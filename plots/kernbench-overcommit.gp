# SPDX-License-Identifier: GPL-2.0-or-later
# kernbench-overcommit.gp - the quick start's plot: kernbench elapsed time
# against overcommit, ticket (BASE) and pv-ticket (BASE+patch), without and
# with PLE; predicted lines from two sweeps, measured points (seed 001) on top.
# Variables: nople, ple (sweep results.csv files), measured (seed001 CSV),
# scale (work simulated = 1/scale of the compile; times are multiplied back),
# reps (replications behind a predicted point), out; only = "nople" or "ple":
# that host alone (the picture beside each sweep), else ("both") both.
# The sweeps vary vms[1].count first and vms[0].lock = ticket,pv-ticket second,
# so ticket rows are the even ones (every 2::0) and pv-ticket the odd ones.
set datafile separator ","
set datafile columnheaders	# columns are found by name in each file's header
if (!exists("only")) { only = "both" }
sn = only ne "ple"	# draw the X5570 (no PLE) host
sp = only ne "nople"	# draw the X7560 (PLE) host
host = sn && sp ? "" : (sn ? " on the X5570 (no PLE)" : " on the X7560 (PLE)")
set title "kernbench elapsed time under overcommit".host.": predicted (lines) and measured (points, seed 001)" noenhanced
set xlabel "overcommit (kernbench guest + N cpuhog guests of 8 vCPUs, on 8 pCPUs)"
set ylabel "kernbench Elapsed Time (s, log scale)"
set logscale y
set xrange [0.8:4.2]
set xtics ("1x" 1, "2x" 2, "3x" 3, "4x" 4)
# the key below the axis: predicted in one column, measured in the other;
# the footer lines under it
set key at screen 0.5, screen 0.19 center top vertical maxrows (sn && sp ? 4 : 2) noenhanced
set bmargin 12
set grid
set label 1 sprintf("predicted: 1/%g of each build simulated, times x%g; calibrated on the 1x BASE rows (mean, sd) only; measured: mean ± sd of 3 runs", scale, scale) at screen 0.01, screen 0.012 font ",8" noenhanced
# A t-based CI from fewer than 3 replications is 12.7 sd wide at n = 2: not drawn.
noci = exists("reps") ? reps < 3 : 0
ci(c) = noci ? 0 : column(c) * scale
if (noci) { set label 2 sprintf("predicted lines: mean of n = %d replications (no CI drawn below 3)", reps) at screen 0.01, screen 0.038 font ",8" noenhanced }
ox(s) = real(substr(s, strstrt(s, "-") + 1, strstrt(s, "x") - 1))
isnople(s) = strstrt(s, "nople") == 1
do for [fmt in "png svg"] {
    if (fmt eq "png") { set terminal pngcairo size 1150,700 enhanced font ",10" } \
    else { set terminal svg size 1150,700 enhanced font ",10" }
    set output out.".".fmt
    plot nople every 2::0 using ($1+1):(sn ? column("bench.make_mean_s_mean")*scale : 1/0):(ci("bench.make_mean_s_ci95")) with yerrorlines lw 2 pt 7 lc rgb "#d62728" title (sn ? "X5570, no PLE, ticket (BASE): predicted" : ""), \
         nople every 2::1 using ($1+1):(sn ? column("bench.make_mean_s_mean")*scale : 1/0):(ci("bench.make_mean_s_ci95")) with yerrorlines lw 2 pt 5 lc rgb "#1f77b4" title (sn ? "X5570, no PLE, pv-ticket: predicted" : ""), \
         ple every 2::0 using ($1+1):(sp ? column("bench.make_mean_s_mean")*scale : 1/0):(ci("bench.make_mean_s_ci95")) with yerrorlines lw 2 dt 2 pt 7 lc rgb "#ff7f0e" title (sp ? "X7560, PLE, ticket (BASE): predicted" : ""), \
         ple every 2::1 using ($1+1):(sp ? column("bench.make_mean_s_mean")*scale : 1/0):(ci("bench.make_mean_s_ci95")) with yerrorlines lw 2 dt 2 pt 5 lc rgb "#2ca02c" title (sp ? "X7560, PLE, pv-ticket: predicted" : ""), \
         measured using (ox(strcol(1))-0.04):(isnople(strcol(1)) && strcol(2) eq "base" && sn ? column("mean") : 1/0):(column("sd")) with yerrorbars pt 9 ps 1.6 lc rgb "#d62728" title (sn ? "X5570 BASE: measured (± sd)" : ""), \
         measured using (ox(strcol(1))-0.02):(isnople(strcol(1)) && strcol(2) eq "patched" && sn ? column("mean") : 1/0):(column("sd")) with yerrorbars pt 11 ps 1.6 lc rgb "#1f77b4" title (sn ? "X5570 pv-ticket: measured (± sd)" : ""), \
         measured using (ox(strcol(1))+0.02):(!isnople(strcol(1)) && strcol(2) eq "base" && sp ? column("mean") : 1/0):(column("sd")) with yerrorbars pt 8 ps 1.6 lc rgb "#ff7f0e" title (sp ? "X7560 PLE BASE: measured (± sd)" : ""), \
         measured using (ox(strcol(1))+0.04):(!isnople(strcol(1)) && strcol(2) eq "patched" && sp ? column("mean") : 1/0):(column("sd")) with yerrorbars pt 10 ps 1.6 lc rgb "#2ca02c" title (sp ? "X7560 PLE pv-ticket: measured (± sd)" : "")
}
