# plots/speedup.gp - bar chart: how many times faster than the CPU version
# each GPU variant is, at the largest size measured, on a log scale.
#
# Drawn by plots/plot.sh (sh plots/plot.sh plots/out plots/results/*.csv); by hand:
#   gnuplot -e "format='pngcairo'; outfile='s.png'; datafile='speedup.dat'; \
#     chart_title='lesson01'; speedup_min=0.1; speedup_max=40" plots/terminal.gp plots/speedup.gp
# datafile: tab-separated lines "variant scope<TAB>speedup" (plots/tables.awk).
# speedup_min/max: the smallest and largest speedup, to size the axis.

set datafile separator "\t"
set title chart_title
set ylabel "speedup over the CPU version (x, log scale)"
set xlabel "variant and what the time covers"
set logscale y
# Keep 1x (as fast as the CPU) well inside the axis: bars start there,
# up for faster than the CPU, down for slower.
set yrange [speedup_min / 3.0 : speedup_max * 3.0]
set xrange [-0.6 : *]
set offsets 0, 0.6, 0, 0
set grid noxtics
set style fill solid 0.8 border -1
unset key
# Past six bars their names ("variant scope") would run into each other:
# slanted, each ends under its own bar.
stats datafile using 2 nooutput
if (STATS_records > 6) set xtics rotate by 30 right
bar_half_width = 0.3

plot datafile using 0:(1):($0 - bar_half_width):($0 + bar_half_width):(1):2:xtic(1) \
         with boxxyerror linecolor rgb '#1f77b4', \
     '' using 0:2:(sprintf('%.2fx', $2)) with labels offset 0,1 font ',18', \
     1 with lines dashtype 2 linecolor rgb '#000000'
