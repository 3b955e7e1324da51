# plots/roofline.gp - roofline: arithmetic intensity (FLOP per byte moved)
# against achieved GFLOP/s, under the device's two roofs: memory bandwidth
# (GB/s x FLOP/byte, the slanted line) and compute peak (the flat line). A
# point on the slanted roof is as fast as the memory allows; a lesson with
# few FLOPs per byte can never reach the compute roof.
#
# Drawn by plots/plot.sh; by hand:
#   gnuplot -e "format='pngcairo'; outfile='r.png'; datafile='roofline.dat'; \
#     chart_title='lesson01'; peak_gbps=1000; peak_gflops=10000; \
#     intensity_min=0.08; intensity_max=0.08" plots/terminal.gp plots/roofline.gp
# datafile: tab-separated lines "variant scope<TAB>FLOP/byte<TAB>GFLOP/s".
# peak_gbps, peak_gflops: the roofs; 0 when the device's peaks are unknown
# (CPU emulation), then only the measured points are drawn.

set datafile separator "\t"
set title chart_title
set xlabel "arithmetic intensity (FLOP per byte, log scale)"
set ylabel "achieved GFLOP/s (log scale)"
set logscale xy
set key inside left top box opaque
has_roofs = (peak_gbps > 0 && peak_gflops > 0)
# Show at least two decades around the points, and the ridge point (where
# the two roofs meet) when there are roofs.
ridge = has_roofs ? (1.0 * peak_gflops) / peak_gbps : intensity_max
set xrange [intensity_min / 10.0 : (ridge > intensity_max ? ridge : intensity_max) * 10.0]
set samples 400
# The y axis: a decade below the slowest point, up to the compute roof.
stats datafile using 3 nooutput
set yrange [STATS_min / 10.0 : (has_roofs ? peak_gflops * 3.0 : STATS_max * 10.0)]
roof(x) = (x * peak_gbps < peak_gflops) ? x * peak_gbps : peak_gflops

if (has_roofs) {
    plot roof(x) title sprintf('roofline: %.0f GB/s, %.0f GFLOP/s', peak_gbps, peak_gflops) \
             with lines linewidth 3 linecolor rgb '#000000', \
         datafile using 2:3:(column(0) + 1) with points pointtype 7 pointsize 2.5 \
             linecolor variable title 'measured (largest size)', \
         '' using 2:3:1 with labels left offset 1.5,0 notitle
} else {
    plot datafile using 2:3:(column(0) + 1) with points pointtype 7 pointsize 2.5 \
             linecolor variable title 'measured (largest size), no roofs: device peaks unknown', \
         '' using 2:3:1 with labels left offset 1.5,0 notitle
}
