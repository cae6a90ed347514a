// `npm run build` bundles each entry point (scripts/bundle.mjs), so that a start
// loads one module of the project's own rather than about a hundred. Checked by
// recording what Node resolves while `minivm` runs a program.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const dir = mkdtempSync(join(tmpdir(), 'minivm-bundle-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Node's module hooks: every URL resolved is written to stderr, in every thread that has the hooks. */
const hooks = join(dir, 'hooks.mjs');
writeFileSync(hooks, `export async function resolve(s, c, next) { const r = await next(s, c); process.stderr.write('resolved ' + r.url + '\\n'); return r; }\n`);
const register = join(dir, 'register.mjs');
writeFileSync(register, `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(hooks).href)});\n`);
const program = join(dir, 'hello.mini');
writeFileSync(program, 'print(6 * 7);\n');

/** The project's own modules (under dist/) that a run resolved, relative to dist/. */
function distModules(args: string[]): { status: number | null; stdout: string; modules: string[] } {
  const r = spawnSync(process.execPath, ['--import', pathToFileURL(register).href, 'bin/minivm.js', ...args], { encoding: 'utf8' });
  const dist = pathToFileURL(resolve('dist')).href + '/';
  const modules = r.stderr.split('\n').filter((l) => l.startsWith(`resolved ${dist}`)).map((l) => l.slice(`resolved ${dist}`.length));
  return { status: r.status, stdout: r.stdout, modules: [...new Set(modules)] };
}

describe('the built entry points', () => {
  it('run a program loading one module of the project: the bundled CLI', () => {
    const r = distModules(['run', program]);
    expect(r).toMatchObject({ status: 0, stdout: '42\n' });
    expect(r.modules).toEqual(['cli/main.js']);
  });
});
