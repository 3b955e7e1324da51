# plots/machines.gp - grouped bars: the same lesson on several machines, the
# CPU version's GB/s beside the best GPU kernel's GB/s, each machine at the
# largest size it measured (its results file's latest run).
#
# Drawn by plots/plot.sh when it is given more than one results file; by hand:
#   gnuplot -e "format='pngcairo'; outfile='m.png'; datafile='machines.dat'; \
#     chart_title='lesson01'" plots/terminal.gp plots/machines.gp
# datafile: tab-separated lines "machine<TAB>detail<TAB>CPU GB/s<TAB>best kernel GB/s",
# '?' where a machine has no such row (no GPU variant ran there).

set datafile separator "\t"
set datafile missing '?'
set title chart_title
set ylabel "effective throughput (GB/s, log scale)"
set xlabel "machine (problem size n)" offset 0,-1.2
set logscale y
set grid noxtics
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set key inside left top box opaque
# a little headroom above the tallest bar for the legend
set offsets 0, 0, graph 0.15, 0

# Each machine is labelled on two lines: its name, then the detail (size).
plot datafile using 3:xtic(strcol(1) . "\n" . strcol(2)) title 'CPU version' linecolor rgb '#000000', \
     '' using 4 title 'best GPU kernel' linecolor rgb '#1f77b4'
