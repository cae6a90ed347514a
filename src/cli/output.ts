/**
 * The command line's output: a buffered standard output that a signal or an exit
 * never loses, files written whole or not at all, and the end of a run by SIGINT or
 * SIGTERM.
 *
 * Standard output is written through at every line on a terminal, where a person
 * watches progress; otherwise it is gathered and written within FLUSH_MS (a timer,
 * which runs because the interpreter yields to the event loop while it computes) or
 * once CHUNK_BYTES are waiting. Anything written to standard error first flushes
 * standard output, so the two keep their order on a shared terminal.
 */

import { pendingTemps } from './output-file.js';
import { fstatSync, rmSync, statSync, writeSync } from 'node:fs';

/** The longest a printed line waits when standard output is not a terminal. */
export const FLUSH_MS = 5;
/** Waiting output written at once past this size. */
const CHUNK_BYTES = 1 << 16;

/** Exit statuses of a run ended by a signal: 128 + the signal's number, as shells report. */
export const SIGNAL_EXIT = { SIGINT: 130, SIGTERM: 143 } as const;

/** Synchronous writes: output must be complete even when the process exits right after.
 *  `onPipeClosed`: the reader went away (`minivm run prog.mini | head`). */
export function writeAll(fd: number, text: string, onPipeClosed: () => never): void {
  let buf = Buffer.from(text);
  while (buf.length > 0) {
    try {
      buf = buf.subarray(writeSync(fd, buf));
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'EPIPE') onPipeClosed();
      if (code !== 'EAGAIN') throw e;
    }
  }
}

/** /dev/null's device number, or -1 where there is none. */
function devNullDevice(): number {
  try {
    return statSync('/dev/null').rdev;
  } catch {
    return -1; // no /dev/null: no device is taken for it
  }
}

/** Whether `fd` is a terminal. Asking `process.stdout` builds its stream, which for a
 *  pipe or a file loads Node's stream and socket modules that nothing else here uses;
 *  a terminal is a character device, so only those are asked, and /dev/null, the
 *  character device output is most often sent to, is known by its device number. */
export function isTerminal(fd: 1 | 2): boolean {
  try {
    const s = fstatSync(fd);
    if (!s.isCharacterDevice() || s.rdev === devNullDevice()) return false;
  } catch {
    return false;
  }
  return (fd === 1 ? process.stdout : process.stderr).isTTY === true;
}

export class BufferedOutput {
  private parts: string[] = [];
  private bytes = 0;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly sink: (text: string) => void,
    /** Write every line at once (a terminal). */
    private readonly lineBuffered: boolean,
  ) {}

  write(text: string): void {
    if (this.lineBuffered) {
      this.parts.push(text);
      this.flush();
      return;
    }
    this.parts.push(text);
    this.bytes += text.length;
    if (this.bytes >= CHUNK_BYTES) this.flush();
    else if (this.timer === null) this.timer = setTimeout(() => this.flush(), FLUSH_MS);
  }

  flush(): void {
    if (this.timer !== null) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    if (this.parts.length === 0) return;
    const text = this.parts.join('');
    this.parts = [];
    this.bytes = 0;
    this.sink(text);
  }
}

/** What a signal must shut down before the process ends (a run's collector, with
 *  its parallel pool or GPU marker). */
const shutdowns = new Set<() => Promise<void>>();

/** Registers `fn` for a signal's shutdown; returns its removal. */
/** Aborted when SIGINT or SIGTERM arrives: the running program stops at its next
 *  yield or collection (Vm.run), so it sends nothing to the collectors being shut down. */
export const interruption = new AbortController();

export function onInterrupt(fn: () => Promise<void>): () => void {
  shutdowns.add(fn);
  return () => {
    shutdowns.delete(fn);
  };
}

/**
 * Ends the process on SIGINT and SIGTERM with one line on standard error and
 * 130/143, after flushing `stdout`, removing half-written files and running the
 * registered shutdowns, then `shutdown` (the GPU host), for at most `graceMs`: long
 * enough for a GPU call in flight to end, since ending the process while the GPU
 * worker is inside Dawn aborts it. A second signal meanwhile ends it at once.
 */
export function exitOnSignals(
  stdout: BufferedOutput,
  stderr: (text: string) => void,
  shutdown: () => Promise<void>,
  graceMs = 10_000,
): void {
  let ending = false;
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      const code = SIGNAL_EXIT[signal];
      if (ending) process.exit(code);
      ending = true;
      interruption.abort();
      stdout.flush();
      for (const tmp of pendingTemps) rmSync(tmp, { force: true });
      stderr(`minivm: interrupted by ${signal}\n`);
      const grace = new Promise<void>((done) => setTimeout(done, graceMs).unref());
      const all = Promise.allSettled([...shutdowns].map((fn) => fn())).then(() => shutdown());
      void Promise.race([all.catch(() => undefined), grace]).then(() => process.exit(code));
    });
  }
}
