// `--gpu-opt evacuate=gpu|cpu` and what --log-gc and --stats say of where a young
// collection evacuated. Text only: no device.
import { describe, expect, it } from 'vitest';
import { DEFAULT_GPU_OPTIONS, parseGpuOptions } from '../../src/gpu/options.js';
import { emptyPhases, formatGcRecord, formatTransfers, type GcRecord } from '../../src/heap/telemetry.js';

function record(over: Partial<GcRecord>): GcRecord {
  return {
    number: 1, kind: 'young', cause: 'eden full', collector: 'gpu-dfs/sable', usedBefore: 0, usedAfter: 0,
    capacity: 1 << 20, pauseMs: 1, phases: emptyPhases(), marker: { mark: 1, uploadBytes: 2048 },
    liveYoungObjects: 0, survivedBytes: 0, promotedBytes: 0, ...over,
  };
}

describe('evacuate option', () => {
  it('defaults to the GPU and takes gpu or cpu, and nothing else', () => {
    expect(DEFAULT_GPU_OPTIONS.evacuate).toBe('gpu');
    expect(DEFAULT_GPU_OPTIONS.evacuateSlots).toBe('gpu');
    for (const engine of ['gpu-dfs', 'gpu-bfs'] as const) {
      expect(parseGpuOptions('evacuate=cpu', engine).evacuate).toBe('cpu');
      expect(parseGpuOptions('slots=cpu', engine).evacuateSlots).toBe('cpu');
      expect(() => parseGpuOptions('slots=maybe', engine)).toThrow(/slots=gpu or slots=cpu/);
      expect(parseGpuOptions('evacuate=gpu', engine).evacuate).toBe('gpu');
      expect(parseGpuOptions('none,evacuate=gpu', engine).evacuate).toBe('gpu');
      expect(parseGpuOptions('evacuate=gpu,evacuate=cpu', engine).evacuate).toBe('cpu');
      // Not a marking optimization: all and none leave it alone.
      expect(parseGpuOptions('evacuate=gpu,none', engine).evacuate).toBe('gpu');
      expect(() => parseGpuOptions('evacuate=fpga', engine)).toThrow(/evacuate=cpu or evacuate=gpu/);
      // Writer threads: chosen from the cores unless a count is given; all and none leave them alone.
      expect(DEFAULT_GPU_OPTIONS.writers).toBeLessThan(0);
      expect(parseGpuOptions('writers=3', engine).writers).toBe(3);
      expect(parseGpuOptions('writers=0,none', engine).writers).toBe(0);
      expect(() => parseGpuOptions('writers=-2', engine)).toThrow(/bad setting 'writers=-2'/);
    }
  });

  it('--log-gc names where the evacuation ran, its parts, or why the CPU did it', () => {
    const gpu = formatGcRecord(record({
      evacuation: { where: 'gpu', assignMs: 0.5, copyMs: 1.25, readbackMs: 2, readbackBytes: 3 << 20, writeMs: 4, fixMs: 0.1 },
    }));
    expect(gpu).toMatch(/ evacuate=gpu assign=0\.50ms copy\+fix=1\.25ms read-back=3M\/2\.00ms write=4\.00ms cpu-fix=0\.10ms$/);
    const slots = formatGcRecord(record({ evacuation: { where: 'gpu', writeMs: 4, fixMs: 0.1, slots: 'gpu' } }));
    expect(slots).toMatch(/ write=4\.00ms cpu-fix=0\.10ms slots=gpu$/);
    const writers = formatGcRecord(record({ evacuation: { where: 'gpu', writeMs: 4, fixMs: 0.1, slots: 'gpu', writers: 1, writeWaitMs: 1.5, writeOwnShare: 0.27 } }));
    expect(writers).toMatch(/ write=4\.00ms cpu-fix=0\.10ms slots=gpu writers=1\/waited=1\.50ms\/own=27%$/);
    const cpu = formatGcRecord(record({ evacuation: { where: 'cpu', reason: 'no free chunk of 4096 bytes for the promotions' } }));
    expect(cpu).toMatch(/ evacuate=cpu \(no free chunk of 4096 bytes for the promotions\)$/);
    expect(formatGcRecord(record({}))).not.toMatch(/evacuate/);
  });

  it('--stats totals the bytes moved each way', () => {
    // Uploads: 2K + 1M + 2K in the pauses.
    const records = [
      record({ evacuation: { where: 'gpu', readbackBytes: 1 << 20 } }),
      record({ evacuation: { where: 'cpu', reason: 'x' }, marker: { mark: 1, uploadBytes: 1 << 20, aheadBytes: 2 << 20 } }),
      record({ kind: 'full', evacuation: { where: 'cpu', reason: 'full collection' } }),
    ];
    expect(formatTransfers(records)).toBe(
      'gpu transfers: uploaded 1.0 MiB in pauses and 2.0 MiB ahead, 1 of 2 young evacuations on the GPU reading back 1.0 MiB',
    );
    expect(formatTransfers([record({ marker: { mark: 1 } })])).toBeNull();
  });
});
