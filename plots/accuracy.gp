# Accuracy against test length for every scheme, one panel per task, from make experiment-extension
# (results/extension/{lag,seen}.dat, seed means). Variables from plots/plots.mk: format, out, extension.
# Leaves out the context-extension methods (plots/extension.gp) and the spread over seeds.
call "plots/terminal.gp" "accuracy" 1400 560
set datafile missing "n/a"
set multiplot layout 1, 2 margins 0.06, 0.83, 0.13, 0.86 spacing 0.07 \
    title "Trained at length 32, tested up to 512: accuracy, mean over the seeds (learned has 128 rows)" font ",15"
set logscale x 2
set xrange [28:580]
set xtics ("32" 32, "64" 64, "128" 128, "256" 256, "512" 512)
set yrange [0:1.04]
set ytics 0.1
set grid ytics lc rgb "#dddddd"
set xlabel "test length (tokens)"
set ylabel "accuracy"
set arrow 1 from 32, graph 0 to 32, graph 1 nohead dashtype 2 lc rgb "#888888"
set label 1 "training length" at 33, graph 0.03 tc rgb "#666666" font ",10"
schemes = "none sinusoid learned rope rope:1000000 alibi:0.5 alibi:0.0625 t5"
colours = "#7f7f7f #1f77b4 #17becf #d62728 #ff7f0e #2ca02c #98df8a #9467bd"

set title "lag: output the token 3 back (dotted: chance, 1/16)"
set key off
plot for [i=1:words(schemes)] sprintf("%s/lag.dat", extension) using 1:word(schemes, i) with linespoints \
         lw 2 pt 7 ps 0.9 lc rgb word(colours, i) notitle, \
     sprintf("%s/lag.dat", extension) using 1:"chance" with lines dashtype 3 lw 2 lc rgb "black" notitle

# One key for both panels, at the right of the picture.
set title "seen: has this token appeared before? (dotted: always \"no\")"
set key at screen 0.99, screen 0.5 right center box opaque Left reverse samplen 2.5 spacing 1.2 title "scheme"
plot for [i=1:words(schemes)] sprintf("%s/seen.dat", extension) using 1:word(schemes, i) with linespoints \
         lw 2 pt 7 ps 0.9 lc rgb word(colours, i) title word(schemes, i), \
     sprintf("%s/seen.dat", extension) using 1:"always-no" with lines dashtype 3 lw 2 lc rgb "black" \
         title "baseline"
unset multiplot
