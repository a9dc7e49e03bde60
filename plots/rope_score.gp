# RoPE's score against distance: the all-ones query and key, d apart, as a share of their score at
# d = 0 (the mean of cos(d theta_i) over the 32 pairs of the experiment's head), for bases 10,000
# and 1,000,000, from build/plots/rope_curves (results/plots/data/rope_score.dat).
# Leaves out trained queries and keys, whose scores need not decay at all.
call "plots/terminal.gp" "rope_score" 1100 520
set logscale x 10
set xrange [1:100000]
set yrange [-0.3:1.05]
set format x "10^{%L}"
set termoption enhanced
set xlabel "distance d between query and key (positions, log scale)"
set ylabel "score(d) / score(0)"
set title "RoPE's long-range decay (H = 64, query = key = all ones): a larger base decays later"
set grid xtics ytics lc rgb "#dddddd"
set key top right box opaque
set arrow 1 from 31, graph 0 to 31, graph 1 nohead dashtype 2 lc rgb "#888888"
set arrow 2 from 511, graph 0 to 511, graph 1 nohead dashtype 2 lc rgb "#888888"
set label 1 "31: longest distance\nin training" at 34, -0.12 tc rgb "#555555" font ",10"
set label 2 "511: longest\nat test" at 560, -0.12 tc rgb "#555555" font ",10"
plot sprintf("%s/rope_score.dat", data) using ($1 > 0 ? $1 : 1/0):2 with lines lw 2 lc rgb "#d62728" title "base 10,000", \
     "" using ($1 > 0 ? $1 : 1/0):3 with lines lw 2 lc rgb "#ff7f0e" title "base 1,000,000", \
     0 with lines lc rgb "#999999" notitle
