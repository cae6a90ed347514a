/**
 * A worker of the parallel collector's pool (pool.ts), loaded as a file from
 * dist/. It sleeps in Atomics.wait on the EPOCH word; each bump is a command
 * (shared.ts), which it runs as GC thread `id` and then counts itself DONE.
 * New buffers arrive on its port and are drained, without waiting, before each
 * command. A rehearsed command (CMD_REHEARSE) runs on a private copy of them
 * (rehearse). A failure sets ERROR, so the other threads stop, and its stack
 * goes back on the port.
 */

import { receiveMessageOnPort, workerData } from 'node:worker_threads';
import { runCommand } from './command.js';
import { GcContext, PeerFailed } from './context.js';
import { CMD, CMD_EXIT, CMD_REHEARSE, DONE, EPOCH, ERROR, IDLE, REHEARSED, S_OBJECTS, type BufferName, type PoolBuffers, type PoolMessage, type WorkerStart } from './shared.js';

const start = workerData as WorkerStart;
const ctx = new GcContext(start.id, start.threads, start.buffers);
let seen = start.epoch;

/**
 * A command rehearsed on a private copy of the buffers, as thread 0 of
 * `threads` whose peers have all gone idle already: it takes every branch of the
 * shared code (sharing into its deque, stealing rounds over the others' empty
 * ones, the atomic marks, and the plain ones of a thread working alone, which
 * it does from its start and once its deque is empty) but finds no peer to
 * end the phase with. The copies are dropped after it: a worker keeps no
 * second heap through the program.
 */
function rehearse(cmd: number): void {
  const own = {} as PoolBuffers;
  for (const name of Object.keys(ctx.buffers) as BufferName[]) {
    const b = ctx.buffers[name];
    // Words every command starts from zero: all deques' ends (the others' stay
    // empty), and thread 0's counters and deque entries, the only ones it uses.
    const zero = name === 'stats' || name === 'deqCtl' || name === 'deqBuf';
    const mine = name === 'stats' || name === 'deqBuf';
    own[name] = new SharedArrayBuffer(mine ? b.byteLength / start.threads : b.byteLength);
    if (!zero) new Uint8Array(own[name]).set(new Uint8Array(b));
  }
  const alone = new GcContext(0, start.threads, own);
  alone.ctl[IDLE] = start.threads - 1;
  runCommand(alone, cmd);
  Atomics.add(ctx.ctl, REHEARSED, alone.stats[S_OBJECTS]!);
}

for (;;) {
  Atomics.wait(ctx.ctl, EPOCH, seen);
  const epoch = Atomics.load(ctx.ctl, EPOCH);
  if (epoch === seen) continue;
  seen = epoch;
  for (let m = receiveMessageOnPort(start.port); m !== undefined; m = receiveMessageOnPort(start.port)) {
    ctx.update((m.message as PoolMessage).buffers);
  }
  const cmd = Atomics.load(ctx.ctl, CMD);
  if (cmd === CMD_EXIT) break;
  try {
    if ((cmd & CMD_REHEARSE) !== 0) rehearse(cmd & ~CMD_REHEARSE);
    else runCommand(ctx, cmd);
  } catch (e) {
    if (!(e instanceof PeerFailed)) {
      Atomics.compareExchange(ctx.ctl, ERROR, 0, start.id + 1);
      start.port.postMessage({ error: e instanceof Error ? (e.stack ?? e.message) : String(e) });
    }
  }
  Atomics.add(ctx.ctl, DONE, 1);
  Atomics.notify(ctx.ctl, DONE);
}
start.port.close();
