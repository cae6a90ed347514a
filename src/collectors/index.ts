/**
 * collectors/: the composition root above gc/ and gpu/. It turns a run's options
 * into a heap with its collector (the serial, parallel, GPU or auto marker inside
 * the generational plan), and is the one room that imports both gc/ and gpu/;
 * the CLI asks it for memory and never builds a collector itself.
 */

export {
  createMemory,
  formatAutoChoices,
  formatStats,
  isNoGpuError,
  MemorySetupError,
  releaseGpu,
  type Memory,
  type MemoryHooks,
  type MemoryIo,
  type MemoryOptions,
  type RunStats,
} from './memory.js';
export { AutoMarker, type AutoEngine } from './auto-marker.js';
export { PauseModel, type Engine } from './pause-model.js';
export { COLLECTOR_NAMES, type CollectorName } from './names.js';
