/**
 * The optimization switches of the GPU marking engines and `--gpu-opt` parsing.
 *
 * Each optimization of the two seed papers can be turned off on its own, so the
 * papers' ablations can be rerun. `--gpu-opt all` (the default) turns all on,
 * `none` is each paper's baseline ("GPU" in both papers' Table 1). Names:
 *
 *   gpu-dfs, FastCollect Table 1         letter  name
 *     atomic optimization (§4.4)           +A    atomic
 *     hybrid stack (§4.1)                  +H    hybrid
 *     load balancing (§4.2)                +D    balance
 *     vectorized memory access (§4.3)      +V    vector
 *     wide objects spread over the grid    +W    divergence  (not in FastCollect:
 *       (Maas §5.2 applied to DFS)                           Maas's +D for DFS)
 *     CPU finishes narrow tails            +F    fallback    (not in FastCollect:
 *       (Maas §5.4 applied to DFS)                           threshold = busy threads,
 *                                                            min-iters = rounds)
 *     everything                           +O    all
 *   gpu-bfs, Maas et al. Table 1
 *     prefix-sum offsets instead of the    +P    prefix   (histogram is the default)
 *       histogram (§5.1)
 *     vectorized loads (§5.3)              +V    vector
 *     CPU fallback for narrow tails (§5.4) +F    fallback
 *     divergence handling (§5.2)           +D    divergence
 *     (the check-before-atomic mark of FastCollect applies to both engines: atomic)
 *
 * The letter D means load balancing in FastCollect and divergence handling in
 * Maas et al., so letters are read per engine. A list is applied left to right:
 * `none,hybrid`, `all,-vector`, `A,H` (starts from none when the first item is
 * not all/none), `threshold=32,min-iters=5,wg=128`.
 */

export type GpuEngine = 'gpu-dfs' | 'gpu-bfs';

export interface GpuOptions {
  /** Check the mark with a plain load before the atomic (FastCollect §4.4, +A).
   *  gpu-dfs skips the load after a thread's own successful mark (a pointer
   *  chase, whose successors are unmarked) until its next failed one. */
  atomic: boolean;
  /** gpu-dfs: per-thread stack in workgroup memory spilling to the global stack (§4.1, +H). */
  hybrid: boolean;
  /** gpu-dfs: idle threads scan their area of the global stack for work (§4.2, +D). */
  balance: boolean;
  /** Both engines: vec4 loads of references (FastCollect §4.3, Maas §5.3, +V). */
  vector: boolean;
  /** gpu-bfs: output offsets by histogram (Maas's default) or by prefix sum (+P). */
  offsets: 'histogram' | 'prefix';
  /** gpu-bfs: objects with more than 16 references are copied by the whole workgroup
   *  (§5.2, +D); gpu-dfs: the references of an object of more than 64 are visited by the whole grid (+W). */
  divergence: boolean;
  /** gpu-bfs: finish on the CPU once the frontier stays narrow (§5.4, +F).
   *  gpu-dfs (our addition): finish on the CPU once at most `fallbackThreshold`
   *  threads held work at the end of three submits in a row, after
   *  `fallbackMinIterations` rounds (a long list is one thread's pointer chase). */
  fallback: boolean;
  /** Fallback: frontier size (gpu-bfs; paper: 20) or busy threads (gpu-dfs) at or below which the CPU takes over. */
  fallbackThreshold: number;
  /** Fallback: GPU levels (gpu-bfs; paper: 5) or rounds (gpu-dfs) run before the CPU may take over. */
  fallbackMinIterations: number;
  /** Workgroup size; 0 = chosen for the adapter at start-up. */
  workgroupSize: number;
  /** Workgroups per dispatch; 0 = chosen for the adapter. */
  workgroups: number;
  /** gpu-dfs: share of workgroup memory given to the hybrid stack (the rest is headroom). */
  hybridShare: number;
  /** gpu-dfs: node expansions per thread per dispatch; kernels never wait on another
   *  workgroup, so each dispatch is bounded and the host repeats them. 0 = adapter default. */
  dfsSteps: number;
  /** gpu-dfs: stack elements an idle thread scans for work per dispatch (load
   *  balancing); 0 = default (64). */
  dfsScan: number;
  /** gpu-dfs: a thread whose hybrid stack held nothing besides the node it
   *  expands, which leaves at most one child (a list's pointer chase), has nothing
   *  to spill for idle threads, so such a step costs 1/dfsChain of a step of
   *  `dfsSteps`; 1 = every step costs the same. 0 = default (4). */
  dfsChain: number;
  /** gpu-dfs: the chase discount from the first round that ended with more busy
   *  threads than `fallbackThreshold` onwards (many lists at once: no narrow tail
   *  to hand to the CPU, and fewer, longer rounds cost less), then also for a
   *  chasing thread that holds other work; at least `dfsChain`. 0 = default (16). */
  dfsBroadChain: number;
  /** gpu-dfs (sable, with vector loads): how a pointer chase runs. `loop`
   *  (default): node after node in one inner loop while each has one reference
   *  (dfs.wgsl chase). `step`: one node per turn of the mark loop, through the
   *  hybrid stack, as every other expansion. Not a marking optimization of the
   *  papers: `all` and `none` leave it alone. */
  dfsChase: 'loop' | 'step';
  /** gpu-dfs, `chase=loop`: nodes a chase marks per memory round trip, by
   *  loading the next ones where the last step's stride predicts them and
   *  keeping those the chain itself confirms (dfs.wgsl chaseAhead); 1 = one
   *  node a round trip. 0 = default (16; 8 on a software adapter, whose shader
   *  compiler slows with the longer runs: docs/decisions/r19g-0002). Not a
   *  marking optimization of the papers: `all` and `none` leave it alone. */
  dfsAhead: number;
  /** Test hook: words per heap-mirror binding (power of two); 0 = from the adapter's limit. */
  chunkWords: number;
  /** Young collections (sable): remembered sets of at least this many slots are
   *  scanned on the GPU (remset.wgsl), smaller ones on the CPU; 0 = always the GPU. */
  remsetMinSlots: number;
  /** `evacuate=gpu`: where the remembered slots are redirected in the heap's
   *  words: `gpu` (default) gathers the device's fixed slots into one read-back
   *  and dirties their cards there; `cpu` redirects them through the forwarding
   *  headers, as a CPU evacuation does. */
  evacuateSlots: 'gpu' | 'cpu';
  /** Young marks (sable): the order of the live list the CPU evacuates from.
   *  `mark` is the engine's own order: gpu-dfs's storage stack (FastCollect
   *  Algorithm 4), gpu-bfs's frontier queue. `address` (default) compacts the
   *  list from the mark bitmap (order.wgsl), so the CPU copies in heap order, close
   *  to the serial collector's DFS order. The order also decides what a
   *  survivor-space overflow promotes, and so the heap shape of every later
   *  collection: `address` promotes whole lists of the 2560 lists, as serial does;
   *  gpu-dfs's `mark` promotes alternate batches of every list, and gpu-bfs's
   *  `mark` one node of every list in turn. With one order for both engines,
   *  comparing them compares their marking, not the layouts their orders leave
   *  (docs/decisions/r19g-0001). Not a marking optimization: `all` and `none`
   *  leave it alone. */
  liveOrder: 'address' | 'mark';
  /** gpu-dfs young marks (sable): where idle threads look for work. `range`
   *  (default): their areas split the linked stack over the whole young range, as
   *  FastCollect's do over the whole stack. `occupied`: only over the elements of
   *  the occupied young spaces (eden up to its top, the survivor space in use).
   *  `occupied` helps tree-shaped heaps but leaves many lists a tail for the CPU,
   *  so it is not the default (docs/decisions/r19g-0005). */
  stealAreas: 'range' | 'occupied';
  /** Sable: when eden's new objects go to the GPU's mirror. `ahead` (default):
   *  while the program runs, a step of eden at a time (heap/mirror-log.ts setEdenUpload),
   *  so a collection uploads only the last step and the cards; `pause`: all in
   *  the collection's pause, as a collector that uploads on demand does. The
   *  copy costs the same either way; `ahead` moves it out of the pause. Not a
   *  marking optimization: `all` and `none` leave it alone. */
  edenUpload: 'ahead' | 'pause';
  /** Young collections: where the live objects are copied. `gpu` (default):
   *  the GPU allocates to-space, copies, forwards and fixes in its heap mirror
   *  (under refgraph one kept beside the graphs for this) and the heap takes back
   *  what moved (evacuate/device.ts); a collection whose promotions find no room
   *  or a full collection evacuates on the CPU. `cpu`: the plan evacuates on the
   *  CPU and (sable) the GPU replays the moves on its mirror (replay.ts);
   *  docs/decisions/s29-02 and s54-01.
   *  Not a marking optimization: `all` and `none` leave it alone. */
  evacuate: 'cpu' | 'gpu';
  /** `evacuate=gpu`: threads besides the GPU worker that write the read-back into
   *  the heap (gpu/worker/heap-writers.ts); 0: the GPU worker writes it alone;
   *  below 0 (the default): chosen from the cores. Not a marking optimization:
   *  `all` and `none` leave it alone. */
  writers: number;
  /** gpu-dfs, gpu-bfs: where the start-up's compiling of the kernels and making
   *  of the device's buffers runs. `beside`: beside the program, which starts once
   *  the device is open; its first collection for the device waits for them, and
   *  eden's uploads ahead start once they are ready; `before`: before the program; `adapter` (the default): beside on a hardware adapter, before on
   *  a software one, which is there to check the kernels (decision s65-01). Not a
   *  marking optimization: `all` and `none` leave it alone. */
  deviceStart: 'beside' | 'before' | 'adapter';
}

const OPTIMIZATIONS = ['atomic', 'hybrid', 'balance', 'vector', 'divergence', 'fallback'] as const;
type Optimization = (typeof OPTIMIZATIONS)[number];

export const DEFAULT_GPU_OPTIONS: Readonly<GpuOptions> = Object.freeze({
  atomic: true,
  hybrid: true,
  balance: true,
  vector: true,
  offsets: 'histogram',
  divergence: true,
  fallback: true,
  fallbackThreshold: 20,
  fallbackMinIterations: 5,
  workgroupSize: 0,
  workgroups: 0,
  hybridShare: 0.75,
  dfsSteps: 0,
  dfsScan: 0,
  dfsChain: 0,
  dfsBroadChain: 0,
  dfsChase: 'loop',
  dfsAhead: 0,
  chunkWords: 0,
  remsetMinSlots: 65536,
  evacuateSlots: 'gpu',
  liveOrder: 'address',
  stealAreas: 'range',
  edenUpload: 'ahead',
  evacuate: 'gpu',
  writers: -1,
  deviceStart: 'adapter',
});

/** The paper baselines: every optimization off, histogram offsets. */
export function baselineOptions(): GpuOptions {
  const o: GpuOptions = { ...DEFAULT_GPU_OPTIONS };
  for (const k of OPTIMIZATIONS) o[k] = false;
  return o;
}

const LETTERS: Record<GpuEngine, Record<string, Optimization | 'prefix'>> = {
  'gpu-dfs': { A: 'atomic', H: 'hybrid', D: 'balance', V: 'vector', W: 'divergence', F: 'fallback' },
  'gpu-bfs': { A: 'atomic', V: 'vector', F: 'fallback', D: 'divergence', P: 'prefix' },
};

const NUMERIC: Record<string, keyof GpuOptions> = {
  threshold: 'fallbackThreshold',
  'min-iters': 'fallbackMinIterations',
  wg: 'workgroupSize',
  workgroups: 'workgroups',
  'hybrid-share': 'hybridShare',
  steps: 'dfsSteps',
  scan: 'dfsScan',
  chain: 'dfsChain',
  'broad-chain': 'dfsBroadChain',
  ahead: 'dfsAhead',
  'chunk-words': 'chunkWords',
  remset: 'remsetMinSlots',
  writers: 'writers',
};

/** Settings that name one of a few values: `key=value`, the field and the values. */
const CHOICES: Record<string, readonly [keyof GpuOptions, readonly string[]]> = {
  order: ['liveOrder', ['address', 'mark']],
  areas: ['stealAreas', ['range', 'occupied']],
  upload: ['edenUpload', ['ahead', 'pause']],
  chase: ['dfsChase', ['loop', 'step']],
  evacuate: ['evacuate', ['cpu', 'gpu']],
  slots: ['evacuateSlots', ['gpu', 'cpu']],
  start: ['deviceStart', ['beside', 'before']],
};

/** Parses a `--gpu-opt` list for `engine`; throws with a one-line message on a bad item. */
export function parseGpuOptions(spec: string, engine: GpuEngine): GpuOptions {
  const items = spec
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  const first = items[0]?.replace(/^\+/, '');
  let o: GpuOptions =
    items.length === 0 || first === 'all' || first === 'O' || first?.startsWith('-') || first?.includes('=')
      ? { ...DEFAULT_GPU_OPTIONS }
      : baselineOptions();
  for (const raw of items) {
    const eq = raw.indexOf('=');
    const choice = eq >= 0 ? CHOICES[raw.slice(0, eq)] : undefined;
    if (choice) {
      const [field, values] = choice;
      const v = raw.slice(eq + 1);
      if (!values.includes(v)) {
        throw new Error(`--gpu-opt: bad setting '${raw}' (${values.map((x) => `${raw.slice(0, eq)}=${x}`).join(' or ')})`);
      }
      (o as unknown as Record<string, string>)[field] = v;
      continue;
    }
    if (eq >= 0) {
      const key = raw.slice(0, eq);
      const field = NUMERIC[key];
      const value = Number(raw.slice(eq + 1));
      if (!field || !Number.isFinite(value) || value < 0) {
        throw new Error(`--gpu-opt: bad setting '${raw}' (known: ${[...Object.keys(NUMERIC), ...Object.keys(CHOICES)].join(', ')})`);
      }
      (o as unknown as Record<string, number>)[field] = value;
      continue;
    }
    const off = raw.startsWith('-');
    const name = raw.replace(/^[+-]/, '');
    if (name === 'all' || name === 'O') {
      o = { ...o, ...pick(DEFAULT_GPU_OPTIONS) };
      continue;
    }
    if (name === 'none') {
      o = { ...o, ...pick(baselineOptions()) };
      continue;
    }
    const opt: string = LETTERS[engine][name] ?? name;
    if (opt === 'prefix' || opt === 'histogram') {
      o.offsets = off === (opt === 'prefix') ? 'histogram' : 'prefix';
    } else if ((OPTIMIZATIONS as readonly string[]).includes(opt)) {
      o[opt as Optimization] = !off;
    } else {
      throw new Error(
        `--gpu-opt: unknown optimization '${raw}' for ${engine} (known: all, none, ${OPTIMIZATIONS.join(', ')}, prefix, histogram, letters ${Object.keys(LETTERS[engine]).join('')})`,
      );
    }
  }
  return o;
}

function pick(o: Readonly<GpuOptions>): Partial<GpuOptions> {
  const r: Partial<GpuOptions> = { offsets: o.offsets };
  for (const k of OPTIMIZATIONS) r[k] = o[k];
  return r;
}

/** The paper-style label of a configuration, e.g. "GPU+A+H" or "GPU+O". */
export function optionsLabel(o: GpuOptions, engine: GpuEngine): string {
  const letters = LETTERS[engine];
  let label = 'GPU';
  let all = true;
  for (const [letter, opt] of Object.entries(letters)) {
    const on = opt === 'prefix' ? o.offsets === 'prefix' : o[opt];
    if (on) label += `+${letter}`;
    else if (opt !== 'prefix') all = false;
  }
  return all && o.offsets === 'histogram' && engine === 'gpu-dfs' ? 'GPU+O' : label;
}
