/**
 * `--pretouch`: every page of the heap's shared memory written once before the
 * program runs, as HotSpot's -XX:+AlwaysPreTouch does. The operating system
 * maps a page on its first write, and on a virtual machine that first write can
 * cost more than copying the page's objects; without this, the first collection
 * that copies into a survivor space or a part of tenured pays it inside the
 * pause. The price is start-up time (reported apart from pauses) and a resident
 * heap from the start.
 *
 * The pages are split over `threads` threads (the main thread and short-lived
 * workers), since mapping pages scales with cores.
 */

import { workerThreads } from './worker-threads.js';
import { workerScript } from './worker-script.js';
import { touchPages, type PretouchSlice } from './pretouch-pages.js';
import { now } from './clock.js';

/** Writes every page of `arrays` once, over `threads` threads; returns the milliseconds it took. */
export async function pretouch(arrays: readonly Int32Array[], threads: number): Promise<number> {
  const t0 = now();
  const slices = splitPages(arrays, Math.max(1, Math.floor(threads)));
  const { Worker } = workerThreads();
  const workers = slices.slice(1).map(
    (slice) =>
      new Promise<void>((resolve, reject) => {
        const w = new Worker(workerScript('heap/pretouch-worker.js', 'the pre-touch worker script'), { workerData: slice });
        w.once('error', reject);
        w.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`pre-touch worker exited with ${code}`))));
      }),
  );
  if (slices.length > 0) touchPages(slices[0]!);
  await Promise.all(workers);
  return now() - t0;
}

/** `threads` slices of about equal page counts over all the arrays, in order. */
export function splitPages(arrays: readonly Int32Array[], threads: number): PretouchSlice[][] {
  const total = arrays.reduce((s, a) => s + a.length, 0);
  const per = Math.ceil(total / threads);
  const out: PretouchSlice[][] = [];
  let current: PretouchSlice[] = [];
  let room = per;
  for (const words of arrays) {
    let start = 0;
    while (start < words.length) {
      const end = Math.min(words.length, start + room);
      current.push({ words, start, end });
      room -= end - start;
      start = end;
      if (room === 0) {
        out.push(current);
        current = [];
        room = per;
      }
    }
  }
  if (current.length > 0) out.push(current);
  return out;
}
