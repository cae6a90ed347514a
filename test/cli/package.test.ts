// The published package as a user gets it: `npm pack`, the tarball installed into an
// empty folder, and `npx minivm run` of a sample program. The install is offline
// (`npm ci --offline` with a lock file naming the versions this repository locks), so
// the dependencies come from the npm cache that installing this repository filled.
// dist/ is built by `npm test` before vitest runs; packing skips the prepack build.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

interface LockEntry { version: string; dependencies?: Record<string, string>; dev?: boolean; [k: string]: unknown }

const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { name: string; version: string; scripts: Record<string, string> };

/** A lock file for a project depending only on the tarball: the runtime closure of our own lock. */
function lockFor(tarball: string): object {
  const lock = JSON.parse(readFileSync('package-lock.json', 'utf8')) as { packages: Record<string, LockEntry> };
  const root = lock.packages['']!;
  const need = new Set<string>();
  const stack = Object.keys(root.dependencies ?? {});
  while (stack.length > 0) {
    const name = stack.pop()!;
    if (need.has(name)) continue;
    need.add(name);
    stack.push(...Object.keys(lock.packages[`node_modules/${name}`]!.dependencies ?? {}));
  }
  const spec = `file:${tarball}`;
  const packages: Record<string, object> = {
    '': { name: 'consumer', dependencies: { [pkg.name]: spec } },
    [`node_modules/${pkg.name}`]: { version: pkg.version, resolved: spec, dependencies: root.dependencies, bin: { minivm: 'bin/minivm.js' } },
  };
  for (const name of [...need].sort()) {
    const { dev: _dev, ...entry } = lock.packages[`node_modules/${name}`]!;
    packages[`node_modules/${name}`] = entry;
  }
  return { name: 'consumer', lockfileVersion: 3, requires: true, packages };
}

describe('the npm package', () => {
  const work = mkdtempSync(join(tmpdir(), 'minivm-pack-'));
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it('builds dist, the entry points bundled, before packing', () => {
    expect(pkg.scripts['prepack']).toBe('npm run build');
    expect(pkg.scripts['build']).toBe('tsc -p tsconfig.json && node scripts/bundle.mjs');
  });

  it('packs dist, bin, the kernels, programs and docs, and not the tests or benchmarks', () => {
    const out = execFileSync('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work], { encoding: 'utf8' });
    const files = (JSON.parse(out) as Array<{ files: Array<{ path: string }> }>)[0]!.files.map((f) => f.path);
    for (const f of ['bin/minivm.js', 'bin/package.json', 'dist/cli/main.cjs', 'dist/cli/main.js', 'dist/cli/cli.cjs', 'dist/cli/cli.cjs.cache', 'dist/cli/front.cjs', 'dist/cli/front.cjs.cache', 'dist/gpu/worker/gpu-worker.js', 'dist/gc/parallel/worker.js', 'src/gpu/kernels/dfs.wgsl', 'programs/binary_trees.mini', 'docs/cli.md', 'README.md', 'package.json']) {
      expect(files, f).toContain(f);
    }
    expect(files.filter((f) => /^(test|bench|\.ci|scripts)\//.test(f) || (f.startsWith('src/') && f.endsWith('.ts')))).toEqual([]);
  }, 120_000);

  it('installs from the tarball into an empty folder and runs a program with npx', () => {
    const tarball = resolve(work, `${pkg.name}-${pkg.version}.tgz`);
    const consumer = join(work, 'consumer');
    mkdirSync(consumer);
    writeFileSync(join(consumer, 'package.json'), JSON.stringify({ name: 'consumer', private: true, dependencies: { [pkg.name]: `file:${tarball}` } }));
    writeFileSync(join(consumer, 'package-lock.json'), JSON.stringify(lockFor(tarball)));
    execFileSync('npm', ['ci', '--offline', '--no-audit', '--no-fund'], { cwd: consumer, encoding: 'utf8', stdio: 'pipe' });
    writeFileSync(join(consumer, 'hello.mini'), 'class Box { var n: int; }\nvar b = new Box();\nb.n = 41;\ngc();\nprint(b.n + 1);\n');
    const npx = (args: string[]): { status: number | null; stdout: string; stderr: string } =>
      spawnSync('npx', ['--offline', 'minivm', ...args], { cwd: consumer, encoding: 'utf8' });
    const run = npx(['run', 'hello.mini', '--stats']);
    expect(run.stderr).toMatch(/collector: serial/);
    expect(run).toMatchObject({ status: 0, stdout: '42\n' });
    expect(npx(['--version']).stdout).toBe(`minivm ${pkg.version}\n`);
    const sample = npx(['run', 'node_modules/minivm/programs/cycles.mini']);
    expect(sample.status).toBe(0);
    expect(sample.stdout.length).toBeGreaterThan(0);
  }, 180_000);
});
