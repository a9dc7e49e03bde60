# The chapter's experiment as a picture: accuracy against test length (32, 64, 128) for its seven
# schemes, one panel per task, from make experiment's own table (results/data/{lag,seen}.dat, the
# seed means collect_results writes). Drawn at the end of make experiment, and by make plots.
# Variables from the command line: format, out, experiment (the folder of the .dat files).
# Leaves out the spread over seeds (results/summary.md has it) and lengths past 128 (plots/accuracy.gp).
call "plots/terminal.gp" "experiment" 1400 560
set multiplot layout 1, 2 margins 0.06, 0.83, 0.13, 0.86 spacing 0.07 \
    title "Trained at length 32, tested at 32, 64 and 128: accuracy, mean over the seeds (make experiment)" font ",15"
set logscale x 2
set xrange [29:140]
set xtics ("32" 32, "64" 64, "128" 128)
set yrange [0:1.04]
set ytics 0.1
set grid ytics lc rgb "#dddddd"
set xlabel "test length (tokens)"
set ylabel "accuracy"
set arrow 1 from 32, graph 0 to 32, graph 1 nohead dashtype 2 lc rgb "#888888"
set label 1 "training length" at 33, graph 0.03 tc rgb "#666666" font ",10"
schemes = "none sinusoid learned rope rope:1000000 alibi:0.5 alibi:0.0625"
colours = "#7f7f7f #1f77b4 #17becf #d62728 #ff7f0e #2ca02c #98df8a"

set title "lag: output the token 3 back (dotted: chance, 1/16)"
set key off
plot for [i=1:words(schemes)] sprintf("%s/lag.dat", experiment) using 1:word(schemes, i) with linespoints \
         lw 2 pt 7 ps 0.9 lc rgb word(colours, i) notitle, \
     sprintf("%s/lag.dat", experiment) using 1:"chance" with lines dashtype 3 lw 2 lc rgb "black" notitle

set title "seen: has this token appeared before? (dotted: always \"no\")"
set key at screen 0.99, screen 0.5 right center box opaque Left reverse samplen 2.5 spacing 1.2 title "scheme"
plot for [i=1:words(schemes)] sprintf("%s/seen.dat", experiment) using 1:word(schemes, i) with linespoints \
         lw 2 pt 7 ps 0.9 lc rgb word(colours, i) title word(schemes, i), \
     sprintf("%s/seen.dat", experiment) using 1:"always-no" with lines dashtype 3 lw 2 lc rgb "black" \
         title "baseline"
unset multiplot
