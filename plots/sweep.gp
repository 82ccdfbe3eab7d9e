# SPDX-License-Identifier: GPL-2.0-or-later
# sweep.gp - one metric of a sweep against the first varied path, one line
# per value (combination) of the other varied paths, with 95% CI bars when
# there are 3 or more replications.
# Variables (set with -e by vlocksim sweep): datafile, out (without
# extension), ttl, sub (second title line), xlab, ylab, xcat (1: the first
# path's values are not numbers; plot them evenly spaced, labelled), xint (1:
# they are integers: integer ticks), noci (1: n < 3, no CI bars), nlines,
# keys[1..nlines].
# datafile: one block per line (gnuplot index), columns x mean ci95 "label".
set datafile separator whitespace
set title ttl."\n".sub noenhanced
set xlabel xlab noenhanced
set ylabel ylab noenhanced
# the key under the axis: long paths do not squeeze the plot
set key below vertical noenhanced
set grid
# the axes end near the data (not at the next tic or decade: an axis of 0-3
# was drawn from -1 to 4, times of 1e-3-1e-2 s from 1e-5 to 1)
set autoscale yfix
set offsets graph 0.03, graph 0.03, graph 0.05, graph 0.05
if (xcat) { set xtics noenhanced; set offsets 0.5, 0.5, graph 0.05, graph 0.05 }
stats datafile using 1 nooutput
xlo = STATS_min; xhi = STATS_max
if (!xcat && xint) { if (xhi - xlo <= 20) { set xtics 1 } ; set format x "%.0f" }
if (!xcat && xhi > xlo) { set xrange [xlo - 0.04 * (xhi - xlo):xhi + 0.04 * (xhi - xlo)] }
stats datafile using 2 nooutput
# a quantity that is never negative gets an axis from 0; a log axis when the
# means span more than 10x
if (STATS_min >= 0) { set yrange [0:*] }
if (STATS_min > 0 && STATS_max / STATS_min > 10) { set logscale y; set yrange [*:*]; set format y "%g" }
do for [fmt in "png svg"] {
    if (fmt eq "png") { set terminal pngcairo size 1000,600 noenhanced font ",10" } \
    else { set terminal svg size 1000,600 noenhanced font ",10" }
    set output out.".".fmt
    if (xcat) {
        if (noci) {
            plot for [i=1:nlines] datafile index (i-1) using 1:2:xtic(4) \
                with linespoints pt 7 ps 0.8 title keys[i]
        } else {
            plot for [i=1:nlines] datafile index (i-1) using 1:2:3:xtic(4) \
                with yerrorlines pt 7 ps 0.8 title keys[i]
        }
    } else {
        if (noci) {
            plot for [i=1:nlines] datafile index (i-1) using 1:2 \
                with linespoints pt 7 ps 0.8 title keys[i]
        } else {
            plot for [i=1:nlines] datafile index (i-1) using 1:2:3 \
                with yerrorlines pt 7 ps 0.8 title keys[i]
        }
    }
    unset output
}
