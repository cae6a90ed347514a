/**
 * `--gc auto`: the generational plan with a marker that picks, per collection, the
 * engine its pause model (pause-model.ts) predicts best for this collection, and
 * learns from each collection's measured phases. It lives in collectors/ because
 * it may hand collections to a GPU marker, and only the composition root sees
 * both gc/ and gpu/.
 *
 * Before each collection (`begin`, called by the collector `around` wraps) it
 * estimates the collection's work from the heap (eden's fill, the root count
 * and the survival and live ratios of recent collections, what each GPU mirror
 * lacks; nothing that walks the heap or its card table, as the choice is made
 * outside the timed pause), asks the model, and takes that engine for the whole collection. While
 * the choice is parallel its constraints are the parallel marker's, so young
 * objects are copied by the threads exactly as under `--gc parallel`; while it is
 * a GPU engine that evacuates young collections on its device, they are its
 * constraints too, less replaying (the other engine's mirror learns the CPU's
 * moves from the shared change log), and what its device wrote into the heap is
 * told to the other mirror (`AutoOptions.deviceWrote`).
 * After it (`observe`, from the collection's record) the model learns.
 *
 * The GPU is probed (the device opened, the kernels compiled) only when the
 * model, still assuming a hardware adapter, would try a GPU engine: small runs
 * never touch it, and a software adapter gets priors that keep it unchosen.
 */

import { availableParallelism } from 'node:os';
import {
  HEAP_READER,
  MarkerFaultError,
  youngEvacuatorOf,
  type DeviceAssignment,
  type DeviceEvacuated,
  type MarkerConstraints,
  type MarkRequest,
  type MarkResult,
  type Marker,
  type RememberedScan,
  type SweepingMarker,
  type TenuredSweeper,
  type YoungCopier,
  type YoungEvacuatingMarker,
  type FinishAhead,
  type YoungSpaces,
} from '../gc/marker.js';
import { defaultThreads, ParallelMarker } from '../gc/parallel-marker.js';
import { SerialMarker } from '../gc/serial-marker.js';
import { SurvivalProbe } from '../gc/survival-probe.js';
import type { Collector } from '../heap/collector.js';
import type { HeapImpl } from '../heap/heap.js';
import type { CollectionKind, GcRecord } from '../heap/telemetry.js';
import { ENGINES, isGpu, PauseModel, warmUpModel, type Choice, type ChoiceOptions, type Engine, type Features } from './pause-model.js';
import { LiveShares } from './live-shares.js';
import { now } from '../heap/clock.js';

/** Choices made and thrown away before the program, so that its first ones run warm. */
const DRY_CHOICES = 128;
/** The made-up words marked and copied of the dry choices past the floor. */
const DRY_WORDS = 1 << 18;

export type AutoEngine = Engine;

/** Below this many GC threads the parallel engine is not offered: with one it
 *  would be a second serial collector. With two it already beats serial on young
 *  collections (docs/decisions/s48-01-auto-parallel-priors.md), and the model
 *  decides per collection. */
export const PARALLEL_MIN_THREADS = 2;


export interface AutoOptions {
  /** Marking threads (default: the parallel collector's, gc/parallel/threads.ts defaultThreads). */
  threads?: number;
  /** `--gc-solo-below` in words: the parallel engine's collections bounded by fewer
   *  run on the main thread alone, as under `--gc parallel` (default 0: never). */
  soloWords?: number;
  /** Opens the GPU and says whether its adapter is a hardware one (false: none or software). */
  probeGpu?: () => Promise<boolean>;
  /** Makes the GPU marker of an engine, once the probe said yes. */
  gpuMarker?: (engine: 'gpu-dfs' | 'gpu-bfs') => Marker;
  /** `--pause-goal`: prefer the engine that meets it at least CPU time. */
  pauseGoalMs?: number;
  /** The model to use (tests hand in one already taught). */
  model?: PauseModel;
  /** The GPU engines it may run (default both; `--gpu-opt` may name settings
   *  only one of them takes). */
  gpuEngines?: readonly Engine[];
  /** GPU engines whose mirror takes the whole heap at each mark (no change log). */
  uploadsAll?: readonly Engine[];
  /** Told when a GPU engine's device failed in a mark; the serial marker redid it. */
  onGpuFault?: (engine: 'gpu-dfs' | 'gpu-bfs', fault: MarkerFaultError) => void;
  /** Told the heap words ((start, end) pairs) an engine's device evacuation wrote,
   *  which that engine's mirror already has and the other's must take. */
  deviceWrote?: (engine: 'gpu-dfs' | 'gpu-bfs', ranges: number[]) => void;
}

/** The choice of one collection, for its record (`--log-gc`). */
interface Pending {
  readonly engine: Engine;
  readonly predictedMs: number;
  /** Samples of the engine's mark term for this kind when it was chosen. */
  readonly samples: number;
  readonly features: Features;
  readonly youngWords: number;
  /** Root references the mark was handed (none when the parallel copier traced). */
  roots: number;
}

export class AutoMarker implements YoungEvacuatingMarker, SweepingMarker {
  readonly threads: number;
  readonly model: PauseModel;
  /** The engine of the latest collection. */
  lastEngine: Engine = 'serial';
  /** Collections per engine. */
  readonly counts: Record<Engine, number> = { serial: 0, parallel: 0, 'gpu-dfs': 0, 'gpu-bfs': 0 };
  /** Opening the GPU when first wanted: start-up, not a pause. */
  gpuStartupMs = 0;
  /** The choices themselves (the estimates and the model's arithmetic):
   *  made just before each collection's pause is timed, so reported apart. */
  chooseMs = 0;
  private readonly serial: SerialMarker;
  private parallel: ParallelMarker | null = null;
  private readonly gpus = new Map<'gpu-dfs' | 'gpu-bfs', Marker>();
  /** GPU engines whose marker could not be made or prepared. */
  private readonly unavailable = new Set<Engine>();
  private gpuState: 'unknown' | 'hardware' | 'none';
  private pending: Pending | null = null;
  /** `--pause-goal`, as the model takes it. */
  private readonly goal: ChoiceOptions;
  /** The survival and live shares of recent collections. */
  private readonly shares = new LiveShares();
  /** The bounded trace before a first collection of a kind (`decide`). */
  readonly survivalProbe = new SurvivalProbe();
  /** Root references of the last mark of each kind (a young one's include the
   *  remembered set's referents). */
  private readonly lastRoots: Record<CollectionKind, number> = { young: 0, full: 0 };
  /** Per GPU engine: words written since its mirror last took the heap; null: it never did. */
  private readonly behind: Record<'gpu-dfs' | 'gpu-bfs', number | null> = { 'gpu-dfs': null, 'gpu-bfs': null };
  /** The engines offered; made anew when the GPU's state changes (the choice runs
   *  cold, so it reads a list). */
  private offered: readonly Engine[] | null = null;

  constructor(private readonly heap: HeapImpl, private readonly options: AutoOptions = {}) {
    this.threads = Math.max(1, Math.floor(options.threads ?? defaultThreads()));
    this.model = options.model ?? new PauseModel(this.threads, 'hardware', availableParallelism());
    this.serial = new SerialMarker(heap);
    // Made (and started by the CLI) before the program runs when it may be chosen.
    if (this.threads >= PARALLEL_MIN_THREADS) this.parallel = new ParallelMarker(heap, this.threads, undefined, options.soloWords ?? 0);
    this.gpuState = options.probeGpu && options.gpuMarker ? 'unknown' : 'none';
    this.goal = options.pauseGoalMs === undefined ? {} : { pauseGoalMs: options.pauseGoalMs };
  }

  /** Compiles the choice's code before the program runs (the warm-up's share of auto). */
  warmUp(): void {
    warmUpModel(this.threads, this.model.adapterKind);
    // The choice's own path, on this run's heap and model, choosing nothing: a
    // program of a few collections otherwise runs it cold at each one, and the
    // model makes its lines for this run at its first look.
    for (let i = 0; i < DRY_CHOICES; i++) {
      for (const kind of ['young', 'full'] as const) {
        // The heap is empty now, under the floor: every other time past it, so that
        // the model's choice runs as well as the floor's.
        const d = this.decide(kind, (i & 1) === 0);
        this.pendingOf(d.choice, kind, d);
      }
    }
    // A program's first collection of a kind past the floor chooses before any share
    // is known, and where that is not serial asks the probe and chooses again: the
    // empty heap's choices never take that path, which ran cold in the program's
    // first pause (docs/decisions/s56-03). Made-up sizes past the floor take it.
    for (let i = 0; i < DRY_CHOICES; i++) {
      for (const kind of ['young', 'full'] as const) {
        const now = this.inputs(kind);
        const large = { ...now.features, solo: false, markWords: DRY_WORDS, copyWords: DRY_WORDS };
        this.chooseFor(kind, { features: large, youngWords: now.youngWords, small: false }, true);
      }
    }
  }

  /**
   * Called by the warm-up (gc/warm-up.ts) while its scratch heap's roots still
   * reach the workload's objects: the survival probe, which a program runs at
   * most twice, traced over them until V8 has compiled its loops, so that a
   * program's probe does not run them cold (docs/decisions/s52-03, s55-01).
   */
  rehearse(): void {
    this.survivalProbe.rehearse(this.heap);
  }

  /** The parallel engine when this many threads may choose it, else null. */
  get parallelEngine(): ParallelMarker | null {
    return this.parallel;
  }

  /** The chosen engine's: the parallel one copies young objects and sweeps tenured
   *  with its threads, as under `--gc parallel`; a GPU one that evacuates on its
   *  device keeps a copy and evacuates, but does not replay the CPU's evacuations
   *  (the log tells both mirrors of those). */
  get constraints(): MarkerConstraints {
    const e = this.current;
    if (e === 'parallel' && this.parallel) return this.parallel.constraints;
    const evacuator = isGpu(e) ? this.evacuatingGpu() : null;
    return evacuator ? { ...evacuator.constraints, replaysEvacuation: false } : HEAP_READER;
  }

  /** The current GPU engine's marker, when it evacuates young collections on its device. */
  private evacuatingGpu(): YoungEvacuatingMarker | null {
    const e = this.current;
    const m = isGpu(e) ? this.gpus.get(e) : undefined;
    return m ? youngEvacuatorOf(m) : null;
  }

  /** The current engine's marker as a young evacuator (the plan asks only while
   *  the constraints say it is one). */
  private evacuator(): YoungEvacuatingMarker {
    const m = this.evacuatingGpu();
    if (!m) throw new Error(`auto(${this.current}): not an engine that evacuates on its device`);
    return m;
  }

  scanRememberedSet(ranges: Int32Array, youngStart: number, youngEnd: number, beforeMark = true): Promise<RememberedScan | null> {
    return this.evacuator().scanRememberedSet(ranges, youngStart, youngEnd, beforeMark);
  }

  verifyCopy(check: (copy: Uint32Array) => void): Promise<void> {
    return this.evacuator().verifyCopy(check);
  }

  replayEvacuation(): Promise<void> {
    throw new Error('auto: evacuations are not replayed (replaysEvacuation is false)');
  }

  /** The assignment's spaces, kept for `finishYoung` to say what the device wrote. */
  private assigned: { spaces: YoungSpaces; survived: number; promoted: number } | null = null;

  async assignYoung(live: Int32Array, spaces: YoungSpaces, ahead?: FinishAhead): Promise<DeviceAssignment> {
    const engine = this.current as 'gpu-dfs' | 'gpu-bfs';
    let a: DeviceAssignment;
    try {
      a = await this.evacuator().assignYoung(live, spaces, ahead);
    } catch (e) {
      // Nothing has moved: the CPU evacuates, and the engine is not offered again.
      a = { ok: false, reason: `the GPU failed: ${this.faulted(engine, e).fault}` };
    }
    this.took(engine, a, spaces, ahead);
    return a;
  }

  /** Keeps `engine`'s assignment for `finishYoung`, or tells the other mirrors at
   *  once what the evacuation wrote when the device finished it with the assignment. */
  private took(engine: 'gpu-dfs' | 'gpu-bfs', a: DeviceAssignment, spaces: YoungSpaces, ahead: FinishAhead | undefined): void {
    this.assigned = a.ok ? { spaces, survived: a.survivedWords, promoted: a.promotedWords } : null;
    if (a.ok && a.finished !== undefined) this.wrote(engine, ahead!.base, ahead!.slotRuns);
  }

  async finishYoung(base: number, slotRuns: Int32Array, headers: boolean, referents: Int32Array | null, edgeStarts: Int32Array | null = null): Promise<DeviceEvacuated> {
    const engine = this.current as 'gpu-dfs' | 'gpu-bfs';
    let done: DeviceEvacuated;
    try {
      done = await this.evacuator().finishYoung(base, slotRuns, headers, referents, edgeStarts);
    } catch (e) {
      // The heap is as the mark left it and the CPU evacuates; the engine is not offered again.
      throw this.faulted(engine, e);
    }
    this.wrote(engine, base, slotRuns);
    return done;
  }

  /** Tells the other mirrors what `engine`'s finished evacuation wrote: the
   *  to-survivor copies, the promotion buffer at `base` and the redirected
   *  remembered slots (the forwarding headers lie in eden and the from-space,
   *  which the other mirror takes anew after any evacuation). */
  private wrote(engine: 'gpu-dfs' | 'gpu-bfs', base: number, slotRuns: Int32Array): void {
    const a = this.assigned!;
    this.assigned = null;
    const ranges = [a.spaces.toStart, a.spaces.toStart + a.survived];
    if (a.promoted > 0) ranges.push(base, base + a.promoted);
    for (let i = 0; i < slotRuns.length; i += 2) ranges.push(slotRuns[i]!, slotRuns[i]! + slotRuns[i + 1]!);
    this.options.deviceWrote?.(engine, ranges);
  }

  /** The parallel engine's copier (read by the plan only while the choice is parallel). */
  get copier(): YoungCopier {
    return this.parallel!.copier;
  }

  /** The parallel engine's sweeper (read by the plan only while the choice is parallel). */
  get sweeper(): TenuredSweeper {
    return this.parallel!.sweeper;
  }

  get name(): string {
    return `auto(${this.current})`;
  }

  private get current(): Engine {
    return this.pending?.engine ?? this.lastEngine;
  }

  /**
   * The engines this run may choose from: serial at every size (its young
   * collections cost their work, not the heap's size: docs/decisions/s50-01), the
   * parallel engine when it has threads (below its solo threshold it runs on the
   * main thread alone), and the GPU engines while their adapter may serve.
   */
  private candidates(): readonly Engine[] {
    const gpus = this.options.gpuEngines;
    return (this.offered ??= ENGINES.filter((e) =>
      e === 'parallel'
        ? this.parallel !== null
        : isGpu(e)
          ? this.gpuState !== 'none' && !this.unavailable.has(e) && (gpus === undefined || gpus.includes(e))
          : true,
    ));
  }

  /** The model's inputs for a collection of `kind` now, the young words in use, and
   *  whether the heap in use it bounds its work by is under `--gc-solo-below`. */
  private inputs(kind: CollectionKind): { features: Features; youngWords: number; small: boolean } {
    const h = this.heap;
    const youngWords = h.youngUsedWords();
    const used = Math.ceil(h.usedBytes() / 4);
    const copyWords = this.shares.young.value * youngWords;
    const bound = kind === 'young' ? youngWords : used;
    const features: Features = {
      kind,
      solo: this.parallel !== null && bound < this.parallel.gc.soloWords,
      rootWork: this.lastRoots[kind],
      markWords: kind === 'young' ? copyWords : this.shares.full.value * used,
      copyWords,
      sweepWords: kind === 'full' ? Math.max(0, used - youngWords) : 0,
      uploadWords: { 'gpu-dfs': this.uploadWords('gpu-dfs', used, youngWords), 'gpu-bfs': this.uploadWords('gpu-bfs', used, youngWords) },
    };
    return { features, youngWords, small: bound < (this.options.soloWords ?? 0) };
  }

  /** Chooses the engine of the collection about to run. */
  async begin(kind: CollectionKind): Promise<void> {
    const t0 = now();
    const startup0 = this.gpuStartupMs;
    const d = this.decide(kind);
    let choice = d.choice;
    if (isGpu(choice.engine) && this.gpuState === 'unknown') {
      await this.probe();
      choice = this.model.choose(d.features, this.candidates(), this.goal);
    }
    // A GPU engine that cannot be made (an adapter limit, say) is dropped, not fatal.
    while (isGpu(choice.engine) && !(await this.gpuReady(choice.engine))) choice = this.model.choose(d.features, this.candidates(), this.goal);
    this.pending = this.pendingOf(choice, kind, d);
    this.chooseMs += now() - t0 - (this.gpuStartupMs - startup0);
  }

  /** The model's choice for a collection of `kind` now (no GPU opened): the
   *  synchronous part of `begin`, which the warm-up runs too, so that a
   *  program's first choices do not compile it. */
  private decide(kind: CollectionKind, floor = true): { choice: Choice; features: Features; youngWords: number } {
    return this.chooseFor(kind, this.inputs(kind), floor);
  }

  /** `decide` for the given inputs. */
  private chooseFor(
    kind: CollectionKind,
    { features, youngWords, small }: { features: Features; youngWords: number; small: boolean },
    floor: boolean,
  ): { choice: Choice; features: Features; youngWords: number } {
    // Under --gc-solo-below the parallel engine would run alone on the main thread, and
    // a GPU engine's fixed cost alone is more than serial's whole pause: serial, with
    // no engine tried (docs/decisions/s56-02).
    if (small && floor) return { choice: this.model.serialChoice(features), features, youngWords };
    const choice = this.model.choose(features, this.candidates(), this.goal);
    const young = kind === 'young';
    if (this.shares.of(kind).known || choice.engine === 'serial') return { choice, features, youngWords };
    // Before the first collection of a kind what lives is a guess: where the
    // guess hands it to an engine dearer than serial for little work, a bounded
    // trace from the roots (survival-probe.ts) tells whether few objects live,
    // and how many words they are. Serial needs no such look: it is the choice
    // for little work already.
    const probed = young ? this.survivalProbe.youngLiveWords(this.heap) : this.survivalProbe.heapLiveWords(this.heap);
    if (probed < 0) return { choice, features, youngWords };
    const f: Features = { ...features, markWords: probed, copyWords: Math.min(features.copyWords, probed) };
    return { choice: this.model.choose(f, this.candidates(), { ...this.goal, again: true }), features: f, youngWords };
  }

  private pendingOf(choice: Choice, kind: CollectionKind, d: { features: Features; youngWords: number }): Pending {
    const { engine, predictedMs } = choice;
    return { engine, predictedMs, samples: this.model.samples(engine, kind), features: d.features, youngWords: d.youngWords, roots: -1 };
  }

  /** What `engine`'s mirror would take before marking: the heap in use the first
   *  time (or every time, without a change log); else what was written since. */
  private uploadWords(engine: 'gpu-dfs' | 'gpu-bfs', used: number, youngWords: number): number {
    const behind = this.behind[engine];
    if (behind === null || this.options.uploadsAll?.includes(engine)) return used;
    return Math.min(used, behind + youngWords);
  }

  /** Opens the GPU; its answer sets the model's GPU priors (or removes the GPU engines). */
  private async probe(): Promise<void> {
    const t = now();
    let hardware = false;
    try {
      hardware = await this.options.probeGpu!();
    } catch {
      hardware = false;
    }
    this.gpuStartupMs += now() - t;
    this.gpuState = hardware ? 'hardware' : 'none';
    this.offered = null;
    if (!hardware) this.model.setAdapter('software');
  }

  /** Whether `engine`'s GPU marker is made and prepared; one that failed is
   *  disposed and its engine no longer offered. */
  private async gpuReady(engine: 'gpu-dfs' | 'gpu-bfs'): Promise<boolean> {
    try {
      await this.gpuFor(engine);
      return true;
    } catch {
      this.drop(engine);
      return false;
    }
  }

  /** A device fault of `engine`'s (anything else is ours, and is thrown on): drops
   *  the engine and says so; returns the fault. */
  private faulted(engine: 'gpu-dfs' | 'gpu-bfs', e: unknown): MarkerFaultError {
    if (!(e instanceof MarkerFaultError)) throw e;
    this.drop(engine);
    this.options.onGpuFault?.(engine, e);
    return e;
  }

  /** Disposes of `engine`'s GPU marker and offers the engine no more. */
  private drop(engine: 'gpu-dfs' | 'gpu-bfs'): void {
    this.gpus.get(engine)?.dispose();
    this.gpus.delete(engine);
    this.unavailable.add(engine);
    this.offered = null;
  }

  /** The GPU marker of `engine`, made and prepared (outside any pause) on first use. */
  private async gpuFor(engine: 'gpu-dfs' | 'gpu-bfs'): Promise<Marker> {
    let m = this.gpus.get(engine);
    if (!m) {
      const t = now();
      try {
        m = this.options.gpuMarker!(engine);
        this.gpus.set(engine, m);
        await (m as { prepare?: () => Promise<void> }).prepare?.();
      } finally {
        this.gpuStartupMs += now() - t;
      }
    }
    return m;
  }

  async mark(request: MarkRequest): Promise<MarkResult> {
    // Called without `begin` (a caller that drives the marker itself): choose now.
    if (this.pending === null) await this.begin(request.kind);
    const p = this.pending!;
    p.roots = Math.max(p.roots, 0) + request.roots.length;
    const engine = p.engine;
    // A GPU engine dropped in this collection (a fault after its mark) is not made again: serial marks again.
    if (isGpu(engine) && !this.unavailable.has(engine)) {
      try {
        const r = await (await this.gpuFor(engine)).mark(request);
        const e = request.evacuate;
        // The device evacuated with the mark: as after `assignYoung`.
        if (r.evacuation !== undefined && e !== undefined) this.took(engine, r.evacuation, e.spaces, e.ahead);
        return r;
      } catch (e) {
        // A device fault changed nothing in the heap (docs/decisions/s28f-01): the
        // engine is dropped as one that failed to prepare, and serial marks.
        this.faulted(engine, e);
        return this.serial.mark(request);
      }
    }
    if (engine === 'parallel') return this.parallel!.mark(request);
    return this.serial.mark(request);
  }

  /**
   * Learns from the collection just recorded and names its engine and prediction
   * in the record (`--log-gc`); a record with no choice pending (not ours) is
   * left alone.
   */
  observe(record: GcRecord): void {
    const p = this.pending;
    if (p === null) return;
    this.pending = null;
    const engine = p.engine;
    this.lastEngine = engine;
    this.counts[engine]++;
    record.collector = `auto(${engine})`;
    record.auto = { engine, predictedMs: p.predictedMs, samples: p.samples };
    const copied = (record.survivedBytes + record.promotedBytes) / 4;
    if (p.roots >= 0) this.lastRoots[record.kind] = p.roots;
    const ph = record.phases;
    const upload = record.marker.upload ?? 0;
    const used = record.usedBefore / 4;
    const markMs = Math.max(0, ph.mark - upload);
    this.model.observe({
      engine,
      kind: record.kind,
      rootWork: this.lastRoots[record.kind],
      markWords: record.kind === 'young' ? copied : record.usedAfter / 4,
      copyWords: copied,
      sweepWords: record.kind === 'full' ? Math.max(0, used - p.youngWords) : 0,
      uploadWords: { [engine]: (record.marker.uploadBytes ?? 0) / 4 },
      rootsMs: ph.roots,
      markMs,
      uploadMs: upload,
      copyMs: ph.copy,
      sweepMs: ph.sweep,
      otherMs: Math.max(0, record.pauseMs - ph.roots - ph.mark - ph.copy - ph.sweep),
    });
    // A young prediction for a collection that became a full one is not checked.
    if (record.kind === p.features.kind) this.model.checkPrediction(p.predictedMs, record.pauseMs, p.samples);
    this.shares.observe(record, p.youngWords);
    // The CPU's evacuation writes the survivors, which a GPU mirror takes next
    // time; a device's evacuation wrote them into its own mirror too.
    const onDevice = record.evacuation?.where === 'gpu';
    for (const g of ['gpu-dfs', 'gpu-bfs'] as const) {
      const b = this.behind[g];
      if (g === engine) this.behind[g] = onDevice ? 0 : copied;
      else if (b !== null) this.behind[g] = b + p.youngWords + copied;
    }
  }

  /** `collector` (the plan around this marker) choosing before each collection. */
  around(collector: Collector): Collector {
    return {
      name: collector.name,
      collects: collector.collects,
      collect: async (kind, cause) => {
        await this.begin(kind);
        return collector.collect(kind, cause);
      },
      dispose: () => collector.dispose(),
    };
  }

  dispose(): void {
    this.parallel?.dispose();
    for (const m of this.gpus.values()) m.dispose();
    this.serial.dispose();
  }
}
