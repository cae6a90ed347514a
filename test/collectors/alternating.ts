/**
 * Test helpers for `--gc auto`: a pause model that chooses every engine in turn,
 * whatever they cost, so that every switch between engines is exercised, and a
 * run of a program with it.
 */
import { readFileSync } from 'node:fs';
import { expect } from 'vitest';
import { PauseModel, type Choice, type ChoiceOptions, type Engine, type Features } from '../../src/collectors/pause-model.js';
import type { MemoryHooks } from '../../src/collectors/memory.js';
import { defaultRunOptions, type RunOptions } from '../../src/cli/options.js';
import { compileSource } from '../../src/cli/compile-source.js';
import { runProgram, type RunOutcome } from '../../src/cli/run.js';

export class Alternating extends PauseModel {
  private turn = 0;
  override choose(f: Features, candidates: readonly Engine[], o: ChoiceOptions = {}): Choice {
    const c = super.choose(f, candidates, o);
    // A second look at the same collection (auto's survival probe) keeps its turn.
    if (o.again === true) this.turn--;
    const engine = candidates[this.turn++ % candidates.length]!;
    return { ...c, engine, predictedMs: this.predict(engine, f).pauseMs };
  }
}

/** Runs `file` with `base` options and the memory `hooks`, capturing its output. */
export async function runWithHooks(
  file: string,
  base: Partial<RunOptions>,
  hooks: MemoryHooks,
): Promise<RunOutcome & { stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const io = { stdout: (t: string) => void (stdout += t), stderr: (t: string) => void (stderr += t) };
  const options: RunOptions = { ...defaultRunOptions(), ...base };
  const program = compileSource(file, readFileSync(file, 'utf8'), io);
  expect(program, stderr).toBeDefined();
  const outcome = await runProgram(program!, options, io, hooks);
  return { ...outcome, stdout, stderr };
}
