/**
 * A worker of the parallel collector's pool (pool.ts), loaded as a file from
 * dist/. It sleeps in Atomics.wait on the EPOCH word; each bump is a command
 * (shared.ts), which it runs as GC thread `id` and then counts itself DONE.
 * New buffers arrive on its port and are drained, without waiting, before each
 * command. A rehearsed command (CMD_REHEARSE) runs on a private copy of them
 * (rehearse.ts). A failure sets ERROR, so the other threads stop, and its stack
 * goes back on the port.
 */

import { receiveMessageOnPort, workerData } from 'node:worker_threads';
import { runCommand } from './command.js';
import { GcContext, PeerFailed } from './context.js';
import { rehearse } from './rehearse.js';
import { CMD, CMD_EXIT, CMD_REHEARSE, DONE, EPOCH, ERROR, REHEARSED, type PoolMessage, type WorkerStart } from './shared.js';

const start = workerData as WorkerStart;
const ctx = new GcContext(start.id, start.threads, start.buffers);
let seen = start.epoch;

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
    if ((cmd & CMD_REHEARSE) !== 0) Atomics.add(ctx.ctl, REHEARSED, rehearse(ctx, cmd & ~CMD_REHEARSE));
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
