/** `--gpu-opt` parsing and the papers' ablation labels (no device needed). */
import { describe, expect, it } from 'vitest';
import { NoGpuAdapterError } from '../../src/gpu/device/device.js';
import { baselineOptions, DEFAULT_GPU_OPTIONS, optionsLabel, parseGpuOptions } from '../../src/gpu/options.js';

describe('--gpu-opt', () => {
  it('defaults to all optimizations', () => {
    expect(parseGpuOptions('', 'gpu-dfs')).toEqual(DEFAULT_GPU_OPTIONS);
    expect(parseGpuOptions('all', 'gpu-bfs')).toEqual(DEFAULT_GPU_OPTIONS);
  });

  it('none is the paper baseline', () => {
    const o = parseGpuOptions('none', 'gpu-dfs');
    expect(o).toEqual(baselineOptions());
    expect(o.atomic || o.hybrid || o.balance || o.vector || o.divergence || o.fallback).toBe(false);
    expect(o.offsets).toBe('histogram');
  });

  it('areas= picks where gpu-dfs idle threads look for work, outside all and none', () => {
    expect(DEFAULT_GPU_OPTIONS.stealAreas).toBe('range');
    expect(parseGpuOptions('areas=occupied', 'gpu-dfs')).toEqual({ ...DEFAULT_GPU_OPTIONS, stealAreas: 'occupied' });
    expect(parseGpuOptions('areas=occupied,none', 'gpu-dfs').stealAreas).toBe('occupied');
    expect(() => parseGpuOptions('areas=eden', 'gpu-dfs')).toThrow(/areas=range or areas=occupied/);
  });
  it('order= picks the young live list order, outside all and none', () => {
    // Both engines hand the CPU their live list in address order unless told otherwise.
    expect(DEFAULT_GPU_OPTIONS.liveOrder).toBe('address');
    for (const engine of ['gpu-dfs', 'gpu-bfs'] as const) {
      expect(parseGpuOptions('', engine).liveOrder).toBe('address');
      expect(parseGpuOptions('none', engine).liveOrder).toBe('address');
      expect(parseGpuOptions('order=mark', engine)).toEqual({ ...DEFAULT_GPU_OPTIONS, liveOrder: 'mark' });
      expect(parseGpuOptions('none,order=mark', engine)).toEqual({ ...baselineOptions(), liveOrder: 'mark' });
    }
    expect(baselineOptions().liveOrder).toBe('address');
    expect(parseGpuOptions('none,order=address', 'gpu-bfs').liveOrder).toBe('address');
    expect(parseGpuOptions('order=address,none', 'gpu-bfs').liveOrder).toBe('address');
    expect(parseGpuOptions('order=address,order=mark', 'gpu-bfs').liveOrder).toBe('mark');
    expect(() => parseGpuOptions('order=random', 'gpu-dfs')).toThrow(/order=address or order=mark/);
  });

  it('upload= picks when eden goes to the mirror, outside all and none', () => {
    expect(DEFAULT_GPU_OPTIONS.edenUpload).toBe('ahead');
    expect(parseGpuOptions('none', 'gpu-bfs').edenUpload).toBe('ahead');
    expect(parseGpuOptions('upload=pause', 'gpu-dfs')).toEqual({ ...DEFAULT_GPU_OPTIONS, edenUpload: 'pause' });
    expect(parseGpuOptions('upload=pause,none', 'gpu-dfs').edenUpload).toBe('pause');
    expect(() => parseGpuOptions('upload=never', 'gpu-dfs')).toThrow(/upload=ahead or upload=pause/);
  });

  it('a list of names starts from none', () => {
    const o = parseGpuOptions('atomic,hybrid', 'gpu-dfs');
    expect([o.atomic, o.hybrid, o.balance, o.vector]).toEqual([true, true, false, false]);
  });

  it('reads FastCollect letters for gpu-dfs (D = load balancing)', () => {
    const o = parseGpuOptions('A,D', 'gpu-dfs');
    expect([o.atomic, o.hybrid, o.balance, o.vector]).toEqual([true, false, true, false]);
    expect(optionsLabel(o, 'gpu-dfs')).toBe('GPU+A+D');
    expect(optionsLabel(parseGpuOptions('O', 'gpu-dfs'), 'gpu-dfs')).toBe('GPU+O');
    expect(parseGpuOptions('W', 'gpu-dfs').divergence).toBe(true);
  });

  it('reads Maas letters for gpu-bfs (D = divergence, P = prefix sum, F = fallback)', () => {
    const o = parseGpuOptions('P,D,F', 'gpu-bfs');
    expect(o.offsets).toBe('prefix');
    expect([o.divergence, o.fallback, o.vector]).toEqual([true, true, false]);
    expect(optionsLabel(o, 'gpu-bfs')).toBe('GPU+F+D+P');
  });

  it('removes with a minus and sets numbers with =', () => {
    const o = parseGpuOptions('all,-vector,threshold=32,min-iters=3,wg=128', 'gpu-bfs');
    expect(o.vector).toBe(false);
    expect(o.atomic).toBe(true);
    expect([o.fallbackThreshold, o.fallbackMinIterations, o.workgroupSize]).toEqual([32, 3, 128]);
    expect(parseGpuOptions('-hybrid', 'gpu-dfs').hybrid).toBe(false);
    const d = parseGpuOptions('steps=32,chain=2,broad-chain=8', 'gpu-dfs');
    expect([d.dfsSteps, d.dfsChain, d.dfsBroadChain]).toEqual([32, 2, 8]);
    expect(parseGpuOptions('prefix,-prefix', 'gpu-bfs').offsets).toBe('histogram');
    expect(parseGpuOptions('all', 'gpu-dfs').dfsChase).toBe('loop');
    expect(parseGpuOptions('none,chase=step', 'gpu-dfs').dfsChase).toBe('step');
    expect(parseGpuOptions('chase=step,none', 'gpu-dfs').dfsChase).toBe('step');
    expect(() => parseGpuOptions('chase=fast', 'gpu-dfs')).toThrow(/chase=loop or chase=step/);
  });

  it('rejects unknown names in one line', () => {
    expect(() => parseGpuOptions('turbo', 'gpu-dfs')).toThrow(/unknown optimization 'turbo'/);
    expect(() => parseGpuOptions('P', 'gpu-dfs')).toThrow(/unknown optimization/);
    expect(() => parseGpuOptions('threshold=x', 'gpu-bfs')).toThrow(/bad setting/);
  });

  it('NoGpuAdapterError says in one line how to get an adapter', () => {
    const e = new NoGpuAdapterError();
    expect(e.message).not.toContain('\n');
    expect(e.message).toMatch(/^no WebGPU adapter found: .*setup-vulkan\.sh/);
  });
});
