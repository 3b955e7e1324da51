# plots/multi-gpu-model.gp - lesson 09's model, drawn, not measured: the
# strong-scaling efficiency to expect when lesson 03's field is split into P
# slabs on P H100s, for two fields and three links between the GPUs.
#
# make plots draws it into plots/out/lesson09-model.png (COURSE.md shows it
# from lessons/09-multi-gpu/model.png); by hand:
#   gnuplot -e "format='pngcairo'; outfile='model.png'" plots/terminal.gp plots/multi-gpu-model.gp
#
# Per step, a rank with R = H / P rows of W cells
#   computes  8 W R bytes at the H100's 2,988 GB/s (the reference H100's
#             measured device copy): t_step = 8 W R / B_hbm
#   exchanges one row out and one row in, 4 W bytes each, with each of its
#             n neighbours (n = 2 inside, 1 for two ranks, 0 alone):
#             t_exchange = 8 W n / B_link
# Left, the exchange in sequence with the step (naive):
#   efficiency = t_step / (t_step + t_exchange) = 1 / (1 + n P B_hbm / (H B_link))
# right, the exchange hidden behind the step (optimized), perfectly:
#   efficiency = t_step / max(t_step, t_exchange)
# The width cancels: only the rows a rank owns count. Latencies (a launch,
# a message's few microseconds) are left out, so at small slabs the real
# efficiency is lower than drawn.

hbm_gbps = 2988.0
# the links' nominal rates, each way
pcie_gbps = 55.0
nvlink_gbps = 450.0
infiniband_gbps = 50.0

neighbours(p) = p < 1.5 ? 0 : (p < 2.5 ? 1 : 2)
in_sequence(p, height, link) = 1.0 / (1.0 + neighbours(p) * p * hbm_gbps / (height * link))
hidden_ratio(p, height, link) = height * link / (neighbours(p) * p * hbm_gbps)
hidden(p, height, link) = neighbours(p) == 0 ? 1.0 : \
                          (hidden_ratio(p, height, link) < 1.0 ? hidden_ratio(p, height, link) : 1.0)

# Three plots on one page: the two panels side by side above, and under them
# a key for both, a plot of nothing but its key, as wide as the page.
set multiplot title "lesson 09's model, not a measurement: strong scaling of lesson 03's field on P H100s (2,988 GB/s each)"
set logscale x 2
set xrange [1 : 1024]
set yrange [0 : 1.05]
set xlabel "ranks P, one GPU each (log scale)"
set ylabel "efficiency: time on 1 GPU / (P x time on P)"
unset key
# the lines, in the key's order: the links in columns, the fields in rows
array field[6] = [8192, 8192, 8192, 2000, 2000, 2000]
array link[6] = [nvlink_gbps, pcie_gbps, infiniband_gbps, nvlink_gbps, pcie_gbps, infiniband_gbps]
array link_name[6] = ["NVLink", "PCIe 5", "InfiniBand NDR", "NVLink", "PCIe 5", "InfiniBand NDR"]
array colour[6] = ['#2ca02c', '#1f77b4', '#d62728', '#2ca02c', '#1f77b4', '#d62728']
# ranks come whole: the samples along the axis, rounded
set samples 1000
ranks(x) = floor(x + 0.5)
line_title(i) = sprintf("%s, %.0f GB/s: %d^2 field", link_name[i], link[i], field[i])

set size 0.5, 0.8
set origin 0, 0.15
set title "exchange in sequence with the step (naive)"
plot for [i = 1 : 3] '+' using (ranks($1)):(in_sequence(ranks($1), field[i], link[i])) \
         with lines linecolor rgb colour[i] dashtype 1, \
     for [i = 4 : 6] '+' using (ranks($1)):(in_sequence(ranks($1), field[i], link[i])) \
         with lines linecolor rgb colour[i] dashtype 2

set origin 0.5, 0.15
set title "exchange hidden behind the step (optimized)"
plot for [i = 1 : 3] '+' using (ranks($1)):(hidden(ranks($1), field[i], link[i])) \
         with lines linecolor rgb colour[i] dashtype 1, \
     for [i = 4 : 6] '+' using (ranks($1)):(hidden(ranks($1), field[i], link[i])) \
         with lines linecolor rgb colour[i] dashtype 2

set size 1, 0.15
set origin 0, 0
unset title
unset border
unset tics
unset xlabel
unset ylabel
unset grid
set key center center horizontal maxcols 3 box
set yrange [0 : 1]
plot for [i = 1 : 3] NaN with lines linecolor rgb colour[i] dashtype 1 title line_title(i), \
     for [i = 4 : 6] NaN with lines linecolor rgb colour[i] dashtype 2 title line_title(i)
unset multiplot
