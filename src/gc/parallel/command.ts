/**
 * One GC thread's part of a command: the same function on the main thread
 * (thread 0) and in every worker (worker.ts).
 */

import { GcContext } from './context.js';
import { copyPhase } from './copy.js';
import { markPhase } from './mark.js';
import { CMD_COPY, CMD_MARK, CMD_SWEEP } from './shared.js';
import { sweepPhase } from './sweep.js';

export function runCommand(c: GcContext, cmd: number): void {
  if (cmd === CMD_MARK) markPhase(c);
  else if (cmd === CMD_COPY) copyPhase(c);
  else if (cmd === CMD_SWEEP) sweepPhase(c);
  else throw new Error(`parallel collector: unknown command ${cmd}`);
}
