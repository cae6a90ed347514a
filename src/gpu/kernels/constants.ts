/**
 * The one table of what the WGSL kernels and the TypeScript host both know:
 * the uniform parameter structs' fields, the control words' slots, the words
 * per thread, fixed sizes, and the names of the constants each program's host
 * specializes. No kernel file declares these: `kernelSource` prepends each
 * file's declarations generated from this table, as bytecode/opcodes.ts gives
 * the compiler and the interpreter one list of opcodes, and the host reads
 * slots and writes structs by name from it. test/gpu/kernel-constants.test.ts
 * fails when a kernel uses a name this table (or the file itself) does not
 * declare, or declares one of the table's names again.
 */
import { CARD_SHIFT } from '../../heap/card-table.js';
import { AGE_MASK, AGE_SHIFT, HEADER_TAG, STATUS_FORWARDED } from '../../heap/object-model.js';
import { REFS_RUN } from '../../heap/layout.js';
import { TENURED_EDGE, VERTEX_ADDRESS, VERTEX_FIRST, VERTEX_WORDS } from '../../heap/ref-graph.js';

/** A uniform struct: u32 fields in memory order, each with what it holds. */
type Struct = readonly (readonly [name: string, doc: string])[];

/** The per-mark parameters of gpu-dfs and gpu-bfs (common.wgsl `params`). */
export const PARAMS = [
  ['youngStart', 'sable: young range [youngStart, youngEnd) of addresses'],
  ['youngEnd', ''],
  ['nodeBase', 'sable: address of stack element 0 (a multiple of 32)'],
  ['rootCount', ''],
  ['stackSize', 'gpu-dfs: elements of the linked stack in use'],
  ['threadCount', 'gpu-dfs: threads of one dispatch'],
  ['areaLen', 'gpu-dfs: elements of the stack each thread scans when idle'],
  ['youngVertices', 'refgraph: tenured node ids start after the young ones'],
  ['nodeCount', 'highest node id + 1 bound (sable: heap words)'],
  ['queueCap', 'gpu-bfs: frontier queue ring capacity'],
  ['liveCap', 'young collections: capacity of the live list'],
  ['heapWords', ''],
  ['fallbackThreshold', 'gpu-bfs: Maas §5.4'],
  ['fallbackMinIterations', ''],
  ['wideCap', 'gpu-dfs: capacity of the wide-object list'],
  ['pad1', ''],
  ['scanLo0', 'gpu-dfs: idle threads scan stack elements [scanLo0, +scanN0)'],
  ['scanN0', '  then [scanLo1, +scanN1), split into areas of areaLen'],
  ['scanLo1', ''],
  ['scanN1', ''],
] as const satisfies Struct;

/** order.wgsl `op`: one compaction of a bitmap range into a list. */
export const ORDER_PARAMS = [
  ['firstWord', 'first bitmap word of the range'],
  ['words', 'bitmap words in the range'],
  ['blocks', 'ceil(words / (PER * WG))'],
  ['lo', 'addresses [lo, hi) only'],
  ['hi', ''],
  ['pad0', ''],
  ['pad1', ''],
  ['pad2', ''],
] as const satisfies Struct;

/** remset.wgsl `rp`: one scan of a remembered set's slot ranges. */
export const REMSET_PARAMS = [
  ['youngStart', ''],
  ['youngEnd', ''],
  ['rangeCount', ''],
  ['rootsCap', ''],
  ['runsCap', ''],
  ['threads', ''],
  ['pad0', ''],
  ['pad1', ''],
] as const satisfies Struct;

/** replay.wgsl `rp`: one young evacuation replayed on the mirror. */
export const REPLAY_PARAMS = [
  ['count', 'objects moved'],
  ['youngStart', 'the young range references are redirected from'],
  ['youngEnd', ''],
  ['typeCount', ''],
  ['bigCap', ''],
  ['slotRuns', 'runs of remembered-set slots (first, count)'],
  ['pad0', 'the struct stays a multiple of 16 bytes'],
  ['pad1', ''],
] as const satisfies Struct;

/** evacuate.wgsl `ep`: one young evacuation assigned and moved on the device. */
export const EVACUATE_PARAMS = [
  ['count', 'live objects'],
  ['youngStart', ''],
  ['youngEnd', ''],
  ['bigCap', 'capacity of replay.wgsl\'s big-object list'],
  ['tenureAge', ''],
  ['toStart', ''],
  ['toCap', 'words of to-survivor'],
  ['base', 'the promotion buffer\'s first word'],
  ['tenuredStart', ''],
  ['blocks', 'prefix-sum blocks of BLOCK entries'],
  ['cardFirst', 'card (from tenuredStart) of the card bits\' first bit'],
  ['cardWords', 'words of card bits from CARD_BITS'],
  ['slotRuns', 'runs of remembered-set slots, as replay.wgsl\'s'],
  ['picks', 'roots\' referents whose new addresses are gathered'],
  ['pickAt', 'word of gather holding them (positions, or addresses to search), replaced by the new addresses'],
  ['pickSearch', '1: the picks are addresses, searched for in the live list (in address order); 0: positions in it'],
  ['graphAt', 'refgraph: first word of vals\' graph regions (evacuate-graph.wgsl)'],
  ['oldYoungVertices', 'refgraph: vertices of the young graph the mark uploaded'],
  ['tenuredVertexBase', 'refgraph: tenured vertices before the promoted ones'],
  ['tenuredEdgeBase', 'refgraph: tenured edges before the promoted ones\''],
  ['outVertices', 'refgraph: word of gout taking the young vertices'],
  ['outEdges', '  the young edges'],
  ['outTenuredVertices', '  the appended tenured vertices'],
  ['outTenuredEdges', '  and their edges'],
  ['outRemembered', '  and the remembered slots\' edges, in gather\'s run order'],
  ['pad0', 'the struct stays a multiple of 16 bytes'],
  ['pad1', ''],
  ['pad2', ''],
] as const satisfies Struct;

/** gpu-dfs's control words (`ctl`), read by the host after each submit. */
export const DFS_CTL = {
  CTL_BUSY: 0,
  CTL_LAST_BUSY: 1,
  CTL_ROUNDS: 2,
  CTL_LIVE: 3,
  CTL_WIDE_HEAD: 4,
  CTL_WIDE_TAIL: 5,
  CTL_PENDING: 6,
  CTL_DRAIN_OVERFLOW: 7,
  CTL_CHAIN: 8,
  CTL_STACKED: 9,
  CTL_LAST_STACKED: 10,
  CTL_GUESSED: 11,
} as const;

/** gpu-bfs's control words (`ctl`): the frontier queue's bounds and its exits. */
export const BFS_CTL = {
  /** First entry of the level being processed. */
  Q_START: 0,
  /** End of that level. */
  Q_END: 1,
  /** End of the next level, growing. */
  Q_TAIL: 2,
  /** Levels completed (Maas's GPU iterations). */
  Q_LEVEL: 3,
  /** Young collections: entries in `live`. */
  Q_LIVE: 4,
  /** The CPU fallback was triggered (§5.4). */
  Q_STOP: 5,
  Q_OVERFLOW: 6,
} as const;

/** Words of the engines' `ctl` buffer (both engines' slots fit). */
export const CTL_WORDS = 16;

export const DFS = {
  ...DFS_CTL,
  /** Bit 31 of a linked-stack element: an idle thread took the node. */
  CLAIMED: 0x80000000,
  /** A linked-stack element with no next element. */
  BOTTOM: 0x7fffffff,
  /** Objects with more references than this are spread over the grid (dfs_wide). */
  SPLIT: 64,
  /** Words of `threads` per thread: global stack top, steal cursor, kept next node. */
  THREAD_WORDS: 3,
  /** Most nodes the fallback's drain hands over (and most links one thread walks):
   *  a thread holding more than this is not a narrow tail. */
  DRAIN_CAP: 65536,
} as const;

export const BFS = {
  ...BFS_CTL,
  /** Objects with more references than this are copied by the whole workgroup (§5.2). */
  WIDE: 16,
} as const;

/** layout-refgraph.wgsl: a vertex's words, as heap/ref-graph.ts lays them out. */
export const REFGRAPH = { VERTEX_WORDS, VERTEX_FIRST, VERTEX_ADDRESS } as const;

/** Slots of remset.wgsl's counts (`rsCtl`). */
export const REMSET = { CTL_ROOTS: 0, CTL_RUNS: 1 } as const;
/** Words of remset.wgsl's `rsCtl`. */
export const REMSET_CTL_WORDS = REMSET.CTL_RUNS + 1;

export const ORDER = {
  /** Bitmap words per thread of a block. */
  PER: 4,
} as const;

export const REPLAY = {
  /** Slot of replay.wgsl's count of listed big objects (`rctl`). */
  BIG_COUNT: 0,
  /** Objects of at most this many words are copied by one thread; larger ones are
   *  listed and copied by a workgroup each. */
  SMALL: 32,
  // The heap's header bits, as heap/layout.ts defines them.
  AGE_SHIFT,
  AGE_MASK,
  HEADER_TAG,
  STATUS_FORWARDED,
} as const;

/** Words of replay.wgsl's `rctl` (evacuate.wgsl's own slots follow, to CARD_BITS). */
export const REPLAY_CTL_WORDS = REPLAY.BIG_COUNT + 1;

export const EVACUATE = {
  /** Live-list entries one thread sums in a row in the prefix sums. */
  PER: 64,
  // Slots of `rctl` after replay.wgsl's BIG_COUNT: the survivors' end, the
  // promoted words, then (from CARD_BITS) the promoted copies' card bits.
  SURV_END: 1,
  PROMOTED: 2,
  CARD_BITS: 8,
  CARD_SHIFT,
  // replay.wgsl's names under names of this file's own, since a program
  // declares each name once: its big-object count slot and size bound, the
  // header's age bits.
  BIG_SLOT: REPLAY.BIG_COUNT,
  ONE_THREAD_WORDS: REPLAY.SMALL,
  AGE_AT: AGE_SHIFT,
  AGE_BITS: AGE_MASK,
  /** markSlot's answer for a slot that names no young object. */
  NO_CARD: 0xffffffff,
} as const;

/** evacuate-graph.wgsl: slots of `rctl` between evacuate.wgsl's PROMOTED and
 *  CARD_BITS (the graph's totals), the prefix sums' entries per thread, and the
 *  graph format of heap/ref-graph.ts. */
export const EVACUATE_GRAPH = {
  GRAPH_YOUNG: 3,
  GRAPH_YOUNG_EDGES: 4,
  GRAPH_EDGES: 5,
  GRAPH_PER: EVACUATE.PER,
  TENURED_EDGE,
  VERTEX_WORDS,
  VERTEX_FIRST,
  VERTEX_ADDRESS,
} as const;

/** refs-refgraph.wgsl: the reference table's entry of an array of references
 *  (heap/layout.ts TypeTable.refTable). */
export const REFS = { REFS_RUN } as const;

/** What one kernel file gets from the table. */
interface FileConstants {
  /** The file's uniform parameters: the binding's name, its struct's name and fields. */
  readonly uniform?: { readonly binding: string; readonly struct: string; readonly fields: Struct };
  readonly values?: Readonly<Record<string, number>>;
  /** Constants the host chooses per program (the specialization header:
   *  sizes for the adapter, one bool per optimization). */
  readonly specialized?: readonly string[];
}

export const KERNEL_FILES = {
  common: { uniform: { binding: 'params', struct: 'Params', fields: PARAMS }, specialized: ['ATOMIC_OPT'] },
  'layout-sable': { specialized: ['YOUNG'] },
  'layout-refgraph': { values: REFGRAPH, specialized: ['YOUNG'] },
  dfs: {
    values: DFS,
    specialized: [
      'WG', 'LCAP', 'LSTACK_WORDS', 'STEP_BUDGET', 'CHAIN_STEPS', 'BROAD_CHAIN_STEPS', 'YOUNG', 'HYBRID',
      'BALANCE', 'VECTOR', 'DIVERGENCE', 'SCAN_BUDGET', 'PREFETCH', 'CHASE_LOOP', 'CHASE_AHEAD', 'STORAGE_STACK',
    ],
  },
  bfs: { values: BFS, specialized: ['WG', 'YOUNG', 'VECTOR', 'DIVERGENCE', 'HISTOGRAM', 'FALLBACK'] },
  scan: { specialized: ['WG'] },
  translate: { specialized: ['WG', 'YOUNG'] },
  order: { uniform: { binding: 'op', struct: 'OrderParams', fields: ORDER_PARAMS }, values: ORDER, specialized: ['WG'] },
  remset: { uniform: { binding: 'rp', struct: 'RemsetParams', fields: REMSET_PARAMS }, values: REMSET, specialized: ['WG'] },
  replay: { uniform: { binding: 'rp', struct: 'ReplayParams', fields: REPLAY_PARAMS }, values: REPLAY, specialized: ['WG'] },
  evacuate: { uniform: { binding: 'ep', struct: 'EvacParams', fields: EVACUATE_PARAMS }, values: EVACUATE, specialized: ['WG'] },
  'evacuate-graph': { values: EVACUATE_GRAPH, specialized: ['WG'] },
  'refs-sable': {},
  'refs-refgraph': { values: REFS },
} as const satisfies Record<string, FileConstants>;

export type KernelFile = keyof typeof KERNEL_FILES;

/** The WGSL declarations of `file`'s structs and values. */
export function wgslDeclarations(file: KernelFile): string {
  const f: FileConstants = KERNEL_FILES[file];
  const out: string[] = [];
  if (f.uniform) {
    out.push(`struct ${f.uniform.struct} {`);
    for (const [field, doc] of f.uniform.fields) out.push(`  ${field}: u32,${doc ? ` // ${doc}` : ''}`);
    out.push('}');
  }
  for (const [name, v] of Object.entries(f.values ?? {})) out.push(`const ${name}: u32 = ${v >>> 0}u;`);
  return out.join('\n');
}

/** The binding of `file`'s uniform parameters, as a program's first binding. */
export function uniformBinding(file: 'common' | 'order' | 'remset' | 'replay' | 'evacuate'): { readonly name: string; readonly kind: 'uniform'; readonly type: string } {
  const u = KERNEL_FILES[file].uniform;
  return { name: u.binding, kind: 'uniform', type: u.struct };
}

/** The specialization header of a program of `files`: a WGSL `const` per value
 *  (bool or u32), which must name exactly the files' specialized constants. */
export function specializationHeader(files: readonly KernelFile[], values: Readonly<Record<string, number | boolean>>): string {
  const wanted = new Set<string>(files.flatMap((f) => (KERNEL_FILES[f] as FileConstants).specialized ?? []));
  const given = Object.keys(values);
  const missing = [...wanted].filter((k) => !(k in values));
  const extra = given.filter((k) => !wanted.has(k));
  if (missing.length > 0 || extra.length > 0) {
    throw new Error(
      `kernels ${files.join(', ')}: specialization ${missing.length ? `lacks ${missing.join(', ')}` : ''}` +
        `${missing.length && extra.length ? '; ' : ''}${extra.length ? `sets unknown ${extra.join(', ')}` : ''}`,
    );
  }
  return given
    .map((k) => {
      const v = values[k]!;
      return `const ${k}: ${typeof v === 'boolean' ? 'bool' : 'u32'} = ${typeof v === 'boolean' ? v : `${v >>> 0}u`};`;
    })
    .join('\n');
}

/** The words of a uniform struct, its fields set by name (the rest zero). */
export function structWords<S extends Struct>(
  struct: S,
  values: Partial<Record<S[number][0], number>>,
): Uint32Array<ArrayBuffer> {
  const words = new Uint32Array(struct.length);
  const vals = values as Record<string, number | undefined>;
  struct.forEach(([name], i) => {
    words[i] = vals[name] ?? 0;
  });
  return words;
}
