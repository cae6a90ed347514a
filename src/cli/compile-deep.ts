/**
 * The front end again with a large stack, for programs whose nesting (within
 * MAX_NESTING, lang/nesting.ts) or long left-deep operator chains (`1 + 1 + ...`,
 * 50,000 terms) overflow JavaScript's default stack in the recursive parser, checker
 * and compiler. Only a program that overflowed comes here, so ordinary ones pay
 * nothing: a worker thread with a stack of STACK_MB compiles it while this thread
 * waits, and hands back the bytecode or the diagnostics' text.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { workerThreads } from '../heap/worker-threads.js';
import type { BytecodeProgram } from '../bytecode/program.js';

/** The worker's stack: room for MAX_NESTING levels of the recursive rules. */
const STACK_MB = 512;

export type DeepResult = { program: BytecodeProgram } | { diagnostics: string } | { overflow: string };

/** The compiled front end; under vitest this file runs from src/, the worker from dist/. */
function modulePath(rel: string): string {
  const here = fileURLToPath(import.meta.url);
  const root = here.endsWith('.ts') ? join(dirname(here), '..', '..', 'dist') : join(dirname(here), '..');
  const path = join(root, rel);
  if (!existsSync(path)) throw new Error(`${path} is missing: run npm run build`);
  return path;
}

const WORKER = `
const { workerData } = require('node:worker_threads');
const { port, file, source, lang, compiler } = workerData;
(async () => {
  const { parseAndCheck, formatDiagnostics } = await import(lang);
  const { compile } = await import(compiler);
  let reply;
  try {
    const checked = parseAndCheck(file, source);
    reply = 'errors' in checked
      ? { diagnostics: formatDiagnostics(checked.errors, source) }
      : { program: compile(checked.program, checked.mainLocals) };
  } catch (e) {
    if (!(e instanceof RangeError)) throw e;
    reply = { overflow: e.message };
  }
  port.postMessage(reply);
  Atomics.store(workerData.done, 0, 1);
  Atomics.notify(workerData.done, 0);
})().catch((e) => {
  port.postMessage({ overflow: String(e && e.message) });
  Atomics.store(workerData.done, 0, 1);
  Atomics.notify(workerData.done, 0);
});
`;

/** Compiles `source` on a large stack, blocking this thread until it is done. */
export function compileOnLargeStack(file: string, source: string): DeepResult {
  const { MessageChannel, receiveMessageOnPort, Worker } = workerThreads();
  const { port1, port2 } = new MessageChannel();
  const done = new Int32Array(new SharedArrayBuffer(4));
  const worker = new Worker(WORKER, {
    eval: true,
    workerData: {
      port: port2, file, source, done,
      lang: modulePath('lang/index.js'),
      compiler: modulePath('bytecode/compiler.js'),
    },
    transferList: [port2],
    resourceLimits: { stackSizeMb: STACK_MB },
  });
  try {
    while (Atomics.load(done, 0) === 0) Atomics.wait(done, 0, 0, 1000);
    const reply = receiveMessageOnPort(port1);
    return reply ? (reply.message as DeepResult) : { overflow: 'the compiler thread gave no answer' };
  } finally {
    port1.close();
    void worker.terminate();
  }
}
