# plots/course.gp - the whole course on one device: for each lesson, its
# last kernel (plots/course.awk) at the largest size measured, as a speedup over the CPU
# version (top, log scale) and as a share of the device's attainable peak
# (bottom).
#
# Drawn by plots/plot.sh; by hand:
#   gnuplot -e "format='pngcairo'; outfile='c.png'; datafile='course.dat'; \
#     chart_title='course on ...'; speedup_max=40" plots/terminal.gp plots/course.gp
# datafile: tab-separated lines "lesson<TAB>speedup<TAB>percent<TAB>size"
# (plots/course.awk).

set datafile separator "\t"
set style fill solid 0.8 border -1
set boxwidth 0.6
set grid noxtics
set xrange [-0.6 : *]
set offsets 0, 0.6, 0, 0
unset key

# A share above 100% is possible: a kernel that keeps its data on chip over several steps (lesson
# 03's registers) is credited with the bytes each step would move, so the axis grows to show it.
stats datafile using 3 nooutput
percent_top = STATS_max > 100 ? ceil(STATS_max / 20.0) * 20 + 10 : 110

set multiplot layout 2, 1 title chart_title
set ylabel "speedup over the CPU (x, log)"
set logscale y
set yrange [0.1 : speedup_max * 5.0]
# (the size under the name, smaller: nine lessons' names and sizes side by side overlap)
set xtics font ',14'
plot datafile using 0:2:xtic(sprintf("%s\n%s", strcol(1), strcol(4))) \
         with boxes linecolor rgb '#1f77b4', \
     '' using 0:2:(sprintf('%.1fx', $2)) with labels offset 0,1 font ',18', \
     1 with lines dashtype 2 linecolor rgb '#000000'

unset logscale y
set xtics font ''
set ylabel "% of attainable peak"
set yrange [0 : percent_top]
set ytics 0, 20, percent_top - 10
plot datafile using 0:3:xtic(1) with boxes linecolor rgb '#2ca02c', \
     '' using 0:3:(sprintf('%.0f%%', $3)) with labels offset 0,1 font ',18', \
     100 with lines dashtype 2 linecolor rgb '#000000'
unset multiplot
