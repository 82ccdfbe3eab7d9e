# SPDX-License-Identifier: GPL-2.0-or-later
# case.gp - one validation case: measured (± sd, with its tolerance band)
# beside predicted (± 95% CI when n >= 3), calibration rows apart from
# prediction rows, capped runs marked; one panel per unit, each on a log
# axis when its values span more than 10x.
# Variables (set with -e by vlocksim validate): datafile, out (without
# extension), ttl, src (the footer: the measured table, its source and the
# tolerance, in srclines lines), predkey (the predicted key title, saying n),
# np, ylab[1..np], logy[1..np], zf[1..np] (on a log axis with a value of 0:
# where 0 is drawn, a third of the smallest value; else 0).
# datafile: one block per panel (gnuplot index), columns
#   index "row" role(0 calibration, 1 prediction) measured sd predicted ci95 band within capped
set datafile separator whitespace
set style fill transparent solid 0.25 noborder
set key outside top center horizontal maxrows 2 noenhanced samplen 2
set grid ytics
set xtics rotate by -35 noenhanced
set offsets 0.6, 0.6, 0, 0
set rmargin 14		# the last rotated tic label and a "predicted 0" label stay inside
ph = 380		# pixels per panel
y0(v) = (zf[p] > 0 && v <= 0) ? zf[p] : v	# where a value is drawn (0 on a log axis: zf)
lh = 12			# pixels per footer line
H = 60 + ph * np + lh * (srclines - 1)
do for [fmt in "png svg"] {
    if (fmt eq "png") { set terminal pngcairo size 1100,H enhanced font ",10" } \
    else { set terminal svg size 1100,H enhanced font ",10" }
    set output out.".".fmt
    # the title on the first panel, above its key (a multiplot title would
    # share the key's margin and be drawn over it)
    set multiplot layout np, 1
    do for [p=1:np] {
        if (p == 1) { set title ttl noenhanced } else { unset title }
        set ylabel ylab[p] noenhanced
        if (logy[p]) { set logscale y; set format y "%g"; if (zf[p] > 0) { set yrange [zf[p] / 1.6:*] } else { set yrange [*:*] } } else { unset logscale y; set yrange [0:*]; set format y "%g" }
        set bmargin (p == np ? 7 + srclines : 7)
        if (p > 1) { unset key }
        # the footer: its lines upwards from the bottom edge
        if (p == np) { set label 1 src at screen 0.01, screen (6.0 + lh * (srclines - 0.5)) / H font ",8" noenhanced }
        # the band: measured ± tolerance (wider of it and the sd when or_sd)
        # (on a log axis a band reaching 0 stops at a tenth of the measured value;
        # a value of 0 is drawn at zf[p], below the rest, and labelled)
        plot datafile index (p-1) using 1:(y0($4)):($1-0.38):($1+0.38):(logy[p] && $4-$8 < $4/10 ? y0($4/10) : $4-$8):($4+$8) with boxxyerror lc rgb "#bbbbbb" title "measured ± tolerance", \
             '' index (p-1) using ($1-0.12):(y0($4)):5:xtic(2) with yerrorbars pt 7 ps 1.1 lc rgb "black" title "measured (± sd)", \
             '' index (p-1) using ($1+0.12):($3==0 ? y0($6) : 1/0):7 with yerrorbars pt 5 ps 1.1 lc rgb "#1f77b4" title "calibration row: ".predkey, \
             '' index (p-1) using ($1+0.12):($3==1 && $9==1 ? y0($6) : 1/0):7 with yerrorbars pt 9 ps 1.4 lc rgb "#2ca02c" title "prediction within tolerance", \
             '' index (p-1) using ($1+0.12):($3==1 && $9==0 ? y0($6) : 1/0):7 with yerrorbars pt 8 ps 1.4 lc rgb "#d62728" title "prediction outside tolerance", \
             '' index (p-1) using ($1+0.12):($10==1 ? y0($6) : 1/0):("capped") with labels offset 0,1.2 font ",8" tc rgb "#d62728" notitle, \
             '' index (p-1) using ($1+0.12):(zf[p] > 0 && $6 <= 0 ? zf[p] : 1/0):("predicted 0") with labels left offset 1,0 font ",8" notitle, \
             '' index (p-1) using ($1-0.12):(zf[p] > 0 && $4 <= 0 ? zf[p] : 1/0):("measured 0") with labels right offset -1,0 font ",8" notitle
        unset label 1
    }
    set key
    unset multiplot
    unset output
}
