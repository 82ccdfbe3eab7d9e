# case.gp - one validation case: measured (sd error bars) beside predicted
# (95% CI), calibration rows apart from prediction rows.
# Variables (set with -e): datafile, out (without extension), ttl, ylab, src.
# datafile columns: index "row" role(0 calibration, 1 prediction) measured sd predicted ci95
set datafile separator whitespace
set title ttl noenhanced
set ylabel ylab noenhanced
set xlabel "measured row (setup/variant)"
set key top left box opaque samplen 2
set bmargin 6
set grid ytics
set xtics rotate by -30 noenhanced
set yrange [0:*]
set autoscale ymax
set offsets 0.5, 0.5, graph 0.25, 0
set label 1 src at screen 0.01, screen 0.02 font ",7" noenhanced
do for [fmt in "png svg"] {
    if (fmt eq "png") { set terminal pngcairo size 1000,600 enhanced font ",10" } \
    else { set terminal svg size 1000,600 enhanced font ",10" }
    set output out.".".fmt
    plot datafile using ($1-0.12):4:5:xtic(2) with yerrorbars pt 7 ps 1.2 lc rgb "black" title "measured (± sd)", \
         ''       using ($1+0.12):($3==0 ? $6 : 1/0):7 with yerrorbars pt 5 ps 1.2 lc rgb "#1f77b4" title "predicted, calibration row (± 95% CI)", \
         ''       using ($1+0.12):($3==1 ? $6 : 1/0):7 with yerrorbars pt 9 ps 1.5 lc rgb "#d62728" title "predicted, prediction row (± 95% CI)"
}
