/**
 * GPU faults: a lost device, an allocation the device refused (an
 * 'out-of-memory' error scope) and a read-back it would not map. In the GPU
 * worker each becomes a `GpuFault` at the point where it surfaces, and the
 * main thread turns it into gc/'s `MarkerFaultError`, after which the run goes
 * on with the CPU collector (collectors/gpu-fallback.ts,
 * docs/decisions/s28f-01-gpu-faults-fall-back-to-the-cpu.md).
 *
 * `MINIVM_GPU_FAULT` injects one, for tests, in the worker where a real fault
 * would surface, so that both take the same path. N counts the worker's
 * requests while the program runs (everything but opening the device,
 * creating and preparing a marker and disposing of it), from 1:
 *   lose-device@N        the device is destroyed as request N starts;
 *   lose-device-after@N  the device is destroyed after request N replied, while
 *                        the program runs (the next request finds it lost);
 *   alloc-fail@N         request N's 'out-of-memory' error scope reports an
 *                        error, as when a buffer's creation fails;
 *   map-fail@N           request N's first read-back mapping is refused.
 * Several are separated by commas. This file is read by both threads and loads no Dawn.
 */
/** A device fault the worker reports (protocol.ts carries its kind to the main thread). */
export type GpuFaultKind = 'device-lost' | 'out-of-memory' | 'map-failed';

/** What this file reads of a request (protocol.ts's HostRequest; named apart so that
 *  this file, which device/ imports, does not import the protocol). */
interface Request {
  readonly op: string;
}

/** A fault of the device (not a bug of ours): the main thread falls back to the CPU. */
export class GpuFault extends Error {
  constructor(readonly fault: GpuFaultKind, message: string) {
    super(message);
    this.name = 'GpuFault';
  }
}

type InjectionKind = 'lose-device' | 'lose-device-after' | 'alloc-fail' | 'map-fail';
const INJECTIONS: readonly InjectionKind[] = ['lose-device', 'lose-device-after', 'alloc-fail', 'map-fail'];

export interface Injection {
  readonly kind: InjectionKind;
  readonly request: number;
}

/** Parses `MINIVM_GPU_FAULT`'s value; throws a one-line message when it is malformed. */
export function parseGpuFaults(spec: string | undefined): Injection[] {
  if (spec === undefined || spec.trim() === '') return [];
  return spec.split(',').map((part) => {
    const m = /^([a-z-]+)@([1-9][0-9]*)$/.exec(part.trim());
    const kind = m?.[1] as InjectionKind | undefined;
    if (!m || !INJECTIONS.includes(kind!)) {
      throw new Error(`MINIVM_GPU_FAULT: '${part.trim()}' is not KIND@N with KIND one of ${INJECTIONS.join(', ')} and N a request number from 1`);
    }
    return { kind: kind!, request: Number(m[2]) };
  });
}

/** Requests made before the program runs, to release a marker or for a live list's copy: not counted. */
function counted(req: Request): boolean {
  return req.op !== 'adapter' && req.op !== 'create' && req.op !== 'open' && req.op !== 'prepare' && req.op !== 'dispose' && req.op !== 'streamLive';
}

/**
 * The worker's view of its device's health, one per worker. Each counted
 * request runs between `begin` and `end` inside an 'out-of-memory' error scope;
 * `commit` is the last point where a request may still fail (a device
 * evacuation calls it before it writes the heap), and after it the request's
 * result stands whatever the device does next.
 */
export class DeviceFaults {
  /** Why the device is gone, once it is. */
  lost: string | null = null;
  private readonly injections: Injection[];
  private requests = 0;
  private device: GPUDevice | null = null;
  private scoped = false;
  private committed = false;
  /** Injected into the request running now. */
  private allocFail = false;
  private mapFail = false;
  private loseAfter = false;

  constructor(spec: string | undefined) {
    this.injections = parseGpuFaults(spec);
  }

  /** Hears a device's loss (device/device.ts hands it every device it opens). */
  watch(device: GPUDevice): void {
    void device.lost.then((info) => {
      // 'destroyed' is our own shutdown, or an injected loss, noted already.
      if (info.reason !== 'destroyed') this.lost ??= info.message || 'the device was lost';
    });
  }

  /** Starts request `req` on `device`: injects what it should, and fails at once when the device is gone. */
  begin(req: Request, device: GPUDevice | null): void {
    this.committed = false;
    this.allocFail = this.mapFail = this.loseAfter = false;
    this.scoped = false;
    if (!counted(req)) return;
    const n = ++this.requests;
    const wasLost = this.lost !== null;
    for (const inj of this.injections) {
      if (inj.request !== n) continue;
      // Destroyed, the device fails this request where a real loss would surface.
      if (inj.kind === 'lose-device' && device !== null && this.lost === null) {
        this.lost = `injected (MINIVM_GPU_FAULT=lose-device@${n})`;
        device.destroy();
      }
      if (inj.kind === 'lose-device-after') this.loseAfter = true;
      if (inj.kind === 'alloc-fail') this.allocFail = true;
      if (inj.kind === 'map-fail') this.mapFail = true;
    }
    if (wasLost) throw new GpuFault('device-lost', `the GPU device was lost: ${this.lost}`);
    this.device = device;
    if (device !== null && this.lost === null) {
      device.pushErrorScope('out-of-memory');
      this.scoped = true;
    }
  }

  /** Fails the request if the device is gone or refused an allocation so far;
   *  after it, the request's result stands. */
  async commit(): Promise<void> {
    if (this.committed) return;
    await this.check();
    this.committed = true;
  }

  private async check(): Promise<void> {
    let oom: GPUError | null = null;
    if (this.scoped) {
      this.scoped = false;
      oom = await this.device!.popErrorScope();
    }
    if (this.lost !== null) throw new GpuFault('device-lost', `the GPU device was lost: ${this.lost}`);
    if (oom !== null) throw new GpuFault('out-of-memory', `the GPU is out of memory: ${oom.message}`);
    if (this.allocFail) {
      this.allocFail = false;
      throw new GpuFault('out-of-memory', `the GPU is out of memory: injected (MINIVM_GPU_FAULT=alloc-fail@${this.requests})`);
    }
  }

  /**
   * Ends the request: what it threw (or null), as the error to reply with. A
   * request that committed keeps its result; any other fails if the device
   * was lost or out of memory meanwhile, and an error after a loss is the loss.
   */
  async end(error: unknown): Promise<unknown> {
    try {
      if (this.committed) return error;
      if (error !== null && !(error instanceof GpuFault) && this.lost === null && this.device !== null) {
        // An error of a request whose device just went: Dawn may resolve `lost` a moment after.
        const info = await Promise.race([this.device.lost, new Promise<null>((r) => setTimeout(() => r(null), LOST_GRACE_MS))]);
        if (info !== null && info.reason !== 'destroyed') this.lost = info.message || 'the device was lost';
      }
      try {
        await this.check();
      } catch (fault) {
        return fault;
      }
      return error;
    } finally {
      this.committed = false;
    }
  }

  /** After the request's reply and the work it left for after it (a live list's
   *  copy): the program runs now, and `lose-device-after@N` strikes. */
  idle(): void {
    if (this.loseAfter && this.lost === null && this.device !== null) {
      this.lost = `injected (MINIVM_GPU_FAULT=lose-device-after@${this.requests})`;
      this.device.destroy();
    }
    this.loseAfter = false;
  }

  /** The request number when this mapping is to be refused (`map-fail@N`: the request's first), else 0. */
  refuseMap(): number {
    const r = this.mapFail ? this.requests : 0;
    this.mapFail = false;
    return r;
  }
}

/** How long a failed request waits to hear whether its device was lost. */
const LOST_GRACE_MS = 100;

/** The worker's one instance (the main thread only parses). */
let faults: DeviceFaults | null = null;

export function deviceFaults(): DeviceFaults {
  faults ??= new DeviceFaults(process.env['MINIVM_GPU_FAULT']);
  return faults;
}

/**
 * `buffer.mapAsync` as every read-back calls it: a refused mapping (a lost
 * device, or `map-fail@N`) is a `GpuFault`, not an error of ours.
 */
export async function mapForRead(buffer: GPUBuffer, offset: number, size: number): Promise<void> {
  const f = deviceFaults();
  const refused = f.refuseMap();
  if (refused > 0) throw new GpuFault('map-failed', `the GPU refused to map a read-back: injected (MINIVM_GPU_FAULT=map-fail@${refused})`);
  try {
    await buffer.mapAsync(GPUMapMode.READ, offset, size);
  } catch (e) {
    const why = e instanceof Error ? e.message : String(e);
    if (f.lost !== null) throw new GpuFault('device-lost', `the GPU device was lost: ${f.lost}`);
    throw new GpuFault('map-failed', `the GPU refused to map a read-back: ${why}`);
  }
}
