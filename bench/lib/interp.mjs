// Section `interp`: the interpreter against CPython and Lua on the programs that have
// twins (binary_trees, method_calls, the AWFY ports), side by side in one run: each
// repeat runs minivm, then python3, then lua on one program before the next program,
// so that the machine's load falls on all three alike.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { runMinivm, sizeGlobals } from './minivm.mjs';
import { fmt, fx, geomean, log, median, peerExecutable, ratio, runTimed, table } from './util.mjs';

/** Programs with their size global; the twins take the same value as their one argument. */
export function interpPrograms(root) {
  /** @type {{ name: string, program: string, size: string, quick: number | null }[]} */
  const list = [
    { name: 'binary_trees', program: 'bench/programs/binary_trees.mini', size: 'MAX_DEPTH', quick: 12 },
    { name: 'method_calls', program: 'bench/programs/method_calls.mini', size: 'N', quick: 250000 },
  ];
  for (const name of ['bounce', 'deltablue', 'list', 'mandelbrot', 'nbody', 'permute', 'queens', 'richards', 'sieve', 'storage', 'towers']) {
    const program = `bench/programs/awfy/${name}.mini`;
    if (!existsSync(join(root, program))) continue;
    const n = sizeGlobals(root, program).INNER_ITERATIONS;
    list.push({ name, program, size: 'INNER_ITERATIONS', quick: n ? Math.max(1, Math.round(n / 10)) : null });
  }
  return list.map((p) => ({
    ...p,
    python: existsSync(join(root, 'bench', 'python', `${p.name}.py`)) ? join(root, 'bench', 'python', `${p.name}.py`) : null,
    lua: existsSync(join(root, 'bench', 'lua', `${p.name}.lua`)) ? join(root, 'bench', 'lua', `${p.name}.lua`) : null,
  }));
}

/** The spec of a program's minivm run, shared with the layouts section. */
export function interpSpec(p, quick) {
  return { program: p.program, gc: 'serial', layout: 'sable', sizes: quick && p.quick ? { [p.size]: p.quick } : null };
}

const norm = (s) => s.replace(/\r/g, '').trim();

export async function interp(ctx) {
  const { root, repeat, quick } = ctx;
  // The interpreters themselves, run by path (util.mjs peerExecutable).
  const python = peerExecutable('python3', ['-c', 'import sys; print(sys.executable)']);
  const lua = peerExecutable('lua5.4') ?? peerExecutable('lua');
  // The twins' interpreters: p.python / p.lua is the script, row.py / row.lua the samples.
  /** @type {{ name: 'python' | 'lua', cmd: string | null, samples: 'py' | 'lua' }[]} */
  const peers = [{ name: 'python', cmd: python?.path ?? null, samples: 'py' }, { name: 'lua', cmd: lua?.path ?? null, samples: 'lua' }];
  const shims = [python, lua].flatMap((p) => (p?.shim ? [p.path] : []));
  const programs = interpPrograms(root);
  /** @type {{ mini: number[], vmWall: number[], mutator: number[], cold: number[], interpTier: number[], py: number[], lua: number[], notes: Set<string> }[]} */
  const rows = programs.map(() => ({ mini: [], vmWall: [], mutator: [], cold: [], interpTier: [], py: [], lua: [], notes: new Set() }));
  for (let i = 0; i < repeat; i++) {
    for (const [j, p] of programs.entries()) {
      const row = rows[j];
      const arg = quick && p.quick ? [String(p.quick)] : [];
      log(`interp ${i + 1}/${repeat} ${p.name}`);
      const m = await runMinivm(root, interpSpec(p, quick), i);
      if (m.error) row.notes.add(`minivm ${m.error}`);
      else {
        row.mini.push(m.ms);
        row.vmWall.push(m.stats?.wallMs);
        row.mutator.push(m.stats?.mutatorMs);
      }
      // Without the compile cache: the front end runs, as in a program's first run.
      const mc = await runMinivm(root, { ...interpSpec(p, quick), env: { MINIVM_COMPILE_CACHE: 'off' } }, i);
      if (mc.error) row.notes.add(`minivm (no compile cache) ${mc.error}`);
      else row.cold.push(mc.ms);
      // The interpreter alone (the default tier is auto: compiled once hot).
      const mi = await runMinivm(root, { ...interpSpec(p, quick), flags: ['--tier', 'interp'] }, i);
      if (mi.error) row.notes.add(`minivm --tier interp ${mi.error}`);
      else row.interpTier.push(mi.ms);
      for (const peer of peers) {
        const script = p[peer.name];
        if (!peer.cmd || !script) continue;
        const r = await runTimed(peer.cmd, [script, ...arg], { cwd: root });
        if (r.code !== 0) row.notes.add(`${peer.name} exit ${r.code}`);
        else {
          row[peer.samples].push(r.ms);
          if (!m.error && norm(r.stdout) !== norm(m.stdout)) row.notes.add(`${peer.name} output differs`);
        }
      }
    }
  }
  const raw = [];
  const out = [];
  for (const [j, p] of programs.entries()) {
    const r = rows[j];
    const medians = {
      minivmMs: median(r.mini),
      minivmVmWallMs: median(r.vmWall),
      minivmMutatorMs: median(r.mutator),
      noCompileCacheMs: median(r.cold),
      interpTierMs: median(r.interpTier),
      pythonMs: median(r.py),
      luaMs: median(r.lua),
    };
    const rec = {
      program: p.name,
      size: quick && p.quick ? `${p.size}=${p.quick}` : 'default',
      ...medians,
      notes: [...r.notes],
      samples: { minivm: r.mini, noCompileCache: r.cold, interpTier: r.interpTier, python: r.py, lua: r.lua },
      vsPython: ratio(medians.minivmMs, medians.pythonMs),
      vsLua: ratio(medians.minivmMs, medians.luaMs),
      vmWallVsPython: ratio(medians.minivmVmWallMs, medians.pythonMs),
    };
    raw.push(rec);
    out.push([
      p.name,
      fmt(rec.minivmMs, 0),
      fmt(rec.minivmMutatorMs, 0),
      fmt(rec.noCompileCacheMs, 0),
      fmt(rec.interpTierMs, 0),
      fmt(rec.pythonMs, 0),
      fmt(rec.luaMs, 0),
      fx(rec.vsPython),
      fx(rec.vsLua),
      fx(rec.vmWallVsPython),
      rec.notes.join('; '),
    ]);
  }
  const gPy = geomean(raw.map((r) => r.vsPython));
  const gLua = geomean(raw.map((r) => r.vsLua));
  const gVm = geomean(raw.map((r) => r.vmWallVsPython));
  out.push(['geometric mean', '', '', '', '', '', '', fx(gPy), fx(gLua), fx(gVm), '']);
  const underPy = raw.filter((r) => r.vsPython !== null && r.vsPython <= 1).length;
  const withPy = raw.filter((r) => r.vsPython !== null).length;
  const text = [
    `### interp: minivm (--gc serial, default heap, default tier auto; also --tier interp) vs CPython and Lua, median of ${repeat} run(s)${quick ? ' (--quick sizes)' : ''}`,
    '',
    'Times in ms, wall clock of the whole process (minivm includes Node start-up, and the program\'s bytecode from the compile cache,',
    'which the first round fills); "mutator" is minivm\'s own mutator time from --json-stats (its wall time less GC pauses);',
    '"no compile cache": MINIVM_COMPILE_CACHE=off, the front end compiling the program as in its first run. Ratios are',
    'process times with the cache; "-": no twin or interpreter.',
    '"VM wall/CPython" uses minivm\'s own wall time (--json-stats wallMs: no Node start-up, no compile) against CPython\'s process time.',
    `Peers run by path: CPython ${python?.path ?? '-'}, Lua ${lua?.path ?? '-'}${shims.length ? ` (a script, its start-up counted: ${shims.join(', ')})` : ''}.`,
    '',
    table(['program', 'minivm ms', 'minivm mutator ms', 'no compile cache ms', '--tier interp ms', 'CPython ms', 'Lua ms', 'minivm/CPython', 'minivm/Lua', 'VM wall/CPython', 'notes'], out),
    '',
    withPy
      ? `Bar (every program at or under CPython, geometric mean at or under Lua): ${underPy} of ${withPy} programs at or under CPython; ` +
        `geometric mean minivm/CPython ${fx(gPy)}, minivm/Lua ${fx(gLua)} (${fx(gVm)} of CPython counting minivm's own wall time only).`
      : 'Bar (every program at or under CPython): not measured (python3 not installed).',
  ].join('\n');
  return { text, raw: { repeat, python: python?.path ?? null, lua: lua?.path ?? null, programs: raw, geomeanVsPython: gPy, geomeanVsLua: gLua, geomeanVmWallVsPython: gVm } };
}
