/**
 * No compilation inside a pause, as a user runs it: the GPU worker's phase log
 * (MINIVM_GPU_PHASES, the main thread's `host-phases` lines) says, for every mark, how many pipelines the collection
 * work since the previous mark created (`compiled=`); start-up creates them all,
 * so each is 0, and `--stats` reports the start-up by step. On lavapipe, which
 * compiles a pipeline at its first dispatch: small programs, collected often.
 */
import { describe, expect, it } from 'vitest';
import { minivm, scratch } from '../minivm.js';

const PROGRAM = `
class Node {
  var next: Node;
  var child: Node;
  init(next: Node, child: Node) { this.next = next; this.child = child; }
}
// Eight heads, tenured early, each with a list of young children growing in
// front of its old ones (remembered slots), and garbage beside them.
var heads: Node = null;
for (var k = 0; k < 8; k = k + 1) heads = new Node(heads, null);
var sum = 0;
for (var round = 0; round < 30; round = round + 1) {
  var h = heads;
  while (h != null) {
    h.child = new Node(null, h.child);
    var garbage = new Node(null, null);
    h = h.next;
  }
  sum = sum + round;
}
print(sum);
`;

const dir = scratch('minivm-gpu-start-up-');
const file = dir.program('insert.mini', PROGRAM);

describe('GPU start-up creates and runs every pipeline', () => {
  for (const [gc, layout, gpuOpt] of [
    ['gpu-dfs', 'sable', 'evacuate=gpu,remset=0'],
    ['gpu-bfs', 'refgraph', 'all'],
  ] as const) {
    it(`${gc} ${layout} --gpu-opt ${gpuOpt} --gc-stress: no mark's collection work compiles`, () => {
      const r = minivm(['run', file, '--gc', gc, '--layout', layout, '--gpu-opt', gpuOpt, '--gc-stress', '40', '--tenure-age', '1', '--heap', '1m', '--stats'], {
        env: { MINIVM_GPU_PHASES: '1' },
      });
      // The warm-up's dispatches of no workgroups say nothing (Dawn warns of a direct one).
      expect(r.stderr).not.toMatch(/workgroup count of 0/);
      expect(r.status).toBe(0);
      expect(r.stdout).toContain('435');
      // The main thread's lines: the worker's own (gpu-phases) may be lost when the process exits.
      const marks = r.stderr.split('\n').filter((l) => l.startsWith('host-phases '));
      const compiled = marks.map((l) => Number(/ compiled=(\d+)$/.exec(l)?.[1]));
      expect(marks.some((l) => / full /.test(l))).toBe(true);
      expect(marks.some((l) => / young /.test(l))).toBe(true);
      expect(compiled).toEqual(marks.map(() => 0));
      const startup = /start-up [\d.]+ ?ms \(device [\d.]+ ?ms, (\d+) pipelines compiled and run once [\d.]+ ?ms, buffers [\d.]+ ?ms\)/.exec(r.stderr);
      expect(startup, r.stderr).not.toBeNull();
      expect(Number(startup![1])).toBeGreaterThan(0);
    });
  }
});
