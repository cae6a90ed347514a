// Section `startup` (only when named): what running every GPU pipeline once at start-up
// (src/gpu/device/shader.ts runOnce) costs and saves. The README's sample, binary_trees
// at --heap 4m, under gpu-dfs and gpu-bfs, each run with the run-once (default) and
// without it (MINIVM_GPU_RUN_ONCE=0: the driver compiles at the first dispatch, in the
// first pause where it compiles lazily), in alternation; medians over the repeats of the
// start-up by step (--json-stats gpu.startup) and the first and second young pause.
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { fmt, log, median, runTimed, scratch, table } from './util.mjs';

const ENGINES = ['gpu-dfs', 'gpu-bfs'];
const MODES = [
  ['run once', '1'],
  ['first dispatch in the pause', '0'],
];

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
          [join(root, 'bin', 'minivm.js'), 'run', program, '--gc', gc, '--heap', '4m', '--json-stats', json],
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
  const text = [
    `### startup: GPU start-up and the first young pause, binary_trees --heap 4m, ${repeat} run(s) each`,
    '',
    'Medians, ms. "run once": every pipeline dispatched once at start-up (the default); "first dispatch in the pause":',
    'MINIVM_GPU_RUN_ONCE=0. start-up = the CLI\'s wait for the GPU marker\'s prepare; device, pipelines (compiled and, by',
    'default, run once) and buffers (hardware adapters: the heap-sized buffers) are its steps in the GPU worker. A driver',
    'whose shader cache holds the kernels compiles little in either mode.',
    '',
    table(['collector', 'mode', 'start-up', 'device', 'pipelines', 'buffers', 'count', '1st young', '2nd young', 'process'], rows),
    ...(errors.length ? ['', `Failed runs: ${errors.join('; ')}`] : []),
  ].join('\n');
  return { text, raw };
}
