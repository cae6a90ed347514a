// Section `gc`: the seed papers' GC microbenchmarks under every collector and both
// layouts. Each program forces young (minorGc()) and full (gc()) collections while its
// shape is live; those records are the figures: mark (phases.mark), transfer
// (marker.upload + marker.readback), kernel (marker.kernel) and the whole pause, median
// over all forced collections of that kind in all runs.
import { fastCollect, maas } from './papers.mjs';
import { forcedCollections, runMinivm } from './minivm.mjs';
import { fmt, fx, log, median, ratio, table } from './util.mjs';

export const gcShapes = [
  { name: 'long_linked_list', label: 'Long Linked List', quick: { LENGTH: 200000 } },
  { name: 'parallel_lists_256', label: '256 Parallel Linked Lists', quick: { NODES: 1000 } },
  { name: 'parallel_lists_2560', label: '2560 Parallel Linked Lists', quick: { NODES: 100 } },
  { name: 'complete_graph', label: 'CompleteGraph', quick: { NODES: 1000 } },
  { name: 'very_wide_object', label: 'Very Wide Object', quick: { ROUNDS: 4 } },
  { name: 'vp_linked_list', label: 'VP Linked List', quick: null },
  { name: 'vp_array_of_objects', label: 'VP Array of Objects', quick: null },
].map((s) => ({ ...s, program: `bench/programs/${s.name}.mini` }));

export function gcSpec(shape, { collector = 'serial', layout = 'sable', heap = '1g', quick = false } = {}) {
  return {
    program: shape.program,
    gc: collector,
    layout,
    heap,
    sizes: quick ? shape.quick : null,
    gpuBenchmark: collector !== 'serial',
  };
}

/** Medians of the forced collections of one kind over a set of runs. */
export function summarizeForced(results, kind) {
  const cs = results.flatMap((r) => forcedCollections(r.stats)).filter((c) => c.kind === kind);
  if (cs.length === 0) return null;
  const m = (f) => median(cs.map(f));
  const has = (k) => cs.some((c) => typeof c.marker?.[k] === 'number');
  return {
    n: cs.length,
    mark: m((c) => c.phases.mark),
    transfer: has('upload') || has('readback') ? m((c) => (c.marker.upload ?? 0) + (c.marker.readback ?? 0)) : null,
    kernel: has('kernel') ? m((c) => c.marker.kernel) : null,
    pause: m((c) => c.pauseMs),
    copy: m((c) => c.phases.copy),
    live: m((c) => c.liveYoungObjects),
  };
}

export async function gc(ctx) {
  const { root, repeat, quick, gpu, heap } = ctx;
  const layouts = ['sable', 'refgraph'];
  const collectors = ['serial', 'gpu-dfs', 'gpu-bfs'];
  const runGpu = gpu.use;
  const results = new Map(); // key shape|collector|layout -> { runs, error }
  for (let i = 0; i < repeat; i++) {
    for (const shape of gcShapes) {
      for (const collector of collectors) {
        if (collector !== 'serial' && !runGpu) continue;
        for (const layout of layouts) {
          const key = `${shape.name}|${collector}|${layout}`;
          let e = results.get(key);
          if (!e) results.set(key, (e = { runs: [], errors: [] }));
          if (e.errors.includes('no adapter')) continue; // no point asking again
          log(`gc ${i + 1}/${repeat} ${shape.name} ${collector} ${layout}`);
          const r = await runMinivm(root, gcSpec(shape, { collector, layout, heap, quick }), i);
          if (r.error) e.errors.push(r.error);
          else e.runs.push(r);
        }
      }
    }
  }

  const raw = [];
  const rows = [];
  const cell = (s, k) => (s ? fmt(s[k]) : '-');
  for (const shape of gcShapes) {
    for (const collector of collectors) {
      for (const layout of layouts) {
        const key = `${shape.name}|${collector}|${layout}`;
        const e = results.get(key);
        if (!e) {
          // GPU collectors not run: a software adapter without --gpu (said once, above the
          // table), or no adapter at all (one row per shape and collector).
          const why = gpu.available ? 'skipped (software adapter; pass --gpu)' : 'no adapter';
          raw.push({ shape: shape.name, collector, layout, skipped: why });
          if (!gpu.available && layout === 'sable') rows.push([shape.name, collector, 'both', why, '', '', '', '', '', '', '', '']);
          continue;
        }
        if (e.runs.length === 0) {
          const why = e.errors.includes('no adapter') ? 'no adapter' : e.errors[0];
          rows.push([shape.name, collector, layout, why, '', '', '', '', '', '', '', '']);
          raw.push({ shape: shape.name, collector, layout, error: why });
          continue;
        }
        const y = summarizeForced(e.runs, 'young');
        const f = summarizeForced(e.runs, 'full');
        raw.push({
          shape: shape.name,
          collector,
          layout,
          runs: e.runs.length,
          errors: e.errors,
          young: y,
          full: f,
          collections: e.runs.map((r) => forcedCollections(r.stats)),
        });
        rows.push([
          shape.name,
          collector,
          layout,
          y ? fmt(y.live, 0) : '-',
          cell(y, 'mark'),
          cell(y, 'transfer'),
          cell(y, 'kernel'),
          cell(y, 'pause'),
          cell(f, 'mark'),
          cell(f, 'transfer'),
          cell(f, 'kernel'),
          cell(f, 'pause'),
        ]);
      }
    }
  }
  const get = (shape, collector, layout) => raw.find((r) => r.shape === shape && r.collector === collector && r.layout === layout);

  // Papers beside ours (sable layout, young mark unless said otherwise).
  const paperRows = gcShapes.map((s) => {
    const fc = fastCollect[s.name];
    const mc = maas[s.name];
    const ser = get(s.name, 'serial', 'sable');
    const dfs = get(s.name, 'gpu-dfs', 'sable');
    const bfs = get(s.name, 'gpu-bfs', 'sable');
    return [
      s.label,
      fc ? fmt(fc.ParGC) : '-',
      fc ? fmt(fc['GPU+O']) : '-',
      mc ? fmt(mc.CPU) : '-',
      mc ? fmt(mc['GPU+2CU']) : '-',
      fmt(ser?.young?.mark),
      fmt(ser?.full?.mark),
      fmt(dfs?.young?.mark),
      fmt(dfs?.young?.kernel),
      fmt(bfs?.young?.mark),
    ];
  });

  // The issue's bar: gpu-dfs mark >= 5x faster than serial on 2560 lists and CompleteGraph,
  // and the whole young pause below serial's.
  const ratioRows = [];
  const verdicts = [];
  for (const s of gcShapes) {
    for (const layout of layouts) {
      const ser = get(s.name, 'serial', layout);
      const dfs = get(s.name, 'gpu-dfs', layout);
      const ym = ratio(ser?.young?.mark, dfs?.young?.mark);
      const fm = ratio(ser?.full?.mark, dfs?.full?.mark);
      const yp = ratio(ser?.young?.pause, dfs?.young?.pause);
      if (dfs && !dfs.skipped && !dfs.error) ratioRows.push([s.name, layout, fx(ym), fx(fm), fx(yp)]);
      if (layout === 'sable' && (s.name === 'parallel_lists_2560' || s.name === 'complete_graph')) {
        if (ym === null) verdicts.push(`${s.label}: not measured (gpu-dfs ${dfs?.skipped ?? dfs?.error ?? 'not run'}).`);
        else
          verdicts.push(
            `${s.label}: serial/gpu-dfs young mark ${fx(ym)} (bar 5x: ${ym >= 5 ? 'met' : `not met, ${fx(5 / ym)} short`}); ` +
              `young pause gpu-dfs ${fmt(dfs.young.pause)} ms vs serial ${fmt(ser.young.pause)} ms (${yp !== null && yp > 1 ? 'below serial: met' : 'not below serial: not met'}).`,
          );
      }
    }
  }

  const text = [
    `### gc: forced collections of the GC microbenchmarks (--heap ${heap}), median of all forced collections in ${repeat} run(s)${quick ? ' (--quick sizes)' : ''}`,
    '',
    `GPU collectors: ${gpu.use ? `run (${gpu.adapter})` : gpu.available ? `skipped, software adapter (${gpu.adapter}); pass --gpu to run them` : `no adapter (${gpu.line})`}.`,
    'All times in ms. transfer = marker upload (in the pause: eden uploaded ahead of it is not counted) + readback, kernel = marker.kernel (GPU collectors only), pause = the whole collection;',
    'young live = live young objects the young collection found (median): after the first forced young collection part of the shape is',
    'in tenured (promoted when the survivor space overflowed) and is reached through dirty cards, not marked.',
    '',
    table(
      ['shape', 'collector', 'layout', 'young live', 'young mark', 'young transfer', 'young kernel', 'young pause', 'full mark', 'full transfer', 'full kernel', 'full pause'],
      rows,
    ),
    '',
    '#### The papers beside ours (mark ms; ours: sable layout)',
    '',
    "FastCollect Table 1 is young-collection mark time (ParGC: HotSpot's parallel young GC, copy excluded; GPU+O: all optimizations);",
    'Maas et al. Table 1 is mark time on an AMD E-350 APU, with a 10,000-element long list and 3,000-element lists for 2560 lists.',
    "Their GPUs share memory with the CPU, so their GPU figures compare best with our kernel column (our mark adds transfers).",
    '',
    table(
      ['shape', 'FastCollect ParGC', 'FastCollect GPU+O', 'Maas CPU', 'Maas GPU+2CU', 'ours serial young', 'ours serial full', 'ours gpu-dfs young', 'ours gpu-dfs young kernel', 'ours gpu-bfs young'],
      paperRows,
    ),
    '',
    '#### serial / gpu-dfs (higher is better for the GPU)',
    '',
    ratioRows.length ? table(['shape', 'layout', 'young mark', 'full mark', 'young pause'], ratioRows) : '(gpu-dfs not run: no ratios)',
    '',
    ...verdicts.map((v) => `- ${v}`),
  ].join('\n');
  return { text, raw: { repeat, heap, gpu, results: raw } };
}
