/**
 * The compiled tier's lines of `--stats`, in the one unit style of the summary
 * (heap/stat-units.ts). Here in the CLI rather than beside the tier, so that the VM
 * does not reach into the heap's side for a formatter.
 */

import type { TierStats } from '../vm/tier/tier.js';
import { statMs } from '../heap/stat-units.js';

/** `mutatorMs`: the run's mutator time, of which the rest of compiled time is the interpreter's. */
export function formatTierStats(t: TierStats, mutatorMs: number): string {
  const ic = t.icSites;
  return [
    `tier: ${t.compiledFunctions} functions compiled in ${statMs(t.compileMs)}; ` +
      `time compiled ${statMs(t.compiledMs)}, interpreted ${statMs(Math.max(0, mutatorMs - t.compiledMs - t.compileMs))}; ` +
      `${t.entries} entries, ${t.unwinds} unwinds`,
    `tier: inline-cache sites ${ic.monomorphic} monomorphic, ${ic.polymorphic} polymorphic, ${ic.megamorphic} megamorphic`,
  ].join('\n');
}
