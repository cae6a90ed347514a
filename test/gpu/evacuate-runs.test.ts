// The host-side arithmetic of a device evacuation's remembered slots: each run's
// place among the gathered slots, which runs are written back as one, and which
// cards the card bits cover.
import { describe, expect, it } from 'vitest';
import { cardSpan, slotRuns } from '../../src/gpu/evacuate/device.js';
import { CARD_SHIFT } from '../../src/heap/card-table.js';

describe('slotRuns', () => {
  it('joins runs that continue one another and drops empty ones', () => {
    expect(slotRuns(new Uint32Array([100, 28, 128, 128, 256, 10, 300, 0, 400, 4])).joined).toEqual([100, 166, 400, 4]);
    expect(slotRuns(new Uint32Array([10, 1, 20, 1, 30, 1])).joined).toEqual([10, 1, 20, 1, 30, 1]);
    expect(slotRuns(new Uint32Array([5, 0])).joined).toEqual([]);
  });
  it('places each run after the slots of those before it, empty ones included', () => {
    const r = slotRuns(new Uint32Array([100, 28, 300, 0, 128, 128, 50, 3]));
    expect([...r.offsets]).toEqual([0, 28, 28, 156]);
    expect(r.slots).toBe(159);
  });
  it('spans the lowest first slot to the highest last one, in any order of runs', () => {
    expect(slotRuns(new Uint32Array([400, 4, 100, 28, 90, 0, 200, 1])).span).toEqual([100, 403]);
    expect(slotRuns(new Uint32Array([7, 0])).span).toBeNull();
    expect(slotRuns(new Uint32Array(0)).span).toBeNull();
  });
});

describe('cardSpan', () => {
  const T = 1 << 16;
  it('covers the promotion buffer alone', () => {
    const first = 5 << CARD_SHIFT;
    expect(cardSpan([first, first + 3 * (1 << CARD_SHIFT)], null, T)).toEqual({ cardFirst: 5, cardWords: 1 });
  });
  it('widens to the remembered slots on either side', () => {
    const buffer: [number, number] = [40 << CARD_SHIFT, (41 << CARD_SHIFT) + 3];
    const runs = new Uint32Array([T + (2 << CARD_SHIFT) + 7, 3, T + (100 << CARD_SHIFT), 1 << CARD_SHIFT]);
    // Cards 2 to 100 (the second run ends on card 100's last word): 99 cards, 4 words of bits.
    expect(cardSpan(buffer, slotRuns(runs).span, T)).toEqual({ cardFirst: 2, cardWords: 4 });
  });
  it('covers nothing without promotions or slots', () => {
    expect(cardSpan(null, slotRuns(new Uint32Array([T, 0])).span, T)).toEqual({ cardFirst: 0, cardWords: 0 });
  });
});
