// The full V8 collection after the warm-up (collectors/collect-js-heap.ts) turns
// V8's --expose-gc on to get the gc function and off again at once: V8 stamps
// every code cache it writes with a hash of its flags, so a flag left on would
// stamp the compiled tier's code kept by this run with a hash no other run has,
// and the next run would throw that code away.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Script } from 'node:vm';
import { afterAll, describe, expect, it } from 'vitest';
import { collectJsHeap } from '../../src/collectors/collect-js-heap.js';

const dir = mkdtempSync(join(tmpdir(), 'minivm-js-heap-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('collectJsHeap', () => {
  it('collects, and a code cache written after it is taken by a process that never ran it', () => {
    let kept = 0;
    for (let i = 0; i < 10000; i++) kept += [i, i + 1].length;
    expect(kept).toBe(20000);
    expect(collectJsHeap()).toBeGreaterThanOrEqual(0);
    expect(collectJsHeap()).toBeGreaterThanOrEqual(0);
    const source = 'function twice(x) { return 2 * x; } twice(21);';
    const script = new Script(source);
    expect(script.runInThisContext()).toBe(42);
    const cache = join(dir, 'twice.cache');
    writeFileSync(cache, script.createCachedData());
    const check =
      `const { Script } = require('node:vm'); const s = new Script(${JSON.stringify(source)}, ` +
      `{ cachedData: require('node:fs').readFileSync(${JSON.stringify(cache)}) }); process.stdout.write(String(s.cachedDataRejected));`;
    const r = spawnSync(process.execPath, ['-e', check], { encoding: 'utf8' });
    expect(r).toMatchObject({ status: 0, stdout: 'false' });
  });
});
