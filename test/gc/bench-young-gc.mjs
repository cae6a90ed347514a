// Times the serial young collection of N live small objects (not a vitest file).
// Build first, then run:  npx tsc -p tsconfig.json --outDir /tmp/minivm-build
//   node test/gc/bench-young-gc.mjs /tmp/minivm-build [N] [layout]
// Objects: class Node { int value; Node next; Node other } in a list rooted once,
// plus one dead object per live one; tenureAge high so all of them are copied.
const [build = new URL('../../dist', import.meta.url).pathname, nArg = '1000000', layout = 'sable'] =
  process.argv.slice(2);
const { createHeap } = await import(`${build}/heap/heap.js`);
const { createCollector } = await import(`${build}/gc/index.js`);
const N = Number(nArg);
const heap = createHeap({ heapBytes: 1024 * 1024 * 1024, layout });
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
for (let i = 0; i < N; i++) {
  const a = await alloc();
  heap.words[a + val] = i;
  heap.writeRef(a, next, 0, slots[0]);
  slots[0] = a;
  await alloc(); // garbage
}
const times = [];
for (let k = 0; k < 5; k++) {
  heap.requestCollection('young', 'minorGc() call');
  await heap.collectPending();
  const r = heap.lastRecord;
  times.push(r.pauseMs);
  console.log(
    `young gc ${k}: ${r.liveYoungObjects} live, ${r.pauseMs.toFixed(1)} ms ` +
      `(roots ${r.phases.roots.toFixed(1)}, mark ${r.phases.mark.toFixed(1)}, copy ${r.phases.copy.toFixed(1)}, graph ${r.phases.graph.toFixed(1)})`,
  );
}
let n = slots[0], i = N - 1;
while (n !== 0) { if (heap.words[n + val] !== i--) throw new Error('corrupt list'); n = heap.words[n + next]; }
console.log(`median ${times.sort((a, b) => a - b)[2].toFixed(1)} ms for ${N} live objects (${layout})`);
