# plots/block-sweep.gp - line chart: median kernel time against threads per
# block, one line per GPU variant, with a vertical line at the block size the
# occupancy API chose (chosen_threads; 0: none printed). Drawn by
# plots/block-sweep.sh, which sets datafile (one block per variant: its name,
# then "threads<TAB>ms" lines), series_count and chart_title.

set datafile separator "\t"
set title chart_title
set xlabel "threads per block"
set ylabel "median kernel time (ms, log scale)"
set logscale y
set xrange [0:1056]
set xtics 0, 128, 1024
set key outside right top box title 'variant'
if (chosen_threads > 0) {
    set arrow from chosen_threads, graph 0 to chosen_threads, graph 1 nohead \
        linecolor rgb '#d62728' dashtype 2 linewidth 2
    set label sprintf("occupancy API: %d", chosen_threads) at chosen_threads, graph 0.05 \
        right offset -1, 0 textcolor rgb '#d62728'
}
plot for [i = 1 : series_count] datafile index (i - 1) using 1:2 \
         with linespoints linewidth 2 pointsize 1.2 title columnheader(1)
