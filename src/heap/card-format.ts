/**
 * The card table's geometry (card-table.ts), in a module of its own that imports
 * nothing: esbuild inlines such a module's constants into the bundle, and the write
 * barrier, the collectors and the GPU kernels' constants (gpu/kernels/constants.ts)
 * all read them.
 */

/** A card is 2^CARD_SHIFT words (512 bytes, HotSpot's card size). */
export const CARD_SHIFT = 7;
export const CARD_WORDS = 1 << CARD_SHIFT;
export const CARD_CLEAN = 0;
export const CARD_DIRTY = 1;
