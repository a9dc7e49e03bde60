# The wavelength 2 pi / theta_i of each pair: left, the chapter's two bases at head dimension 128
# (where-am-i, "The frequencies, and longer contexts"); right, the experiment's head (H = 64) with
# the training length 32 and the turns r = 32 / lambda that YaRN's ramps read. From build/plots/rope_curves (wavelengths.dat).
# Leaves out the other methods' changed wavelengths (lesson 11 prints them).
call "plots/terminal.gp" "wavelengths" 1300 560
set datafile missing "-"
set multiplot layout 1, 2 title "Wavelength of each pair i: positions for one full turn, 2π / θ(i)" font ",15"
set logscale y 10
set format y "10^{%L}"
set termoption enhanced
set grid ytics lc rgb "#dddddd"
set ylabel "wavelength (positions, log scale)"
set xlabel "pair i"
set key top left box opaque

set title "The chapter's bases, head dimension 128 (64 pairs)"
set xrange [-1:64]
set yrange [1:1e8]
set arrow 1 from graph 0, first 8192 to graph 1, first 8192 nohead dashtype 2 lc rgb "#555555"
set arrow 2 from graph 0, first 131072 to graph 1, first 131072 nohead dashtype 2 lc rgb "#555555"
set label 1 "8,192" at 1, 8192 * 1.6 tc rgb "#555555" font ",10"
set label 2 "131,072" at 1, 131072 * 1.6 tc rgb "#555555" font ",10"
plot sprintf("%s/wavelengths.dat", data) using 1:2 with linespoints pt 7 ps 0.6 lw 2 lc rgb "#d62728" title "base 10,000", \
     "" using 1:3 with linespoints pt 7 ps 0.6 lw 2 lc rgb "#8c564b" title "base 500,000 (Llama 3)"

set title "The experiment's head, H = 64 (32 pairs), trained at 32"
set xrange [-1:32]
set yrange [1:1e7]
unset arrow
unset label
set object 1 rect from graph 0, first 1 to graph 1, first 32 fillcolor rgb "#fff2cc" fillstyle solid 0.6 noborder behind
set arrow 1 from graph 0, first 32 to graph 1, first 32 nohead dashtype 2 lc rgb "#555555"
set arrow 2 from graph 0, first 512 to graph 1, first 512 nohead dashtype 2 lc rgb "#555555"
set label 1 "32: training length" at 20, 32 * 1.6 tc rgb "#555555" font ",10"
set label 2 "512: longest test" at 20, 512 * 1.6 tc rgb "#555555" font ",10"
set label 3 "shaded: a full turn within 32 positions (r ≥ 1);\nno pair has r > 32, yet YaRN's code keeps\npair 0 whole (its ramp runs over pair indices)" \
    at graph 0.3, graph 0.15 tc rgb "#555555" font ",10"
plot sprintf("%s/wavelengths.dat", data) using 1:4 with linespoints pt 7 ps 0.6 lw 2 lc rgb "#d62728" title "base 10,000 (rope)", \
     "" using 1:5 with linespoints pt 7 ps 0.6 lw 2 lc rgb "#ff7f0e" title "base 1,000,000 (rope:1000000)"
unset multiplot
