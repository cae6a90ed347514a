// Section `dispatch`: the virtual dispatch study (the Parapoly seed, on the CPU).
// The polymorphic programs run under the interpreter and under the compiled tier
// with each way of making a virtual call: the vtable looked up at every call, a
// monomorphic inline cache per call site, and devirtualized calls where class-
// hierarchy analysis finds one target. Reported: mutator time, virtual calls per
// second where the program states its call count, and the call sites by the number
// of receiver classes they met (megamorphic: more than 4).
import { runMinivm } from './minivm.mjs';
import { fmt, log, median, table } from './util.mjs';

const PROGRAMS = [
  // calls: virtual calls the program makes at its default size (its header says so).
  { name: 'method_calls', program: 'bench/programs/method_calls.mini', calls: 4 * 2500000 },
  { name: 'polymorphism', program: 'programs/polymorphism.mini', calls: null },
  { name: 'raytracer', program: 'programs/raytracer.mini', calls: null },
  { name: 'scheduler', program: 'programs/scheduler.mini', calls: null },
  { name: 'richards', program: 'bench/programs/awfy/richards.mini', calls: null },
  { name: 'deltablue', program: 'bench/programs/awfy/deltablue.mini', calls: null },
];

const MODES = [
  { name: 'interpreter', flags: ['--tier', 'interp'] },
  { name: 'vtable', flags: ['--tier', 'compiled', '--dispatch', 'vtable'] },
  { name: 'inline cache', flags: ['--tier', 'compiled', '--dispatch', 'ic'] },
  { name: 'devirtualized', flags: ['--tier', 'compiled', '--dispatch', 'devirt'] },
];

export async function dispatch(ctx) {
  const { root, repeat } = ctx;
  const samples = new Map();
  const census = new Map();
  for (let i = 0; i < repeat; i++) {
    for (const p of PROGRAMS) {
      for (const m of MODES) {
        log(`dispatch ${i + 1}/${repeat} ${p.name} ${m.name}`);
        const r = await runMinivm(root, { program: p.program, flags: m.flags, tag: 'dispatch' }, i);
        const key = `${p.name}/${m.name}`;
        if (!samples.has(key)) samples.set(key, []);
        if (!r.error && r.stats) samples.get(key).push(r.stats.mutatorMs);
        if (m.name === 'inline cache' && r.stats?.tier) census.set(p.name, r.stats.tier.icSites);
      }
    }
  }
  const rows = [];
  const raw = [];
  for (const p of PROGRAMS) {
    const ms = MODES.map((m) => median(samples.get(`${p.name}/${m.name}`) ?? []));
    const c = census.get(p.name);
    const sites = c ? c.monomorphic + c.polymorphic + c.megamorphic : 0;
    const mega = c && sites > 0 ? c.megamorphic / sites : null;
    const perSec = (x) => (p.calls && x ? fmt(p.calls / (x / 1000) / 1e6, 1) : '-');
    rows.push([
      p.name,
      ...ms.map((x) => fmt(x, 0)),
      ...ms.map(perSec),
      c ? `${c.monomorphic}/${c.polymorphic}/${c.megamorphic}` : '-',
      mega === null ? '-' : `${(100 * mega).toFixed(0)}%`,
    ]);
    raw.push({ program: p.name, mutatorMs: Object.fromEntries(MODES.map((m, k) => [m.name, ms[k]])), calls: p.calls, icSites: c ?? null, megamorphicShare: mega });
  }
  const text = [
    `### dispatch: virtual calls in the interpreter and the compiled tier, median mutator ms of ${repeat} run(s)`,
    '',
    'Columns: mutator ms per mode, then million virtual calls per second (where the program states its count),',
    'then the inline-cache sites that ran, by receiver classes met (1 / 2-4 / more than 4), and the megamorphic share.',
    '',
    table(
      ['program', ...MODES.map((m) => `${m.name} ms`), ...MODES.map((m) => `${m.name} Mcalls/s`), 'IC sites mono/poly/mega', 'megamorphic'],
      rows,
    ),
  ].join('\n');
  return { text, raw: { repeat, programs: raw } };
}
