/**
 * A command rehearsed by one thread alone, on a private copy of the buffers, as
 * thread 0 of `threads` whose peers have all gone idle already: it takes every
 * branch of the shared code (sharing into its deque, and waking sleepers as it
 * does, stealing rounds over the others' empty deques, the atomic marks, and
 * the plain ones of a thread working alone, which it does from its start and
 * once its deque is empty; its stack starts small and grows) but finds no peer
 * to end the phase with. Each thread is an isolate with type feedback of its
 * own, and which thread meets which branch in a program's pause depends on
 * stealing: one that meets a branch first there throws its optimized code away
 * there (docs/decisions/s39-02-workers-rehearse-the-warm-up.md). The copies are
 * dropped after it: no thread keeps a second heap through the program.
 */

import { runCommand } from './command.js';
import { GcContext } from './context.js';
import { IDLE, S_OBJECTS, SLEEPERS, type BufferName, type PoolBuffers } from './shared.js';

/** The rehearsal's first stack: small, so that it grows as a program's stacks may. */
const REHEARSAL_STACK = 4;

/** Rehearses `cmd` for the thread whose context is `ctx`; returns the objects it processed. */
export function rehearse(ctx: GcContext, cmd: number): number {
  const own = {} as PoolBuffers;
  for (const name of Object.keys(ctx.buffers) as BufferName[]) {
    const b = ctx.buffers[name];
    // Words every command starts from zero: all deques' ends (the others' stay
    // empty), and thread 0's counters and deque entries, the only ones it uses.
    const zero = name === 'stats' || name === 'deqCtl' || name === 'deqBuf';
    const mine = name === 'stats' || name === 'deqBuf';
    own[name] = new SharedArrayBuffer(mine ? b.byteLength / ctx.threads : b.byteLength);
    if (!zero) new Uint8Array(own[name]).set(new Uint8Array(b));
  }
  const alone = new GcContext(0, ctx.threads, own, REHEARSAL_STACK);
  alone.ctl[IDLE] = ctx.threads - 1;
  // A sleeper to wake whenever it shares.
  alone.ctl[SLEEPERS] = 1;
  runCommand(alone, cmd);
  return alone.stats[S_OBJECTS]!;
}
