// Section `auto`: `--gc auto` beside the fixed collectors (serial, parallel,
// gpu-dfs, gpu-bfs) on every program of programs/ and bench/programs/ that
// collects at its heap. Per program: the total pause of each collector (median
// over the repeats), auto's ratio to the best fixed one, that ratio in each
// round (auto's run against the best one's of the same round, taken minutes
// apart at most, so that a host's drift between rounds cancels), and whether the
// rounds agree on the 10% bar (a verdict the rounds split on is not one: a
// shared host moves a median of two runs by more than 10%), auto's choices counted
// over the repeats, and the median relative error of its pause model's
// predictions (|actual - predicted| / actual, over every collection of every
// repeat, from the `auto` field of the --json-stats records). The bars of issue
// 25: auto within 10% of the best fixed collector on every program, below every
// fixed one on at least one, median prediction error under 25%.
//
// programs/ run at a 32 MiB heap (at the default 256 MiB most never collect);
// bench/programs at their own sizes with a 256 MiB heap (complete_graph 1 GiB),
// where their forced collections see the shapes of the seed papers. The GPU
// columns run on a hardware adapter (or any, with --gpu). Every collector runs
// with `--gc-warm-up on`: auto warms up every engine it may choose, and serial,
// whose default is off, would otherwise be the one fixed collector measured
// cold beside it.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runMinivm } from './minivm.mjs';
import { fmt, fx, log, median, table } from './util.mjs';

const FIXED = ['serial', 'parallel', 'gpu-dfs', 'gpu-bfs'];
const ENGINES = ['serial', 'parallel', 'gpu-dfs', 'gpu-bfs'];
/** The same warm-up for every collector (see above). */
const WARM_UP = ['--gc-warm-up', 'on'];

/** Programs that never collect at these heaps are left out: they measure nothing here. */
const NO_COLLECTIONS = new Set([
  'programs/binary_trees.mini', 'programs/control_flow.mini', 'programs/numbers.mini', 'programs/polymorphism.mini',
  'programs/raytracer.mini', 'bench/programs/method_calls.mini',
]);

/** The programs of the section with their heaps (`autoreplay` runs the same). */
export function programs(root) {
  const list = (dir, heap) =>
    readdirSync(join(root, dir))
      .filter((f) => f.endsWith('.mini'))
      .sort()
      .map((f) => `${dir}/${f}`)
      .filter((p) => !NO_COLLECTIONS.has(p))
      // Programs that expect a compile or runtime error test the front end and the VM.
      .filter((p) => !/\/\/ (error:|expect runtime error)/.test(readFileSync(join(root, p), 'utf8')))
      .map((program) => ({ program, heap: program.endsWith('complete_graph.mini') && dir.startsWith('bench') ? '1g' : heap }));
  return [...list('programs', '32m'), ...list('bench/programs', '256m')];
}

/**
 * auto's total pause over the other collector's, round by round (the rounds
 * where both ran); auto's time choosing counts, as in the medians.
 * @param {any[]} autoRuns
 * @param {any[]} otherRuns
 * @returns {number[]}
 */
function perRound(autoRuns, otherRuns) {
  const out = [];
  for (let i = 0; i < autoRuns.length; i++) {
    const a = autoRuns[i];
    const b = otherRuns[i];
    if (!a || !b || !(b.stats.totalPauseMs > 0)) continue;
    out.push((a.stats.totalPauseMs + (a.stats.auto?.chooseMs ?? 0)) / b.stats.totalPauseMs);
  }
  return out;
}

/** A ratio as a percentage, or "-". */
function pct(x, digits = 0) {
  return x === null || x === undefined ? '-' : `${(100 * x).toFixed(digits)}%`;
}

export async function auto(ctx) {
  const { root, quick, gpu } = ctx;
  // Each configuration is a fresh process of a few seconds, 5 per program: 2
  // repeats unless a number was asked for (--quick: one) keep the section within minutes.
  const repeat = quick ? 1 : ctx.repeatGiven ? ctx.repeat : Math.min(ctx.repeat, 2);
  const collectors = ['auto', ...FIXED.filter((c) => !c.startsWith('gpu') || gpu.use)];
  /** @type {string[][]} */
  const rows = [];
  /** @type {object[]} */
  const raw = [];
  /** @type {number[]} */
  const allErrors = [];
  /** @type {number[]} */
  const allWarm = [];
  let within = 0;
  let below = 0;
  let compared = 0;
  /** Programs whose rounds agree on the 10% bar, either way; and those of them within it. */
  let agreed = 0;
  let agreedWithin = 0;
  const only = ctx.programs;
  const chosen = programs(root).filter((p) => !only || only.some((n) => p.program.includes(n)));
  for (const { program, heap } of chosen) {
    /** @type {Record<string, any[]>} */
    const runs = Object.fromEntries(collectors.map((c) => [c, []]));
    /** Each collector's run of each round, or undefined where it failed. */
    /** @type {Record<string, any[]>} */
    const runsByRound = Object.fromEntries(collectors.map((c) => [c, []]));
    /** @type {Record<string, string>} */
    const failures = {};
    // Rounds interleave the collectors, so a drift of the machine spreads over all.
    for (let i = 0; i < repeat; i++) {
      for (const gc of collectors) {
        log(`auto ${i + 1}/${repeat} ${program} ${gc}`);
        const r = await runMinivm(root, { program, gc, heap, gpuBenchmark: true, flags: WARM_UP, tag: 'auto' }, i);
        if (r.error || !r.stats) failures[gc] ??= r.error ?? 'no statistics';
        else {
          runs[gc].push(r);
          runsByRound[gc][i] = r;
        }
      }
    }
    // auto's choices are made just before each pause is timed: they count here.
    const pause = (gc) => median(runs[gc].map((r) => r.stats.totalPauseMs + (r.stats.auto?.chooseMs ?? 0)));
    const fixed = FIXED.filter((c) => collectors.includes(c) && runs[c].length > 0).map((c) => ({ gc: c, pause: pause(c) }));
    /** @type {{ gc: string, pause: number } | null} */
    let best = null;
    for (const f of fixed) if (best === null || f.pause < best.pause) best = f;
    const autoPause = runs.auto.length > 0 ? pause('auto') : null;
    /** @type {Record<string, number>} */
    const choices = Object.fromEntries(ENGINES.map((e) => [e, 0]));
    /** @type {number[]} */
    const errors = [];
    /** @type {number[]} */
    const warmErrors = [];
    for (const r of runs.auto) {
      for (const [e, n] of Object.entries(r.stats.auto?.choices ?? {})) choices[e] += n;
      for (const c of r.stats.collections) {
        if (!c.auto || !(c.pauseMs > 0)) continue;
        const e = Math.abs(c.pauseMs - c.auto.predictedMs) / c.pauseMs;
        errors.push(e);
        // Warm: predicted with 2 or more collections of the engine measured (pause-model.ts WARM_SAMPLES).
        if (c.auto.samples >= 2) warmErrors.push(e);
      }
    }
    allErrors.push(...errors);
    allWarm.push(...warmErrors);
    const sameOutput = runs.auto.every((r) => runs.serial.length === 0 || r.stdout === runs.serial[0].stdout);
    const vsBest = autoPause !== null && best && best.pause > 0 ? autoPause / best.pause : null;
    if (vsBest !== null) {
      compared++;
      if (vsBest <= 1.1) within++;
      if (vsBest < 1) below++;
    }
    const rounds = best ? perRound(runsByRound.auto, runsByRound[best.gc]) : [];
    const lo = rounds.length ? Math.min(...rounds) : null;
    const hi = rounds.length ? Math.max(...rounds) : null;
    // The rounds agree when every one of them falls on the same side of 1.1.
    const verdict = hi === null || lo === null ? '-' : hi <= 1.1 ? 'within' : lo > 1.1 ? 'outside' : 'split';
    if (verdict !== '-' && verdict !== 'split') {
      agreed++;
      if (verdict === 'within') agreedWithin++;
    }
    const counted = ENGINES.filter((e) => choices[e] > 0).map((e) => `${e} ${choices[e]}`).join(', ');
    const failed = Object.entries(failures).map(([gc, why]) => `${gc}: ${why}`).join('; ');
    rows.push([
      program, heap, fmt(autoPause), ...FIXED.map((c) => (collectors.includes(c) ? fmt(runs[c].length ? pause(c) : null) : '-')),
      best ? best.gc : '-', fx(vsBest), lo === null || hi === null ? '-' : `${fx(lo)}-${fx(hi)}`, verdict, counted || '-', pct(median(errors)), pct(median(warmErrors)),
      sameOutput ? 'same' : 'DIFFERS', failed,
    ]);
    // One line per program as it finishes, so that a run cut short keeps what it measured.
    log(`auto ${program}: ${rows[rows.length - 1].join(' | ')}`);
    raw.push({ program, heap, pauses: Object.fromEntries(collectors.map((c) => [c, runs[c].map((r) => r.stats.totalPauseMs)])), choices, errors, warmErrors, failures });
  }
  const medErr = median(allErrors);
  const medWarm = median(allWarm);
  const text = [
    `### auto: the learned engine choice beside the fixed collectors, total pause (ms, median of ${repeat} run(s))`,
    '',
    `Each program under \`--gc auto\` and each fixed collector, all with \`--gc-warm-up on\`${gpu.use ? '' : ' (GPU columns not run: no hardware adapter; --gpu to force)'}; ` +
      "auto's column adds the time it spent choosing (outside its pauses); choices: auto's engines over all repeats; error: median |actual - predicted| / actual over its collections; " +
      'warm error: over those predicted with 2 or more collections of the engine (and kind) measured.',
    '',
    table(['program', 'heap', 'auto', ...FIXED, 'best fixed', 'auto/best', 'auto/best by round', 'rounds say', 'auto chose', 'error', 'warm error', 'output vs serial', 'failures'], rows),
    '',
    `- auto within 10% of the best fixed collector: ${within} of ${compared} programs (bar: all); ` +
      `the ${repeat} round(s) agree on ${agreed} of them (${agreedWithin} within, ${agreed - agreedWithin} outside) and split on ${compared - agreed}`,
    `- auto below every fixed collector: ${below} program(s) (bar: at least one)`,
    `- median prediction error over all ${allErrors.length} collections: ${pct(medErr, 1)} (bar: under 25%); ` +
      `over the ${allWarm.length} warm ones: ${pct(medWarm, 1)}`,
  ].join('\n');
  return { text, raw: { repeat, collectors, programs: raw, medianError: medErr, medianWarmError: medWarm, within, below, compared, agreed, agreedWithin } };
}
