/** The compiled tier's line of `--stats`. */

import type { TierStats } from './tier.js';

/** `mutatorMs`: the run's mutator time, of which the rest of compiled time is the interpreter's. */
export function formatTierStats(t: TierStats, mutatorMs: number): string {
  const ms = (x: number): string => `${x.toFixed(1)} ms`;
  const ic = t.icSites;
  return [
    `tier: ${t.compiledFunctions} functions compiled in ${ms(t.compileMs)}; ` +
      `time compiled ${ms(t.compiledMs)}, interpreted ${ms(Math.max(0, mutatorMs - t.compiledMs - t.compileMs))}; ` +
      `${t.entries} entries, ${t.unwinds} unwinds`,
    `tier: inline-cache sites ${ic.monomorphic} monomorphic, ${ic.polymorphic} polymorphic, ${ic.megamorphic} megamorphic`,
  ].join('\n');
}
