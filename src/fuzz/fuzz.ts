/**
 * The differential fuzzer: each generated program (generate.ts) runs in this
 * process under every requested collector and layout with --verify-gc, a small heap
 * and sometimes --gc-stress, and its output and exit status are compared with the
 * generator's oracle. A failure (a difference, a verification failure, a JavaScript
 * exception) is shrunk by dropping statements while it still fails, and saved under
 * test/fuzz-regressions/ with its expected output.
 *
 *   npm run fuzz -- --seconds S [--seed N] [--gc LIST] [--layout LIST] [--out DIR]
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { COLLECTOR_NAMES, LAYOUT_NAMES, defaultRunOptions, type CollectorName, type LayoutName } from '../cli/options.js';
import { releaseGpu } from '../collectors/index.js';
import { runSource } from '../cli/run.js';
import { expectedOutput, generate, render, rng, type Stmt } from './generate.js';

export interface FuzzConfig {
  gc: CollectorName;
  layout: LayoutName;
  heapBytes: number;
  gcStress: number;
}

export interface Failure {
  seed: number;
  config: FuzzConfig;
  reason: string;
  stmts: Stmt[];
}

const HEAPS = [512 * 1024, 1024 * 1024, 4 * 1024 * 1024];
const STRESS = [0, 0, 3, 17];

/** The configurations of `seed`: every collector and layout, one heap and stress each. */
export function configsFor(seed: number, gcs: readonly CollectorName[], layouts: readonly LayoutName[]): FuzzConfig[] {
  const r = rng(seed ^ 0x5bd1e995);
  const heapBytes = HEAPS[Math.floor(r() * HEAPS.length)]!;
  const out: FuzzConfig[] = [];
  for (const gc of gcs) for (const layout of layouts) out.push({ gc, layout, heapBytes, gcStress: STRESS[Math.floor(r() * STRESS.length)]! });
  return out;
}

/** Runs `stmts` under `config`; the reason it failed, or null. */
export async function check(stmts: readonly Stmt[], config: FuzzConfig): Promise<string | null> {
  const expected = expectedOutput({ stmts });
  let stdout = '';
  let stderr = '';
  const options = { ...defaultRunOptions(), ...config, verifyGc: true, threads: 2 };
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
  return `--gc ${c.gc} --layout ${c.layout} --heap ${c.heapBytes / 1024}k --verify-gc${c.gcStress ? ` --gc-stress ${c.gcStress}` : ''}`;
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
  failures: Failure[];
}

/** Fuzzes seeds from `seed` on until `seconds` pass or `maxPrograms` ran. */
export async function fuzz(opts: {
  seconds: number;
  seed: number;
  gcs: readonly CollectorName[];
  layouts: readonly LayoutName[];
  maxPrograms?: number;
  shrink?: boolean;
  log?: (line: string) => void;
}): Promise<FuzzRun> {
  const end = performance.now() + opts.seconds * 1000;
  const result: FuzzRun = { programs: 0, runs: 0, failures: [] };
  for (let seed = opts.seed; performance.now() < end && result.programs < (opts.maxPrograms ?? Infinity); seed++) {
    const configs = configsFor(seed, opts.gcs, opts.layouts);
    const program = generate(seed, Math.floor(configs[0]!.heapBytes / 4 / 10));
    result.programs++;
    for (const config of configs) {
      result.runs++;
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

async function main(argv: string[]): Promise<number> {
  let seconds = 60;
  let seed = Date.now() % 1_000_000;
  let gcs: CollectorName[] = ['serial', 'parallel'];
  let layouts: LayoutName[] = [...LAYOUT_NAMES];
  let out = 'test/fuzz-regressions';
  for (let i = 0; i < argv.length; i++) {
    const v = argv[i + 1] ?? '';
    switch (argv[i]) {
      case '--seconds': seconds = Number(v); i++; break;
      case '--seed': seed = Number(v); i++; break;
      case '--gc': gcs = v.split(',') as CollectorName[]; i++; break;
      case '--layout': layouts = v.split(',') as LayoutName[]; i++; break;
      case '--out': out = v; i++; break;
      default:
        process.stderr.write(`fuzz: unknown option '${argv[i]}'\nusage: npm run fuzz -- --seconds S [--seed N] [--gc LIST] [--layout LIST] [--out DIR]\n`);
        return 64;
    }
  }
  if (!(seconds > 0) || !Number.isInteger(seed)) {
    process.stderr.write('fuzz: --seconds needs a positive number and --seed an integer\n');
    return 64;
  }
  const unknown = [...gcs.filter((g) => !COLLECTOR_NAMES.includes(g)), ...layouts.filter((l) => !LAYOUT_NAMES.includes(l))];
  if (unknown.length > 0) {
    process.stderr.write(`fuzz: unknown collector or layout '${unknown[0]}' (collectors: ${COLLECTOR_NAMES.join(', ')}; layouts: ${LAYOUT_NAMES.join(', ')})\n`);
    return 64;
  }
  process.stdout.write(`fuzz: seeds from ${seed}, ${gcs.join(',')} x ${layouts.join(',')}, ${seconds} s\n`);
  const r = await fuzz({ seconds, seed, gcs, layouts, log: (l) => process.stdout.write(l + '\n') });
  for (const f of r.failures) process.stdout.write(`saved ${join(out, save(out, f))}.mini\n`);
  process.stdout.write(`fuzz: ${r.programs} programs, ${r.runs} runs, ${r.failures.length} failures\n`);
  await releaseGpu();
  return r.failures.length === 0 ? 0 : 1;
}

if (process.argv[1]?.endsWith('fuzz.js')) {
  main(process.argv.slice(2)).then((code) => process.exit(code));
}
