/**
 * The clock every phase and run is timed with: milliseconds on the process's
 * monotonic clock, which every thread shares. `performance.now()` would do, but its
 * first use loads Node's performance modules, at every start of every run
 * (docs/decisions/s66-01-start-up-without-node-v8.md), and each thread's has an origin of its own.
 */
export function now(): number {
  const [s, ns] = process.hrtime();
  return s * 1000 + ns / 1e6;
}
