# Sets gnuplot's terminal and output for one picture: call 'plots/terminal.gp' NAME WIDTH HEIGHT.
# The variable `format` ("svg" or "png") and `out` (the folder) come from the command line
# (plots/plots.mk); PNG is drawn with cairo (pngcairo), as Debian's gnuplot-nox has it.
# Leaves out every other terminal.
if (format eq "svg") {
    set terminal svg size ARG2, ARG3 font "Sans,13" background rgb "white" linewidth 1.3
} else {
    set terminal pngcairo size ARG2, ARG3 font "Sans,12" background rgb "white" linewidth 1.3
}
set output sprintf("%s/%s.%s", out, ARG1, format)
set encoding utf8
set termoption noenhanced
