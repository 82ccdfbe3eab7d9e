# SPDX-License-Identifier: GPL-2.0-or-later
# summary.gp - every prediction row of a validate run against its own rule:
# one panel of relative errors (predicted - measured) / measured for the rows
# with a relative tolerance, one panel per unit of predicted - measured for
# the rows with an absolute one (x1's `abs 5`: percentage points); grouped and
# coloured by case, each row's tolerance band (grey) around 0; filled points
# are within tolerance, open ones outside; relative errors above the axis top
# are drawn at it and labelled (above it: a tenth of headroom); a prediction of
# 0 is -100% on the relative axis and labelled on an absolute one.
# Variables: datafile, out, anycap (a row's run was capped), ncases,
# cases[1..ncases], np (panels), and per panel p: ylab[p], absp[p] (1: an
# absolute panel), xtl[p] (xtics list: case names at group centres),
# pcases[p] (" i j ": the cases with rows in it), nx[p] (x positions),
# ylo[p], yhi[p] (the values' range).
# datafile: one block per panel (gnuplot index), columns
#   x case error band within capped clipped "label" predicted_zero "case/row"
set datafile separator whitespace
set xtics rotate by -30 noenhanced nomirror
set grid ytics
set style fill solid 1.0 noborder
array pal[10] = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"]
inpanel(p, c) = strstrt(pcases[p], " ".c." ") > 0
W = 1100
do for [p=1:np] { if (nx[p] > 60) { W = 1400 } }
H = 40 + 480 * np
do for [fmt in "png svg"] {
    if (fmt eq "png") { set terminal pngcairo size W,H enhanced font ",10" } \
    else { set terminal svg size W,H enhanced font ",10" }
    set output out.".".fmt
    set multiplot layout np, 1 title "vlocksim validate: every prediction row against its own tolerance" noenhanced
    do for [p=1:np] {
        set ylabel ylab[p] noenhanced
        set xrange [-1:nx[p] - 1]
        set yrange [ylo[p]:yhi[p] + 0.1 * (yhi[p] - ylo[p])]
        eval "set xtics (".xtl[p].")"
        set key outside right top vertical noenhanced
        set arrow 1 from -1,0 to nx[p] - 1,0 nohead lc rgb "black" lw 1 back
        set bmargin 7
        if (p == np) { set label 1 "grey: each row's tolerance band; filled: within; open: outside; ^: capped run (a lower bound)" at screen 0.01, screen 0.015 font ",8" noenhanced }
        plot datafile index (p-1) using 1:(0):(0.42):4 with boxxyerror lc rgb "#d9d9d9" title "tolerance band", \
             for [c=1:ncases] '' index (p-1) using 1:($2 == c && $5 == 1 ? $3 : 1/0) with points pt 7 ps 1.3 lc rgb pal[(c-1)%10+1] title (inpanel(p, c) ? cases[c] : ""), \
             for [c=1:ncases] '' index (p-1) using 1:($2 == c && $5 == 0 ? $3 : 1/0) with points pt 6 ps 1.3 lw 2 lc rgb pal[(c-1)%10+1] notitle, \
             '' index (p-1) using 1:($6 == 1 ? $3 : 1/0) with points pt 8 ps 2.2 lc rgb "black" title (p == 1 && anycap ? "capped run" : ""), \
             '' index (p-1) using 1:($7 == 1 ? $3 : 1/0):8 with labels offset 0,1 font ",8" notitle, \
             '' index (p-1) using 1:(absp[p] && $9 == 1 ? $3 : 1/0):("predicted 0") with labels offset 0,-1 font ",8" notitle
        unset label 1
    }
    unset multiplot
    unset output
}
