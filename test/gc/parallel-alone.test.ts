/**
 * When a GC thread works alone (gc/parallel/context.ts): only while every other
 * thread is idle and its own deque is empty, so that its plain mark and
 * forwarding stores race nobody; sharing work ends it.
 */

import { describe, expect, it } from 'vitest';
import { GcContext } from '../../src/gc/parallel/context.js';
import { IDLE } from '../../src/gc/parallel/shared.js';
import { poolBuffers } from './helpers.js';

/** Thread 0 and thread 1 of two, begun, with `entries` on thread 0's stack. */
function pair(entries: number): [GcContext, GcContext] {
  const b = poolBuffers(2, 16);
  const c0 = new GcContext(0, 2, b);
  const c1 = new GcContext(1, 2, b);
  c0.begin();
  c1.begin();
  for (let i = 1; i <= entries; i++) c0.push(100 + i);
  return [c0, c1];
}

describe('a GC thread working alone', () => {
  it('is alone from the start when it is the only thread', () => {
    const c = new GcContext(0, 1, poolBuffers(1, 16));
    c.begin();
    expect(c.alone).toBe(true);
    c.push(5);
    c.push(6);
    c.share();
    expect(c.alone).toBe(true);
  });

  it('starts alone when its peers count as idle before it begins (a worker rehearsing)', () => {
    const b = poolBuffers(2, 16);
    const c = new GcContext(0, 2, b);
    c.ctl[IDLE] = 1;
    c.begin();
    expect(c.alone).toBe(true);
    c.ctl[IDLE] = 0;
    c.begin();
    expect(c.alone).toBe(false);
  });

  it('starts only once every other thread is idle', () => {
    const [c0] = pair(1);
    expect(c0.alone).toBe(false);
    c0.share();
    expect(c0.alone).toBe(false);
    c0.ctl[IDLE] = 1;
    c0.share();
    expect(c0.alone).toBe(true);
  });

  it('ends when it shares work, and starts again only once its deque is empty', () => {
    const [c0, c1] = pair(10);
    c0.ctl[IDLE] = 1;
    c0.sp = 1;
    c0.share();
    expect(c0.alone).toBe(true);
    c0.sp = 10;
    c0.share();
    expect(c0.alone).toBe(false);
    expect(c0.sp).toBe(5);
    // The others are idle, but the shared entries are there for them to steal.
    c0.sp = 0;
    c0.share();
    expect(c0.alone).toBe(false);
    // Thread 1 takes them all (it leaves IDLE first, as acquire does).
    c1.ctl[IDLE] = 0;
    const stolen = [];
    for (let i = 0; i < 5; i++) stolen.push(c1.acquire());
    expect(stolen.sort()).toEqual([101, 102, 103, 104, 105]);
    expect(c1.alone).toBe(false);
    c0.share();
    expect(c0.alone).toBe(false);
    // Thread 1 runs out of work and goes idle: thread 0 is alone again.
    c1.ctl[IDLE] = 1;
    c0.share();
    expect(c0.alone).toBe(true);
  });

  it('is not alone after taking work from its deque, until it looks again', () => {
    const [c0] = pair(10);
    c0.ctl[IDLE] = 1;
    c0.share();
    expect(c0.alone).toBe(false);
    c0.sp = 0;
    const got = [];
    for (let i = 0; i < 5; i++) got.push(c0.acquire());
    expect(got.sort()).toEqual([101, 102, 103, 104, 105]);
    expect(c0.alone).toBe(false);
    c0.share();
    expect(c0.alone).toBe(true);
  });

  it('shares the oldest entries of its stack, and a thief takes the oldest of them first', () => {
    // A depth-first stack's oldest entries are the largest pieces of work.
    const [c0, c1] = pair(10);
    c0.share();
    expect(c0.sp).toBe(5);
    expect([...c0.stack.subarray(0, 5)]).toEqual([106, 107, 108, 109, 110]);
    expect(c1.acquire()).toBe(101);
    expect(c1.acquire()).toBe(102);
  });
});

describe("a rehearsal's stand-in peer", () => {
  it('keeps the thread from working alone until the thread has waited for it, then ends the phase', () => {
    const c = new GcContext(0, 2, poolBuffers(2, 16));
    // As rehearse.ts sets a rehearsal up: every peer idle.
    c.ctl[IDLE] = 1;
    c.rehearseWithPeer();
    c.begin();
    expect(c.alone).toBe(false);
    c.push(7);
    c.push(8);
    c.sp = 0;
    // No work anywhere: the thread waits (spinning, then sleeping for no time)
    // until the stand-in goes idle, and the phase ends with every thread idle.
    expect(c.acquire()).toBe(-1);
    expect(c.ctl[IDLE]).toBe(2);
    // The stand-in is gone: the next phase with every peer idle starts alone.
    c.ctl[IDLE] = 1;
    c.begin();
    expect(c.alone).toBe(true);
  });

  it('shares an entry that the thread then steals', () => {
    const c = new GcContext(0, 2, poolBuffers(2, 16));
    c.ctl[IDLE] = 1;
    c.rehearseWithPeer();
    c.begin();
    c.rehearseSteal();
    expect(c.steals).toBe(1);
    expect(c.ctl[IDLE]).toBe(0);
  });
});
