// Section `java`: Java 17 twins (bench/java/) of the GC microbenchmark shapes and
// binary_trees, under -XX:+UseSerialGC and -XX:+UseParallelGC with -Xlog:gc at the same
// heap size as minivm's runs, beside minivm's serial pauses on the same shapes.
// Pauses come from the -Xlog:gc lines "GC(n) Pause Young|Full (cause) A->B(C) T ms";
// forced ones are those with n >= the FORCED_FROM id the program prints before forcing
// (bench/java/Gc.java): young ones forced by allocating garbage until a young collection
// happens (Java has no "minor GC now" call), full ones by System.gc().
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { gcShapes, gcSpec, summarizeForced } from './gc.mjs';
import { interpPrograms, interpSpec } from './interp.mjs';
import { harnessFlags, runMinivm, sizeGlobals } from './minivm.mjs';
import { fmt, fx, have, log, median, ratio, runTimed, scratch, table, versionOf } from './util.mjs';

/** The Java twins: the shape each stands for, its class, and the size globals passed as arguments, in order. */
export const twins = [
  { name: 'long_linked_list', cls: 'LongLinkedList', args: ['LENGTH', 'COLLECTIONS'] },
  { name: 'parallel_lists_256', cls: 'ParallelLists', args: ['LISTS', 'NODES', 'COLLECTIONS'] },
  { name: 'parallel_lists_2560', cls: 'ParallelLists', args: ['LISTS', 'NODES', 'COLLECTIONS'] },
  { name: 'complete_graph', cls: 'CompleteGraph', args: ['NODES', 'ROOTS', 'COLLECTIONS'] },
  { name: 'very_wide_object', cls: 'VeryWideObject', args: ['WIDTH', 'ROUNDS'] },
  { name: 'vp_linked_list', cls: 'VpLinkedList', args: ['LISTS', 'NODES', 'COLLECTIONS'] },
  { name: 'vp_array_of_objects', cls: 'VpArrayOfObjects', args: ['ARRAYS', 'OBJECTS', 'RETAINED', 'COLLECTIONS'] },
  { name: 'binary_trees', cls: 'BinaryTrees', args: ['MAX_DEPTH'] },
];

const LINE = /GC\((\d+)\) Pause (Young|Full) \((.+)\) \S+->\S+\(\S+\) ([\d.]+)ms/;

/** Pauses parsed from -Xlog:gc output, and the first forced collection's id. */
export function parseXlog(stdout) {
  /** @type {{ id: number, kind: 'young' | 'full', cause: string, ms: number, forced?: boolean }[]} */
  const pauses = [];
  let forcedFrom = Infinity;
  const program = [];
  for (const line of stdout.split('\n')) {
    const f = line.match(/^FORCED_FROM (\d+)$/);
    if (f) {
      forcedFrom = Number(f[1]);
      continue;
    }
    const m = line.match(LINE);
    if (m) pauses.push({ id: Number(m[1]), kind: m[2] === 'Young' ? 'young' : 'full', cause: m[3], ms: Number(m[4]) });
    else if (!line.startsWith('[')) program.push(line);
  }
  for (const p of pauses) p.forced = p.id >= forcedFrom;
  return { pauses, forcedFrom, output: program.join('\n').trim() };
}

/** The median of some pause times and their number, or null when there are none. */
function pauseSummary(ms) {
  return ms.length ? { pause: median(ms), n: ms.length } : null;
}

/** One run of a Java twin with `flags` (a collector and its options) at -Xms = -Xmx = `jheap`:
 *  its -Xlog:gc pauses (parseXlog), or null when java failed. */
export async function runTwin(root, classes, jheap, twin, argv, flags) {
  const r = await runTimed('java', [`-Xms${jheap}`, `-Xmx${jheap}`, ...flags, '-Xlog:gc', ...harnessFlags.java, '-cp', classes, twin.cls, ...argv], { cwd: root });
  return r.code === 0 ? parseXlog(r.stdout) : null;
}

/** Median forced young or full pauses of Java runs (ParallelGC's scavenge before System.gc() excluded). */
export function javaPauses(runs, kind) {
  const ms = runs.flatMap((r) => r.pauses.filter((p) => p.forced && p.kind === kind && (kind === 'full' || p.cause !== 'System.gc()')).map((p) => p.ms));
  return ms.length ? median(ms) : null;
}

/** minivm's --heap size as a -Xmx value. */
export function javaHeap(heap) {
  return heap.replace(/i?b$/i, '');
}

/** Compiles bench/java into a scratch folder: its path, or null and javac's stderr. */
export async function compileTwins(root) {
  const classes = join(scratch(), 'java');
  const srcDir = join(root, 'bench', 'java');
  const sources = readdirSync(srcDir).filter((f) => f.endsWith('.java')).map((f) => join(srcDir, f));
  log('java: compiling bench/java/*.java');
  const c = await runTimed('javac', ['-d', classes, ...sources], { cwd: root });
  return { classes: c.code === 0 ? classes : null, stderr: c.stderr };
}

export async function java(ctx) {
  const { root, repeat, quick, heap, machine } = ctx;
  if (!have('java') || !have('javac')) {
    const text = '### java: skipped (java/javac not installed)';
    return { text, raw: { skipped: 'java not installed' } };
  }
  const { classes, stderr } = await compileTwins(root);
  if (!classes) return { text: `### java: javac failed\n\n\`\`\`\n${stderr.slice(0, 2000)}\n\`\`\``, raw: { error: stderr } };

  const interp = interpPrograms(root);
  const cases = twins.map((t) => {
    const shape = gcShapes.find((s) => s.name === t.name);
    const program = shape ? shape.program : 'bench/programs/binary_trees.mini';
    const sizes = { ...sizeGlobals(root, program) };
    let spec;
    let jheap;
    if (shape) {
      if (quick && shape.quick) Object.assign(sizes, shape.quick);
      spec = gcSpec(shape, { collector: 'serial', layout: 'sable', heap, quick });
      jheap = javaHeap(heap);
    } else {
      const p = interp.find((x) => x.name === 'binary_trees');
      if (!p) throw new Error('bench/programs/binary_trees.mini is missing');
      if (quick) sizes[p.size] = p.quick;
      spec = interpSpec(p, quick);
      jheap = '256m'; // minivm's default heap
    }
    return { ...t, forcedShape: !!shape, spec, jheap, argv: t.args.map((a) => String(sizes[a])) };
  });
  const gcs = [
    { name: 'SerialGC', flag: '-XX:+UseSerialGC' },
    { name: 'ParallelGC', flag: '-XX:+UseParallelGC' },
  ];
  const acc = new Map();
  /** The runs and errors of one configuration (shape|collector), made on first use. */
  const entry = (key) => {
    let e = acc.get(key);
    if (!e) acc.set(key, (e = { runs: [], errors: [] }));
    return e;
  };
  for (let i = 0; i < repeat; i++) {
    for (const cs of cases) {
      for (const g of gcs) {
        const e = entry(`${cs.name}|${g.name}`);
        log(`java ${i + 1}/${repeat} ${cs.name} ${g.name}`);
        const r = await runTimed('java', [`-Xms${cs.jheap}`, `-Xmx${cs.jheap}`, g.flag, '-Xlog:gc', ...harnessFlags.java, '-cp', classes, cs.cls, ...cs.argv], { cwd: root });
        if (r.code !== 0) e.errors.push(`exit ${r.code}: ${r.stderr.trim().split('\n').pop()}`);
        else e.runs.push({ ...parseXlog(r.stdout), ms: r.ms });
      }
      log(`java ${i + 1}/${repeat} ${cs.name} minivm serial`);
      const m = await runMinivm(root, cs.spec, i);
      const e = entry(`${cs.name}|minivm`);
      if (m.error) e.errors.push(m.error);
      else e.runs.push(m);
    }
  }

  const raw = [];
  const rows = [];
  const notes = new Set();
  for (const cs of cases) {
    const mv = acc.get(`${cs.name}|minivm`);
    let mYoung;
    let mFull;
    let mCounts;
    if (cs.forcedShape) {
      mYoung = summarizeForced(mv.runs, 'young');
      mFull = summarizeForced(mv.runs, 'full');
    } else {
      const all = mv.runs.flatMap((r) => r.stats.collections);
      const y = all.filter((c) => c.kind === 'young').map((c) => c.pauseMs);
      const f = all.filter((c) => c.kind === 'full').map((c) => c.pauseMs);
      mYoung = pauseSummary(y);
      mFull = pauseSummary(f);
      mCounts = mv.runs.length ? `${median(mv.runs.map((r) => r.stats.youngCollections))}y/${median(mv.runs.map((r) => r.stats.fullCollections))}f` : '-';
    }
    const rec = { shape: cs.name, heap: cs.jheap, args: cs.argv, minivm: { young: mYoung, full: mFull, errors: mv.errors } };
    const jv = {};
    for (const g of gcs) {
      const a = acc.get(`${cs.name}|${g.name}`);
      const expected = mv.runs[0]?.stdout?.trim();
      for (const r of a.runs) if (expected !== undefined && r.output !== expected) notes.add(`${cs.name}: Java output differs from minivm's`);
      const keep = (p, kind) => {
        if (p.kind !== kind) return false;
        if (!cs.forcedShape) return true;
        return p.forced && (kind === 'full' || p.cause !== 'System.gc()');
      };
      const sel = (kind) => a.runs.flatMap((r) => r.pauses.filter((p) => keep(p, kind)));
      const young = sel('young');
      const full = sel('full');
      const scavengeBeforeFull = a.runs.flatMap((r) => r.pauses.filter((p) => p.forced && p.kind === 'young' && p.cause === 'System.gc()'));
      jv[g.name] = {
        young: pauseSummary(young.map((p) => p.ms)),
        full: pauseSummary(full.map((p) => p.ms)),
        scavengeBeforeFull: pauseSummary(scavengeBeforeFull.map((p) => p.ms)),
        youngPerRun: median(a.runs.map((r) => r.pauses.filter((p) => p.kind === 'young').length)),
        errors: a.errors,
        pauses: a.runs.map((r) => r.pauses),
      };
    }
    rec.java = jv;
    raw.push(rec);
    rows.push([
      cs.forcedShape ? cs.name : `${cs.name} (all pauses)`,
      cs.jheap,
      fmt(mYoung?.pause),
      fmt(jv.SerialGC.young?.pause),
      fmt(jv.ParallelGC.young?.pause),
      fmt(mFull?.pause),
      fmt(jv.SerialGC.full?.pause),
      fmt(jv.ParallelGC.full?.pause),
      fx(ratio(mYoung?.pause, jv.SerialGC.young?.pause), 1),
      fx(ratio(mFull?.pause, jv.SerialGC.full?.pause), 1),
      cs.forcedShape
        ? ''
        : `counts minivm ${mCounts}, Serial ${jv.SerialGC.youngPerRun ?? '-'}y, Parallel ${jv.ParallelGC.youngPerRun ?? '-'}y`,
    ]);
  }
  // The machine section asked java -version already.
  const version = machine?.java ?? versionOf('java', ['-version']);
  const text = [
    `### java: ${version}, pauses of forced collections (ms), median over ${repeat} run(s) of each${quick ? ' (--quick sizes)' : ''}`,
    '',
    `java -Xms<heap> -Xmx<heap> -XX:+UseSerialGC|-XX:+UseParallelGC -Xlog:gc, heap as minivm's (${heap} for the shapes, 256m for binary_trees).`,
    'Young: collections forced by allocating 1 KB garbage arrays until a young collection happens (Java has no minor-GC call);',
    'full: System.gc(). ParallelGC runs a young scavenge before each System.gc() full collection; it is not counted in either column',
    '(its median is in the raw JSON). binary_trees forces nothing: its row is the median of all pauses (allocation failures).',
    'minivm: serial collector, sable layout, its forced collections (minorGc() / gc()), whole pauses.',
    '',
    table(
      ['shape', 'heap', 'minivm young', 'Serial young', 'Parallel young', 'minivm full', 'Serial full', 'Parallel full', 'minivm/Serial young', 'minivm/Serial full', 'notes'],
      rows,
    ),
    ...(notes.size ? ['', ...[...notes].map((n) => `- ${n}`)] : []),
  ].join('\n');
  return { text, raw: { repeat, version, cases: raw } };
}
