// A forwarded header's two forms (heap/object-model.ts): the new address in a+1
// (serial and GPU evacuations) or in the status word itself (the parallel copy's
// one compare-and-exchange); `forwardee` reads both, up to the largest address
// the one-word form holds.
import { describe, expect, it } from 'vitest';
import {
  forwardee,
  forwardingStatus,
  HEADER_TAG,
  MAX_STATUS_FORWARD_WORDS,
  STATUS_FORWARDED,
  statusForwardee,
  statusWithAge,
} from '../../src/heap/object-model.js';

describe('forwarding headers', () => {
  it('the one-word form holds every address below its bound, marked forwarded and told from a tagged header', () => {
    for (const na of [4, 100, 1 << 20, (1 << 28) + 12, MAX_STATUS_FORWARD_WORDS - 4]) {
      const s = forwardingStatus(na);
      expect(s & STATUS_FORWARDED).toBe(STATUS_FORWARDED);
      expect(s).toBeLessThan(0);
      expect(statusForwardee(s)).toBe(na);
      const words = new Int32Array(8);
      words[0] = s;
      words[1] = 7; // the type word, left alone by the parallel copy
      expect(forwardee(words, 0)).toBe(na);
    }
  });

  it('the two-word form keeps the tag and reads the new address from a+1', () => {
    const words = new Int32Array(8);
    words[4] = statusWithAge(3) | STATUS_FORWARDED;
    words[5] = (1 << 28) + 40;
    expect(words[4]! & HEADER_TAG).toBe(HEADER_TAG);
    expect(forwardee(words, 4)).toBe((1 << 28) + 40);
  });
});
