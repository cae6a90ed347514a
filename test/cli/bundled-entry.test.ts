// `npm run build` bundles the command-line program (scripts/bundle.mjs), so that a
// start loads the CommonJS launcher (the entry point and its code-cache loader) and
// one bundle rather than about a hundred modules, with no ES module at all, and the
// bundle starts from V8's code cache. Checked by recording what Node resolves while
// `minivm` runs a program, and by compiling the bundle as the entry point does.
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
/** The same for CommonJS: every file `require` resolves. */
const cjsHooks = join(dir, 'cjs-hooks.cjs');
writeFileSync(cjsHooks, `const M = require('node:module'); const r = M._resolveFilename; M._resolveFilename = function (...a) { const f = r.apply(this, a); process.stderr.write('required ' + f + '\\n'); return f; };\n`);
/** Every file a run reads whole (the bundles and their caches are read so). */
const readHooks = join(dir, 'read-hooks.cjs');
writeFileSync(readHooks, `const fs = require('node:fs'); const r = fs.readFileSync; fs.readFileSync = function (f, ...a) { if (typeof f === 'string') process.stderr.write('read ' + f + '\\n'); return r.call(this, f, ...a); };\n`);
const program = join(dir, 'hello.mini');
writeFileSync(program, 'print(6 * 7);\n');

/** The project's own files (under dist/) that a run resolved, relative to dist/: as ES modules and through `require`. */
function distModules(args: string[]): { status: number | null; stdout: string; modules: string[]; required: string[] } {
  const r = spawnSync(process.execPath, ['--import', pathToFileURL(register).href, '--require', cjsHooks, 'bin/minivm.js', ...args], { encoding: 'utf8' });
  const dist = pathToFileURL(resolve('dist')).href + '/';
  const lines = r.stderr.split('\n');
  const modules = lines.filter((l) => l.startsWith(`resolved ${dist}`)).map((l) => l.slice(`resolved ${dist}`.length));
  const distPath = `required ${resolve('dist')}/`;
  const required = lines.filter((l) => l.startsWith(distPath)).map((l) => l.slice(distPath.length));
  return { status: r.status, stdout: r.stdout, modules: [...new Set(modules)], required: [...new Set(required)] };
}

describe('the built entry points', () => {
  it('run a program loading one module of the project besides the bundle: the CommonJS launcher, and no ES module', () => {
    const r = distModules(['run', program]);
    expect(r).toMatchObject({ status: 0, stdout: '42\n' });
    expect(r.required).toEqual(['cli/main.cjs']);
    expect(r.modules).toEqual([]);
  });

  it('start from code caches that V8 accepts', () => {
    for (const bundle of ['dist/cli/cli.cjs', 'dist/cli/front.cjs']) {
      const check = `import { compileBundle } from ${JSON.stringify(pathToFileURL(resolve('dist/cli/code-cache.js')).href)};\n` +
        `process.stdout.write(compileBundle(${JSON.stringify(resolve(bundle))}).cache);`;
      const r = spawnSync(process.execPath, ['--input-type=module', '-e', check], { encoding: 'utf8' });
      expect({ bundle, ...r }).toMatchObject({ bundle, status: 0, stdout: 'accepted' });
    }
  });

  it('read the front end\'s bundle only when a program is compiled, not when its bytecode is in the compile cache', () => {
    const env = { ...process.env, MINIVM_CACHE_DIR: join(dir, 'compile-cache') };
    const read = (): string[] => {
      const r = spawnSync(process.execPath, ['--require', readHooks, 'bin/minivm.js', 'run', program], { encoding: 'utf8', env });
      expect(r).toMatchObject({ status: 0, stdout: '42\n' });
      const cli = `read ${resolve('dist/cli')}/`;
      return r.stderr.split('\n').filter((l) => l.startsWith(cli)).map((l) => l.slice(cli.length)).sort();
    };
    // main.cjs: the launcher, which Node's CommonJS loader reads.
    expect(read()).toEqual(['cli.cjs', 'cli.cjs.cache', 'front.cjs', 'front.cjs.cache', 'main.cjs']);
    expect(read()).toEqual(['cli.cjs', 'cli.cjs.cache', 'main.cjs']);
  });
});
