/** The collectors a run may choose (`--gc`), in the order `compare` runs them. */
export const COLLECTOR_NAMES = ['none', 'serial', 'parallel', 'gpu-dfs', 'gpu-bfs', 'auto'] as const;
export type CollectorName = (typeof COLLECTOR_NAMES)[number];

/** The collectors that mark (and evacuate) on a GPU. */
export function isGpuCollector(gc: string): gc is 'gpu-dfs' | 'gpu-bfs' {
  return gc === 'gpu-dfs' || gc === 'gpu-bfs';
}
