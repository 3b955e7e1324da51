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
# arithmetic: the precision of peak_gflops, 'FP32' unless given ('FP64').

set datafile separator "\t"
set title chart_title
set xlabel "arithmetic intensity (FLOP per byte, log scale)"
set ylabel "achieved GFLOP/s (log scale)"
set logscale xy
# Each point is named in the key, not beside it: variants of one lesson often
# share their intensity and lie close together, where labels would overlap.
# (Read before the ranges are set: stats skips values outside them.)
stats datafile using 3 nooutput
points = STATS_records
array names[points]
stats datafile using (names[int(column(0)) + 1] = strcol(1), 1) nooutput
set key inside right bottom box opaque
has_roofs = (peak_gbps > 0 && peak_gflops > 0)
if (!exists("arithmetic")) arithmetic = 'FP32'
# Show at least two decades around the points, and the ridge point (where
# the two roofs meet) when there are roofs.
ridge = has_roofs ? (1.0 * peak_gflops) / peak_gbps : intensity_max
set xrange [intensity_min / 10.0 : (ridge > intensity_max ? ridge : intensity_max) * 10.0]
set samples 400
# The y axis: a decade below the slowest point, up to the compute roof.
stats datafile using 3 nooutput
set yrange [STATS_min / 10.0 : (has_roofs ? peak_gflops * 3.0 : STATS_max * 10.0)]
roof(x) = (x * peak_gbps < peak_gflops) ? x * peak_gbps : peak_gflops

# Filled and open shapes in turn, so that a point under another still shows.
shape(i) = word('7 6 5 4 9 8 13 12 11 10', (i - 1) % 10 + 1) + 0
if (!has_roofs) set key title 'no roofs: device peaks unknown'

if (has_roofs) {
    plot roof(x) title sprintf('roofline: %.0f GB/s, %.0f GFLOP/s %s', peak_gbps, peak_gflops, arithmetic) \
             with lines linewidth 3 linecolor rgb '#000000', \
         for [i = 1:points] datafile every ::i-1::i-1 using 2:3 with points \
             pointtype shape(i) pointsize 2.5 linewidth 2 linecolor i title names[i]
} else {
    plot for [i = 1:points] datafile every ::i-1::i-1 using 2:3 with points \
             pointtype shape(i) pointsize 2.5 linewidth 2 linecolor i title names[i]
}
