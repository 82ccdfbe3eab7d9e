# SPDX-License-Identifier: GPL-2.0-or-later
# scatter.gp - every validation row: predicted against measured, with y = x.
# Variables: datafile, out (without extension), zf (the log axes have no 0:
# a value of 0 is drawn at zf, a third of the smallest value, and labelled;
# 0 when no value is 0).
# datafile columns: measured predicted role(0 calibration, 1 prediction) "case/row"
set title "vlocksim: predicted against measured, all validation rows" noenhanced
set xlabel "measured (each row in its own unit)"
set ylabel "predicted (same unit)"
set logscale xy
set key top left
set grid
set size ratio -1
if (zf > 0) { set xrange [zf / 1.6:*]; set yrange [zf / 1.6:*] }
z(v) = (zf > 0 && v <= 0) ? zf : v
do for [fmt in "png svg"] {
    if (fmt eq "png") { set terminal pngcairo size 700,700 enhanced font ",10" } \
    else { set terminal svg size 700,700 enhanced font ",10" }
    set output out.".".fmt
    plot datafile using (z($1)):($3==0 ? z($2) : 1/0) with points pt 5 ps 1.2 lc rgb "#1f77b4" title "calibration rows", \
         ''       using (z($1)):($3==1 ? z($2) : 1/0) with points pt 9 ps 1.5 lc rgb "#d62728" title "prediction rows", \
         ''       using (z($1)):($2 <= 0 && zf > 0 ? zf : 1/0):("predicted 0") with labels left offset 1,0 font ",8" notitle, \
         ''       using ($1 <= 0 && zf > 0 ? zf : 1/0):(z($2)):("measured 0") with labels left offset 1,0 font ",8" notitle, \
         x with lines dt 2 lc rgb "gray40" title "y = x"
}
