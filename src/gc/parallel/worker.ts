/**
 * A worker of the parallel collector's pool (pool.ts), loaded as a file from
 * dist/. It sleeps in Atomics.wait on its gate word; each change is a command
 * (shared.ts), which it runs as GC thread `id` of ACTIVE and then counts itself DONE.
 * New buffers arrive on its port and are drained, without waiting, before each
 * command. A rehearsed command (CMD_REHEARSE) runs on a private copy of them
 * (rehearse.ts). A failure sets ERROR, so the other threads stop, and its stack
 * goes back on the port.
 */

import { receiveMessageOnPort, workerData } from 'node:worker_threads';
import { runCommand } from './command.js';
import { GcContext, PeerFailed } from './context.js';
import { rehearse } from './rehearse.js';
import { ACTIVE, CMD, CMD_EXIT, CMD_REHEARSE, DONE, ERROR, gateOf, REHEARSED, type PoolMessage, type WorkerStart } from './shared.js';

const start = workerData as WorkerStart;
const ctx = new GcContext(start.id, start.threads, start.buffers);
const gate = gateOf(start.id);
let seen = start.epoch;

for (;;) {
  Atomics.wait(ctx.ctl, gate, seen);
  const epoch = Atomics.load(ctx.ctl, gate);
  if (epoch === seen) continue;
  seen = epoch;
  for (let m = receiveMessageOnPort(start.port); m !== undefined; m = receiveMessageOnPort(start.port)) {
    ctx.update((m.message as PoolMessage).buffers);
  }
  const cmd = Atomics.load(ctx.ctl, CMD);
  if (cmd === CMD_EXIT) break;
  ctx.threads = Atomics.load(ctx.ctl, ACTIVE);
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
