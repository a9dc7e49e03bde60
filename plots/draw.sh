#!/bin/sh
# One picture, whole or not at all: plots/NAME.gp drawn by gnuplot as OUT_DIR/NAME.svg and .png.
#   plots/draw.sh NAME OUT_DIR GNUPLOT_SETTINGS     (e.g. "experiment='results/data'"; format and out are set here)
# gnuplot draws into a temporary folder of its own beside the pictures (OUT_DIR/.draw.XXXXXX, so the
# rename stays on one file system), and says nothing when a write fails: on a full disk it exits 0
# with a cut SVG or an empty PNG. So each picture is renamed into place only when gnuplot succeeded
# and the file is whole (an SVG ends with </svg>, a PNG with its IEND chunk) and flushed to disk;
# otherwise nothing is renamed, the temporary folder is removed, an older picture stays as it was,
# and one line says which picture and why, exit status 1. A picture path that exists and is not a
# regular file (a folder, a link) is refused, as files/atomic_file.hpp refuses one. A warning from gnuplot
# (a data file with no valid points draws an empty panel) is a failure too.
# Leaves out what is drawn (plots/*.gp) and when (plots/plots.mk, the Makefile's make experiment).
set -u
name=$1 out=$2 settings=$3
tmp=$(mktemp -d "$out/.draw.XXXXXX") || { echo "plots: cannot draw $out/$name: no temporary folder could be made in $out" >&2; exit 1; }
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
for format in svg png; do
    target=$out/$name.$format
    if [ -L "$target" ] || { [ -e "$target" ] && [ ! -f "$target" ]; }; then
        echo "plots: cannot draw $target: it exists and is not a regular file (a folder or a link); nothing drawn" >&2
        exit 1
    fi
done
for format in svg png; do
    file=$tmp/$name.$format
    gnuplot -e "format='$format'; out='$tmp'; $settings" "plots/$name.gp" 2> "$tmp/gnuplot.err"
    status=$?
    cat "$tmp/gnuplot.err" >&2
    [ $status = 0 ] || { echo "plots: gnuplot could not draw $out/$name.$format (its message above); nothing drawn" >&2; exit 1; }
    # A data file it cannot read (emptied, overwritten) is only a warning to gnuplot, and the panel comes
    # out empty: never a picture.
    if grep -q 'warning:' "$tmp/gnuplot.err"; then
        echo "plots: gnuplot warned while drawing $out/$name.$format (above: a data file with no valid points is one that was emptied or overwritten; make experiment-collect writes the experiment's again); nothing drawn" >&2
        exit 1
    fi
    case $format in
        svg) tail -c 16 "$file" 2>/dev/null | grep -q '</svg>' ;;
        png) [ "$(tail -c 8 "$file" 2>/dev/null | od -An -tx1 | tr -d ' \n')" = 49454e44ae426082 ] ;;
    esac || { echo "plots: $out/$name.$format came out cut short or empty (a full disk or a file-size limit?); nothing drawn over it" >&2; exit 1; }
    sync "$file" 2>/dev/null ||
        { echo "plots: $out/$name.$format could not be flushed to disk (a full disk?); nothing drawn over it" >&2; exit 1; }
done
for format in svg png; do
    mv -f "$tmp/$name.$format" "$out/$name.$format" || { echo "plots: cannot rename the new $name.$format into $out" >&2; exit 1; }
done
