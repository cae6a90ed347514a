/**
 * The driver: runs a program to its end, running each collection the heap asks for
 * between entries of the interpreter's loop (collections may wait on the GPU, so
 * they happen here, between synchronous stretches of execution). Under
 * `--tier compiled`, main itself starts compiled.
 */

import { OutOfMemoryError } from '../heap/api.js';
import { MiniRuntimeError } from './format.js';
import { Interpreter } from './interpreter.js';
import { COLLECT, DONE, RESUME, YIELD, YIELD_MS } from './machine.js';
import { now } from '../heap/clock.js';

/** The end of a stopped run: never (whoever stopped it ends the process). */
function stopped(): Promise<never> {
  return new Promise<never>(() => undefined);
}

export class Vm extends Interpreter {
  /** Runs the program to completion. Throws MiniRuntimeError for faults of the program.
   *  Once `stop` is aborted the program never resumes: this promise stays pending,
   *  and a collection that the shutdown cut short is not reported. */
  async run(stop?: AbortSignal): Promise<void> {
    try {
      await this.internStrings();
      this.lastYield = now();
      for (let status = this.startMain(); status !== DONE; status = this.execute()) {
        if (status === COLLECT) await this.heap.collectPending();
        else if (status === YIELD && now() - this.lastYield >= YIELD_MS) {
          // Timers (output flushing) and signal handlers run here.
          await new Promise<void>((resume) => setImmediate(resume));
          this.lastYield = now();
        }
        if (stop?.aborted) return await stopped();
      }
    } catch (e) {
      if (stop?.aborted) return await stopped();
      // Out of memory (an allocation larger than the heap, or a collection that cannot
      // make room) is a fault of the program: it stops where its state was saved, at
      // the allocating instruction (at main's start while string constants are interned).
      if (e instanceof OutOfMemoryError) throw this.withTrace(new MiniRuntimeError(e.message));
      throw e;
    }
  }

  /** String constants are allocated once and held as roots (strings are immutable). */
  private async internStrings(): Promise<void> {
    const strings = [...this.linked.program.stringConstants, ...this.programArgs];
    for (let i = 0; i < strings.length; ) {
      const a = this.newString(strings[i]!);
      if (a === 0) {
        await this.heap.collectPending();
        continue;
      }
      this.constRefs[i++] = a;
    }
  }

  /** With a threshold of 0, main runs compiled from its start; otherwise the interpreter starts it. */
  private startMain(): number {
    const tier = this.tier;
    if (tier.options.mode === 'interp' || tier.options.threshold > 0) return RESUME;
    tier.enter(tier.compile(this.fn), 0, 0, 0, -1);
    // Main left compiled code unfinished: the interpreter goes on from the state it spilled.
    return tier.st === 0 ? DONE : tier.settle();
  }
}
