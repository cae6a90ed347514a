// Section `autoreplay`: auto's pause model, variants of it compared on the same
// measurements. Each program runs once under `--gc auto` (a fresh process, so
// the JIT's warm-up is its own) with a model that records, per collection, the
// sizes it was asked to predict, the engine chosen, the phases measured and the
// pause. The recorded collections are then fed, in order, to each variant of the
// model (src/collectors/pause-model.ts is pure: the same observations give the
// same predictions), and its prediction for the engine that ran is checked
// against the pause. So a variant's error is measured on exactly the pauses the
// others saw, which on a loaded machine two separate runs never are.
//
// Variants: `as built` (the pause auto reports: the terms fitted to their
// samples as taken, a term never measured predicted with the learned warm-up),
// `steady` (the pause the choices weigh: a term's first sample divided by the
// warm-up) and `plain` (no warm-up at all:
// first samples as measured, a term never measured at its prior, as before s28a-01).
//
//   node bench/lib/auto-replay.mjs record PROGRAM HEAP [THREADS]   (the child: JSON on stdout)
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { programs } from './auto.mjs';
import { log, median, runTimed, table } from './util.mjs';

/** The variants: a name and how it changes the model. */
const VARIANTS = [
  { name: 'as built', make: (PauseModel, threads) => new PauseModel(threads), reported: (p) => p.expectedMs },
  { name: 'steady', make: (PauseModel, threads) => new PauseModel(threads), reported: (p) => p.pauseMs },
  {
    name: 'plain',
    make: (PauseModel, threads) => {
      const m = new PauseModel(threads);
      m.warmup = () => 1;
      return m;
    },
    reported: (p) => p.pauseMs,
  },
];

/** In the child: one run with a recording model; prints the collections as JSON. */
async function record(root, program, heap, threads) {
  const dist = (p) => pathToFileURL(join(root, 'dist', p)).href;
  const { PauseModel } = await import(dist('collectors/pause-model.js'));
  const { defaultRunOptions, parseSize } = await import(dist('cli/options.js'));
  const { compileSource } = await import(dist('cli/compile-source.js'));
  const { runProgram } = await import(dist('cli/run.js'));
  const { releaseGpu } = await import(dist('collectors/memory.js'));
  const events = [];
  let pending = null;
  class Recorder extends PauseModel {
    /** @param {number} threads */
    constructor(threads) {
      super(threads);
    }
    choose(f, candidates, options) {
      const c = super.choose(f, candidates, options);
      pending = { features: f, engine: c.engine, predictedMs: c.predictedMs };
      return c;
    }
    // Collections under --gc-solo-below take serial without a choice (decision s56-02).
    serialChoice(f) {
      const c = super.serialChoice(f);
      pending = { features: f, engine: c.engine, predictedMs: c.predictedMs };
      return c;
    }
    observe(o) {
      if (pending) events.push({ ...pending, observation: o, kind: o.kind, pauseMs: null });
      pending = null;
      super.observe(o);
    }
    checkPrediction(predictedMs, actualMs, samples) {
      const e = events[events.length - 1];
      if (e) e.pauseMs = actualMs;
      super.checkPrediction(predictedMs, actualMs, samples);
    }
  }
  const io = { stdout: () => {}, stderr: () => {} };
  const file = join(root, program);
  const compiled = compileSource(file, readFileSync(file, 'utf8'), io);
  if (!compiled) throw new Error(`${program}: does not compile`);
  const options = { ...defaultRunOptions(), gc: 'auto', heapBytes: parseSize(heap, '--heap'), gpuBenchmark: true };
  // The model's threads are the marker's: --threads, else the available cores.
  const t = threads ?? availableParallelism();
  options.threads = t;
  const out = await runProgram(compiled, options, io, { autoModel: new Recorder(t) });
  await releaseGpu();
  process.stdout.write(JSON.stringify({ exitCode: out.exitCode, threads: t, events }));
}

/** The errors of one variant on recorded collections: all, and those of an engine
 *  measured twice or more for that kind (warm, as --stats counts them). */
function replay(PauseModel, variant, threads, events) {
  const m = variant.make(PauseModel, threads);
  const errors = [];
  const warm = [];
  for (const e of events) {
    const p = variant.reported(m.predict(e.engine, e.features));
    const samples = m.samples(e.engine, e.features.kind);
    m.observe(e.observation);
    // As auto checks: only a prediction of the kind the collection turned out to be.
    if (e.pauseMs > 0 && e.observation.kind === e.features.kind) {
      const err = Math.abs(e.pauseMs - p) / e.pauseMs;
      errors.push(err);
      if (samples >= 2) warm.push(err);
    }
  }
  return { errors, warm };
}

const pct = (x) => (x === null || x === undefined ? '-' : `${(100 * x).toFixed(0)}%`);

export async function autoReplay(ctx) {
  const { root } = ctx;
  const { PauseModel } = await import(pathToFileURL(join(root, 'dist', 'collectors', 'pause-model.js')).href);
  const only = ctx.programs;
  const chosen = programs(root).filter((p) => !only || only.some((n) => p.program.includes(n)));
  const threads = ctx.threadsList?.[0] ?? null;
  const rows = [];
  const raw = [];
  /** @type {Record<string, { errors: number[], warm: number[] }>} */
  const all = Object.fromEntries(VARIANTS.map((v) => [v.name, { errors: [], warm: [] }]));
  for (const { program, heap } of chosen) {
    log(`autoreplay ${program}`);
    const args = [join(root, 'bench', 'lib', 'auto-replay.mjs'), 'record', program, heap];
    if (threads) args.push(String(threads));
    const r = await runTimed(process.execPath, args, { cwd: root });
    let rec = null;
    try {
      rec = JSON.parse(r.stdout);
    } catch {
      rec = null;
    }
    if (r.code !== 0 || !rec) {
      rows.push([program, heap, '-', ...VARIANTS.flatMap(() => ['-', '-']), `failed: ${(r.stderr || '').trim().split('\n').pop()}`]);
      continue;
    }
    const t = rec.threads;
    const results = VARIANTS.map((v) => replay(PauseModel, v, t, rec.events));
    VARIANTS.forEach((v, i) => {
      all[v.name].errors.push(...results[i].errors);
      all[v.name].warm.push(...results[i].warm);
    });
    const engines = [...new Set(rec.events.map((e) => e.engine))].join(', ');
    rows.push([program, heap, String(rec.events.length), ...results.flatMap((x) => [pct(median(x.errors)), pct(median(x.warm))]), engines]);
    log(`autoreplay ${program}: ${rows[rows.length - 1].join(' | ')}`);
    raw.push({ program, heap, events: rec.events.length, engines, results: Object.fromEntries(VARIANTS.map((v, i) => [v.name, results[i]])) });
  }
  const summary = VARIANTS.map((v) => `${v.name} ${pct(median(all[v.name].errors))} over ${all[v.name].errors.length} (warm ${pct(median(all[v.name].warm))} over ${all[v.name].warm.length})`);
  const text = [
    "### autoreplay: auto's pause model, variants on the same recorded collections (median |actual - predicted| / actual)",
    '',
    "One `--gc auto` run per program records each collection's sizes, engine, phases and pause; each variant of the " +
      'model replays them in order and predicts the engine that ran. as built: the terms fitted to their samples as taken ' +
      '(what auto reports); steady: a term\'s first sample divided by the learned warm-up (what the choices weigh); plain: ' +
      'no warm-up at all. "warm": predictions of an engine measured twice or more.',
    '',
    table(['program', 'heap', 'collections', ...VARIANTS.flatMap((v) => [`${v.name} error`, `${v.name} warm`]), 'engines'], rows),
    '',
    `- median error over all programs' collections: ${summary.join('; ')}`,
  ].join('\n');
  return { text, raw: { programs: raw } };
}

if (process.argv[2] === 'record') {
  const root = join(new URL('.', import.meta.url).pathname, '..', '..');
  const [, , , program, heap, threads] = process.argv;
  await record(root, program, heap, threads ? Number(threads) : null);
  process.exit(0);
}
