/**
 * The reference graphs' word formats (ref-graph.ts), in a module of its own that
 * imports nothing: esbuild inlines such a module's constants into the bundle, and the
 * program's every allocation and reference store reads them.
 */

/** An edge to tenured vertex v is TENURED_EDGE | (v + 1); to young vertex v, v + 1. */
export const TENURED_EDGE = 0x80000000;
/** The same bit as an int32, for code that ORs it in and stores the result into a
 *  Uint32Array (the store keeps the same 32 bits; V8 keeps the value a small integer). */
export const TENURED_EDGE_INT = 0x80000000 | 0;
/** Words per vertex: first edge, object address. The program writes a vertex at every
 *  allocation, so the fewer its words, the fewer pages it touches. */
export const VERTEX_WORDS = 2;
/** Offsets of a vertex's words. */
export const VERTEX_FIRST = 0;
export const VERTEX_ADDRESS = 1;
