// The source tree has no import cycles (counting type imports): a cycle is how one
// room's concern starts leaking into another's, so it fails here, where it is added.
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

describe('src/ structure', () => {
  it('has no import cycles', () => {
    const r = spawnSync(process.execPath, ['scripts/import-cycles.mjs', 'src'], { encoding: 'utf8' });
    expect(r.stdout).toMatch(/ 0 import cycle\(s\)/);
    expect(r.status).toBe(0);
  });
});
