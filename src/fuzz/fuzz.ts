/**
 * The differential fuzzer: each generated program (generate.ts) runs in this
 * process under every requested collector and layout with --verify-gc (the GPU
 * collectors and auto half the time without, since their evacuation takes another
 * path then: docs/decisions/s62-04), a small heap
 * and sometimes --gc-stress, and its output and exit status are compared with the
 * generator's oracle. A failure (a difference, a verification failure, a JavaScript
 * exception) is shrunk by dropping statements while it still fails, and saved under
 * test/fuzz-regressions/ with its expected output.
 *
 * Long runs spread over many cores with --jobs (one child process per job, each taking
 * every jobs-th seed) and over many configurations with --configs-per-program (each
 * program under a rotating share of the collector x layout product).
 *
 *   npm run fuzz -- --seconds S [--seed N] [--gc LIST] [--layout LIST] [--out DIR]
 *                   [--programs N] [--jobs N] [--configs-per-program K]
 */
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { COLLECTOR_NAMES, LAYOUT_NAMES, defaultRunOptions, type CollectorName, type LayoutName } from '../cli/options.js';
import { isDawnLine } from '../cli/dawn-filter.js';
import { releaseGpu } from '../collectors/index.js';
import { isGpuCollector } from '../collectors/names.js';
import { PARALLEL_MIN_THREADS } from '../collectors/auto-marker.js';
import { runSource } from '../cli/run.js';
import { expectedOutput, generate, render, rng, type Stmt } from './generate.js';
import { now } from '../heap/clock.js';

export interface FuzzConfig {
  gc: CollectorName;
  layout: LayoutName;
  heapBytes: number;
  gcStress: number;
  /** GPU collectors: `--gpu-min-live`, so that their runs on a software adapter
   *  (whose default is 0) also take turns between the device and the CPU. */
  gpuMinLiveBytes?: number;
  /** `--verify-gc` (absent: on). */
  verifyGc?: boolean;
  /** GPU collectors: `--gpu-opt start=beside`, so that runs on a software adapter
   *  (whose default is before) meet a device still starting too. */
  startBeside?: boolean;
}

export interface Failure {
  seed: number;
  config: FuzzConfig;
  reason: string;
  stmts: Stmt[];
}

const HEAPS = [512 * 1024, 1024 * 1024, 4 * 1024 * 1024];
const STRESS = [0, 0, 3, 17];
const GPU_MIN_LIVE = [0, 16 * 1024, 64 * 1024];

/**
 * The configurations of `seed`: every collector and layout, one heap and stress each;
 * with `perProgram` below the product's size, a share that rotates with the seed so
 * that consecutive seeds cover the whole product evenly.
 */
export function configsFor(seed: number, gcs: readonly CollectorName[], layouts: readonly LayoutName[], perProgram = Infinity): FuzzConfig[] {
  const r = rng(seed ^ 0x5bd1e995);
  // Its own stream, so that the other draws stay what they were for each seed.
  const verify = rng(seed ^ 0x27d4eb2d);
  const beside = rng(seed ^ 0x165667b1);
  const heapBytes = HEAPS[Math.floor(r() * HEAPS.length)]!;
  const all: FuzzConfig[] = [];
  for (const gc of gcs) {
    for (const layout of layouts) {
      const c: FuzzConfig = { gc, layout, heapBytes, gcStress: STRESS[Math.floor(r() * STRESS.length)]! };
      if (isGpuCollector(gc)) c.gpuMinLiveBytes = GPU_MIN_LIVE[Math.floor(r() * GPU_MIN_LIVE.length)]!;
      if (isGpuCollector(gc) || gc === 'auto') c.verifyGc = verify() < 0.5;
      if (isGpuCollector(gc) && beside() < 0.5) c.startBeside = true;
      all.push(c);
    }
  }
  if (perProgram >= all.length) return all;
  const first = (seed * perProgram) % all.length;
  return Array.from({ length: perProgram }, (_, k) => all[(first + k) % all.length]!);
}

/** Runs `stmts` under `config`; the reason it failed, or null. */
export async function check(stmts: readonly Stmt[], config: FuzzConfig): Promise<string | null> {
  const expected = expectedOutput({ stmts });
  let stdout = '';
  let stderr = '';
  // Every parallel collection on every thread (the fuzzer's heaps are small enough
  // to run alone); auto gets the threads it needs to offer its parallel engine.
  const threads = config.gc === 'auto' ? PARALLEL_MIN_THREADS : 2;
  const { startBeside, ...run } = config;
  const options = { ...defaultRunOptions(), ...run, ...(startBeside ? { gpuOpt: 'start=beside' } : {}), verifyGc: config.verifyGc !== false, threads, gcSoloBytes: 0 };
  try {
    const r = await runSource('fuzz.mini', render({ stmts }), options, {
      stdout: (t) => void (stdout += t),
      stderr: (t) => void (stderr += t),
    });
    if (r.exitCode !== 0) return `exit ${r.exitCode}: ${stderr.split('\n')[0]}`;
  } catch (e) {
    return `JavaScript exception: ${e instanceof Error ? `${e.name}: ${e.message}` : String(e)}`;
  }
  if (stdout !== expected) {
    const a = stdout.split('\n');
    const b = expected.split('\n');
    let k = 0;
    while (k < a.length && a[k] === b[k]) k++;
    return `output differs at line ${k + 1}: got ${JSON.stringify(a[k])}, expected ${JSON.stringify(b[k])}`;
  }
  return null;
}

/** Drops chunks of statements, then single ones, while the program still fails. */
export async function shrink(stmts: Stmt[], config: FuzzConfig): Promise<Stmt[]> {
  let cur = stmts;
  for (let chunk = Math.max(1, cur.length >> 1); chunk >= 1; chunk >>= 1) {
    for (let i = 0; i < cur.length; ) {
      const trial = [...cur.slice(0, i), ...cur.slice(i + chunk)];
      if ((await check(trial, config)) !== null) cur = trial;
      else i += chunk;
    }
  }
  return cur;
}

export function flags(c: FuzzConfig): string {
  const minLive = c.gpuMinLiveBytes ? ` --gpu-min-live ${c.gpuMinLiveBytes / 1024}k` : '';
  const verify = c.verifyGc === false ? '' : ' --verify-gc';
  const start = c.startBeside ? ' --gpu-opt start=beside' : '';
  return `--gc ${c.gc} --layout ${c.layout} --heap ${c.heapBytes / 1024}k${verify}${c.gcStress ? ` --gc-stress ${c.gcStress}` : ''}${minLive}${start}`;
}

/** Writes a failure as NAME.mini (its flags in the first line) and NAME.expected. */
export function save(dir: string, f: Failure): string {
  mkdirSync(dir, { recursive: true });
  const name = `seed-${f.seed}-${f.config.gc}-${f.config.layout}`;
  const header = `// fuzz seed ${f.seed}: ${f.reason.replace(/\n/g, ' ')}\n// flags: ${flags(f.config)}\n`;
  writeFileSync(join(dir, `${name}.mini`), header + render({ stmts: f.stmts }));
  writeFileSync(join(dir, `${name}.expected`), expectedOutput({ stmts: f.stmts }));
  return name;
}

export interface FuzzRun {
  programs: number;
  runs: number;
  /** Runs per `collector/layout`. */
  runsBy: Record<string, number>;
  failures: Failure[];
}

/** Fuzzes seeds `seed`, `seed + stride`, ... until `seconds` pass or `maxPrograms` ran. */
export async function fuzz(opts: {
  seconds: number;
  seed: number;
  gcs: readonly CollectorName[];
  layouts: readonly LayoutName[];
  maxPrograms?: number;
  stride?: number;
  perProgram?: number;
  shrink?: boolean;
  log?: (line: string) => void;
  /** Aborted: stop after the program being run. */
  stop?: AbortSignal;
}): Promise<FuzzRun> {
  const end = now() + opts.seconds * 1000;
  const result: FuzzRun = { programs: 0, runs: 0, runsBy: {}, failures: [] };
  const stride = opts.stride ?? 1;
  for (let seed = opts.seed; now() < end && result.programs < (opts.maxPrograms ?? Infinity) && !opts.stop?.aborted; seed += stride) {
    const configs = configsFor(seed, opts.gcs, opts.layouts, opts.perProgram);
    const program = generate(seed, Math.floor(configs[0]!.heapBytes / 4 / 10));
    result.programs++;
    for (const config of configs) {
      result.runs++;
      const key = `${config.gc}/${config.layout}`;
      result.runsBy[key] = (result.runsBy[key] ?? 0) + 1;
      const reason = await check(program.stmts, config);
      if (reason === null) continue;
      const stmts = opts.shrink === false ? program.stmts : await shrink(program.stmts, config);
      result.failures.push({ seed, config, reason: (await check(stmts, config)) ?? reason, stmts });
      opts.log?.(`seed ${seed} ${flags(config)}: ${reason} (shrunk to ${stmts.length} statements)`);
      break;
    }
  }
  return result;
}

const USAGE =
  'usage: npm run fuzz -- --seconds S [--seed N] [--gc LIST] [--layout LIST] [--out DIR] [--programs N] [--jobs N] [--configs-per-program K]';

/** The last line of every run, which a parent of --jobs children sums. */
const SUMMARY = /^fuzz-summary (.*)$/m;

interface Summary {
  programs: number;
  runs: number;
  failures: number;
  runsBy: Record<string, number>;
}

function summaryLines(r: Summary): string {
  return `fuzz: runs by configuration: ${Object.entries(r.runsBy).map(([k, n]) => `${k} ${n}`).join(', ')}\n` +
    `fuzz: ${r.programs} programs, ${r.runs} runs, ${r.failures} failures\n`;
}

/** Calls `each` with every whole line `stream` carries. */
function lines(stream: NodeJS.ReadableStream, each: (line: string) => void): void {
  let rest = '';
  stream.setEncoding('utf8');
  stream.on('data', (t: string) => {
    const parts = (rest + t).split('\n');
    rest = parts.pop()!;
    parts.forEach(each);
  });
  stream.on('end', () => rest !== '' && each(rest));
}

/** Runs `jobs` children over interleaved seeds and sums what they report. */
async function fuzzInChildren(argv: string[], jobs: number, seed: number, programs: number): Promise<Summary & { exit: number }> {
  const self = fileURLToPath(import.meta.url);
  const total: Summary & { exit: number } = { programs: 0, runs: 0, runsBy: {}, failures: 0, exit: 0 };
  const children: ReturnType<typeof spawn>[] = [];
  const forward = (signal: NodeJS.Signals): void => void children.forEach((c) => c.kill(signal));
  process.on('SIGINT', forward).on('SIGTERM', forward);
  await Promise.all(
    Array.from({ length: jobs }, (_, k) => {
      const share = Number.isFinite(programs) ? Math.floor((programs - k + jobs - 1) / jobs) : Infinity;
      if (share <= 0) return Promise.resolve();
      const args = [...argv, '--seed', String(seed + k), '--stride', String(jobs), '--jobs', '1', ...(Number.isFinite(share) ? ['--programs', String(share)] : [])];
      return new Promise<void>((done) => {
        const child = spawn(process.execPath, [self, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
        children.push(child);
        lines(child.stderr, (line) => {
          if (!isDawnLine(line)) process.stderr.write(`[job ${k}] ${line}\n`);
        });
        let out = '';
        lines(child.stdout, (line) => {
          out += line + '\n';
          if (/^(seed |saved |fuzz: stopped)/.test(line)) process.stdout.write(`[job ${k}] ${line}\n`);
        });
        child.on('close', (code) => {
          const m = SUMMARY.exec(out);
          if (m === null) {
            process.stdout.write(`[job ${k}] ended with status ${code} and no summary\n`);
            total.exit = 1;
          } else {
            const r = JSON.parse(m[1]!) as Summary;
            total.programs += r.programs;
            total.runs += r.runs;
            for (const [key, n] of Object.entries(r.runsBy)) total.runsBy[key] = (total.runsBy[key] ?? 0) + n;
            if (r.failures > 0 || code !== 0) total.exit = 1;
            total.failures += r.failures;
          }
          done();
        });
      });
    }),
  );
  return total;
}

async function main(argv: string[]): Promise<number> {
  let seconds = 60;
  let seed = Date.now() % 1_000_000;
  let gcs: CollectorName[] = ['serial', 'parallel'];
  let layouts: LayoutName[] = [...LAYOUT_NAMES];
  let out = 'test/fuzz-regressions';
  let programs = Infinity;
  let jobs = 1;
  let stride = 1;
  let perProgram = Infinity;
  const passOn: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const v = argv[i + 1] ?? '';
    const flag = argv[i]!;
    switch (flag) {
      case '--seconds': seconds = Number(v); break;
      case '--seed': seed = Number(v); break;
      case '--gc': gcs = v.split(',') as CollectorName[]; break;
      case '--layout': layouts = v.split(',') as LayoutName[]; break;
      case '--out': out = v; break;
      case '--programs': programs = Number(v); break;
      case '--jobs': jobs = Number(v); break;
      case '--stride': stride = Number(v); break;
      case '--configs-per-program': perProgram = Number(v); break;
      default:
        process.stderr.write(`fuzz: unknown option '${flag}'\n${USAGE}\n`);
        return 64;
    }
    if (!['--seed', '--jobs', '--stride', '--programs'].includes(flag)) passOn.push(flag, v);
    i++;
  }
  const positiveInt = (n: number): boolean => Number.isInteger(n) && n > 0;
  if (!(seconds > 0) || !Number.isInteger(seed) || !positiveInt(jobs) || !positiveInt(stride) ||
      !(programs === Infinity || positiveInt(programs)) || !(perProgram === Infinity || positiveInt(perProgram))) {
    process.stderr.write(`fuzz: --seconds needs a positive number, --seed an integer, --programs, --jobs and --configs-per-program positive integers\n${USAGE}\n`);
    return 64;
  }
  const unknown = [...gcs.filter((g) => !COLLECTOR_NAMES.includes(g)), ...layouts.filter((l) => !LAYOUT_NAMES.includes(l))];
  if (unknown.length > 0) {
    process.stderr.write(`fuzz: unknown collector or layout '${unknown[0]}' (collectors: ${COLLECTOR_NAMES.join(', ')}; layouts: ${LAYOUT_NAMES.join(', ')})\n`);
    return 64;
  }
  if (gcs.includes('none')) {
    process.stderr.write(`fuzz: 'none' never collects, so the small heaps the fuzzer uses run out by design; choose collectors that collect\n`);
    return 64;
  }
  const shape = `${gcs.join(',')} x ${layouts.join(',')}${perProgram !== Infinity ? `, ${perProgram} configurations a program` : ''}`;
  if (jobs > 1) {
    process.stdout.write(`fuzz: seeds from ${seed} in ${jobs} jobs, ${shape}, ${seconds} s\n`);
    const r = await fuzzInChildren(passOn, jobs, seed, programs);
    process.stdout.write(summaryLines(r));
    return r.exit;
  }
  process.stdout.write(`fuzz: seeds from ${seed}${stride > 1 ? ` by ${stride}` : ''}, ${shape}, ${seconds} s\n`);
  // A signal ends the run after the program in hand, with its counts, instead of losing them.
  const interrupt = new AbortController();
  process.once('SIGINT', () => interrupt.abort()).once('SIGTERM', () => interrupt.abort());
  const r = await fuzz({ seconds, seed, gcs, layouts, maxPrograms: programs, stride, perProgram, stop: interrupt.signal, log: (l) => process.stdout.write(l + '\n') });
  if (interrupt.signal.aborted) process.stdout.write('fuzz: stopped by a signal after the program in hand\n');
  for (const f of r.failures) process.stdout.write(`saved ${join(out, save(out, f))}.mini\n`);
  const summary: Summary = { programs: r.programs, runs: r.runs, failures: r.failures.length, runsBy: r.runsBy };
  process.stdout.write(summaryLines(summary));
  process.stdout.write(`fuzz-summary ${JSON.stringify(summary)}\n`);
  await releaseGpu();
  return r.failures.length === 0 ? 0 : 1;
}

if (process.argv[1]?.endsWith('fuzz.js')) {
  main(process.argv.slice(2)).then((code) => process.exit(code));
}
