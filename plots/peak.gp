# plots/peak.gp - bar chart: each kernel's throughput as a percentage of what
# the device's roofline allows (its memory bandwidth or its compute peak,
# whichever limits this kernel), at the largest size measured.
#
# Drawn by plots/plot.sh; by hand:
#   gnuplot -e "format='pngcairo'; outfile='p.png'; datafile='peak.dat'; \
#     chart_title='lesson01'" plots/terminal.gp plots/peak.gp
# datafile: tab-separated lines "variant scope<TAB>percent" (plots/tables.awk).

set datafile separator "\t"
set title chart_title
set ylabel "% of the device's attainable peak"
set xlabel "variant"
set grid noxtics
set style fill solid 0.8 border -1
set boxwidth 0.6
unset key
# Past six bars their names ("variant scope") would run into each other:
# slanted, each ends under its own bar.
stats datafile using 2 nooutput
if (STATS_records > 6) set xtics rotate by 30 right
# A share above 100% is possible: a kernel that keeps its data on chip over
# several steps (lesson 03's registers) is credited with the bytes each step
# would move, so the axis grows to show its bar and label.
percent_top = STATS_max > 100 ? ceil(STATS_max / 10.0) * 10 + 10 : 110
set yrange [0 : percent_top]
set ytics 0, 10, percent_top - 10

plot datafile using 0:2:xtic(1) with boxes linecolor rgb '#2ca02c', \
     '' using 0:2:(sprintf('%.1f%%', $2)) with labels offset 0,1 font ',18', \
     100 with lines dashtype 2 linecolor rgb '#000000'
