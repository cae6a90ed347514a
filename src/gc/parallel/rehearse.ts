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
 * The first marks are then rehearsed again with one peer at work
 * (GcContext.rehearseWithPeer): the thread claims with atomics from its start,
 * as a program's threads do while others work, and waits through the whole
 * idle path at its end. After its first commands the thread also waits for a
 * peer to share work, and steals it, and waits once more with no work at all
 * in the phase, as a thread does that wakes to find every root claimed.
 */

import { runCommand } from './command.js';
import { GcContext } from './context.js';
import { CMD_MARK, IDLE, S_OBJECTS, SLEEPERS, type BufferName, type PoolBuffers } from './shared.js';

/** The rehearsal's first stack: small, so that it grows as a program's stacks may. */
const REHEARSAL_STACK = 4;
/** Rehearsals, and marks, after which a thread no longer waits for a
 *  stand-in peer, and no longer marks again beside one: V8 has the branches'
 *  type feedback by then, and each costs warm-up time. */
const WAITS_REHEARSED = 4;
const MARKS_WITH_PEER = 2;
/** This thread's rehearsals and rehearsed marks so far (each thread is an isolate of its own). */
let rehearsals = 0;
let marks = 0;

/**
 * Rehearses `cmd` for the thread whose context is `ctx`; returns the objects it
 * processed alone. The thread's first marks, which leave the heap's words as
 * they were, are then rehearsed again on the same copy with a peer at work;
 * and in its first rehearsals the thread waits for that peer, once until it
 * shares an entry to steal and once with no work in the phase at all
 * (acquire's entries are not worked on).
 */
export function rehearse(ctx: GcContext, cmd: number): number {
  const own = privateCopy(ctx);
  const alone = rehearsal(ctx, own);
  runCommand(alone, cmd);
  const objects = alone.stats[S_OBJECTS]!;
  const first = rehearsals++ < WAITS_REHEARSED;
  if (cmd === CMD_MARK && marks++ < MARKS_WITH_PEER) {
    new Int32Array(own.ctl).set(new Int32Array(ctx.buffers.ctl));
    for (const name of ZEROED) new Int32Array(own[name]).fill(0);
    const withPeer = rehearsal(ctx, own);
    withPeer.rehearseWithPeer();
    runCommand(withPeer, cmd);
  }
  if (first) {
    alone.deqCtl.fill(0);
    alone.ctl[IDLE] = ctx.threads - 1;
    alone.rehearseWaits();
  }
  return objects;
}

/** Buffers every command starts from zero: all deques' ends (the others' stay
 *  empty), and thread 0's counters and deque entries, the only ones it uses. */
const ZEROED: readonly BufferName[] = ['stats', 'deqCtl', 'deqBuf'];

/** The thread's own copy of the buffers: `stats` for thread 0 only, and
 *  `deqBuf` for thread 0 and its stand-in peer, thread 1. */
function privateCopy(ctx: GcContext): PoolBuffers {
  const own = {} as PoolBuffers;
  for (const name of Object.keys(ctx.buffers) as BufferName[]) {
    const b = ctx.buffers[name];
    const perThread = b.byteLength / ctx.threads;
    own[name] = new SharedArrayBuffer(name === 'stats' ? perThread : name === 'deqBuf' ? 2 * perThread : b.byteLength);
    if (!ZEROED.includes(name)) new Uint8Array(own[name]).set(new Uint8Array(b));
  }
  return own;
}

/** Thread 0 of `ctx.threads` on `own`, every peer idle, and a sleeper to wake whenever it shares. */
function rehearsal(ctx: GcContext, own: PoolBuffers): GcContext {
  const c = new GcContext(0, ctx.threads, own, REHEARSAL_STACK);
  c.ctl[IDLE] = ctx.threads - 1;
  c.ctl[SLEEPERS] = 1;
  return c;
}
