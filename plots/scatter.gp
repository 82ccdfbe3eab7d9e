# SPDX-License-Identifier: GPL-2.0-or-later
# scatter.gp - every validation row: predicted against measured, with y = x.
# Variables: datafile, out (without extension), lo, hi (both axes' range: y = x
# is the diagonal), zf (the log axes have no 0: a value of 0 is drawn at zf, a
# third of the smallest value, on a dotted line labelled once; 0 when no value
# is 0), mz, pz (1: a measured, a predicted value is 0).
# datafile columns: measured predicted role(0 calibration, 1 prediction) "case/row"
set title "vlocksim: predicted against measured, all validation rows" noenhanced
set xlabel "measured (each row in its own unit)"
set ylabel "predicted (same unit)"
set logscale xy
set key top left
set grid
set size ratio -1
set xrange [lo:hi]
set yrange [lo:hi]
if (pz) { set arrow 1 from lo, zf to hi, zf nohead dt 3 lc rgb "gray50"; set label 1 "predicted 0" at hi / 1.3, zf * 1.5 right font ",8" }
if (mz) { set arrow 2 from zf, lo to zf, hi nohead dt 3 lc rgb "gray50"; set label 2 "measured 0" at zf * 1.2, zf * 6 left rotate by 90 font ",8" }
z(v) = (zf > 0 && v <= 0) ? zf : v
do for [fmt in "png svg"] {
    if (fmt eq "png") { set terminal pngcairo size 700,700 enhanced font ",10" } \
    else { set terminal svg size 700,700 enhanced font ",10" }
    set output out.".".fmt
    plot datafile using (z($1)):($3==0 ? z($2) : 1/0) with points pt 5 ps 1.2 lc rgb "#1f77b4" title "calibration rows", \
         ''       using (z($1)):($3==1 ? z($2) : 1/0) with points pt 9 ps 1.5 lc rgb "#d62728" title "prediction rows", \
         x with lines dt 2 lc rgb "gray40" title "y = x"
}
