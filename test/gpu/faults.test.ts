// GPU faults injected with MINIVM_GPU_FAULT (src/gpu/faults.ts) where real ones
// surface in the GPU worker: a lost device, an allocation refused by the
// 'out-of-memory' error scope, a read-back mapping refused. The collection a
// fault strikes finishes on the CPU from the CPU's heap and every later one is
// serial's, so under --gc-stress and --verify-gc the program prints exactly
// what serial prints, exits 0, says so in one line, and --json-stats counts it.
// Each case is a fresh process on lavapipe (the request counter is per worker).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { minivm, scratch } from '../minivm.js';

// Lists hung off tenured arrays: old-to-young stores, promotions and garbage.
const SMALL = `
class Node {
  var value: int;
  var next: Node;
  init(value: int) { this.value = value; }
}
var head: Node = null;
var keep = new Node[50];
for (var i = 0; i < LOOPS; i = i + 1) {
  var n = new Node(i);
  n.next = head;
  if (i % 3 == 0) head = n;
  keep[i % 50] = new Node(i * 2);
}
var sum = 0;
var p = head;
while (p != null) { sum = sum + p.value; p = p.next; }
for (var j = 0; j < 50; j = j + 1) sum = sum + keep[j].value;
print(sum);
`;

const dir = scratch('minivm-faults-');
const small = dir.program('small.mini', SMALL.replace('LOOPS', '400'));
// Allocates several eden steps between collections: eden goes up ahead of them.
const big = dir.program('big.mini', SMALL.replace('LOOPS', '6000'));
const expected: Record<string, string> = {};

interface Fallback {
  fault: string;
  during: string;
  collection: number;
  cpuCollections: number;
}

let runs = 0;
/** Runs `file` under `gc` with the fault, and checks what every faulted run must show. */
function faulted(file: string, fault: string, args: string[]): { stderr: string; fallback: Fallback } {
  const json = join(dir.dir, `stats-${++runs}.json`);
  const r = minivm(['run', ...args, '--heap', '1m', '--verify-gc', '--json-stats', json, file], {
    env: { MINIVM_GPU_FAULT: fault },
    timeout: 240_000,
  });
  expect(r.stderr).not.toMatch(/internal error|^\s+at /m);
  expect(r.status, r.stderr).toBe(0);
  expect(r.stdout).toBe(expected[file]);
  expect(r.stderr.match(/later ones run on the CPU \(serial marking\)/g)?.length, r.stderr).toBe(1);
  const stats = JSON.parse(readFileSync(json, 'utf8')) as { youngCollections: number; fullCollections: number; gpuFallback: Fallback };
  const f = stats.gpuFallback;
  expect(f).not.toBeNull();
  // The collection it struck and every later one ran on the CPU.
  expect(f.cpuCollections).toBe(stats.youngCollections + stats.fullCollections - f.collection + 1);
  return { stderr: r.stderr, fallback: f };
}

const STRESS = ['--gc-stress', '50'];

beforeAll(() => {
  for (const file of [small, big]) {
    const r = minivm(['run', '--gc', 'serial', '--heap', '1m', file]);
    expect(r.status, r.stderr).toBe(0);
    expected[file] = r.stdout;
  }
});

describe('GPU faults fall back to the CPU', () => {
  it('gpu-dfs, sable: the device lost during the first mark', () => {
    const { stderr, fallback } = faulted(small, 'lose-device@1', ['--gc', 'gpu-dfs', ...STRESS]);
    expect(fallback).toMatchObject({ fault: 'device-lost', during: 'mark', collection: 1 });
    expect(stderr).toMatch(/^minivm: gpu-dfs: the GPU device was lost: injected \(MINIVM_GPU_FAULT=lose-device@1\) \(mark, collection 1\)/m);
  }, 300_000);

  it('gpu-dfs, sable: a refused allocation in the second collection', () => {
    const { fallback } = faulted(small, 'alloc-fail@4', ['--gc', 'gpu-dfs', '--gpu-opt', 'evacuate=cpu', ...STRESS]);
    expect(fallback).toMatchObject({ fault: 'out-of-memory', collection: 2 });
  }, 300_000);

  it('gpu-bfs, sable: the device lost during the first mark', () => {
    const { fallback } = faulted(small, 'lose-device@1', ['--gc', 'gpu-bfs', ...STRESS]);
    expect(fallback).toMatchObject({ fault: 'device-lost', during: 'mark', collection: 1 });
  }, 300_000);

  it('gpu-bfs, sable: a refused allocation while replaying the second evacuation', () => {
    const { fallback } = faulted(small, 'alloc-fail@5', ['--gc', 'gpu-bfs', '--gpu-opt', 'evacuate=cpu', ...STRESS]);
    expect(fallback).toMatchObject({ fault: 'out-of-memory', during: 'replay', collection: 2 });
  }, 300_000);

  it('gpu-dfs and gpu-bfs, refgraph: a refused allocation, a lost device', () => {
    expect(faulted(small, 'alloc-fail@1', ['--gc', 'gpu-dfs', '--layout', 'refgraph', ...STRESS]).fallback).toMatchObject({
      fault: 'out-of-memory', during: 'mark', collection: 1,
    });
    // A young collection's requests are mark, evacAssign (which finishes the
    // evacuation too when its promotions fit the buffer carved ahead: here none)
    // and verifyCopy: the fourth is the second collection's mark.
    expect(faulted(small, 'lose-device@4', ['--gc', 'gpu-bfs', '--layout', 'refgraph', ...STRESS]).fallback).toMatchObject({
      fault: 'device-lost', during: 'mark', collection: 2,
    });
  }, 600_000);

  // With evacuate=gpu a young collection's requests are mark, evacAssign (which
  // finishes the evacuation too when its promotions fit the buffer carved ahead:
  // here none) and verifyCopy: the second is the device's evacuation. A device
  // lost as it starts fails the assignment; a refused allocation fails the finish
  // at its last check, before it writes the heap. Either way the CPU evacuates
  // from the mark.
  it('evacuate=gpu: the device lost, or an allocation refused, in the device evacuation', () => {
    const lost = faulted(small, 'lose-device@2', ['--gc', 'gpu-dfs', '--gpu-opt', 'evacuate=gpu', '--log-gc', ...STRESS]);
    expect(lost.fallback).toMatchObject({ fault: 'device-lost', during: 'evacuation', collection: 1 });
    expect(lost.stderr).toMatch(/^\[[\d.]+s\]\[gc 1\] .* evacuate=cpu \(the GPU failed: device-lost\)/m);
    const oom = faulted(small, 'alloc-fail@2', ['--gc', 'gpu-bfs', '--gpu-opt', 'evacuate=gpu', '--log-gc', ...STRESS]);
    expect(oom.fallback).toMatchObject({ fault: 'out-of-memory', during: 'evacuation', collection: 1 });
    expect(oom.stderr).toMatch(/^\[[\d.]+s\]\[gc 1\] .* evacuate=cpu \(the GPU failed: out-of-memory\)/m);
    // Under refgraph the device rebuilds the graphs too: they are as the mark left them, and the CPU's rebuild follows.
    const graphs = faulted(small, 'lose-device@2', ['--gc', 'gpu-dfs', '--layout', 'refgraph', '--log-gc', ...STRESS]);
    expect(graphs.fallback).toMatchObject({ fault: 'device-lost', during: 'evacuation', collection: 1 });
    expect(graphs.stderr).toMatch(/^\[[\d.]+s\]\[gc 1\] .* evacuate=cpu \(the GPU failed: device-lost\)/m);
  }, 600_000);

  it('a read-back mapping refused', () => {
    expect(faulted(small, 'map-fail@1', ['--gc', 'gpu-bfs', ...STRESS]).fallback).toMatchObject({
      fault: 'map-failed', during: 'mark', collection: 1,
    });
  }, 300_000);

  it('the device lost between requests, while the program runs: the next request finds it', () => {
    const { stderr, fallback } = faulted(small, 'lose-device-after@1', ['--gc', 'gpu-dfs', ...STRESS]);
    expect(fallback).toMatchObject({ fault: 'device-lost', collection: 1 });
    expect(fallback.during).not.toBe('mark');
    expect(stderr).toMatch(/lose-device-after@1/);
  }, 300_000);

  // Without --verify-gc the device evacuates a young collection in its mark's
  // request (decision s62-04); lost after that request replied, while the program
  // runs, the next collection's mark finds the loss, and the CPU marks from then on.
  it('the device lost after a collection it marked and evacuated in one request: the next mark finds it', () => {
    const r = minivm(['run', '--gc', 'gpu-dfs', '--gpu-opt', 'evacuate=gpu', '--gc-stress', '50', '--heap', '1m', '--log-gc', small], {
      env: { MINIVM_GPU_FAULT: 'lose-device-after@1' },
      timeout: 240_000,
    });
    expect(r.stderr).not.toMatch(/internal error|^\s+at /m);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toBe(expected[small]);
    expect(r.stderr).toMatch(/^\[[\d.]+s\]\[gc 1\] young .* evacuate=gpu .* requests=0/m);
    expect(r.stderr).toMatch(/lose-device-after@1\) \(mark, collection 2\)/);
    expect(r.stderr).toMatch(/^\[[\d.]+s\]\[gc 2\] young .* evacuate=cpu \(the GPU marker fell back to the CPU\)/m);
  }, 300_000);

  it('the device lost between collections, uploading eden ahead', () => {
    const { stderr, fallback } = faulted(big, 'lose-device@1', ['--gc', 'gpu-dfs']);
    expect(fallback).toMatchObject({ fault: 'device-lost', during: 'eden upload', collection: 1 });
    expect(stderr).toMatch(/\(eden upload, before collection 1\)/);
  }, 300_000);

  it('a malformed MINIVM_GPU_FAULT is a usage error', () => {
    const r = minivm(['run', '--gc', 'gpu-dfs', small], { env: { MINIVM_GPU_FAULT: 'lose-device@0' } });
    expect(r.status).toBe(64);
    expect(r.stderr).toMatch(/MINIVM_GPU_FAULT: 'lose-device@0' is not KIND@N/);
    expect(r.stderr).not.toMatch(/^\s+at /m);
  });
});
