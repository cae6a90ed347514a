#!/usr/bin/env node
// The seed papers' ablations on a real GPU: each optimization alone over the paper's
// baseline, and all of them, for gpu-dfs (FastCollect Table 1: GPU, +A, +H, +D, +V,
// +O) and gpu-bfs (Maas et al. Table 1: GPU, +P, +V, +F, +D, all), on the FastCollect
// microbenchmarks, sable layout. Figures: medians over the young collections the
// programs force with minorGc() (FastCollect's table is of young collections): kernel
// time (timestamp queries) and the marker's whole call (upload + kernel + read-back +
// CPU work). Usage: node bench/gpu-ablation.mjs [--shapes LIST] [--engines LIST] [--out file.json]
// (needs dist/).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { summarizeForced } from './lib/gc.mjs';
import { machineInfo, provenance } from './lib/machine.mjs';
import { forcedCollections, probeGpu, runMinivm } from './lib/minivm.mjs';
import { fmt, table } from './lib/util.mjs';
import { fastCollect } from './lib/papers.mjs';

const root = join(import.meta.dirname ?? new URL('.', import.meta.url).pathname, '..');
// Long Linked List is left out: without the CPU fallback (off in every column but the
// last) one GPU thread chases 2M pointers, about 15 s a collection on an H100.
const argValue = (flag) => {
  const i = process.argv.indexOf(flag);
  return i > 0 ? process.argv[i + 1] : undefined;
};
// --shapes a,b and --engines gpu-dfs,gpu-bfs narrow a run to what device time allows.
const shapes = (argValue('--shapes') ?? 'parallel_lists_256,parallel_lists_2560,complete_graph').split(',');
const engines = (argValue('--engines') ?? 'gpu-dfs,gpu-bfs').split(',');
const variants = {
  'gpu-dfs': [['GPU', 'none'], ['+A', 'none,A'], ['+H', 'none,H'], ['+D', 'none,D'], ['+V', 'none,V'], ['+O', 'all']],
  'gpu-bfs': [['GPU', 'none'], ['+P', 'none,P'], ['+V', 'none,V'], ['+F', 'none,F'], ['+D', 'none,D'], ['all', 'all']],
};

const probe = await probeGpu(root);
if (!probe.available) {
  console.log(`adapter: ${probe.line}`);
  process.exit(69);
}
// Printed as a section of bench/RESULTS.md: the provenance line, then a table per engine.
const again = ['node bench/gpu-ablation.mjs', ...process.argv.slice(2)].join(' ');
console.log(provenance(machineInfo(root), probe.adapter, new Date(), again));
const raw = {};
const outFile = argValue('--out') ?? null;
for (const [engine, list] of Object.entries(variants).filter(([e]) => engines.includes(e))) {
  const rows = [];
  for (const shape of shapes) {
    const row = [shape];
    for (const [label, opt] of list) {
      const r = await runMinivm(root, {
        program: `bench/programs/${shape}.mini`, gc: engine, heap: '1g', gpuBenchmark: true, gpuOpt: opt,
      }, 0);
      const error = r.error && `exit ${r.code}`;
      raw[`${engine}|${shape}|${label}`] = error ?? forcedCollections(r.stats).filter((c) => c.kind === 'young');
      const young = error ? null : summarizeForced([r], 'young');
      if (!young) { row.push(error ?? '-'); continue; }
      row.push(`${fmt(young.kernel, 2)} / ${fmt(young.mark, 1)}`);
      if (outFile) writeFileSync(outFile, JSON.stringify(raw, null, 1));
    }
    if (engine === 'gpu-dfs') {
      const paper = fastCollect[shape];
      row.push(paper ? `${paper['GPU+O']}` : '-');
    }
    rows.push(row);
  }
  const paper = engine === 'gpu-dfs' ? 'FastCollect' : 'Maas et al.';
  console.log(`\n### ${engine}: ${paper} Table 1 columns; median kernel ms / whole mark ms of forced young collections\n`);
  const headers = ['shape', ...list.map(([l]) => l), ...(engine === 'gpu-dfs' ? ['FastCollect GPU+O ms'] : [])];
  console.log(table(headers, rows));
}
