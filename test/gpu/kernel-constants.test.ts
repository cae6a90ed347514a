/**
 * The table of constants the kernels and the host share (src/gpu/kernels/constants.ts):
 * every upper-case name a kernel uses is declared by the table (or by the file
 * itself), no kernel declares a table name again, every field a kernel reads
 * of its uniform struct is in the table, and nothing in the table goes unused.
 * Text only: no device.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { packageRoot, kernelFileText, kernelSource } from '../../src/gpu/device/shader.js';
import {
  KERNEL_FILES,
  PARAMS,
  specializationHeader,
  structWords,
  wgslDeclarations,
  type KernelFile,
} from '../../src/gpu/kernels/constants.js';

/** The WGSL without its comments. */
function code(text: string): string {
  return text.replace(/\/\/[^\n]*/g, '');
}

/** Upper-case names (two characters or more) a kernel text uses. */
function upperNames(text: string): Set<string> {
  return new Set(code(text).match(/\b[A-Z][A-Z0-9_]*[A-Z0-9]\b/g) ?? []);
}

/** Names a kernel text declares itself (`const`, `override`, `struct`). */
function ownDeclarations(text: string): Set<string> {
  return new Set([...code(text).matchAll(/\b(?:const|override|struct)\s+([A-Za-z_][A-Za-z0-9_]*)/g)].map((m) => m[1]!));
}

interface Entry {
  readonly uniform?: { readonly binding: string; readonly struct: string; readonly fields: readonly (readonly [string, string])[] };
  readonly values?: Readonly<Record<string, number>>;
  readonly specialized?: readonly string[];
}

const files = Object.keys(KERNEL_FILES) as KernelFile[];
const entry = (f: KernelFile): Entry => KERNEL_FILES[f];

/** What the table declares for a file. */
function tableNames(f: KernelFile): Set<string> {
  const e = entry(f);
  return new Set([...Object.keys(e.values ?? {}), ...(e.specialized ?? []), ...(e.uniform ? [e.uniform.struct] : [])]);
}

describe('kernel constants table', () => {
  it('covers every kernel file, and every table entry names a file', () => {
    const onDisk = readdirSync(join(packageRoot(), 'src', 'gpu', 'kernels'))
      .filter((n) => n.endsWith('.wgsl'))
      .map((n) => n.slice(0, -5))
      .sort();
    expect([...files].sort()).toEqual(onDisk);
  });

  for (const f of files) {
    it(`${f}.wgsl uses only names the table or the file declares`, () => {
      const text = kernelFileText(f);
      const known = new Set([...tableNames(f), ...ownDeclarations(text)]);
      const unknown = [...upperNames(text)].filter((n) => !known.has(n));
      expect(unknown, `${f}.wgsl uses names kernels/constants.ts does not define`).toEqual([]);
    });

    it(`${f}.wgsl declares none of the table's names itself`, () => {
      const own = ownDeclarations(kernelFileText(f));
      const twice = [...tableNames(f)].filter((n) => own.has(n));
      expect(twice, `${f}.wgsl redeclares table names`).toEqual([]);
    });

    it(`${f}.wgsl uses every name the table gives it`, () => {
      const used = upperNames(kernelFileText(f));
      const e = entry(f);
      const unused = [...Object.keys(e.values ?? {}), ...(e.specialized ?? [])].filter((n) => !used.has(n));
      expect(unused, `kernels/constants.ts gives ${f}.wgsl names it never uses`).toEqual([]);
    });
  }

  it('the uniform structs hold every field a kernel reads, in 16-byte multiples', () => {
    const withUniform = files.filter((f) => entry(f).uniform);
    for (const f of withUniform) expect(entry(f).uniform!.fields.length % 4, `${f}'s struct is not a multiple of 16 bytes`).toBe(0);
    /** The struct a file reads through `binding`: its own, else the one file's that declares it. */
    const structFor = (g: KernelFile, binding: string): Entry['uniform'] => {
      const own = entry(g).uniform;
      if (own?.binding === binding) return own;
      const owners = withUniform.filter((f) => entry(f).uniform!.binding === binding);
      return owners.length === 1 ? entry(owners[0]!).uniform : undefined;
    };
    const bindings = new Set(withUniform.map((f) => entry(f).uniform!.binding));
    let reads = 0;
    for (const g of files) {
      for (const m of code(kernelFileText(g)).matchAll(/\b([a-z]+)\.([A-Za-z0-9_]+)/g)) {
        if (!bindings.has(m[1]!)) continue;
        const u = structFor(g, m[1]!);
        expect(u, `${g}.wgsl reads ${m[1]}, whose struct is not clear`).toBeDefined();
        expect(u!.fields.map(([n]) => n), `${g}.wgsl reads ${m[0]}, not a field of ${u!.struct}`).toContain(m[2]!);
        reads++;
      }
    }
    expect(reads).toBeGreaterThan(20);
  });

  it('generates the declarations ahead of each file', () => {
    expect(wgslDeclarations('common')).toMatch(/^struct Params \{\n  youngStart: u32,/);
    expect(wgslDeclarations('dfs')).toContain('const CTL_GUESSED: u32 = 11u;');
    expect(wgslDeclarations('bfs')).toContain('const Q_OVERFLOW: u32 = 6u;');
    expect(wgslDeclarations('dfs')).toContain('const CLAIMED: u32 = 2147483648u;');
    expect(kernelSource('dfs').startsWith(wgslDeclarations('dfs'))).toBe(true);
    expect(wgslDeclarations('scan')).toBe('');
  });

  it('writes structs by field name and rejects a specialization that does not fit its files', () => {
    const w = structWords(PARAMS, { youngEnd: 7, scanN1: 9 });
    expect(w.length).toBe(PARAMS.length);
    expect(w[1]).toBe(7);
    expect(w[PARAMS.length - 1]).toBe(9);
    expect(w[0]).toBe(0);
    expect(specializationHeader(['scan'], { WG: 64 })).toBe('const WG: u32 = 64u;');
    expect(specializationHeader(['common'], { ATOMIC_OPT: true })).toBe('const ATOMIC_OPT: bool = true;');
    expect(() => specializationHeader(['scan'], {})).toThrow(/lacks WG/);
    expect(() => specializationHeader(['scan'], { WG: 64, LCAP: 2 })).toThrow(/unknown LCAP/);
  });
});
