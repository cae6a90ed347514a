// The child of bench/deopt-probe.mjs: runs one program as `minivm run` does (set-up
// with the collector warm-up, then the program), writing a line between the two
// on the same stream as V8's --trace-deopt, so that the probe can tell the
// warm-up's own deoptimizations from the program's.
//   stdbuf -o0 node --trace-deopt-verbose bench/lib/deopt-child.mjs FILE [run flags...]
import { writeSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

export const PROGRAM_STARTS = '=== minivm program starts';

// Imported by the probe for the line above; run as a program only as the entry point.
if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  // The built modules, found at run time (the harness is checked without a build).
  const dist = (/** @type {string} */ path) => import(new URL(`../../dist/${path}`, import.meta.url).href);
  const { parseArgs } = await dist('cli/args.js');
  const { compileSource } = await dist('cli/compile-source.js');
  const { readSource, tierOptions } = await dist('cli/run.js');
  const { createMemory } = await dist('collectors/index.js');
  const { link } = await dist('vm/link.js');
  const { Vm } = await dist('vm/driver.js');
  const cmd = parseArgs(['run', ...process.argv.slice(2)]);
  const io = { stdout: () => {}, stderr: (/** @type {string} */ t) => process.stderr.write(t) };
  const program = compileSource(cmd.file, readSource(cmd.file), io);
  if (!program) process.exit(65);
  const memory = await createMemory({ ...cmd.run, logGc: false }, { stdout: io.stdout, stderr: io.stderr, warn: io.stderr });
  // Straight to the file descriptor; the probe runs this under `stdbuf -o0`, so
  // that V8's trace, written through C's stdio, is not held back in a buffer.
  writeSync(1, `${PROGRAM_STARTS}\n`);
  const vm = new Vm(link(program, memory.heap), memory.heap, { write: io.stdout }, tierOptions(cmd.run), { args: cmd.run.args });
  await vm.run();
  await memory.dispose();
}
