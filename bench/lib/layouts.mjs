// Section `layouts`: SableVM's bidirectional layout against the reference graph (CSR
// beside the heap) on allocation-heavy programs, serial collector, in both execution
// tiers (the default, which compiles, and `--tier interp`): the graph's upkeep is
// written once in the compiled code's stores and once in the interpreter's. Per layout
// and tier: mutator time (the refgraph write barrier's double write lands there), peak
// heap and graph bytes, and serial mark time per live object. Mark per object is computed from young
// collections only: a full collection's record does not say how many objects it
// marked, while a young one's liveYoungObjects is exactly the objects its mark found.
import { gcShapes, gcSpec } from './gc.mjs';
import { interpPrograms, interpSpec } from './interp.mjs';
import { layoutOverhead } from './papers.mjs';
import { runMinivm } from './minivm.mjs';
import { fmt, geomean, log, median, mib, ratio, table } from './util.mjs';

/** The execution tiers measured: the default (`--tier auto`, compiled at a function's
 *  first call) and the interpreter alone; the flags each adds to a run. */
const TIERS = [
  { name: 'compiled', flags: [] },
  { name: 'interp', flags: ['--tier', 'interp'] },
];

/** The programs and their specs per layout; own runs (tag), so that sable and refgraph
 *  run back to back and both layouts of a program see the same load on a shared machine. */
function layoutPrograms(root, quick, heap) {
  const interp = interpPrograms(root);
  const byName = (n) => interp.find((p) => p.name === n);
  const shape = (n) => gcShapes.find((s) => s.name === n);
  const tag = 'layouts';
  const list = [];
  for (const n of ['binary_trees', 'storage']) {
    const p = byName(n);
    if (p) list.push({ name: n, spec: (layout) => ({ ...interpSpec(p, quick), layout, tag }) });
  }
  for (const n of ['long_linked_list', 'parallel_lists_256', 'parallel_lists_2560', 'vp_linked_list']) {
    list.push({ name: n, spec: (layout) => ({ ...gcSpec(shape(n), { collector: 'serial', layout, heap, quick }), tag }) });
  }
  for (const n of ['gc_stress', 'old_to_young', 'hash_table']) {
    list.push({ name: `programs/${n}`, spec: (layout) => ({ program: `programs/${n}.mini`, gc: 'serial', layout, tag }) });
  }
  return list;
}

/** Serial mark ns per live young object over one run's young collections. */
function markNsPerObject(stats) {
  const ys = (stats?.collections ?? []).filter((c) => c.kind === 'young' && c.liveYoungObjects > 0);
  const objs = ys.reduce((t, c) => t + c.liveYoungObjects, 0);
  if (objs === 0) return null;
  return (ys.reduce((t, c) => t + c.phases.mark, 0) * 1e6) / objs;
}

export async function layouts(ctx) {
  const { root, repeat, quick, heap } = ctx;
  const programs = layoutPrograms(root, quick, heap).flatMap((p) =>
    TIERS.map((t) => ({ name: p.name, tier: t.name, spec: (layout) => ({ ...p.spec(layout), flags: t.flags }) })),
  );
  /** @type {{ sable: any[], refgraph: any[], errors: string[] }[]} */
  const acc = programs.map(() => ({ sable: [], refgraph: [], errors: [] }));
  for (let i = 0; i < repeat; i++) {
    for (const [j, p] of programs.entries()) {
      for (const layout of /** @type {const} */ (['sable', 'refgraph'])) {
        log(`layouts ${i + 1}/${repeat} ${p.name} ${p.tier} ${layout}`);
        const r = await runMinivm(root, p.spec(layout), i);
        if (r.error) acc[j].errors.push(`${layout}: ${r.error}`);
        else acc[j][layout].push(r.stats);
      }
    }
  }
  const raw = [];
  const rows = [];
  for (const [j, p] of programs.entries()) {
    const a = acc[j];
    const s = (layout) => {
      const st = a[layout];
      return {
        runs: st.length,
        mutatorMs: median(st.map((x) => x.mutatorMs)),
        wallMs: median(st.map((x) => x.wallMs)),
        gcMs: median(st.map((x) => x.gcMs)),
        peakHeapBytes: median(st.map((x) => x.peakHeapBytes)),
        graphBytes: median(st.map((x) => x.refGraph?.graphBytes ?? 0)),
        edgeWrites: median(st.map((x) => x.refGraph?.edgeWrites ?? 0)),
        markNsPerYoungObject: median(st.map(markNsPerObject)),
        youngCollections: median(st.map((x) => x.youngCollections)),
      };
    };
    const sa = s('sable');
    const rg = s('refgraph');
    const mut = ratio(rg.mutatorMs, sa.mutatorMs);
    const bytes = ratio(
      rg.peakHeapBytes === null ? null : rg.peakHeapBytes + (rg.graphBytes ?? 0),
      sa.peakHeapBytes,
    );
    raw.push({ program: p.name, tier: p.tier, sable: sa, refgraph: rg, mutatorRatio: mut, bytesRatio: bytes, errors: a.errors });
    rows.push([
      p.name,
      p.tier,
      fmt(sa.mutatorMs, 0),
      fmt(rg.mutatorMs, 0),
      mut === null ? '-' : `${((mut - 1) * 100).toFixed(1)}%`,
      mib(sa.peakHeapBytes),
      mib(rg.peakHeapBytes),
      mib(rg.graphBytes),
      bytes === null ? '-' : `${((bytes - 1) * 100).toFixed(0)}%`,
      fmt(sa.markNsPerYoungObject, 0),
      fmt(rg.markNsPerYoungObject, 0),
      a.errors.slice(0, 2).join('; '),
    ]);
  }
  /** Per tier: the median and geometric mean of refgraph's mutator time over sable's, and how many programs stay under 1.1. */
  const byTier = TIERS.map(({ name }) => {
    const ratios = raw.filter((r) => r.tier === name && r.mutatorRatio !== null).map((r) => r.mutatorRatio);
    return { tier: name, programs: ratios.length, median: median(ratios), geomean: geomean(ratios), under10: ratios.filter((x) => x < 1.1).length };
  });
  const pct = (x) => `${((x - 1) * 100).toFixed(1)}%`;
  const text = [
    `### layouts: sable vs refgraph, --gc serial, both tiers, median of ${repeat} run(s)${quick ? ' (--quick sizes)' : ''}`,
    '',
    `Mutator ms = wall less GC pauses (from --json-stats). Heap MiB = peak heap occupancy; graph MiB = refGraph.graphBytes at exit;`,
    `"+bytes" = (refgraph peak heap + graph) / sable peak heap - 1. Mark ns/object = serial phases.mark / liveYoungObjects over young`,
    `collections only (full-collection records do not count marked objects). The list programs run at --heap ${heap}, the others at the default heap.`,
    'Tier "compiled": the default (`--tier auto`); "interp": `--tier interp`. Each repeat runs a program under sable, then at once under refgraph',
    '(runs not shared with other sections).',
    '',
    table(
      ['program', 'tier', 'sable mutator ms', 'refgraph mutator ms', 'mutator overhead', 'sable heap MiB', 'refgraph heap MiB', 'graph MiB', '+bytes', 'sable mark ns/obj', 'refgraph mark ns/obj', 'errors'],
      rows,
    ),
    '',
    ...byTier.map((t) =>
      t.programs > 0
        ? `Bar (refgraph mutator overhead < 10%; Maas et al. report ${layoutOverhead.maas * 100}%, FastCollect ${layoutOverhead.fastCollect * 100}%), tier ${t.tier}: ` +
          `geometric mean ${pct(t.geomean)}, median ${pct(t.median)}, ${t.under10} of ${t.programs} programs under 10%.`
        : `Bar (refgraph mutator overhead < 10%), tier ${t.tier}: not measured.`,
    ),
  ].join('\n');
  return { text, raw: { repeat, programs: raw, tiers: byTier } };
}
