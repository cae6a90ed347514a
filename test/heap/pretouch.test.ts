// --pretouch: every page of the heap written once before the program runs,
// without changing a word, over the main thread and workers; the run's output
// stays the same and --stats says what was touched.
import { describe, expect, it } from 'vitest';
import { pretouch, splitPages } from '../../src/heap/pretouch.js';
import { PAGE_WORDS, touchPages } from '../../src/heap/pretouch-pages.js';
import { minivm } from '../minivm.js';

describe('splitPages', () => {
  it('covers every word of every array once, in order, in at most `threads` slices', () => {
    const a = new Int32Array(new SharedArrayBuffer(4 * 10_000));
    const b = new Int32Array(new SharedArrayBuffer(4 * 3_001));
    for (const threads of [1, 2, 3, 7, 16]) {
      const slices = splitPages([a, b], threads);
      expect(slices.length).toBeLessThanOrEqual(threads);
      const seen = new Map<Int32Array, number>([[a, 0], [b, 0]]);
      for (const s of slices.flat()) {
        expect(s.start).toBe(seen.get(s.words));
        expect(s.end).toBeGreaterThan(s.start);
        seen.set(s.words, s.end);
      }
      expect([seen.get(a), seen.get(b)]).toEqual([a.length, b.length]);
    }
  });
});

describe('touchPages', () => {
  it('leaves every word as it was', () => {
    const words = new Int32Array(new SharedArrayBuffer(4 * (3 * PAGE_WORDS + 5)));
    for (let i = 0; i < words.length; i++) words[i] = (i * 2654435761) | 0;
    const before = words.slice();
    touchPages([{ words, start: 0, end: words.length }]);
    expect(words).toEqual(before);
  });
});

describe('pretouch', () => {
  it('runs its slices on workers as well as the main thread and changes nothing', async () => {
    const words = new Int32Array(new SharedArrayBuffer(4 * 64 * PAGE_WORDS));
    words[5] = 7;
    words[words.length - 1] = -3;
    const ms = await pretouch([words], 4);
    expect(ms).toBeGreaterThanOrEqual(0);
    expect([words[5], words[words.length - 1]]).toEqual([7, -3]);
  });
});

describe('minivm run --pretouch', () => {
  it('prints the same output and reports the touched heap in --stats', () => {
    const plain = minivm(['run', 'programs/binary_trees.mini', '--heap', '16m']);
    const touched = minivm(['run', 'programs/binary_trees.mini', '--heap', '16m', '--pretouch', '--threads', '2', '--stats']);
    expect(touched.status).toBe(0);
    expect(plain.status).toBe(0);
    expect(touched.stdout.startsWith(plain.stdout)).toBe(true);
    expect(touched.stdout + touched.stderr).toMatch(/pretouch: 16\.0 MiB of heap and [\d.]+ [KM]iB of collector tables on one thread, [\d.]+ ms before the program ran/);
  });

  it('touches on the threads that will write the heap: the parallel collector\'s, one for serial', () => {
    const tables: Record<string, number> = {};
    for (const [gc, threads] of [['parallel', '2 threads'], ['serial', 'one thread']] as const) {
      const r = minivm(['run', 'programs/binary_trees.mini', '--heap', '16m', '--gc', gc, '--pretouch', '--threads', '2', '--stats']);
      expect(r.status).toBe(0);
      const m = new RegExp(`pretouch: 16\\.0 MiB of heap and ([\\d.]+) ([KM])iB of collector tables on ${threads}, [\\d.]+ ms before the program ran`).exec(r.stderr);
      expect(m, r.stderr).not.toBeNull();
      tables[gc] = Number(m![1]) * (m![2] === 'M' ? 1024 : 1);
    }
    // Serial's: the card table and block offsets; parallel's also its bitmap and result buffers.
    expect(tables.serial).toBeGreaterThan(0);
    expect(tables.parallel).toBeGreaterThan(tables.serial! + 512);
  });

  it("touches the refgraph layout's graphs too: the program writes a vertex at every allocation", () => {
    const r = minivm(['run', 'programs/binary_trees.mini', '--heap', '16m', '--layout', 'refgraph', '--pretouch', '--stats']);
    expect(r.status).toBe(0);
    const m = /pretouch: 16\.0 MiB of heap and ([\d.]+) MiB of collector tables/.exec(r.stderr);
    expect(m, r.stderr).not.toBeNull();
    // Three generation graphs (young, tenured and its compaction's spare), each
    // reserved for its generation's most objects: half a vertex word and an edge word
    // per heap word, more than the heap itself (serial's tables alone are under 1 MiB).
    expect(Number(m![1])).toBeGreaterThan(16);
  });
});
