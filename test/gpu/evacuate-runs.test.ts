// The host-side arithmetic of a device evacuation's remembered slots: which runs
// are written back as one, and which cards the card bits cover.
import { describe, expect, it } from 'vitest';
import { cardSpan, joinRuns } from '../../src/gpu/evacuate/device.js';
import { CARD_SHIFT } from '../../src/heap/card-table.js';

describe('joinRuns', () => {
  it('joins runs that continue one another and drops empty ones', () => {
    expect(joinRuns(new Uint32Array([100, 28, 128, 128, 256, 10, 300, 0, 400, 4]))).toEqual([100, 166, 400, 4]);
    expect(joinRuns(new Uint32Array([10, 1, 20, 1, 30, 1]))).toEqual([10, 1, 20, 1, 30, 1]);
    expect(joinRuns(new Uint32Array([5, 0]))).toEqual([]);
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
    expect(cardSpan(buffer, runs, T)).toEqual({ cardFirst: 2, cardWords: 4 });
  });
  it('covers nothing without promotions or slots', () => {
    expect(cardSpan(null, new Uint32Array([T, 0]), T)).toEqual({ cardFirst: 0, cardWords: 0 });
  });
});
