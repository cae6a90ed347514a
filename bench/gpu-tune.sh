#!/usr/bin/env bash
# Per-collection figures on a GPU host (after `. .gpu-bundle/unpack.sh`), for
# tuning and for A/B comparisons with an older build: each configuration runs
# one program at --heap 1g with --log-gc, --stats and MINIVM_GPU_PHASES=1, and
# $OUT/summary.txt gets its forced collections (mark, copy, kernel, upload,
# rounds) and its mutator and collector times;
# the whole logs go to $OUT/logs.tgz.
#
# Configurations come one per line on stdin: name program collector layout
# [gpu-opt [minivm-bin]], e.g.
#   cg.dfs complete_graph gpu-dfs sable all
#   cg.old complete_graph gpu-dfs sable all .ab/old/bin/minivm.js
set -u
out=${OUT:-/tmp}
logs=$(mktemp -d)
summary="$out/summary.txt"
node bin/minivm.js run programs/binary_trees.mini --gc gpu-dfs --heap 16m --stats 2>&1 | grep -E '^gpu:' > "$summary"
while read -r name prog gc layout opts bin; do
  [ -z "$name" ] && continue
  opts=${opts:-all}
  bin=${bin:-bin/minivm.js}
  MINIVM_GPU_PHASES=1 timeout 150 node "$bin" run "bench/programs/$prog.mini" --gc "$gc" --layout "$layout" \
    --heap 1g --log-gc --stats --gpu-benchmark --gpu-opt "$opts" > "$logs/$name.log" 2>&1
  rc=$?
  {
    echo "== $name: $prog $gc $layout $opts $bin (exit $rc)"
    # The forced collections only: their gc line, each preceded by its marker's phases.
    grep -E '^gpu-phases|^\[gc ' "$logs/$name.log" | grep -B1 -E 'call\)' | grep -v '^--' |
      sed -E 's/ (dirty|prepare|setup|roots|encode)=[0-9.]+//g; s/(sweep)=[0-9.]+ms //g' | cut -c1-260
    grep -E '^time:' "$logs/$name.log"
    grep -E 'error|Error' "$logs/$name.log" | head -3
  } >> "$summary"
done
tar czf "$out/logs.tgz" -C "$logs" .
