# lib.sh - helpers the side-by-side benchmark scripts share (sourced, not run).

# The median of the numbers on stdin, one a line.
median() { sort -n | awk '{v[NR]=$1} END {print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }
