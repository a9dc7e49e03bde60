# Attention maps of lag's learned and rope models (first seed), every layer, on one test sequence of
# 128 tokens: row = query position, column = key position, colour = weight (log scale; grey: keys
# after the query, masked). The dashed lines mark position 32, the training length. From build/plots/attention_maps.
# Leaves out the other schemes and tasks (attention_maps can write them).
# As many columns as the models have layers (2 for the chapter's; RUN_FLAGS may give others): the
# files attention_maps wrote (it removes those of layers past the model's last).
layers = int(system(sprintf("ls %s/attention_lag_learned_layer*.dat 2>/dev/null | wc -l", data)))
if (layers < 1) { print "attention: no attention_lag_learned_layer*.dat in ", data; exit error "no maps" }
call "plots/terminal.gp" "attention" (600 * layers) 1130
set multiplot layout 2, layers title "lag, one test sequence of 128 (trained at 32): where each query looks" font ",15"
set size ratio -1
set xrange [-0.5:127.5]
set yrange [127.5:-0.5]
set xtics 32
set ytics 32
set xlabel "key position n"
set ylabel "query position m"
set logscale cb
set cbrange [1e-3:1]
set format cb "10^{%L}"
set termoption enhanced
set palette defined (0 "#ffffff", 1 "#c6dbef", 2 "#6baed6", 3 "#2171b5", 4 "#08306b")
set cblabel "attention weight"
set arrow 1 from 31.5, -0.5 to 31.5, 127.5 nohead dashtype 2 lc rgb "#e6550d" front
set arrow 2 from -0.5, 31.5 to 127.5, 31.5 nohead dashtype 2 lc rgb "#e6550d" front
set object 1 polygon from -0.5, -0.5 to 127.5, -0.5 to 127.5, 127.5 to -0.5, -0.5 fillcolor rgb "#e8e8e8" fillstyle solid noborder behind
do for [scheme in "learned rope"] {
    do for [layer = 0:layers - 1] {
        set title sprintf("%s, layer %d", scheme, layer)
        plot sprintf("%s/attention_lag_%s_layer%d.dat", data, scheme, layer) matrix using 1:2:($3 > 0 ? $3 : NaN) with image notitle
    }
}
unset multiplot
