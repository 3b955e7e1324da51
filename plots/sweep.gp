# plots/sweep.gp - line chart: effective GB/s against problem size, log-log,
# one line per variant and scope. Small sizes show the fixed costs (kernel
# launch, copies); past the L2 cache size the GPU lines flatten at the memory
# bandwidth; where a GPU line crosses the CPU line the GPU starts to pay off.
#
# Drawn by plots/plot.sh; by hand:
#   gnuplot -e "format='pngcairo'; outfile='w.png'; datafile='sweep.dat'; \
#     chart_title='lesson01'; series_count=5; series_colors='1 2 2 3 3'; \
#     series_dashes='1 1 2 1 2'" plots/terminal.gp plots/sweep.gp
# datafile: one block per line of the chart (blocks separated by two blank
# lines); a block's first line is its legend, then "size<TAB>GB/s" lines.
# series_colors, series_dashes: a colour (by variant) and a dash pattern
# (solid kernel and host, dashed end-to-end) per block, as words.

set datafile separator "\t"
set title chart_title
set xlabel "problem size (elements of the result, log scale)"
set ylabel "effective throughput (GB/s, log scale)"
set logscale xy
set format x '%.0s%c'
set key outside right top box title 'variant, time covers'
palette = '#000000 #1f77b4 #d62728 #2ca02c #9467bd #ff7f0e #8c564b'

plot for [i = 1 : series_count] datafile index (i - 1) using 1:2 \
         with linespoints linewidth 2 pointsize 1.5 \
         linecolor rgb word(palette, int(word(series_colors, i))) \
         dashtype int(word(series_dashes, i)) \
         title columnheader(1)
