/**
 * Correctness of both engines on large heaps on a real GPU, where thousands of
 * threads race for marks and stack elements (lavapipe runs few at once). Not a
 * vitest suite: compile it with src/ and run it with node on the GPU host:
 *
 *   npx tsc --outDir .gpu-check --rootDir . --module nodenext --moduleResolution nodenext \
 *     --target es2022 --types node,@webgpu/types --skipLibCheck test/gpu/device-check.ts
 *   node .gpu-check/test/gpu/device-check.js [scale] [options,appended] [graph-name-prefix] [engine]
 *
 * Prints one line per (engine, layout, options, heap, kind): the mark times of
 * the last of three marks and whether all three matched the CPU trace; exits 1
 * on any mismatch. Timings are incidental here, not a benchmark.
 */
import { GpuMarker } from '../../src/gpu/worker/gpu-marker.js';
import { describeGpu, destroyGpu, openGpu } from '../../src/gpu/device/device.js';
import type { LaidOut, ObjectGraph } from './graphs.js';
import {
  binaryTree,
  bitmapSet,
  complete,
  expectedMarks,
  generational,
  layoutRefgraph,
  layoutSable,
  list,
  parallelLists,
  randomGraph,
  request,
  wide,
} from './graphs.js';

const scale = Number(process.argv[2] ?? '1');
const extra = process.argv[3] ?? '';
const only = process.argv[4] ?? '';
const onlyEngine = process.argv[5] ?? '';
const s = (n: number): number => Math.max(4, Math.round(n * scale));

const graphs: ObjectGraph[] = [
  binaryTree(Math.round(Math.log2(s(1 << 20)))),
  list(s(100_000)),
  parallelLists(s(2560), 100),
  complete(Math.round(Math.sqrt(s(2000 * 2000))), 100),
  wide(s(200_000)),
  randomGraph(s(500_000), 3, s(2000), 1),
  generational(s(500_000), 3, 2),
];

const optionSets: Record<string, string[]> = {
  'gpu-dfs': ['all', 'none', 'atomic,balance', 'hybrid,balance', 'all,-hybrid'],
  'gpu-bfs': ['all', 'all,-fallback', 'all,-fallback,prefix', 'none'],
};

function sameSet(a: Set<number>, b: Set<number>): boolean {
  if (a.size !== b.size) return false;
  for (const x of a) if (!b.has(x)) return false;
  return true;
}

async function main(): Promise<void> {
  const ctx = await openGpu();
  console.log(`adapter: ${describeGpu(ctx)}; timestamps ${ctx.timestamps}`);
  let failures = 0;
  for (const layout of ['sable', 'refgraph'] as const) {
    for (const g of graphs) {
      if (only && !g.name.startsWith(only)) continue;
      const heap: LaidOut = layout === 'sable' ? layoutSable(g) : layoutRefgraph(g);
      const kinds = g.young.some((y) => y) ? (['full', 'young'] as const) : (['full'] as const);
      for (const kind of kinds) {
        const req = request(g, kind, heap.addr, heap.youngRange);
        const want = expectedMarks(g, req, heap.addr);
        for (const engine of ['gpu-dfs', 'gpu-bfs'] as const) {
          if (onlyEngine && engine !== onlyEngine) continue;
          for (const base of optionSets[engine]!) {
            const opts = extra ? `${base},${extra}` : base;
            // The baselines are the papers' slow cases; keep them to the smaller heaps.
            if (base === 'none' && (g.name.startsWith('binaryTree') || g.name.startsWith('list')) && engine === 'gpu-dfs' && scale > 0.1) continue;
            const marker = new GpuMarker({
              engine,
              input:
                layout === 'sable'
                  ? { layout, words: heap.words }
                  : { layout, words: heap.words, graphs: () => heap.graphs! },
              options: opts,
            });
            let ok = true;
            let last = null;
            try {
              for (let rep = 0; rep < 3; rep++) {
                const res = await marker.mark(req);
                const got = bitmapSet(res.bitmap);
                if (!sameSet(got, want)) ok = false;
                if (kind === 'young') {
                  const live = new Set(res.live!);
                  if (live.size !== res.live!.length || !sameSet(live, want)) ok = false;
                }
                last = res.times;
              }
            } catch (e) {
              ok = false;
              console.log(`  error: ${(e as Error).message}`);
            }
            const st = marker.lastStats;
            marker.dispose();
            if (!ok) failures++;
            const t = last;
            console.log(
              `${ok ? 'ok  ' : 'FAIL'} ${engine} ${layout} ${opts.padEnd(22)} ${g.name.padEnd(26)} ${kind.padEnd(5)} ` +
                `marked ${String(want.size).padStart(8)} ` +
                (t
                  ? `mark ${t.mark.toFixed(2)} ms kernel ${(t.kernel ?? 0).toFixed(2)} upload ${(t.upload ?? 0).toFixed(2)} ` +
                    `readback ${(t.readback ?? 0).toFixed(2)} cpu ${(t.cpuFallback ?? 0).toFixed(2)} `
                  : '') +
                (st ? `rounds ${st.rounds} submits ${st.submits} fb ${st.fallbackFrontier}` : ''),
            );
          }
        }
      }
    }
  }
  await destroyGpu();
  console.log(failures === 0 ? 'all correct' : `${failures} FAILED`);
  process.exit(failures === 0 ? 0 : 1);
}

await main();
