# plots/heatmaps.gp - three heat maps side by side: a field before diffusion,
# after it, and its Laplacian, from the files ./lesson03 --output DIR writes
# (initial.dat, final.dat, laplacian.dat: one row of the field per line).
#
# make plots draws every such folder under plots/results/; by hand:
#   gnuplot -e "format='pngcairo'; outfile='fields.png'; fields='DIR'" \
#       plots/terminal.gp plots/heatmaps.gp

unset key
unset grid
# heading: the chart's title, when given; the folder's path otherwise
if (!exists("heading")) heading = fields
set multiplot layout 1,3 title heading noenhanced
set size ratio -1
# row 0 is the field's first row: draw it at the top, as an image is shown
set yrange [*:*] reverse
set autoscale xfix
set autoscale yfix
# the panels show cells, not values along axes: the title says the size
unset xtics
unset ytics
set palette defined (0 '#000004', 1 '#7b2382', 2 '#f8765c', 3 '#fcfdbf')

set title 'initial field'
plot fields.'/initial.dat' matrix with image
set title 'final field'
plot fields.'/final.dat' matrix with image
# the Laplacian changes sign: white is zero, red where heat flows out, blue in
set palette defined (-1 '#2166ac', 0 '#f7f7f7', 1 '#b2182b')
stats fields.'/laplacian.dat' matrix nooutput
limit = (abs(STATS_min) > abs(STATS_max) ? abs(STATS_min) : abs(STATS_max))
set cbrange [-(limit > 0 ? limit : 1):(limit > 0 ? limit : 1)]
set title 'Laplacian of the final field'
plot fields.'/laplacian.dat' matrix with image
unset multiplot
