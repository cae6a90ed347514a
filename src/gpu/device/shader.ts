/**
 * Loading, specializing and compiling the WGSL kernels.
 *
 * Kernels live in `src/gpu/kernels/*.wgsl`. tsc does not copy them to `dist/`, so
 * they are found from the package root (the nearest directory above this module
 * holding package.json), which works both for vitest running `src/gpu/*.ts` and
 * for the compiled `dist/gpu/*.js`.
 *
 * A program is one WGSL module assembled from: a header of constants chosen at
 * start-up for the adapter and the options (workgroup size, the hybrid stack's
 * share of workgroup memory, each optimization as a `const bool` so that the
 * compiler drops the code of disabled ones, as TornadoVM specializes its kernels
 * to the device's local memory), the binding declarations, the layout's accessor
 * functions, and the kernel files. Bindings get an explicit layout shared by all
 * entry points, so one bind group serves every dispatch of a mark.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { wgslDeclarations, type KernelFile } from '../kernels/constants.js';
import type { GpuContext } from './device.js';

export interface BindingSpec {
  readonly name: string;
  readonly kind: 'uniform' | 'storage' | 'read-only-storage';
  /** WGSL type, e.g. `array<atomic<u32>>`. */
  readonly type: string;
}

export interface Program {
  readonly layout: GPUBindGroupLayout;
  readonly bindings: readonly BindingSpec[];
  readonly pipelines: ReadonlyMap<string, GPUComputePipeline>;
}

let root: string | null = null;

/** The directory holding package.json, found by walking up from this module. */
export function packageRoot(): string {
  if (root) return root;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(join(dir, 'package.json'))) return (root = dir);
    const up = dirname(dir);
    if (up === dir) throw new Error(`cannot find package.json above ${fileURLToPath(import.meta.url)}`);
    dir = up;
  }
}

const sources = new Map<string, string>();

/** The text of `src/gpu/kernels/<name>.wgsl` as the text of its file alone. */
export function kernelFileText(name: KernelFile): string {
  let text = sources.get(name);
  if (text === undefined) {
    text = readFileSync(join(packageRoot(), 'src', 'gpu', 'kernels', `${name}.wgsl`), 'utf8');
    sources.set(name, text);
  }
  return text;
}

/** `src/gpu/kernels/<name>.wgsl` after its declarations from kernels/constants.ts. */
export function kernelSource(name: KernelFile): string {
  const decls = wgslDeclarations(name);
  return decls ? `${decls}\n${kernelFileText(name)}` : kernelFileText(name);
}

function declarations(bindings: readonly BindingSpec[]): string {
  return bindings
    .map((b, i) => {
      const space = b.kind === 'uniform' ? 'uniform' : b.kind === 'storage' ? 'storage, read_write' : 'storage, read';
      return `@group(0) @binding(${i}) var<${space}> ${b.name}: ${b.type};`;
    })
    .join('\n');
}

const cache = new WeakMap<GPUDevice, Map<string, Promise<Program>>>();

export interface ProgramSource {
  /** Constants, structs and helper code placed before the binding declarations. */
  readonly header: string;
  readonly bindings: readonly BindingSpec[];
  /** WGSL placed after the declarations: generated accessors, then kernel files. */
  readonly body: readonly string[];
  readonly entryPoints: readonly string[];
}

/** Compiles (once per distinct source) the module and one pipeline per entry
 *  point, and runs each pipeline once (`runOnce`) before handing them out. */
export function buildProgram(ctx: GpuContext, src: ProgramSource): Promise<Program> {
  const code = `${src.header}\n${declarations(src.bindings)}\n${src.body.join('\n')}`;
  let perDevice = cache.get(ctx.device);
  if (!perDevice) cache.set(ctx.device, (perDevice = new Map()));
  const key = `${src.entryPoints.join(',')}\n${code}`;
  let p = perDevice.get(key);
  if (!p) {
    const made = (p = compile(ctx.device, code, src));
    perDevice.set(key, made);
    compiling.add(made);
    made.then(
      () => compiling.delete(made),
      () => (compiling.delete(made), perDevice.delete(key)),
    );
  }
  return p;
}

/** The compiles under way on this thread. */
const compiling = new Set<Promise<Program>>();

/** Waits until no compile is under way: a start-up that failed, one of its compiles
 *  first, must not leave the others' pipeline creation to a device destroyed after it
 *  (the driver's compiler threads would still be at work on it). */
export async function compilesSettled(): Promise<void> {
  while (compiling.size > 0) await Promise.allSettled([...compiling]);
}

/** Set when the run ends while the kernels still compile beside it: nothing will use
 *  them, so each compile stops at its next step instead of finishing
 *  (`abandonCompiles`, docs/decisions/s66-02-the-end-abandons-the-start-up.md). */
let abandoned = false;

/** What a compile throws once abandoned. */
class CompileAbandoned extends Error {
  override readonly name = 'CompileAbandoned';
  constructor() {
    super('the kernels\' compiling was abandoned at the run\'s end');
  }
}

/** Stops every compile of this thread at its next step (see `abandoned`). */
export function abandonCompiles(): void {
  abandoned = true;
}

/** Lets compiles run again: the worker calls it as it takes each request, so an
 *  abandon stops only the request under way when it came. */
export function resumeCompiles(): void {
  abandoned = false;
}

/** Throws CompileAbandoned once `abandonCompiles` was called. */
export function stopIfAbandoned(): void {
  if (abandoned) throw new CompileAbandoned();
}

async function compile(device: GPUDevice, code: string, src: ProgramSource): Promise<Program> {
  stopIfAbandoned();
  device.pushErrorScope('validation');
  const module = device.createShaderModule({ code });
  const info = await module.getCompilationInfo();
  const errors = info.messages.filter((m) => m.type === 'error');
  if (errors.length > 0) {
    await device.popErrorScope();
    const lines = code.split('\n');
    throw new Error(
      'WGSL compilation failed:\n' +
        errors.map((m) => `  line ${m.lineNum}: ${m.message}\n    ${lines[m.lineNum - 1] ?? ''}`).join('\n'),
    );
  }
  const layout = device.createBindGroupLayout({
    entries: src.bindings.map((b, i) => ({
      binding: i,
      visibility: GPUShaderStage.COMPUTE,
      buffer: { type: b.kind },
    })),
  });
  const pipelineLayout = device.createPipelineLayout({ bindGroupLayouts: [layout] });
  const pipelines = new Map<string, GPUComputePipeline>();
  for (const entryPoint of src.entryPoints) {
    stopIfAbandoned();
    pipelines.set(
      entryPoint,
      await device.createComputePipelineAsync({ layout: pipelineLayout, compute: { module, entryPoint } }),
    );
  }
  const err = await device.popErrorScope();
  if (err) throw new Error(`GPU pipeline creation failed: ${err.message}`);
  created += pipelines.size;
  stopIfAbandoned();
  // MINIVM_GPU_RUN_ONCE=0 leaves the first dispatch to the first mark, for bench/lib/startup.mjs's baseline.
  if (process.env.MINIVM_GPU_RUN_ONCE !== '0') await runOnce(device, layout, src.bindings, [...pipelines.values()]);
  return { layout, bindings: src.bindings, pipelines };
}

/** Pipelines this thread has created (`compile`), for the count of those made
 *  after start-up (GpuMarkStats.pipelinesCreated). */
let created = 0;

export function pipelinesCreated(): number {
  return created;
}

/** Bytes of each scratch buffer of `runOnce`: at least every uniform struct of
 *  kernels/constants.ts and one element of every storage array. */
const SCRATCH_BYTES = 256;

/**
 * Dispatches each of `pipelines` once, over zero workgroups, with scratch
 * buffers bound as the program binds its own: a driver that compiles a
 * pipeline at its first dispatch (lavapipe) does so here, when the program is
 * built at start-up, and not in a collection's pause. The workgroup count is
 * read from a buffer because Dawn warns of a direct dispatch of zero.
 */
async function runOnce(
  device: GPUDevice,
  layout: GPUBindGroupLayout,
  bindings: readonly BindingSpec[],
  pipelines: readonly GPUComputePipeline[],
): Promise<void> {
  const scratch = bindings.map((b) =>
    device.createBuffer({ size: SCRATCH_BYTES, usage: b.kind === 'uniform' ? GPUBufferUsage.UNIFORM : GPUBufferUsage.STORAGE }),
  );
  const counts = device.createBuffer({ size: 12, usage: GPUBufferUsage.INDIRECT });
  try {
    device.pushErrorScope('validation');
    const group = device.createBindGroup({ layout, entries: scratch.map((buffer, i) => ({ binding: i, resource: { buffer } })) });
    const enc = device.createCommandEncoder({ label: 'pipelines run once' });
    const pass = enc.beginComputePass({ label: 'pipelines run once' });
    pass.setBindGroup(0, group);
    for (const pipeline of pipelines) {
      pass.setPipeline(pipeline);
      pass.dispatchWorkgroupsIndirect(counts, 0);
    }
    pass.end();
    device.queue.submit([enc.finish()]);
    const err = await device.popErrorScope();
    if (err) throw new Error(`GPU pipelines' first run failed: ${err.message}`);
    await device.queue.onSubmittedWorkDone();
  } finally {
    for (const b of scratch) b.destroy();
    counts.destroy();
  }
}

/** Creates a bind group for `program` from buffers named as its bindings. */
export function bindGroup(
  device: GPUDevice,
  program: Program,
  buffers: Readonly<Record<string, GPUBuffer>>,
): GPUBindGroup {
  const list = program.bindings.map((b) => {
    const buffer = buffers[b.name];
    if (!buffer) throw new Error(`no buffer for binding '${b.name}'`);
    return buffer;
  });
  // Marks in a row bind the same buffers (they only grow, and rarely): one
  // group serves them all.
  const last = lastGroups.get(program);
  if (last && last.buffers.length === list.length && last.buffers.every((b, i) => b === list[i])) return last.group;
  const group = device.createBindGroup({
    layout: program.layout,
    entries: list.map((buffer, i) => ({ binding: i, resource: { buffer } })),
  });
  lastGroups.set(program, { buffers: list, group });
  return group;
}

const lastGroups = new WeakMap<Program, { buffers: GPUBuffer[]; group: GPUBindGroup }>();

/** Records `program`'s entry points into `pass`, in order, each over its workgroups. */
export function dispatchAll(pass: GPUComputePassEncoder, program: Program, steps: readonly (readonly [entry: string, groups: number])[]): void {
  for (const [entry, groups] of steps) {
    pass.setPipeline(program.pipelines.get(entry)!);
    pass.dispatchWorkgroups(groups);
  }
}
