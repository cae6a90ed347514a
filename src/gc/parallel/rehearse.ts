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
 *
 * The command is then rehearsed again with one peer at work
 * (GcContext.rehearseWithPeer): the thread claims with atomics from its start, as a program's threads do
 * while others work, and waits through the whole idle path at its end; and it
 * waits once more with no work at all in the phase, as a thread does that
 * wakes to find every root claimed.
 */

import { runCommand } from './command.js';
import { GcContext } from './context.js';
import { CMD_COPY, IDLE, S_OBJECTS, SLEEPERS, type BufferName, type PoolBuffers } from './shared.js';

/** The rehearsal's first stack: small, so that it grows as a program's stacks may. */
const REHEARSAL_STACK = 4;

/** Copies this thread has rehearsed (each thread is an isolate of its own). */
let copies = 0;

/** Rehearses `cmd` for the thread whose context is `ctx`, alone and then, for
 *  every mark and sweep but only every other copy, with a peer at work;
 *  returns the objects the first run processed. */
export function rehearse(ctx: GcContext, cmd: number): number {
  const objects = rehearseOnce(ctx, cmd, false);
  if (cmd !== CMD_COPY || copies++ % 2 === 0) rehearseOnce(ctx, cmd, true);
  return objects;
}

function rehearseOnce(ctx: GcContext, cmd: number, withPeer: boolean): number {
  const own = {} as PoolBuffers;
  for (const name of Object.keys(ctx.buffers) as BufferName[]) {
    const b = ctx.buffers[name];
    // Words every command starts from zero: all deques' ends (the others' stay
    // empty), and thread 0's counters and deque entries, the only ones it uses.
    const zero = name === 'stats' || name === 'deqCtl' || name === 'deqBuf';
    // The deques' entries of thread 0 and of its stand-in peer, thread 1.
    const mine = name === 'stats' ? 1 : name === 'deqBuf' ? 2 : ctx.threads;
    own[name] = new SharedArrayBuffer((b.byteLength / ctx.threads) * mine);
    if (!zero) new Uint8Array(own[name]).set(new Uint8Array(b));
  }
  const alone = new GcContext(0, ctx.threads, own, REHEARSAL_STACK);
  alone.ctl[IDLE] = ctx.threads - 1;
  // A sleeper to wake whenever it shares.
  alone.ctl[SLEEPERS] = 1;
  if (withPeer) alone.rehearseWithPeer();
  runCommand(alone, cmd);
  if (withPeer) {
    // A wait that ends in a steal from the peer, then the wait of a thread that finds no work in
    // its phase at all; acquire's entries are not worked on.
    alone.deqCtl.fill(0);
    alone.ctl[IDLE] = ctx.threads - 1;
    alone.begin();
    alone.rehearseWithPeer();
    alone.rehearseSteal();
    alone.begin();
    alone.acquire();
  }
  return alone.stats[S_OBJECTS]!;
}
