#!/usr/bin/env bash
# A first look on a GPU host (after `. .gpu-bundle/unpack.sh`): which adapter Dawn
# picked, and the forced collections of three seed microbenchmarks under serial,
# gpu-dfs and gpu-bfs with --log-gc. JSON statistics go to $OUT (or /tmp).
set -u
out=${OUT:-/tmp}
node bin/minivm.js run programs/binary_trees.mini --gc gpu-dfs --heap 16m --stats 2>&1 | grep -E '^gpu:|check' | tail -3
for p in long_linked_list parallel_lists_2560 complete_graph; do
  for gc in serial gpu-dfs gpu-bfs; do
    echo "== $p $gc"
    node bin/minivm.js run bench/programs/$p.mini --gc $gc --heap 1g --log-gc --gpu-benchmark \
      --json-stats "$out/$p.$gc.json" 2>&1 | grep -E 'call\)|error|^gpu' | head -8
  done
done
