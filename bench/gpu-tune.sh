#!/usr/bin/env bash
# Per-collection figures and a small tuning sweep on a GPU host (after
# `. .gpu-bundle/unpack.sh`): the forced young and full collections of the
# 2560-list and CompleteGraph benchmarks under serial, gpu-dfs and gpu-bfs
# (both layouts), with MINIVM_GPU_PHASES=1 for the marker's steps, then gpu-dfs
# on sable over a few `steps=` and `scan=` settings. Logs go to $OUT (or /tmp).
set -u
out=${OUT:-/tmp}
progs=${PROGS:-"parallel_lists_2560 complete_graph"}
node bin/minivm.js run programs/binary_trees.mini --gc gpu-dfs --heap 16m --stats 2>&1 | grep -E '^gpu:' | tee "$out/adapter.txt"
run() { # name program gc layout opts
  local name=$1 p=$2 gc=$3 layout=$4 opts=${5:-all}
  MINIVM_GPU_PHASES=1 timeout 120 node bin/minivm.js run "bench/programs/$p.mini" --gc "$gc" --layout "$layout" \
    --heap 1g --log-gc --gpu-benchmark --gpu-opt "$opts" --stats > "$out/$name.log" 2>&1
  echo "== $name (exit $?)"
  grep -E 'call\)|^gpu-phases .*(young|full)|^gpu:' "$out/$name.log" | grep -vE 'eden full' | tail -14 | cut -c1-400
}
for p in $progs; do
  run "$p.serial.sable" "$p" serial sable
  run "$p.serial.refgraph" "$p" serial refgraph
  for gc in gpu-dfs gpu-bfs; do
    for layout in sable refgraph; do run "$p.$gc.$layout" "$p" "$gc" "$layout"; done
  done
done
if [ -z "${NO_SWEEP:-}" ]; then
  for p in $progs; do
    for o in steps=256 steps=1024 scan=16 scan=256 "steps=256,scan=16"; do
      run "$p.gpu-dfs.sable.${o//[,=]/_}" "$p" gpu-dfs sable "all,$o"
    done
  done
fi
