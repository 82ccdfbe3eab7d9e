# sweep.gp - one metric of a sweep against the first varied path, one line
# per value (combination) of the other varied paths, with 95% CI bars.
# Variables (set with -e by vlocksim sweep): datafile, out (without
# extension), ttl, sub (second title line), xlab, ylab, xcat (1: the first path's values are not
# numbers; plot them evenly spaced, labelled), nlines, keys[1..nlines].
# datafile: one block per line (gnuplot index), columns x mean ci95 "label".
set datafile separator whitespace
set title ttl."\n".sub noenhanced
set xlabel xlab noenhanced
set ylabel ylab noenhanced
set key outside bottom center vertical maxrows 4 noenhanced
set grid
set offsets graph 0.03, graph 0.03, graph 0.05, graph 0.05
if (xcat) { set xtics noenhanced; set offsets 0.5, 0.5, graph 0.05, graph 0.05 }
do for [fmt in "png svg"] {
    if (fmt eq "png") { set terminal pngcairo size 900,640 noenhanced font ",10" } \
    else { set terminal svg size 900,640 noenhanced font ",10" }
    set output out.".".fmt
    if (xcat) {
        plot for [i=1:nlines] datafile index (i-1) using 1:2:3:xtic(4) \
            with yerrorlines pt 7 ps 0.8 title keys[i]
    } else {
        plot for [i=1:nlines] datafile index (i-1) using 1:2:3 \
            with yerrorlines pt 7 ps 0.8 title keys[i]
    }
    unset output
}
