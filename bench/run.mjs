#!/usr/bin/env node
// minivm's benchmark harness.
//
//   node bench/run.mjs [section...] [--repeat N] [--quick] [--out file.json] [--gpu] [--heap SIZE] [--no-build] [--markdown]
//
// Sections (all but pairs by default, in this order):
//   interp   minivm vs CPython vs Lua on binary_trees, method_calls and the AWFY ports
//   gc       the seed papers' GC microbenchmarks under serial / gpu-dfs / gpu-bfs, both layouts
//   layouts  sable vs refgraph: mutator time, heap + graph bytes, mark time per object
//   young1m  the serial young collection of 1 million live objects
//   java     Java 17 twins under SerialGC / ParallelGC (-Xlog:gc pauses) beside minivm's
//   dispatch (only when named) virtual calls: interpreter, vtable, inline cache, devirtualized
//   pairs    (only when named) the GPU bar side by side: rounds of serial, gpu-dfs and
//            gpu-bfs on the 2560 lists and CompleteGraph, young pauses paired by round;
//            give it --repeat 20 on a noisy host
//   auto     (only when named) --gc auto beside serial, parallel, gpu-dfs and gpu-bfs on
//            every program of programs/ and bench/programs/ that collects: total pauses,
//            auto's ratio to the best fixed one, round by round too, its choices, its
//            prediction error (2 repeats unless --repeat N is given; --repeat 1 for a
//            quicker pass)
//   autoreplay (only when named) auto's pause model, variants replayed on the same recorded
//            collections of one --gc auto run per program: median prediction error of each
//            (--programs as for auto; --threads-list N: that many threads in the runs)
//   scaling  (only when named) the parallel collector's young and full pauses at 1, 2, 4,
//            8 and 16 threads beside serial and HotSpot ParallelGC (same thread counts)
//   startup  (only when named) GPU start-up by step and the first young pause of the
//            README's sample, with every pipeline run once at start-up and without;
//            then the whole process with the kernels compiled before the program or
//            beside it (--gpu-opt start=), beside serial's
//
// Options:
//   --repeat N   runs per configuration (default 5)
//   --quick      1 run each and smaller sizes (passed to the programs as arguments)
//   --out FILE   write the raw numbers as JSON
//   --gpu        run the GPU collectors in `gc` even on a software adapter (lavapipe);
//                without it they run only when the adapter is a hardware one
//   --heap SIZE  heap of the GC microbenchmarks (default 1g)
//   --no-build   do not rebuild dist/ when it is older than src/
//   --markdown   print each section as a section of bench/RESULTS.md: its heading, one
//                line with the commit, machine, date and the command that reruns that
//                section alone, then its tables (no run-wide header or timings)
//   --threads-list N,N,...  thread counts of `scaling` (default 1,2,4,8,16)
//   --programs NAME,...     `auto`: only the programs whose path contains one of the names;
//                           `scaling`: only the shapes whose name contains one
//   --layout NAME  `pairs`: the object layout of minivm's runs (default sable; refgraph marks the
//                reference graphs and evacuates in a heap mirror beside them)
//   --pretouch   every run maps its heap's pages before the program runs: minivm's --pretouch and
//                HotSpot's -XX:+AlwaysPreTouch, so that no pause pays the first touch of a page
//
// Tables go to stdout as markdown; progress goes to stderr. Peers that are not
// installed (python3, lua5.4, java) show as "-" or a skipped section.
import { writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { auto } from './lib/auto.mjs';
import { autoReplay } from './lib/auto-replay.mjs';
import { dispatch } from './lib/dispatch.mjs';
import { gc } from './lib/gc.mjs';
import { interp } from './lib/interp.mjs';
import { java } from './lib/java.mjs';
import { layouts } from './lib/layouts.mjs';
import { formatMachine, loadAverage, machineInfo, provenance } from './lib/machine.mjs';
import { ensureBuilt, harnessFlags, probeGpu } from './lib/minivm.mjs';
import { pairs } from './lib/pairs.mjs';
import { scaling } from './lib/scaling.mjs';
import { startup } from './lib/startup.mjs';
import { log } from './lib/util.mjs';
import { young1m } from './lib/young1m.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
/** @type {Record<string, (ctx: any) => Promise<{ text: string, raw: object }>>} */
const SECTIONS = { interp, gc, layouts, young1m, java, pairs, scaling, dispatch, auto, autoreplay: autoReplay, startup };
const DEFAULT_SECTIONS = ['interp', 'gc', 'layouts', 'young1m', 'java'];

function usage(msg) {
  if (msg) process.stderr.write(`bench/run.mjs: ${msg}\n`);
  process.stderr.write(
    'usage: node bench/run.mjs [interp|gc|layouts|young1m|java|pairs|scaling|dispatch|auto|autoreplay|startup ...] [--repeat N] [--quick] [--out file.json] [--gpu] [--heap SIZE] [--no-build] [--markdown] [--threads-list N,N,...] [--programs NAME,...] [--layout NAME] [--pretouch]\n',
  );
  process.exit(64);
}

/** @type {{ sections: string[], repeat: number | undefined, quick: boolean, out: string | null, gpu: boolean, heap: string, build: boolean, markdown: boolean, threadsList: number[] | null, programs: string[] | null, layout: string }} */
const opts = { sections: [], repeat: undefined, quick: false, out: null, gpu: false, heap: '1g', build: true, markdown: false, threadsList: null, programs: null, layout: 'sable' };
/** The options as given, but the sections and --out: what reruns one section alike. */
const common = [];
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i++) {
  const a = argv[i];
  if (a === '--repeat') {
    const n = Number(argv[++i]);
    if (!Number.isInteger(n) || n < 1) usage('--repeat needs a positive integer');
    opts.repeat = n;
    common.push(a, String(n));
  } else if (a === '--quick') opts.quick = true;
  else if (a === '--out') opts.out = argv[++i] ?? usage('--out needs a file');
  else if (a === '--gpu') opts.gpu = true;
  else if (a === '--heap') {
    opts.heap = argv[++i] ?? usage('--heap needs a size');
    common.push(a, opts.heap);
  } else if (a === '--no-build') opts.build = false;
  else if (a === '--markdown') opts.markdown = true;
  else if (a === '--threads-list') {
    const list = (argv[++i] ?? '').split(',').map(Number);
    if (!list.every((n) => Number.isInteger(n) && n >= 1)) usage('--threads-list needs positive integers, comma-separated');
    opts.threadsList = list;
    common.push(a, list.join(','));
  }
  else if (a === '--programs') {
    const list = (argv[++i] ?? '').split(',').filter((n) => n !== '');
    if (list.length === 0) usage('--programs needs names, comma-separated');
    opts.programs = list;
    common.push(a, list.join(','));
  }
  else if (a === '--layout') {
    opts.layout = argv[++i] ?? usage('--layout needs a layout');
    if (!['sable', 'refgraph'].includes(opts.layout)) usage('--layout takes sable or refgraph');
    common.push(a, opts.layout);
  }
  else if (a === '--pretouch') {
    // Both VMs map every heap page before the program runs, so no pause pays first touches.
    harnessFlags.minivm.push('--pretouch');
    harnessFlags.java.push('-XX:+AlwaysPreTouch');
    common.push(a);
  }
  else if (a === '-h' || a === '--help') usage();
  else if (SECTIONS[a]) opts.sections.push(a);
  else usage(`unknown argument ${a}`);
  if (['--quick', '--gpu', '--no-build', '--markdown'].includes(a)) common.push(a);
}
if (opts.sections.length === 0) opts.sections = DEFAULT_SECTIONS;
/** The auto section keeps to 2 repeats unless asked for a number. */
const repeatGiven = opts.repeat !== undefined;
opts.repeat ??= opts.quick ? 1 : 5;

if (opts.build) ensureBuilt(root);

const started = new Date();
const machine = machineInfo(root);
/** @type {{ use: boolean, available: boolean, software: boolean, adapter: string | null, line: string }} */
let gpu = { use: false, available: false, software: false, adapter: null, line: 'not probed' };
if (['gc', 'pairs', 'auto', 'startup'].some((s) => opts.sections.includes(s))) {
  log('probing the GPU adapter (gpu-dfs on a tiny program)');
  const p = await probeGpu(root);
  // With --gpu, run the GPU rows unless there is certainly no adapter (exit 69), so that
  // any other failure shows in the rows; without it, only on a hardware adapter.
  const noAdapter = !p.available && p.line.startsWith('no adapter');
  gpu = { ...p, use: opts.gpu ? !noAdapter : p.available && !p.software };
  if (opts.gpu && !p.available) log(`--gpu given but ${p.line}: GPU rows will say so`);
}

const cmd = `node bench/run.mjs ${process.argv.slice(2).join(' ')}`.trim();
if (!opts.markdown) {
  console.log(`## minivm benchmarks, ${started.toISOString().slice(0, 10)}\n`);
  console.log(`Command: \`${cmd}\`\n`);
  console.log(formatMachine(machine, gpu.use || gpu.available ? `${gpu.adapter}${gpu.use ? '' : ' (not used)'}` : null));
  console.log('');
}

/** A section's text as a section of bench/RESULTS.md: headings one level up, and the
 *  provenance line under the first. */
function pageSection(name, text) {
  const [head, ...rest] = text.replace(/^(#{2,6}) /gm, (_, h) => `${h.slice(1)} `).split('\n');
  // startup runs the GPU collectors on whatever adapter there is.
  const usesGpu = ((name === 'gc' || name === 'pairs' || name === 'auto') && gpu.use) || (name === 'startup' && gpu.available);
  const again = `node bench/run.mjs ${[name, ...common].join(' ')}`;
  return [head, '', provenance(machine, usesGpu ? gpu.adapter : null, started, again), ...rest].join('\n');
}

const ctx = { root, repeat: opts.repeat, repeatGiven, quick: opts.quick, gpu, heap: opts.heap, machine, threadsList: opts.threadsList, programs: opts.programs, layout: opts.layout };
/** @type {{ date: string, command: string, machine: object, gpu: object, options: object, sections: Record<string, object>, seconds?: number }} */
const results = { date: started.toISOString(), command: cmd, machine, gpu, options: { ...opts }, sections: {} };
for (const name of opts.sections) {
  const t0 = Date.now();
  log(`section ${name}`);
  try {
    const r = await SECTIONS[name](ctx);
    const secs = ((Date.now() - t0) / 1000).toFixed(0);
    if (opts.markdown) console.log(`${pageSection(name, r.text)}\n`);
    else console.log(`${r.text}\n\n(section ${name}: ${secs} s)\n`);
    results.sections[name] = { ...r.raw, seconds: Number(secs) };
  } catch (e) {
    const why = e instanceof Error ? (e.stack ?? String(e)) : String(e);
    console.log(`### ${name}: failed: ${why}\n`);
    results.sections[name] = { error: why };
  }
}
const total = ((Date.now() - started.getTime()) / 1000).toFixed(0);
if (opts.markdown) log(`total ${total} s; load average at end: ${loadAverage()}`);
else console.log(`Total: ${total} s; load average at end: ${loadAverage()}`);
results.seconds = Number(total);
if (opts.out) {
  writeFileSync(opts.out, JSON.stringify(results, null, 2) + '\n');
  log(`raw numbers written to ${opts.out}`);
}
