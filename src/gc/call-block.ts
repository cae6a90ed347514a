/**
 * Items per call of the collector's long loops (the evacuation's passes). V8
 * compiles a function it sees called often as a whole, but a loop that runs long
 * within one or two calls gets on-stack-replacement code, which every later call
 * enters from unoptimized code partway through its loop: a program of a few
 * collections then runs it so, in its pauses
 * (docs/decisions/s57-01-collector-loops-in-blocks.md).
 */
export const CALL_BLOCK = 256;
