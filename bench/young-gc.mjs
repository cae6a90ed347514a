// Times the serial young collection of N live small objects, straight on the heap API.
// Used by `bench/run.mjs young1m`, and runnable alone:
//   node bench/young-gc.mjs [--dist DIR] [--n 1000000] [--layout sable|refgraph] [--collections 8] [--pretouch] [--json]
// Objects: class Node { int value; Node next; Node other } in one list rooted once, plus
// one dead object per live one; tenure age 15 (the default) is above the number of
// collections, so every collection copies all N objects (survivor to survivor).
// Prints one line per collection, or with --json one JSON object with all of them.
import { fileURLToPath } from 'node:url';
import { dirname, join, resolve } from 'node:path';
import { median } from './lib/util.mjs';

const opts = { dist: join(dirname(fileURLToPath(import.meta.url)), '..', 'dist'), n: 1000000, layout: 'sable', collections: 8, json: false, pretouch: false };
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i++) {
  const a = argv[i];
  if (a === '--json') opts.json = true;
  else if (a === '--dist') opts.dist = resolve(argv[++i]);
  else if (a === '--n') opts.n = Number(argv[++i]);
  else if (a === '--layout') opts.layout = argv[++i];
  else if (a === '--collections') opts.collections = Number(argv[++i]);
  else if (a === '--pretouch') opts.pretouch = true;
  else {
    console.error(`usage: node bench/young-gc.mjs [--dist DIR] [--n N] [--layout sable|refgraph] [--collections K] [--pretouch] [--json]`);
    process.exit(64);
  }
}

const { createHeap } = await import(join(opts.dist, 'heap', 'heap.js'));
const { createCollector } = await import(join(opts.dist, 'gc', 'index.js'));
const N = opts.n;
const heap = createHeap({ heapBytes: 1024 * 1024 * 1024, layout: opts.layout, tenureAge: 15 });
// Every page written once before the first collection, as `minivm run --pretouch` does;
// here in the script so that builds older than that option compare alike.
if (opts.pretouch) for (let i = 0; i < heap.words.length; i += 1024) Atomics.or(heap.words, i, 0);
const slots = new Int32Array(1);
heap.setRoots({ visitRoots: (v) => v(slots, 0, 1) });
createCollector('serial', heap);
const node = heap.defineClass('Node', ['int', 'ref', 'ref']);
const [val, next] = node.offsets;
const alloc = async () => {
  for (;;) {
    const a = heap.allocInstance(node);
    if (a !== 0) return a;
    await heap.collectPending();
  }
};
const tb = performance.now();
for (let i = 0; i < N; i++) {
  const a = await alloc();
  heap.words[a + val] = i;
  heap.writeRef(a, next, 0, slots[0]);
  slots[0] = a;
  await alloc(); // garbage
}
const buildMs = performance.now() - tb;
const records = [];
for (let k = 0; k < opts.collections; k++) {
  heap.requestCollection('young', 'minorGc() call');
  await heap.collectPending();
  const r = heap.lastRecord;
  records.push({ live: r.liveYoungObjects, pauseMs: r.pauseMs, phases: r.phases, promotedBytes: r.promotedBytes });
  if (!opts.json)
    console.log(
      `young gc ${k}: ${r.liveYoungObjects} live, ${r.pauseMs.toFixed(1)} ms ` +
        `(roots ${r.phases.roots.toFixed(1)}, mark ${r.phases.mark.toFixed(1)}, copy ${r.phases.copy.toFixed(1)}, graph ${r.phases.graph.toFixed(1)})`,
    );
}
let n = slots[0];
let i = N - 1;
while (n !== 0) {
  if (heap.words[n + val] !== i--) throw new Error('corrupt list');
  n = heap.words[n + next];
}
if (i !== -1) throw new Error(`list has ${N - 1 - i} nodes, expected ${N}`);
const med = median(records.slice(2).map((r) => r.pauseMs));
if (opts.json) console.log(JSON.stringify({ n: N, layout: opts.layout, buildMs, records }));
else console.log(`first ${records[0].pauseMs.toFixed(1)} ms; median after 2 warm-up collections ${med?.toFixed(1)} ms for ${N} live objects (${opts.layout})`);
