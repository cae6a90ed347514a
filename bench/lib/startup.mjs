// Section `startup` (only when named). First, what running every GPU pipeline once at
// start-up (src/gpu/device/shader.ts runOnce) costs and saves. The README's sample,
// binary_trees at --heap 4m, under gpu-dfs and gpu-bfs, each run with the run-once
// (default) and without it (MINIVM_GPU_RUN_ONCE=0: the driver compiles at the first
// dispatch, in the first pause where it compiles lazily), in alternation; medians over
// the repeats of the start-up by step (--json-stats gpu.startup) and the first and
// second young pause, with the kernels compiled before the program (`start=before`): the
// sample ends before they would be ready beside it, and its end would stop them unfinished. Then, the whole process with the kernels compiled before the
// program or beside it (`--gpu-opt start=`, decision s65-01), beside serial's, on
// small programs and on allocation-heavy ones.
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { fmt, fx, log, median, ratio, runTimed, scratch, table } from './util.mjs';

const ENGINES = ['gpu-dfs', 'gpu-bfs'];
const MODES = [
  ['run once', '1'],
  ['first dispatch in the pause', '0'],
];

/** A table of the section with its heading, what its columns mean and the runs that failed. */
function section(heading, prose, tableText, errors) {
  return [heading, '', ...prose, '', tableText, ...(errors.length ? ['', `Failed runs: ${errors.join('; ')}`] : [])].join('\n');
}

/** The programs of the whole-process table: [path, heap or null for the default].
 *  @type {[string, string | null][]} */
const BESIDE_PROGRAMS = [
  ['programs/gc_stress.mini', null],
  ['programs/hash_table.mini', null],
  ['bench/programs/binary_trees.mini', '256m'],
  ['bench/programs/parallel_lists_2560.mini', '256m'],
  ['bench/programs/long_linked_list.mini', '256m'],
];
/** @type {[string, string[]][]} */
const BESIDE_CONFIGS = [
  ['serial', ['--gc', 'serial']],
  ['gpu-dfs start=before', ['--gc', 'gpu-dfs', '--gpu-opt', 'start=before']],
  ['gpu-dfs start=beside', ['--gc', 'gpu-dfs', '--gpu-opt', 'start=beside']],
];

/** The whole process, the start-up the program waited for and the total pause, per
 *  program and configuration, the configurations taking turns within each round. */
async function beside(ctx, dir) {
  const { root, repeat } = ctx;
  /** @type {Record<string, object[]>} */
  const acc = {};
  const errors = [];
  for (let i = 0; i < repeat; i++) {
    for (const [program, heap] of BESIDE_PROGRAMS) {
      for (const [config, args] of BESIDE_CONFIGS) {
        log(`startup beside ${i + 1}/${repeat} ${program} ${config}`);
        const json = join(dir, `beside-${i}.json`);
        const r = await runTimed(
          process.execPath,
          [join(root, 'bin', 'minivm.js'), 'run', join(root, program), ...args, ...(heap ? ['--heap', heap] : []), '--json-stats', json],
          { cwd: root, timeoutMs: 600_000 },
        );
        if (r.code !== 0) {
          errors.push(`${program} ${config}: exit ${r.code} ${r.stderr.trim().split('\n').pop()}`);
          continue;
        }
        const s = JSON.parse(readFileSync(json, 'utf8'));
        (acc[`${program}\t${config}`] ??= []).push({
          processMs: r.ms,
          startupMs: s.gpu?.startupMs ?? 0,
          collectionWaitMs: s.gpu?.beside?.collectionMs ?? null,
          endWaitMs: s.gpu?.beside?.endMs ?? null,
          pauseMs: s.totalPauseMs,
          mutatorMs: s.mutatorMs,
        });
      }
    }
  }
  const raw = {};
  const rows = [];
  for (const [program, heap] of BESIDE_PROGRAMS) {
    const before = median((acc[`${program}\t${BESIDE_CONFIGS[1][0]}`] ?? []).map((x) => x.processMs));
    for (const [config] of BESIDE_CONFIGS) {
      const runs = acc[`${program}\t${config}`] ?? [];
      const m = (k) => median(runs.map((x) => x[k]));
      const row = {
        runs: runs.length, processMs: m('processMs'), startupMs: m('startupMs'), collectionWaitMs: m('collectionWaitMs'),
        endWaitMs: m('endWaitMs'), pauseMs: m('pauseMs'), mutatorMs: m('mutatorMs'), all: runs,
      };
      raw[`${program} ${config}`] = row;
      rows.push([
        program, heap ?? 'default', config, fmt(row.processMs, 0), fx(config.startsWith('gpu') ? ratio(row.processMs, before) : null),
        fmt(row.startupMs, 0), fmt(row.collectionWaitMs, 1), fmt(row.endWaitMs, 0), fmt(row.pauseMs), fmt(row.mutatorMs, 0),
      ]);
    }
  }
  const text = section(
    `### startup: the kernels compiled before the program or beside it, ${repeat} round(s)`,
    [
      'Medians, ms; in each round every program runs under each configuration in turn. process: the whole process as the',
      'harness timed it; /before: against start=before; start-up waited: the start-up the program waited for (--json-stats',
      'gpu.startupMs), of which, beside the program, at its first collection for the device and at its end; pause: the total',
      'pause (a wait at a collection is not part of it).',
    ],
    table(['program', 'heap', 'configuration', 'process', '/before', 'start-up waited', 'at 1st device collection', 'at the end', 'pause', 'mutator'], rows),
    errors,
  );
  return { text, raw };
}

export async function startup(ctx) {
  const { root, repeat } = ctx;
  const dir = scratch();
  const program = join(root, 'programs', 'binary_trees.mini');
  /** @type {Record<string, object[]>} */
  const acc = {};
  const errors = [];
  for (let i = 0; i < repeat; i++) {
    for (const gc of ENGINES) {
      for (const [mode, flag] of MODES) {
        log(`startup ${i + 1}/${repeat} ${gc} ${mode}`);
        const json = join(dir, `${gc}-${flag}-${i}.json`);
        const r = await runTimed(
          process.execPath,
          [join(root, 'bin', 'minivm.js'), 'run', program, '--gc', gc, '--heap', '4m', '--gpu-opt', 'start=before', '--json-stats', json],
          { cwd: root, env: { ...process.env, MINIVM_GPU_RUN_ONCE: flag }, timeoutMs: 600_000 },
        );
        if (r.code !== 0) {
          errors.push(`${gc} ${mode}: exit ${r.code} ${r.stderr.trim().split('\n').pop()}`);
          continue;
        }
        const s = JSON.parse(readFileSync(json, 'utf8'));
        const young = s.collections.filter((c) => c.kind === 'young');
        (acc[`${gc}\t${mode}`] ??= []).push({
          startupMs: s.gpu?.startupMs,
          ...s.gpu?.startup,
          first: young[0]?.pauseMs,
          second: young[1]?.pauseMs,
          wallMs: r.ms,
        });
      }
    }
  }
  const raw = {};
  const rows = [];
  for (const gc of ENGINES) {
    for (const [mode] of MODES) {
      const runs = acc[`${gc}\t${mode}`] ?? [];
      const m = (k) => median(runs.map((x) => x[k]));
      const row = {
        runs: runs.length,
        startupMs: m('startupMs'),
        deviceMs: m('deviceMs'),
        kernelsMs: m('kernelsMs'),
        buffersMs: m('buffersMs'),
        pipelines: m('pipelines'),
        firstYoungMs: m('first'),
        secondYoungMs: m('second'),
        processMs: m('wallMs'),
        all: runs,
      };
      raw[`${gc} ${mode}`] = row;
      rows.push([gc, mode, fmt(row.startupMs, 0), fmt(row.deviceMs, 0), fmt(row.kernelsMs, 0), fmt(row.buffersMs, 0), fmt(row.pipelines, 0), fmt(row.firstYoungMs, 1), fmt(row.secondYoungMs, 1), fmt(row.processMs, 0)]);
    }
  }
  const text = section(
    `### startup: GPU start-up and the first young pause, binary_trees --heap 4m, ${repeat} run(s) each`,
    [
      'Medians, ms. "run once": every pipeline dispatched once at start-up (the default); "first dispatch in the pause":',
      'MINIVM_GPU_RUN_ONCE=0. start-up = the start-up the program waited for (gpu.startupMs); device, pipelines (compiled and, by',
      'default, run once) and buffers (hardware adapters: the heap-sized buffers) are its steps in the GPU worker. A driver',
      'whose shader cache holds the kernels compiles little in either mode.',
    ],
    table(['collector', 'mode', 'start-up', 'device', 'pipelines', 'buffers', 'count', '1st young', '2nd young', 'process'], rows),
    errors,
  );
  const whole = await beside(ctx, dir);
  return { text: `${text}\n\n${whole.text}`, raw: { ...raw, beside: whole.raw } };
}
