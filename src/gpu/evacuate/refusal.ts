/**
 * Which GPU markers' inputs can evacuate young collections on the device; the
 * main thread's marker (host.ts) asks too, so this file loads nothing of Dawn.
 */
import { keepsHeapMirror, type RefGraphInput, type SableInput } from '../marker-shape.js';
import type { GpuOptions } from '../options.js';

/** Why a young collection of `input` cannot evacuate on the device, or null. */
export function evacuationRefusal(input: SableInput | RefGraphInput, options: GpuOptions): string | null {
  if (!keepsHeapMirror(input, options)) return 'no heap mirror beside the reference graphs';
  if (input.sizeTable === undefined) return 'no type table for the device';
  return null;
}
