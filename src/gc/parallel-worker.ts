/**
 * The parallel marker's worker, as a self-contained plain-JS program run with
 * `new Worker(PARALLEL_WORKER_SOURCE, { eval: true })`: no file to resolve, so it
 * loads the same way under vitest (which runs src/*.ts) and from dist/.
 *
 * Shared memory (all SharedArrayBuffers, set up by parallel-marker.ts):
 *   words   the heap's words (read only here)
 *   bitmap  one bit per heap word, set with Atomics.or (the winner of the OR traces)
 *   ctl     control words: LOCK (spinlock of the global queue), QTOP (chunks in the
 *           queue), IDLE (workers that found no work), ROOTCUR (next unclaimed root)
 *   queue   the global work queue: MAXCHUNKS chunks of up to CHUNK addresses,
 *           lengths in qlen; guarded by LOCK
 *   roots   the request's roots; workers claim RCHUNK at a time with Atomics.add
 *   types   kind, refBegin, refCount, refOffsets (Int32Array copies of the type table)
 *
 * Each worker traces depth-first from a private stack. Every 64 objects, a worker
 * whose stack holds more than one entry gives the top half (up to CHUNK) to the
 * global queue when another worker is idle or the queue is empty; a worker whose
 * stack runs dry takes a chunk from the queue.
 *
 * The hot loop is a small loop whose state lives in locals (top-level `let`s of a
 * script are context slots with hole checks, and a loop that also holds the refill
 * and sharing code ran 1.7x slower); `visit` is pasted into it where a reference is
 * found, as a macro. Atomics.or is the price of sharing the bitmap: on the 2-core
 * development machine it made a one-thread trace of 2.56M objects 3x slower than
 * the serial marker's plain OR.
 *
 * Termination: under LOCK, a worker either takes a chunk or increments IDLE; an idle
 * worker leaves IDLE (under LOCK) only by taking a chunk. Only non-idle workers push,
 * and roots are claimed before a worker first goes idle, so once IDLE equals the
 * number of workers the queue is empty and stays empty: every worker then finishes
 * and posts its live young objects back.
 */
/** Marks the object at EXPR if it is in range and unmarked, and pushes it (the macro). */
function visit(expr: string): string {
  return `{
      const c = ${expr};
      if (c >= lo && c < hi && c !== 0) {
        const w = c >>> 5, b = 1 << (c & 31);
        if ((bitmap[w] & b) === 0 && (Atomics.or(bitmap, w, b) & b) === 0) {
          if (young) {
            if (n === live.length) { const l = new Int32Array(n * 2); l.set(live); live = l; }
            live[n++] = c;
          }
          if (sp === stack.length) { const s2 = new Int32Array(sp * 2); s2.set(stack); stack = s2; }
          stack[sp++] = c;
        }
      }
    }`;
}

export const PARALLEL_WORKER_SOURCE = `
'use strict';
const { parentPort, workerData } = require('node:worker_threads');
const LOCK = 0, QTOP = 1, IDLE = 2, ROOTCUR = 3;
const RCHUNK = 64;
const { nworkers, CHUNK, MAXCHUNKS, KIND_INSTANCE, KIND_REF_ARRAY } = workerData;
const W = new Int32Array(workerData.words);
const B = new Int32Array(workerData.bitmap);
const C = new Int32Array(workerData.ctl);
const Q = new Int32Array(workerData.queue);
const QL = new Int32Array(workerData.qlen);
const sleepCell = new Int32Array(new SharedArrayBuffer(4));
const state = {
  kinds: new Int32Array(1), refBegin: new Int32Array(1), refCount: new Int32Array(1), refOffsets: new Int32Array(1),
  roots: new Int32Array(0), stack: new Int32Array(4096), live: new Int32Array(1024),
};

function lock(ctl) {
  while (Atomics.compareExchange(ctl, LOCK, 0, 1) !== 0) {}
}

/** Gives the top half of stack[0..sp) (at most CHUNK) to the queue; returns the new sp. */
function share(stack, sp) {
  const ctl = C;
  lock(ctl);
  const t = Atomics.load(ctl, QTOP);
  if (t < MAXCHUNKS) {
    let k = sp >>> 1;
    if (k > CHUNK) k = CHUNK;
    sp -= k;
    Q.set(stack.subarray(sp, sp + k), t * CHUNK);
    QL[t] = k;
    Atomics.store(ctl, QTOP, t + 1);
  }
  Atomics.store(ctl, LOCK, 0);
  return sp;
}

/**
 * Takes a chunk from the queue into state.stack (which it may replace) and returns
 * its size, or waits idle until one appears; returns 0 once every worker is idle.
 */
function acquire() {
  const ctl = C;
  let idle = false;
  let spins = 0;
  for (;;) {
    if (!idle || Atomics.load(ctl, QTOP) > 0) {
      lock(ctl);
      const t = Atomics.load(ctl, QTOP) - 1;
      if (t >= 0) {
        const k = QL[t];
        if (k > state.stack.length) state.stack = new Int32Array(Math.max(k, state.stack.length * 2));
        state.stack.set(Q.subarray(t * CHUNK, t * CHUNK + k), 0);
        Atomics.store(ctl, QTOP, t);
        if (idle) Atomics.sub(ctl, IDLE, 1);
        Atomics.store(ctl, LOCK, 0);
        return k;
      }
      if (!idle) { Atomics.add(ctl, IDLE, 1); idle = true; }
      Atomics.store(ctl, LOCK, 0);
    }
    if (Atomics.load(ctl, IDLE) === nworkers) return 0;
    if (++spins > 256) Atomics.wait(sleepCell, 0, 0, 0.02);
  }
}

/** Traces until every worker is idle; returns [live count, objects scanned]. */
function markAll(lo, hi, young, sable, rootCount) {
  const words = W, bitmap = B, ctl = C;
  const kinds = state.kinds, refBegin = state.refBegin, refCount = state.refCount, refOffsets = state.refOffsets;
  const roots = state.roots;
  const shares = nworkers > 1;
  let stack = state.stack, live = state.live;
  let sp = 0, n = 0, scanned = 0, steps = 0;
  for (;;) {
    // Out of local work: claim roots, else take a chunk, else (all idle) stop.
    const s = Atomics.add(ctl, ROOTCUR, RCHUNK);
    if (s < rootCount) {
      const e = Math.min(s + RCHUNK, rootCount);
      for (let i = s; i < e; i++) ${visit('roots[i]')}
    } else {
      state.stack = stack;
      sp = acquire();
      if (sp === 0) break;
      stack = state.stack;
    }
    while (sp > 0) {
      const a = stack[--sp];
      if (sable) {
        const end = a + 4 + words[a + 2];
        for (let j = a + 4; j < end; j++) ${visit('words[j]')}
      } else {
        const t = words[a + 1];
        const k = kinds[t];
        if (k === KIND_INSTANCE) {
          const e = refBegin[t] + refCount[t];
          for (let j = refBegin[t]; j < e; j++) ${visit('words[a + refOffsets[j]]')}
        } else if (k === KIND_REF_ARRAY) {
          const end = a + 4 + words[a + 3];
          for (let j = a + 4; j < end; j++) ${visit('words[j]')}
        }
      }
      // Every 64 objects: give the top half of the stack (at most CHUNK) to the
      // queue when another worker is idle or the queue is empty.
      if ((++steps & 63) === 0 && shares && sp > 1 &&
          (Atomics.load(ctl, IDLE) > 0 || Atomics.load(ctl, QTOP) === 0)) sp = share(stack, sp);
    }
    scanned = steps;
  }
  state.stack = stack;
  state.live = live;
  return [n, scanned];
}

parentPort.on('message', (m) => {
  try {
    if (m.types) {
      state.kinds = new Int32Array(m.types.kind);
      state.refBegin = new Int32Array(m.types.refBegin);
      state.refCount = new Int32Array(m.types.refCount);
      state.refOffsets = new Int32Array(m.types.refOffsets);
    }
    if (m.roots) state.roots = new Int32Array(m.roots);
    const [n, scanned] = markAll(m.lo, m.hi, m.young, m.sable, m.rootCount);
    const out = m.young ? state.live.slice(0, n) : null;
    parentPort.postMessage({ ok: true, live: out, scanned }, out ? [out.buffer] : []);
  } catch (e) {
    parentPort.postMessage({ ok: false, error: String((e && e.stack) || e) });
  }
});
`;
