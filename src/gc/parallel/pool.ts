/**
 * The pool of GC worker threads: started once, before the program runs, and
 * handed each command through shared memory (shared.ts). The main thread is GC
 * thread 0 and works too, so `threads` threads take part with `threads - 1`
 * workers; one thread needs no worker at all.
 *
 * `run` is synchronous: it publishes the command, does thread 0's part, and
 * waits (Atomics.wait, which Node allows on its main thread) until every worker
 * counted itself done. The mutator is stopped at an allocation meanwhile, so
 * nothing else needs the event loop. Workers are unref'd: a pool nobody
 * disposed does not keep the process alive.
 */

import type { MessagePort, Worker } from 'node:worker_threads';
import { workerThreads } from '../../heap/worker-threads.js';
import { workerScript } from '../../heap/worker-script.js';
import { runCommand } from './command.js';
import { GcContext, PeerFailed } from './context.js';
import { rehearse as rehearseAlone } from './rehearse.js';
import {
  ACTIVE,
  CLEARED,
  CMD,
  CMD_EXIT,
  CMD_REHEARSE,
  DONE,
  EPOCH,
  ERROR,
  IDLE,
  OUTCUR,
  RANGECUR,
  REHEARSED,
  ROOTCUR,
  SCANCUR,
  TAILCUR,
  gateOf,
  type PoolBuffers,
  type WorkerStart,
} from './shared.js';
import { now } from '../../heap/clock.js';

/** A command whose workers do not all finish within this many ms has lost one. */
const FINISH_TIMEOUT_MS = 120_000;

interface PoolWorker {
  readonly worker: Worker;
  readonly port: MessagePort;
}

export class WorkerPool {
  /** Thread 0's context: the main thread's view of the shared memory. */
  readonly main: GcContext;
  private workers: PoolWorker[] = [];
  private starting: Promise<void> | null = null;
  private failure: Error | null = null;
  /** How long starting the workers took (reported apart from pauses). */
  startupMs = 0;

  /** Thread 0 as the only thread, for commands run without the workers. */
  private readonly solo: GcContext;

  constructor(
    readonly threads: number,
    private buffers: PoolBuffers,
  ) {
    this.main = new GcContext(0, threads, buffers);
    this.solo = threads === 1 ? this.main : new GcContext(0, 1, buffers);
  }

  /** The command words: the one buffer a lent pool keeps (its workers wait on it). */
  get ctlBuffer(): SharedArrayBuffer {
    return this.buffers.ctl;
  }

  get ctl(): Int32Array {
    return this.main.ctl;
  }

  /** Starts the workers once; later calls return the same promise. */
  start(): Promise<void> {
    this.starting ??= this.spawn();
    return this.starting;
  }

  get started(): boolean {
    return this.starting !== null && this.workers.length === this.threads - 1;
  }

  private async spawn(): Promise<void> {
    const t = now();
    if (this.threads === 1) return;
    const script = workerScript('gc/parallel/worker.js', "the parallel collector's worker script");
    const ready: Promise<void>[] = [];
    const workers: PoolWorker[] = [];
    const { MessageChannel, Worker } = workerThreads();
    for (let id = 1; id < this.threads; id++) {
      const { port1, port2 } = new MessageChannel();
      const data: WorkerStart = { id, threads: this.threads, buffers: this.buffers, epoch: Atomics.load(this.ctl, gateOf(id)), port: port2 };
      const worker = new Worker(script, { workerData: data, transferList: [port2] });
      workers.push({ worker, port: port1 });
      ready.push(
        new Promise((resolve, reject) => {
          worker.once('online', () => resolve());
          worker.once('error', reject);
          worker.once('exit', (code) => reject(new Error(`parallel collector: worker ${id} exited (${code}) while starting`)));
        }),
      );
      worker.on('error', (e) => {
        this.failure ??= e instanceof Error ? e : new Error(String(e));
      });
    }
    try {
      await Promise.all(ready);
    } catch (e) {
      for (const w of workers) void w.worker.terminate();
      throw e;
    }
    for (const w of workers) {
      w.worker.unref();
      w.port.unref();
    }
    this.workers = workers;
    this.startupMs = now() - t;
  }

  /** Replaces some buffers on every thread; the workers take them before their next command. */
  replace(b: Partial<PoolBuffers>): void {
    Object.assign(this.buffers, b);
    this.send(b);
  }

  /**
   * Runs `fn` with every thread working on `buffers` (another heap's) instead of
   * the pool's own, which it gets back afterwards (the collector's warm-up).
   */
  async lend<T>(buffers: PoolBuffers, fn: () => Promise<T>): Promise<T> {
    const own = this.buffers;
    this.buffers = buffers;
    this.send(buffers);
    try {
      return await fn();
    } finally {
      this.buffers = own;
      this.send(own);
    }
  }

  /** Hands buffers to thread 0 now and to the workers before their next command. */
  private send(b: Partial<PoolBuffers>): void {
    this.main.update(b);
    if (this.solo !== this.main) this.solo.update(b);
    for (const w of this.workers) w.port.postMessage({ buffers: b });
  }

  /**
   * Runs `cmd` on the first `active` threads (the caller set its parameters in
   * `ctl`) and returns when all are done, or on the main thread alone
   * (`alone`), the workers left asleep. The workers past `active` are not
   * woken: a small command then waits for the wake-up of a few threads rather
   * than of them all. A failure on any thread is thrown here.
   *
   * `rehearse` (the warm-up's): every thread first runs the command alone on a
   * private copy of the buffers (rehearse.ts), all at once. With stealing, which thread
   * meets which branch of a phase is chance, and a thread that first meets one
   * in a program's pause throws its optimized code away there; alone, each
   * meets every branch the command takes
   * (docs/decisions/s39-02-workers-rehearse-the-warm-up.md).
   */
  run(cmd: number, alone = false, rehearse = false, active = this.threads): void {
    if (this.failure) throw this.failure;
    if (this.threads > 1 && !this.started) throw new Error('parallel collector: the worker pool was not started');
    const ctl = this.ctl;
    for (const i of [ERROR, DONE, REHEARSED, IDLE, ROOTCUR, RANGECUR, CLEARED, SCANCUR, OUTCUR, TAILCUR]) ctl[i] = 0;
    this.main.deqCtl.fill(0);
    this.main.stats.fill(0);
    if (rehearse && this.threads > 1) {
      this.round(cmd | CMD_REHEARSE, this.threads, () => Atomics.add(ctl, REHEARSED, rehearseAlone(this.main, cmd)));
      ctl[DONE] = 0;
    }
    if (alone) runCommand(this.solo, cmd);
    else this.round(cmd, Math.max(1, Math.min(this.threads, active)), () => runCommand(this.main, cmd));
  }

  /** Gives `cmd` to workers 1..active-1 (their gates), runs thread 0's part (`main`), and waits for them. */
  private round(cmd: number, active: number, main: () => void): void {
    const ctl = this.ctl;
    Atomics.store(ctl, CMD, cmd);
    Atomics.store(ctl, ACTIVE, active);
    this.main.threads = active;
    this.open(active);
    let own: unknown = null;
    try {
      main();
    } catch (e) {
      if (!(e instanceof PeerFailed)) {
        Atomics.compareExchange(ctl, ERROR, 0, 1);
        own = e;
      }
    }
    const want = active - 1;
    const t0 = now();
    for (let d = Atomics.load(ctl, DONE); d < want; d = Atomics.load(ctl, DONE)) {
      Atomics.wait(ctl, DONE, d, 100);
      if (now() - t0 > FINISH_TIMEOUT_MS) {
        this.failure = new Error(`parallel collector: ${want - d} worker(s) did not finish within ${FINISH_TIMEOUT_MS} ms`);
        throw this.failure;
      }
    }
    if (own !== null) throw own;
    const failed = Atomics.load(ctl, ERROR);
    if (failed > 1) {
      const w = this.workers[failed - 2]!;
      const m = workerThreads().receiveMessageOnPort(w.port)?.message as { error?: string } | undefined;
      throw new Error(`parallel collector: worker ${failed - 1} failed: ${m?.error ?? 'no message'}`);
    }
  }

  /** A new epoch, written into the gates of workers 1..upTo-1, each woken. */
  private open(upTo: number): void {
    const ctl = this.ctl;
    const epoch = (Atomics.load(ctl, EPOCH) + 1) | 0;
    Atomics.store(ctl, EPOCH, epoch);
    for (let id = 1; id < upTo; id++) {
      Atomics.store(ctl, gateOf(id), epoch);
      Atomics.notify(ctl, gateOf(id), 1);
    }
  }

  dispose(): void {
    const ws = this.workers;
    this.workers = [];
    this.starting = null;
    if (ws.length === 0) return;
    Atomics.store(this.ctl, CMD, CMD_EXIT);
    this.open(this.threads);
    for (const w of ws) {
      w.port.close();
      void w.worker.terminate();
    }
  }
}
