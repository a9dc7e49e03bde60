# The RoPE models past their training length with no extension, position interpolation, NTK-aware
# scaling and YaRN (s = L / 32 at test length L), one panel per task and base, from make
# experiment-extension (results/extension/{lag,seen}.dat). Variables from plots/plots.mk.
# Leaves out the other schemes (plots/accuracy.gp) and the spread over seeds.
call "plots/terminal.gp" "extension" 1200 960
set datafile missing "n/a"
set multiplot layout 2, 2 spacing 0.1, 0.12 title "RoPE trained at 32, extended at test time by s = length / 32 (accuracy, mean over the seeds)" font ",15"
set logscale x 2
set xrange [28:580]
set xtics ("32\ns=1" 32, "64\ns=2" 64, "128\ns=4" 128, "256\ns=8" 256, "512\ns=16" 512)
set yrange [0:1.04]
set ytics 0.1
set grid ytics lc rgb "#dddddd"
set xlabel "test length (tokens), and s" offset 0, -0.6
set ylabel "accuracy"
set arrow 1 from 32, graph 0 to 32, graph 1 nohead dashtype 2 lc rgb "#888888"
methods = "none PI NTK YaRN"
colours = "#d62728 #1f77b4 #2ca02c #9467bd"
array points[4] = [7, 5, 9, 13]
series(base, i) = i == 1 ? base : base . "+" . word(methods, i)

do for [task in "lag seen"] {
    do for [base in "rope rope:1000000"] {
        set title sprintf("%s, %s (dotted: %s)", task, base eq "rope" ? "base 10,000 (rope)" : "base 1,000,000 (rope:1000000)", \
                          task eq "lag" ? "chance" : "always \"no\"")
        if (task eq "lag" && base eq "rope") {
            set key at graph 0.97, graph 0.6 right box opaque samplen 2.5 font ",11" title "extension"
        } else {
            set key off
        }
        if (task eq "lag") {
            set label 1 "PI: at chance" at graph 0.3, graph 0.15 tc rgb "#555555" font ",10"
        } else {
            unset label 1
        }
        baseline = task eq "seen" ? "always-no" : "chance"
        plot for [i=1:4] sprintf("%s/%s.dat", extension, task) using 1:series(base, i) with linespoints \
                 lw 2 pt points[i] ps 1.1 lc rgb word(colours, i) title word(methods, i), \
             sprintf("%s/%s.dat", extension, task) using 1:baseline with lines dashtype 3 lw 2 lc rgb "black" \
                 title "baseline"
    }
}
unset multiplot
