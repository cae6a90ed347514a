/**
 * Replaying a collection's evacuation of the young objects on the heap mirror
 * (sable layout), so that the next mark need not re-send the objects that moved.
 *
 * The mirror is kept across collections and takes only what changed (mirror.ts).
 * Survivors move at every young collection, though, and re-sending them cost
 * more than the mark's kernel (docs/decisions/r19g-0006). The CPU evacuates in the order of the marker's own live
 * list, which the GPU still holds, so the moves are fully described by the new
 * addresses: this uploads `forward` (4 bytes an object, through the staging
 * ring) and runs kernels/replay.wgsl, which copies, forwards and fixes exactly
 * as gc/evacuate.ts does. Nothing waits for it: the mutator runs while the GPU
 * replays, and the next mark's work queues behind it. A full collection evacuates
 * the young objects of its bitmap, a list the GPU never held: that list travels
 * with `forward`, 8 bytes an object.
 *
 * FastCollect and Maas et al. ran on integrated GPUs that share the heap with
 * the CPU, so neither had this cost; this is our answer for a discrete GPU.
 */
import { bufferSize, destroyAll, GrowableBuffer, helperBigGroups, helperGroups, helperWorkgroupSize, paramsBuffer, u32View } from '../device/buffers.js';
import type { GpuContext } from '../device/device.js';
import type { HeapMirror, StagingUploader, UploadStats } from './mirror.js';
import type { BindingSpec, Program } from '../device/shader.js';
import { bindGroup, buildProgram, dispatchAll, kernelSource } from '../device/shader.js';
import { REPLAY, REPLAY_CTL_WORDS, REPLAY_PARAMS, specializationHeader, structWords, uniformBinding } from '../kernels/constants.js';
import { now } from '../../heap/clock.js';

export interface ReplayJob {
  /** The engine's device buffer holding the mark's live list (unused when
   *  `deviceLive` is 0). */
  readonly liveBuffer: GPUBuffer;
  /** How many leading entries of `live` that buffer holds; the rest is uploaded.
   *  0 (a full mark's list, which the engine never held): the whole list is
   *  uploaded to a buffer of the replay's own, sized for it. */
  readonly deviceLive: number;
  readonly live: Int32Array;
  /** New header address of each live object (parallel to `live`). */
  readonly forward: Int32Array;
  /** Tenured slots the CPU redirected through the forwarding headers (the
   *  remembered set), as (first slot, count) runs of consecutive slots. */
  readonly slotRuns: Int32Array;
  readonly youngStart: number;
  readonly youngEnd: number;
  /** heap/layout.ts TypeTable.sizeTable(). */
  readonly sizeTable: Uint32Array;
}

export class EvacuationReplay {
  private program: Promise<Program> | null = null;
  private readonly params: GPUBuffer;
  private readonly ctl: GPUBuffer;
  private readonly fwd: GrowableBuffer;
  private readonly live: GrowableBuffer;
  private readonly big: GrowableBuffer;
  private readonly types: GrowableBuffer;
  private readonly slotRuns: GrowableBuffer;
  private typesUploaded = -1;
  /** Workgroup size (helperWorkgroupSize). */
  private readonly wg: number;

  constructor(
    private readonly ctx: GpuContext,
    private readonly mirror: HeapMirror,
    private readonly uploader: StagingUploader,
  ) {
    const d = ctx.device;
    const rw = GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST;
    const max = ctx.limits.maxStorageBufferBindingSize;
    this.wg = helperWorkgroupSize(ctx);
    this.params = paramsBuffer(d, 'replay params');
    this.ctl = d.createBuffer({ size: bufferSize(REPLAY_CTL_WORDS * 4), usage: rw, label: 'replay ctl' });
    this.fwd = new GrowableBuffer(d, rw, 'replay forward', max);
    this.live = new GrowableBuffer(d, rw, 'replay live list', max);
    this.big = new GrowableBuffer(d, rw, 'replay big objects', max);
    this.types = new GrowableBuffer(d, rw, 'replay types', max);
    this.slotRuns = new GrowableBuffer(d, rw, 'replay slot runs', max);
  }

  /** Compiles the kernels (once); `GpuMarker.prepare` calls it at start-up. */
  compile(): Promise<Program> {
    if (!this.program) {
      const bindings: BindingSpec[] = [
        uniformBinding('replay'),
        { name: 'live', kind: 'read-only-storage', type: 'array<u32>' },
        { name: 'fwd', kind: 'read-only-storage', type: 'array<u32>' },
        { name: 'types', kind: 'read-only-storage', type: 'array<vec4<u32>>' },
        { name: 'big', kind: 'storage', type: 'array<u32>' },
        { name: 'rctl', kind: 'storage', type: 'array<atomic<u32>>' },
        { name: 'slots', kind: 'read-only-storage', type: 'array<vec2<u32>>' },
        ...this.mirror.bindings(false, true),
      ];
      this.program = buildProgram(this.ctx, {
        header: specializationHeader(['replay'], { WG: this.wg }),
        bindings,
        body: [this.mirror.accessors(false), this.mirror.storeAccessor(), kernelSource('refs-sable'), kernelSource('replay')],
        entryPoints: ['replay_copy', 'replay_copy_big', 'replay_headers', 'replay_fix', 'replay_fix_big', 'replay_slots'],
      });
    }
    return this.program;
  }

  /** Uploads the new addresses and submits the replay; returns what the upload cost. */
  async apply(job: ReplayJob): Promise<UploadStats> {
    const t0 = now();
    const { ctx } = this;
    const device = ctx.device;
    const program = await this.compile();
    const n = job.live.length;
    let bytes = 0;
    if (n === 0) return { bytes, ms: now() - t0 };

    const fwd = this.fwd.ensure(n * 4).buffer;
    // Objects above SMALL words: at most the young range's words / SMALL of them.
    const bigCap = Math.max(1, Math.min(n, Math.ceil((job.youngEnd - job.youngStart) / REPLAY.SMALL)));
    const big = this.big.ensure(bigCap * 4).buffer;
    await this.uploader.write(fwd, 0, u32View(job.forward.subarray(0, n)));
    bytes += n * 4;
    // A full mark's list is all on the host; a young mark's is on the device
    // but for the entries the CPU added when it finished the mark (fallback).
    const liveBuffer = job.deviceLive > 0 ? job.liveBuffer : this.live.ensure(n * 4).buffer;
    if (job.deviceLive < n) {
      await this.uploader.write(liveBuffer, job.deviceLive, u32View(job.live.subarray(job.deviceLive, n)));
      bytes += (n - job.deviceLive) * 4;
    }
    // The remembered set as (first slot, count) runs: CompleteGraph's 15M slots
    // lie in long arrays, so the runs are a small fraction of the slots' words.
    const runs = u32View(job.slotRuns);
    const runCount = runs.length >>> 1;
    const slotBuf = this.slotRuns.ensure(Math.max(1, runs.length) * 4).buffer;
    if (runCount > 0) {
      await this.uploader.write(slotBuf, 0, runs);
      bytes += runs.length * 4;
    }
    const typeCount = job.sizeTable.length >>> 2;
    const { buffer: types, fresh } = this.types.ensure(job.sizeTable.byteLength);
    if (fresh || this.typesUploaded !== typeCount) {
      device.queue.writeBuffer(types, 0, job.sizeTable as Uint32Array<ArrayBuffer>);
      this.typesUploaded = typeCount;
    }
    this.uploader.submit();
    device.queue.writeBuffer(
      this.params,
      0,
      structWords(REPLAY_PARAMS, { count: n, youngStart: job.youngStart, youngEnd: job.youngEnd, typeCount, bigCap, slotRuns: runCount }),
    );

    const group = bindGroup(device, program, {
      rp: this.params,
      live: liveBuffer,
      fwd,
      types,
      big,
      rctl: this.ctl,
      slots: slotBuf,
      ...this.mirror.buffers(),
    });
    const perObject = helperGroups(ctx, n);
    const perBig = helperBigGroups(ctx);
    const enc = device.createCommandEncoder({ label: 'evacuation replay' });
    enc.clearBuffer(this.ctl);
    const pass = enc.beginComputePass({ label: 'evacuation replay' });
    pass.setBindGroup(0, group);
    dispatchAll(pass, program, [
      ['replay_copy', perObject],
      ['replay_copy_big', perBig],
      ['replay_headers', perObject],
      ['replay_fix', perObject],
      ['replay_fix_big', perBig],
      ['replay_slots', helperGroups(ctx, runCount)],
    ]);
    pass.end();
    device.queue.submit([enc.finish()]);
    return { bytes, ms: now() - t0 };
  }

  destroy(): void {
    destroyAll(this.params, this.ctl, this.fwd, this.live, this.big, this.types, this.slotRuns);
  }
}
