/**
 * Sizes of the engines' dispatches and budgets, chosen for the adapter at
 * start-up unless `--gpu-opt` sets them; docs/decisions/r19g-* records the
 * measurements behind each default.
 */
import { floorPow2 } from '../device/buffers.js';
import type { GpuContext } from '../device/device.js';
import type { GpuOptions } from '../options.js';

/** Workgroup sizes, counts and budgets for the adapter, unless the options set them. */
export interface Specialization {
  readonly workgroupSize: number;
  readonly workgroups: number;
  /** Hybrid stack elements per thread (gpu-dfs). */
  readonly lcap: number;
  readonly steps: number;
  /** gpu-dfs: stack elements an idle thread scans per dispatch. */
  readonly scan: number;
  /** gpu-dfs: the step discount of a pointer chase (GpuOptions.dfsChain). */
  readonly chain: number;
  /** gpu-dfs: the same after a round that ended broad (GpuOptions.dfsBroadChain). */
  readonly broadChain: number;
  /** gpu-dfs: nodes a pointer chase loads and marks per round trip (GpuOptions.dfsAhead). */
  readonly ahead: number;
}

/** Chooses sizes for the adapter, as TornadoVM specializes to the device's local memory.
 *  FastCollect found 128 threads per workgroup best (with a 128-element local
 *  stack from 64 KiB); Maas et al. ran 256. A software rasterizer runs every
 *  thread on two or so CPU cores, so it gets few, small workgroups. */
export function specialize(ctx: GpuContext, o: GpuOptions, engine: 'dfs' | 'bfs'): Specialization {
  const soft = ctx.adapter.software;
  const maxWg = floorPow2(Math.min(ctx.limits.maxComputeInvocationsPerWorkgroup, ctx.limits.maxComputeWorkgroupSizeX));
  const wantWg = o.workgroupSize || (soft ? 64 : engine === 'dfs' ? 128 : 256);
  const workgroupSize = Math.min(maxWg, floorPow2(wantWg));
  const workgroups = Math.min(
    ctx.limits.maxComputeWorkgroupsPerDimension,
    o.workgroups || (soft ? 4 : engine === 'dfs' ? 1024 : 512),
  );
  // The hybrid stack takes its share of workgroup memory; the rest is left for
  // the compiler's own use. At most 256 elements: deeper local stacks only delay
  // spilling, which is what makes work visible to idle threads.
  const share = Math.min(1, Math.max(0, o.hybridShare));
  const lcap = Math.max(
    1,
    Math.min(256, Math.floor((share * ctx.limits.maxComputeWorkgroupStorageSize) / (workgroupSize * 4))),
  );
  // Shorter rounds spill hybrid stacks where idle threads find them sooner, longer
  // ones suit a list with nothing to spill (docs/decisions/r19g-0004).
  const steps = o.dfsSteps || 64;
  const scan = o.dfsScan || 64;
  // The budget above exists to spill work where idle threads can take it, and a
  // thread chasing a list holds none, so its steps cost less (r19g-0004).
  const chain = o.dfsChain || 4;
  // A broad round (more busy threads than the narrow-tail threshold) has no
  // tail for the CPU to take over, so its chases run longer (dfs.wgsl dfs_advance).
  const broadChain = Math.max(chain, o.dfsBroadChain || 16);
  // Nodes a chase marks per round trip (dfs.wgsl chaseAhead): more run faster
  // until registers run out, and a software adapter's shader compiler slows with
  // the longer unrolled runs (docs/decisions/r19g-0002).
  const ahead = Math.min(32, Math.max(1, Math.floor(o.dfsAhead) || (soft ? 8 : 16)));
  return { workgroupSize, workgroups, lcap, steps, scan, chain, broadChain, ahead };
}