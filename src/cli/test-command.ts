/**
 * `minivm test [FILES|DIRS] [--gc LIST] [--layout LIST] [run options]`: runs every
 * .mini file (folders searched recursively) under each collector x layout and checks
 * it against the `// expect:` comments it states (expectations.ts, the same check the
 * project's own suites use). One line per failing run, then a summary line; exit 0
 * when every run agrees with its file, TEST_FAILED otherwise, 64 on a usage error.
 *
 * Runs are in this process, one after another: a program's faults are exit statuses
 * here, not crashes, and one process keeps a large set of small tests fast.
 */

import { statSync } from 'node:fs';
import type { Command } from './args.js';
import type { CollectorName, LayoutName, RunOptions } from './options.js';
import { EXIT, readSource, runSource, type Io } from './run.js';
import { checkRun, miniFiles, readExpectations, withFlags, type Expectations } from './expectations.js';
import { usageMessage } from './help.js';
import { Progress, type CommandDeps } from './text.js';

/** The exit status when a run disagrees with its expectations (or cannot start). */
export const TEST_FAILED = 1;

export interface TestConfig {
  gc: CollectorName;
  layout: LayoutName;
}

/** The files to test: each FILE as given, each DIR's .mini files; a missing path or an empty folder is a usage error. */
function collectFiles(paths: readonly string[]): { files: string[] } | { error: string } {
  const files: string[] = [];
  for (const path of paths.length > 0 ? paths : ['.']) {
    let isDir: boolean;
    try {
      isDir = statSync(path).isDirectory();
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      return { error: `cannot read '${path}': ${code === 'ENOENT' ? 'no such file or folder' : (e as Error).message}` };
    }
    if (!isDir) {
      files.push(path);
      continue;
    }
    const found = miniFiles(path);
    if (found.length === 0) return { error: `no .mini files under '${path}'` };
    files.push(...found);
  }
  return { files: [...new Set(files)] };
}

/** One run of one file under one configuration: undefined when it agrees with the file, else the failure's one line. */
async function testOne(file: string, source: string, exp: Expectations, base: RunOptions): Promise<string | undefined> {
  let options: RunOptions;
  try {
    options = withFlags(base, exp.flags, file);
  } catch (e) {
    return `bad '// flags:' line: ${(e as Error).message}`;
  }
  let stdout = '';
  let stderr = '';
  const io: Io = { stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t) };
  let exitCode: number;
  try {
    exitCode = (await runSource(file, source, options, io)).exitCode;
  } catch (e) {
    return `internal error: ${e instanceof Error ? e.message : String(e)}`;
  }
  return checkRun(exp, { exitCode, stdout, stderr })?.message;
}

/** The `test` command. */
export async function testCommand(cmd: Command, io: Io, deps: CommandDeps = {}): Promise<number> {
  const collected = collectFiles(cmd.files);
  if ('error' in collected) {
    io.stderr(usageMessage(collected.error, 'test'));
    return EXIT.usage;
  }
  const gcs = cmd.compare.gcs.length > 0 ? cmd.compare.gcs : [cmd.run.gc];
  const layouts = cmd.compare.layouts.length > 0 ? cmd.compare.layouts : [cmd.run.layout];
  const configs: TestConfig[] = gcs.flatMap((gc) => layouts.map((layout) => ({ gc, layout })));
  const progress = new Progress(io, deps.progress ?? false);
  let passed = 0;
  let failed = 0;
  for (const file of collected.files) {
    let source: string;
    try {
      source = readSource(file);
    } catch (e) {
      io.stdout(`FAIL ${file}: cannot read it: ${(e as Error).message}\n`);
      failed += configs.length;
      continue;
    }
    const exp = readExpectations(source);
    for (const c of configs) {
      progress.show(`test ${file} [${c.gc}/${c.layout}]`);
      const failure = await testOne(file, source, exp, { ...cmd.run, gc: c.gc, layout: c.layout });
      if (failure === undefined) {
        passed++;
        continue;
      }
      failed++;
      progress.done();
      io.stdout(`FAIL ${file} [${c.gc}/${c.layout}]: ${failure}\n`);
    }
  }
  progress.done();
  const names = configs.map((c) => `${c.gc}/${c.layout}`).join(', ');
  const files = collected.files.length;
  io.stdout(
    `${failed === 0 ? 'ok' : 'FAILED'}: ${passed} passed, ${failed} failed ` +
      `(${files} file${files === 1 ? '' : 's'} x ${configs.length} configuration${configs.length === 1 ? '' : 's'}: ${names})\n`,
  );
  return failed === 0 ? EXIT.ok : TEST_FAILED;
}
