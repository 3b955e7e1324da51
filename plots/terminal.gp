# plots/terminal.gp - the output format shared by every chart: PNG or SVG,
# 1600x1000 pixels, 18 pt text, so a chart stays readable on a lab projector.
#
# plot.sh runs it before each chart script, with the file name and format set:
#   gnuplot -e "format='svg'; outfile='out.svg'" plots/terminal.gp plots/sweep.gp
# format is 'pngcairo', 'png' (when gnuplot was built without cairo) or 'svg'.

if (format eq 'svg') {
    set terminal svg size 1600,1000 font 'sans,18' background '#ffffff'
} else {
    if (format eq 'pngcairo') {
        set terminal pngcairo size 1600,1000 font 'sans,18' linewidth 2
    } else {
        set terminal png size 1600,1000 font 'sans,18'
    }
}
set output outfile
# Device names are printed as they are: no ^ or _ read as super/subscript.
set termoption noenhanced
set key outside right top box
set grid
set border linewidth 1.5
# A long title goes on two lines: what was measured where, then what the chart shows.
if (exists("chart_subtitle")) chart_title = chart_title . "\n" . chart_subtitle
