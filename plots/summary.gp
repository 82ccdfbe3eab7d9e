# SPDX-License-Identifier: GPL-2.0-or-later
# summary.gp - every prediction row of a validate run: relative error
# (predicted - measured) / measured, grouped and coloured by case, with each
# row's tolerance band (grey) around 0; filled points are within tolerance,
# open ones outside; errors above the axis top are drawn at it and labelled.
# Variables: datafile, out, xtl (xtics list: case names at group centres),
# cases[1..ncases], ncases, top (% at the axis top), nx (x positions).
# datafile columns: x case rel_err_% band_% within capped clipped "label"
set datafile separator whitespace
set title "vlocksim validate: every prediction row against its tolerance" noenhanced
set ylabel "relative error of the prediction (%)"
set xrange [-1:nx]
set yrange [-100:top*1.08]
eval "set xtics (".xtl.")"
set xtics rotate by -30 noenhanced nomirror
set grid ytics
set key outside right top vertical noenhanced
set style fill solid 1.0 noborder
set bmargin 7
set label 1 "grey: each row's tolerance band; filled: within; open: outside; ^: capped run (a lower bound)" at screen 0.01, screen 0.015 font ",8" noenhanced
array pal[10] = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"]
set arrow 1 from -1,0 to nx,0 nohead lc rgb "black" lw 1 back
W = nx > 60 ? 1400 : 1100
do for [fmt in "png svg"] {
    if (fmt eq "png") { set terminal pngcairo size W,620 enhanced font ",10" } \
    else { set terminal svg size W,620 enhanced font ",10" }
    set output out.".".fmt
    plot datafile using 1:(0):(0.42):4 with boxxyerror lc rgb "#d9d9d9" title "tolerance band", \
         for [c=1:ncases] '' using 1:($2 == c && $5 == 1 ? $3 : 1/0) with points pt 7 ps 1.3 lc rgb pal[(c-1)%10+1] title cases[c], \
         for [c=1:ncases] '' using 1:($2 == c && $5 == 0 ? $3 : 1/0) with points pt 6 ps 1.3 lw 2 lc rgb pal[(c-1)%10+1] notitle, \
         '' using 1:($6 == 1 ? $3 : 1/0) with points pt 8 ps 2.2 lc rgb "black" title "capped run", \
         '' using 1:($7 == 1 ? $3 : 1/0):8 with labels offset 0,1 font ",8" notitle
    unset output
}
