// Section `scaling`: the parallel collector's young and full pauses at 1, 2, 4, 8
// and 16 threads (--threads-list to change), beside minivm's serial collector and
// beside HotSpot's ParallelGC with the same -XX:ParallelGCThreads, on the papers'
// shapes and a binary tree (bench/programs/binary_tree_gc.mini, Java twin
// bench/java/BinaryTreeGc.java). Figures: medians of the forced collections'
// whole pauses over all runs (minivm: --json-stats records; Java: -Xlog:gc lines
// of the forced collections, as in the java section).
import { gcShapes, gcSpec, summarizeForced } from './gc.mjs';
import { compileTwins, javaHeap, javaPauses, runTwin, twins as javaTwins } from './java.mjs';
import { runMinivm, sizeGlobals } from './minivm.mjs';
import { fmt, fx, have, log, ratio, table } from './util.mjs';

const tree = { name: 'binary_tree_gc', label: 'Binary tree', quick: { DEPTH: 15 }, program: 'bench/programs/binary_tree_gc.mini' };
const shapes = [...gcShapes.filter((s) => s.name !== 'vp_linked_list' && s.name !== 'vp_array_of_objects'), tree];
/** Each shape's Java twin: the java section's, and the binary tree's. */
const twins = [...javaTwins, { name: tree.name, cls: 'BinaryTreeGc', args: ['DEPTH', 'COLLECTIONS'] }];

export async function scaling(ctx) {
  const { root, repeat, quick, heap } = ctx;
  const threadsList = ctx.threadsList ?? [1, 2, 4, 8, 16];
  const javaOk = have('java') && have('javac');
  const classes = javaOk ? (await compileTwins(root)).classes : null;
  const jheap = javaHeap(heap);
  const raw = [];
  const rows = [];
  const verdicts = [];
  const only = ctx.programs;
  for (const shape of shapes.filter((s) => !only || only.some((n) => s.name.includes(n)))) {
    const sizes = quick && shape.quick ? shape.quick : null;
    const spec = (collector, threads) => ({ ...gcSpec(shape, { collector, layout: 'sable', heap, quick }), sizes, gpuBenchmark: false, threads });
    const collect = async (collector, threads) => {
      const runs = [];
      const errors = [];
      for (let i = 0; i < repeat; i++) {
        log(`scaling ${i + 1}/${repeat} ${shape.name} ${collector}${threads ? ` ${threads} threads` : ''}`);
        const r = await runMinivm(root, spec(collector, threads), i);
        if (r.error) errors.push(r.error);
        else runs.push(r);
      }
      return { young: summarizeForced(runs, 'young'), full: summarizeForced(runs, 'full'), errors };
    };
    const twin = twins.find((t) => t.name === shape.name);
    const globals = { ...sizeGlobals(root, shape.program), ...(sizes ?? {}) };
    const argv = twin ? twin.args.map((a) => String(globals[a])) : null;
    const java = async (flags) => {
      if (!classes || !twin || !argv) return { young: null, full: null };
      const runs = [];
      for (let i = 0; i < repeat; i++) {
        log(`scaling ${i + 1}/${repeat} ${shape.name} java ${flags.join(' ')}`);
        const r = await runTwin(root, classes, jheap, twin, argv, flags);
        if (r) runs.push(r);
      }
      return { young: javaPauses(runs, 'young'), full: javaPauses(runs, 'full') };
    };
    const serial = await collect('serial', null);
    const hsSerial = await java(['-XX:+UseSerialGC']);
    const byThreads = [];
    for (const n of threadsList) {
      const par = await collect('parallel', n);
      const hs = await java(['-XX:+UseParallelGC', `-XX:ParallelGCThreads=${n}`]);
      byThreads.push({ threads: n, parallel: par, hotspot: hs });
    }
    const one = byThreads.find((b) => b.threads === 1)?.parallel;
    for (const b of byThreads) {
      const y = b.parallel.young?.pause;
      const f = b.parallel.full?.pause;
      rows.push([
        shape.name,
        String(b.threads),
        fmt(serial.young?.pause),
        fmt(y),
        fx(ratio(serial.young?.pause, y)),
        one?.young ? `${Math.round((100 * one.young.pause) / (b.threads * y))}%` : '-',
        fmt(b.hotspot.young),
        fx(ratio(y, b.hotspot.young)),
        fmt(serial.full?.pause),
        fmt(f),
        fx(ratio(serial.full?.pause, f)),
        fmt(b.hotspot.full),
        b.parallel.errors.length ? b.parallel.errors[0] : '',
      ]);
    }
    raw.push({ shape: shape.name, sizes, serial, hotspotSerial: hsSerial, byThreads });
    // The issue's bar.
    const at = (n) => byThreads.find((b) => b.threads === n);
    const t2 = at(2);
    if (t2?.parallel.young && serial.young) {
      const r = serial.young.pause / t2.parallel.young.pause;
      verdicts.push(`${shape.name}: 2 threads young ${fmt(t2.parallel.young.pause)} ms vs serial ${fmt(serial.young.pause)} ms (${r >= 1 ? 'no slower: met' : `slower by ${fx(1 / r)}: not met`})`);
    }
    const t16 = at(16);
    if (t16?.parallel.young && serial.young) {
      const below = serial.young.pause / t16.parallel.young.pause;
      const want = shape.name === 'complete_graph' ? 3 : 5;
      if (shape.name === 'parallel_lists_2560' || shape.name === 'complete_graph') {
        verdicts.push(`${shape.name}: 16 threads young ${fx(below)} below serial (bar ${want}x: ${below >= want ? 'met' : 'not met'})`);
      }
      if (shape.name === 'parallel_lists_2560' && t16.hotspot.young) {
        const vs = t16.parallel.young.pause / t16.hotspot.young;
        verdicts.push(`${shape.name}: 16 threads young ${fx(vs)} HotSpot ParallelGC's (bar 2x: ${vs <= 2 ? 'met' : 'not met'})`);
      }
    }
    const t8 = at(8);
    if (t8?.parallel.young && one?.young && /lists|tree/.test(shape.name)) {
      const eff = one.young.pause / (8 * t8.parallel.young.pause);
      verdicts.push(`${shape.name}: parallel efficiency at 8 threads ${Math.round(100 * eff)}% (bar 50%: ${eff >= 0.5 ? 'met' : 'not met'})`);
    }
  }
  const text = [
    `### scaling: the parallel collector at ${threadsList.join(', ')} threads (--heap ${heap}, sable), median pauses of forced collections (ms) over ${repeat} run(s)${quick ? ' (--quick sizes)' : ''}`,
    '',
    'minivm: `--gc parallel --threads N` beside `--gc serial`; HotSpot: `-XX:+UseParallelGC -XX:ParallelGCThreads=N -Xlog:gc`, same heap,',
    "the Java twins in bench/java (young collections forced by allocation, full by System.gc(); ParallelGC's scavenge before System.gc() not counted).",
    'efficiency: the 1-thread young pause / (N x the N-thread young pause).',
    javaOk ? '' : '(java/javac not installed: the HotSpot columns are empty)',
    '',
    table(
      ['shape', 'threads', 'serial young', 'parallel young', 'serial/parallel', 'efficiency', 'HotSpot Parallel young', 'minivm/HotSpot young', 'serial full', 'parallel full', 'serial/parallel full', 'HotSpot Parallel full', 'errors'],
      rows,
    ),
    '',
    ...verdicts.map((v) => `- ${v}`),
  ].join('\n');
  return { text, raw: { repeat, heap, threadsList, shapes: raw } };
}
