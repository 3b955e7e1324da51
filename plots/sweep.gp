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
# Optional: quantity (what the y values are, default 'GB/s'), and peak_line,
# peak_name: a horizontal line at the device's peak in that unit (0: unknown).

set datafile separator "\t"
set title chart_title
set xlabel "problem size (elements of the result, log scale)"
if (!exists("quantity")) quantity = 'GB/s'
set ylabel "effective throughput (" . quantity . ", log scale)"
# the peak is drawn as one more line, so that the y axis reaches up to it
if (!exists("peak_line")) peak_line = 0
if (!exists("peak_name")) peak_name = 'peak'
peak_title = peak_name . sprintf(' (%.0f %s)', peak_line, quantity)
set logscale xy
set format x '%.0s%c'
set key outside right top box title 'variant, time covers'
palette = '#000000 #1f77b4 #d62728 #2ca02c #9467bd #ff7f0e #8c564b #e377c2 #17becf'
# a lesson with more variants than colours (lesson 05 has nine) starts over
colour(i) = word(palette, 1 + (int(word(series_colors, i)) - 1) % words(palette))

# the peak line below the top border, not on it
if (peak_line > 0) set yrange [*:peak_line * 2]

plot for [i = 1 : series_count] datafile index (i - 1) using 1:2 \
         with linespoints linewidth 2 pointsize 1.5 \
         linecolor rgb colour(i) \
         dashtype int(word(series_dashes, i)) \
         title columnheader(1), \
     (peak_line > 0 ? peak_line : NaN) with lines linewidth 2 dashtype 3 \
         linecolor rgb '#555555' title (peak_line > 0 ? peak_title : '')
