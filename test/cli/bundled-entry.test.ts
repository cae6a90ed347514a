// `npm run build` bundles the command-line program (scripts/bundle.mjs), so that a
// start loads the entry point, its code-cache loader and one bundle rather than
// about a hundred modules, and the bundle starts from V8's code cache. Checked by
// recording what Node resolves while `minivm` runs a program, and by compiling the
// bundle as the entry point does.
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
    expect(r.modules).toEqual(['cli/main.js', 'cli/code-cache.js']);
  });

  it('start from a code cache that V8 accepts', () => {
    const check = `import { compileBundle } from ${JSON.stringify(pathToFileURL(resolve('dist/cli/code-cache.js')).href)};\n` +
      `process.stdout.write(compileBundle(${JSON.stringify(resolve('dist/cli/cli.cjs'))}).cache);`;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', check], { encoding: 'utf8' });
    expect(r).toMatchObject({ status: 0, stdout: 'accepted' });
  });
});
