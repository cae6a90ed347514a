// The GPU device lives in a worker thread so that Dawn's detaches of mapped
// ArrayBuffers never invalidate V8's "array buffer detaching" protector on the
// main thread, where the interpreter and the evacuation run (gpu/protocol.ts).
// V8 prints a line each time an isolate's protector is invalidated
// (--trace-protector-invalidation), once per isolate. The run detaches one
// buffer on the main thread as it exits (--import of an exit hook): that prints
// a line only if the main thread's protector was still intact. So a GPU run
// must print two such lines (the worker's, the hook's), a serial run one.
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { scratch } from '../minivm.js';

const { dir } = scratch('minivm-isolate-');
const hook = join(dir, 'detach-at-exit.mjs');
writeFileSync(
  hook,
  "process.on('exit', () => { const b = new ArrayBuffer(8); structuredClone(b, { transfer: [b] }); });\n",
);

function detachingInvalidations(gc: string): { count: number; status: number; stdout: string } {
  const r = spawnSync(
    process.execPath,
    ['--trace-protector-invalidation', '--import', pathToFileURL(hook).href, 'bin/minivm.js', 'run',
      'programs/binary_trees.mini', '--gc', gc, '--heap', '4m', '--stats'],
    // As the filtered child of cli/dawn-filter.ts runs, so that the count is of the
    // process that hosts the interpreter and the GPU worker, not of its parent too.
    { encoding: 'utf8', env: { ...process.env, MINIVM_STDERR_FILTERED: '1' } },
  );
  const count = (r.stdout.match(/Invalidating protector cell ArrayBufferDetaching/g) ?? []).length;
  return { count, status: r.status ?? -1, stdout: r.stdout };
}

describe("the GPU worker keeps Dawn's detaches off the main thread", () => {
  it('serial: only the exit hook invalidates the protector', () => {
    const r = detachingInvalidations('serial');
    expect(r.status).toBe(0);
    expect(r.count).toBe(1);
  });

  for (const gc of ['gpu-dfs', 'gpu-bfs']) {
    it(`${gc}: the worker's isolate and then the main thread's, at exit`, () => {
      const r = detachingInvalidations(gc);
      expect(r.status).toBe(0);
      expect(r.count, r.stdout.slice(-2000)).toBe(2);
    });
  }
});
