/**
 * Which GPU markers' inputs can evacuate young collections on the device; the
 * main thread's marker (host.ts) asks too, so this file loads nothing of Dawn.
 */
/** Why a young collection of `input` cannot evacuate on the device, or null. */
export function evacuationRefusal(input: { readonly layout: 'sable' | 'refgraph'; readonly sizeTable?: unknown }): string | null {
  if (input.layout !== 'sable') return 'the refgraph layout evacuates on the CPU';
  if (input.sizeTable === undefined) return 'no type table for the device';
  return null;
}
