/**
 * Scanning a young collection's remembered set on the GPU (sable layout): the
 * CPU lists the reference-slot ranges of the dirty cards' objects, and
 * kernels/remset.wgsl reads them from the heap mirror, returning each young
 * referent once and the slots holding young references as runs. See that file.
 */
import { bufferSize, destroyAll, GrowableBuffer, helperGroups, helperWorkgroupSize, paramsBuffer, Readback, u32View } from '../device/buffers.js';
import type { GpuContext } from '../device/device.js';
import type { HeapMirror, StagingUploader } from './mirror.js';
import type { Program } from '../device/shader.js';
import { bindGroup, buildProgram, kernelSource } from '../device/shader.js';
import { REMSET, REMSET_CTL_WORDS, REMSET_PARAMS, specializationHeader, structWords, uniformBinding } from '../kernels/constants.js';

export interface RemsetResult {
  /** Each young object referenced from the ranges, once. */
  readonly roots: Int32Array;
  /** (first slot, count) pairs of consecutive slots holding young references:
   *  each range's first run (count 0 when it has none) in the ranges' order,
   *  then the ranges' further runs. */
  readonly runs: Int32Array;
}

const CTL_BYTES = bufferSize(REMSET_CTL_WORDS * 4);

export class RemsetScan {
  private program: Program | null = null;
  private readonly params: GPUBuffer;
  private readonly ctl: GPUBuffer;
  private readonly ranges: GrowableBuffer;
  private readonly seen: GrowableBuffer;
  private readonly roots: GrowableBuffer;
  private readonly runs: GrowableBuffer;
  private readonly countsReadback: Readback;
  private readonly listReadback: Readback;
  private readonly wg: number;

  constructor(
    private readonly ctx: GpuContext,
    private readonly mirror: HeapMirror,
    private readonly uploader: StagingUploader,
  ) {
    const d = ctx.device;
    const rw = GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST | GPUBufferUsage.COPY_SRC;
    const max = ctx.limits.maxStorageBufferBindingSize;
    this.wg = helperWorkgroupSize(ctx);
    this.params = paramsBuffer(d, 'remset params');
    this.ctl = d.createBuffer({ size: CTL_BYTES, usage: rw, label: 'remset counts' });
    this.ranges = new GrowableBuffer(d, rw, 'remset ranges', max);
    this.seen = new GrowableBuffer(d, rw, 'remset seen bitmap', max);
    this.roots = new GrowableBuffer(d, rw, 'remset roots', max);
    this.runs = new GrowableBuffer(d, rw, 'remset runs', max);
    this.countsReadback = new Readback(d, 'remset counts read-back');
    this.listReadback = new Readback(d, 'remset lists read-back');
  }

  async compile(): Promise<void> {
    this.program ??= await buildProgram(this.ctx, {
      header: specializationHeader(['remset'], { WG: this.wg }),
      bindings: [
        uniformBinding('remset'),
        { name: 'ranges', kind: 'read-only-storage', type: 'array<u32>' },
        { name: 'seen', kind: 'storage', type: 'array<atomic<u32>>' },
        { name: 'rsCtl', kind: 'storage', type: 'array<atomic<u32>>' },
        { name: 'roots', kind: 'storage', type: 'array<u32>' },
        { name: 'runs', kind: 'storage', type: 'array<u32>' },
        ...this.mirror.bindings(false),
      ],
      body: [this.mirror.accessors(false), kernelSource('remset')],
      entryPoints: ['remset_scan'],
    });
  }

  /**
   * Scans `ranges` ((first, end) slot pairs) of the mirror, which must be up to
   * date. Returns null when the results overflow the capacities chosen from the
   * ranges' size (the caller then scans on the CPU).
   */
  async scan(ranges: Int32Array, youngStart: number, youngEnd: number): Promise<RemsetResult | null> {
    await this.compile();
    const program = this.program!;
    const device = this.ctx.device;
    const rangeCount = ranges.length >>> 1;
    if (rangeCount === 0) return { roots: new Int32Array(0), runs: new Int32Array(0) };
    // Capacities: a run per range is the common case (an array's slots are all
    // young or all old); more than two per range on average falls back.
    const runsCap = Math.max(4096, 2 * rangeCount);
    const rootsCap = Math.max(4096, Math.min(2 * rangeCount + 65536, Math.ceil((youngEnd - youngStart) / 4)));
    const seenWords = Math.ceil((youngEnd - youngStart) / 32) + 1;
    const rangesBuf = this.ranges.ensure(ranges.length * 4).buffer;
    const seen = this.seen.ensure(seenWords * 4).buffer;
    const roots = this.roots.ensure(rootsCap * 4).buffer;
    const runs = this.runs.ensure(runsCap * 8).buffer;
    await this.uploader.write(rangesBuf, 0, u32View(ranges));
    await this.uploader.flush();
    const groups = helperGroups(this.ctx, rangeCount);
    device.queue.writeBuffer(
      this.params,
      0,
      structWords(REMSET_PARAMS, { youngStart, youngEnd, rangeCount, rootsCap, runsCap, threads: groups * this.wg }),
    );
    const group = bindGroup(device, program, {
      rp: this.params,
      ranges: rangesBuf,
      seen,
      rsCtl: this.ctl,
      roots,
      runs,
      ...this.mirror.buffers(),
    });
    const enc = device.createCommandEncoder({ label: 'remembered set scan' });
    enc.clearBuffer(this.ctl);
    enc.clearBuffer(seen, 0, seenWords * 4);
    const pass = enc.beginComputePass({ label: 'remembered set scan' });
    pass.setBindGroup(0, group);
    pass.setPipeline(program.pipelines.get('remset_scan')!);
    pass.dispatchWorkgroups(groups);
    pass.end();
    const countsTarget = this.countsReadback.target(CTL_BYTES);
    enc.copyBufferToBuffer(this.ctl, 0, countsTarget, 0, CTL_BYTES);
    device.queue.submit([enc.finish()]);
    const counts = await this.countsReadback.read(CTL_BYTES);
    const nRoots = counts[REMSET.CTL_ROOTS]!;
    // Every range's own entry, then the ranges' further runs.
    const nRuns = rangeCount + counts[REMSET.CTL_RUNS]!;
    if (nRoots > rootsCap || nRuns > runsCap) return null;
    const bytes = (nRoots + 2 * nRuns) * 4;
    if (bytes === 0) return { roots: new Int32Array(0), runs: new Int32Array(0) };
    const target = this.listReadback.target(bytes);
    const enc2 = device.createCommandEncoder({ label: 'remembered set read-back' });
    if (nRoots > 0) enc2.copyBufferToBuffer(roots, 0, target, 0, nRoots * 4);
    if (nRuns > 0) enc2.copyBufferToBuffer(runs, 0, target, nRoots * 4, nRuns * 8);
    device.queue.submit([enc2.finish()]);
    const words = await this.listReadback.read(bytes);
    const all = new Int32Array(words.buffer, words.byteOffset, nRoots + 2 * nRuns);
    return { roots: all.subarray(0, nRoots), runs: all.subarray(nRoots) };
  }

  destroy(): void {
    destroyAll(this.params, this.ctl, this.ranges, this.seen, this.roots, this.runs, this.countsReadback, this.listReadback);
  }
}
