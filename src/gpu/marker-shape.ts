/**
 * What a GPU marker is from its configuration alone: its name, its options and
 * the constraints the plan reads. The worker's `GpuMarker` and the main
 * thread's `WorkerGpuMarker` both take them from here, so the two cannot
 * disagree; this file loads nothing of Dawn.
 */
import type { MarkerConstraints } from '../gc/marker.js';
import { DEFAULT_GPU_OPTIONS, parseGpuOptions, type GpuOptions } from './options.js';
import type { GpuMarkerConfig } from './worker/gpu-marker.js';

export interface GpuMarkerShape {
  readonly name: string;
  readonly options: GpuOptions;
  readonly constraints: MarkerConstraints;
}

export function gpuMarkerShape(config: GpuMarkerConfig): GpuMarkerShape {
  const o = config.options;
  const options = typeof o === 'string' ? parseGpuOptions(o, config.engine) : { ...DEFAULT_GPU_OPTIONS, ...(o ?? {}) };
  const input = config.input;
  return {
    name: `${config.engine}/${input.layout}`,
    options,
    constraints: {
      keepsHeapCopy: true,
      // The mirror replays the plan's evacuations with the type table's sizes (mirror/replay.ts).
      replaysEvacuation: input.layout === 'sable' && input.sizeTable !== undefined,
      // The remembered set is read from the mirror's heap words (mirror/remset.ts).
      scansRememberedSet: input.layout === 'sable',
      copiesYoung: false,
      evacuatesYoung: options.evacuate === 'gpu',
    },
  };
}
