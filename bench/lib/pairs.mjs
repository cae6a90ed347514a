// Section `pairs`: the GPU issue's bar, measured side by side. Each round runs the
// bar's shapes (the 2560 lists and CompleteGraph, sable or `--layout`) under serial, gpu-dfs and
// gpu-bfs, one fresh process each, in turn; the tables give, per forced young
// collection, the median mark and pause of every collector and in how many rounds
// the GPU pause was below that same round's serial pause.
//
// Why rounds rather than a median of separate runs: on the H100 host a whole process
// runs at one of two speeds about 1.7x apart, so a few runs per collector can land in
// different speeds and their medians say more about the draw than about the
// collectors. Pairing by round and counting the pairs keeps the comparison honest;
// 20 rounds (`--repeat 20`) resolve about 15% (docs/decisions/r19d-01-*.md). Each
// round also runs the CPU peers: minivm parallel and HotSpot ParallelGC, a thread per core.
import { availableParallelism } from 'node:os';
import { gcShapes, gcSpec } from './gc.mjs';
import { compileTwins, javaHeap, javaPauses, runTwin, twins } from './java.mjs';
import { forcedCollections, runMinivm, sizeGlobals } from './minivm.mjs';
import { fmt, fx, have, log, median, ratio, table } from './util.mjs';

const SHAPES = gcShapes.filter((s) => s.name === 'parallel_lists_2560' || s.name === 'complete_graph');
/** The GPU collectors: each engine evacuating on the GPU (the default, with one heap
 *  writer on 4 cores or more: two CPU threads at work in its pauses, the GPU worker and
 *  the writer, while the main thread waits; the bar's limit) and on the CPU, and
 *  gpu-dfs with the GPU worker alone. */
const GPU = ['gpu-dfs', 'gpu-dfs writers=0', 'gpu-dfs evacuate=cpu', 'gpu-bfs', 'gpu-bfs evacuate=cpu'];
const COLLECTORS = ['serial', ...GPU];

/** The forced young collections of one run, in order (pause and mark, ms). */
function youngOf(run) {
  return forcedCollections(run.stats)
    .filter((c) => c.kind === 'young')
    .map((c) => ({ pause: c.pauseMs, mark: c.phases.mark, copy: c.phases.copy, roots: c.phases.roots, graph: c.phases.graph ?? 0, evacuation: c.evacuation ?? null }));
}

export async function pairs(ctx) {
  const { root, repeat, quick, gpu, heap, layout } = ctx;
  if (!gpu.use) {
    const why = gpu.available ? 'a software adapter (pass --gpu to run it there)' : 'no GPU adapter';
    return { text: `### pairs: skipped: ${why}`, raw: { skipped: why } };
  }
  // rounds[shape][collector] = one entry per round: the young collections, or an error line.
  /** @type {Record<string, Record<string, (string | { pause: number, mark: number, copy: number, roots: number, evacuation: any }[])[]>>} */
  const rounds = Object.fromEntries(SHAPES.map((s) => [s.name, Object.fromEntries(COLLECTORS.map((c) => [c, []]))]));
  // The CPU peers in the same rounds: minivm's parallel collector and HotSpot's
  // ParallelGC, each with a thread per core (the issue's bar is against the latter).
  const cores = availableParallelism();
  const classes = have('java') && have('javac') ? (await compileTwins(root)).classes : null;
  /** @type {Record<string, { parallel: number[], hotspot: any[] }>} */
  const peers = Object.fromEntries(SHAPES.map((s) => [s.name, { parallel: [], hotspot: [] }]));
  for (let i = 0; i < repeat; i++) {
    for (const shape of SHAPES) {
      log(`pairs ${i + 1}/${repeat} ${shape.name} parallel, ${cores} threads`);
      const par = await runMinivm(root, { ...gcSpec(shape, { collector: 'parallel', layout, heap, quick }), gpuBenchmark: false, threads: cores, tag: 'pairs' }, i);
      if (!par.error) peers[shape.name].parallel.push(...youngOf(par).map((c) => c.pause));
      const twin = twins.find((t) => t.name === shape.name);
      if (classes && twin) {
        const globals = { ...sizeGlobals(root, shape.program), ...(quick && shape.quick ? shape.quick : {}) };
        log(`pairs ${i + 1}/${repeat} ${shape.name} HotSpot ParallelGC, ${cores} threads`);
        const r = await runTwin(root, classes, javaHeap(heap), twin, twin.args.map((a) => String(globals[a])), ['-XX:+UseParallelGC', `-XX:ParallelGCThreads=${cores}`]);
        if (r) peers[shape.name].hotspot.push(r);
      }
      for (const collector of COLLECTORS) {
        log(`pairs ${i + 1}/${repeat} ${shape.name} ${collector}`);
        const [gc, gpuOpt] = collector.split(' ');
        const spec = { ...gcSpec(shape, { collector: gc, layout, heap, quick }), ...(gpuOpt ? { gpuOpt } : {}), tag: 'pairs' };
        const r = await runMinivm(root, spec, i);
        const entry = r.error ?? youngOf(r);
        rounds[shape.name][collector].push(entry);
        // Each round's figures as they come: a run cut short (a device call's
        // time limit) still leaves them in its log.
        const line = typeof entry === 'string' ? entry : entry.map((c) => `${fmt(c.mark)}/${fmt(c.pause)}`).join(' ');
        log(`pairs ${i + 1}/${repeat} ${shape.name} ${collector}: young mark/pause ms ${line}`);
      }
    }
  }

  const parts = [];
  for (const shape of SHAPES) {
    const byCollector = rounds[shape.name];
    const errors = Object.entries(byCollector).flatMap(([c, rs]) => rs.filter((x) => typeof x === 'string').map((e) => `${c}: ${e}`));
    const count = Math.max(0, ...Object.values(byCollector).flatMap((rs) => rs.map((x) => (Array.isArray(x) ? x.length : 0))));
    const rows = [];
    // Collection k of each round, then all young collections pooled.
    for (let k = 0; k <= count; k++) {
      const pick = (c) => byCollector[c].map((x) => (Array.isArray(x) ? (k < count ? (x[k] ? [x[k]] : []) : x) : null));
      const serial = pick('serial');
      const cells = [k < count ? String(k + 1) : 'all'];
      const med = (list, f) => median(list.flatMap((x) => (x ? x.map(f) : [])));
      const sMark = med(serial, (c) => c.mark);
      const sPause = med(serial, (c) => c.pause);
      cells.push(fmt(sMark), fmt(sPause));
      for (const c of GPU) {
        const g = pick(c);
        const gMark = med(g, (x) => x.mark);
        let lower = 0;
        let fivefold = 0;
        let paired = 0;
        for (let r = 0; r < repeat; r++) {
          const a = serial[r];
          const b = g[r];
          if (!a || !b) continue;
          for (let j = 0; j < Math.min(a.length, b.length); j++) {
            paired++;
            if (b[j].pause < a[j].pause) lower++;
            if (a[j].mark >= 5 * b[j].mark) fivefold++;
          }
        }
        const of = (n) => (paired ? `${n} of ${paired}` : '-');
        cells.push(fmt(gMark), fx(ratio(sMark, gMark), 1), of(fivefold), fmt(med(g, (x) => x.pause)), of(lower));
      }
      rows.push(cells);
    }
    const headers = ['young collection', 'serial mark', 'serial pause'];
    for (const c of GPU) headers.push(`${c} mark`, 'serial/it', 'mark 5x', `${c} pause`, 'pause lower');
    parts.push(`#### ${shape.label} (${layout}, --heap ${heap}${quick ? ', --quick sizes' : ''})\n\n${table(headers, rows)}`);
    parts.push(evacuationTable(byCollector));
    parts.push(peerLine(byCollector, peers[shape.name], cores));
    if (errors.length > 0) parts.push(`Failed runs: ${errors.slice(0, 6).join('; ')}${errors.length > 6 ? '; ...' : ''}`);
  }
  const text =
    `#### pairs: the GPU bar side by side, ${repeat} round(s)\n\n` +
    'Each round runs serial, gpu-dfs and gpu-bfs (each also with --gpu-opt evacuate=cpu, and gpu-dfs with --gpu-opt writers=0) on the shape, one fresh process each. Medians in ms over the rounds;\n' +
    '"mark 5x": in how many (round, collection) pairs the GPU mark was at most a fifth of that round\'s serial mark;\n' +
    '"pause lower": in how many the GPU pause was below that round\'s serial pause.\n\n' +
    parts.join('\n\n');
  return { text, raw: { rounds, peers } };
}

/** The CPU peers' young pauses in the same rounds, and each GPU collector's against HotSpot's. */
function peerLine(byCollector, peers, cores) {
  const hs = javaPauses(peers.hotspot, 'young');
  const par = peers.parallel.length ? median(peers.parallel) : NaN;
  const gpu = GPU.map((c) => {
    const all = byCollector[c].filter(Array.isArray).flat().map((x) => x.pause);
    return `${c} ${fx(ratio(all.length ? median(all) : NaN, hs ?? NaN), 2)}`;
  });
  return (
    `In the same rounds, young pauses (medians of every forced young collection, ms): HotSpot ParallelGC with ${cores} threads ` +
    `${hs === null ? '- (no java)' : fmt(hs)}, minivm parallel with ${cores} threads ${fmt(par)}. Each GPU collector's median young pause ` +
    `over HotSpot's: ${gpu.join(', ')}.`
  );
}

/**
 * The whole young pause's parts under evacuate=gpu, pooled over rounds and
 * collections: roots, mark, the evacuation (assign, copy and fix on the device,
 * read-back, writing into the heap, the CPU's fix-ups; refgraph: the graphs'
 * rebuild from the new addresses, on the CPU), and the CPU copy phase
 * of the same engine evacuating on the CPU beside it. "read-back+write" is the
 * floor the issue sets the pause against: the moved bytes' transfer and write.
 */
function evacuationTable(byCollector) {
  const rows = [];
  for (const c of GPU.filter((x) => !x.endsWith('evacuate=cpu'))) {
    const all = byCollector[c].filter(Array.isArray).flat();
    const gpuRuns = all.filter((x) => x.evacuation?.where === 'gpu');
    const cpu = byCollector[`${c.split(' ')[0]} evacuate=cpu`].filter(Array.isArray).flat();
    const m = (list, f) => (list.length ? median(list.map(f)) : NaN);
    const e = (k) => m(gpuRuns, (x) => x.evacuation[k] ?? 0);
    const fell = all.length - gpuRuns.length;
    rows.push([
      c,
      `${gpuRuns.length} of ${all.length}${fell ? ` (cpu: ${[...new Set(all.filter((x) => x.evacuation?.where !== 'gpu').map((x) => x.evacuation?.reason ?? '?'))].join('; ')})` : ''}`,
      fmt(m(gpuRuns, (x) => x.pause)),
      fmt(m(gpuRuns, (x) => x.roots)),
      fmt(m(gpuRuns, (x) => x.mark)),
      fmt(e('assignMs')),
      fmt(e('copyMs')),
      `${fmt(e('readbackBytes') / 2 ** 20)} MB / ${fmt(e('readbackMs'))}`,
      fmt(e('writeMs')),
      fmt(e('fixMs')),
      fmt(m(gpuRuns, (x) => x.graph)),
      fmt(e('readbackMs') + e('writeMs')),
      fmt(m(cpu, (x) => x.copy)),
      fmt(m(cpu, (x) => x.pause)),
    ]);
  }
  const headers = [
    'collector', 'on the GPU', 'pause', 'roots', 'mark', 'assign', 'copy+fix', 'read-back', 'write', 'cpu fix',
    'graph rebuild', 'read-back+write (floor)', 'evacuate=cpu copy', 'evacuate=cpu pause',
  ];
  return `Young pauses evacuated on the GPU (medians, ms):\n\n${table(headers, rows)}`;
}
