/**
 * A young mark's live list as the GPU worker keeps it: on the host (read back
 * with the mark, or built by the CPU's finish of it), or left in the engine's
 * device buffer, in address order, when the device evacuates the collection
 * itself and so needs only the list's length (docs/decisions/s62-01-live-list-stays-on-the-device.md).
 * A list left on the device is read back the first time someone asks for it:
 * the CPU's evacuation after a refusal, `--verify-gc`, forwarding headers.
 * The passes that put it in address order are submitted by `settle`, which the
 * worker calls once it has replied to the mark, so that the reply does not wait
 * for a submission; whatever reads or evacuates the list settles it first.
 */
export class LiveList {
  private data: Int32Array | null;
  private reading: Promise<Int32Array> | null = null;

  private constructor(
    readonly length: number,
    data: Int32Array | null,
    private readonly fetch: (() => Promise<Int32Array>) | null,
    private pending: (() => void) | null = null,
  ) {
    this.data = data;
  }

  /** A list already on the host. */
  static onHost(live: Int32Array): LiveList {
    return new LiveList(live.length, live, null);
  }

  /** A list of `length` entries on the device, which `fetch` reads back (valid
   *  until the engine's next young mark), once `settle` has submitted the work
   *  that finishes it there. */
  static onDevice(length: number, fetch: () => Promise<Int32Array>, settle: () => void): LiveList {
    return new LiveList(length, null, fetch, settle);
  }

  /** Submits the device's work that finishes the list, once (nothing for a list on the host). */
  settle(): void {
    const p = this.pending;
    this.pending = null;
    p?.();
  }

  /** The list, if it is on the host now; else null. */
  get host(): Int32Array | null {
    return this.data;
  }

  /** Whether this list is `live` (the list itself or its host copy). */
  is(live: Int32Array | LiveList): boolean {
    return live === this || (this.data !== null && live === this.data);
  }

  /** The list on the host, read back once if it was left on the device; rejects
   *  when the read-back fails (the device was lost: the list with it). */
  read(): Promise<Int32Array> {
    if (this.data !== null) return Promise.resolve(this.data);
    this.settle();
    this.reading ??= this.fetch!().then((live) => {
      if (live.length !== this.length) throw new Error(`the live list read back ${live.length} entries of ${this.length}`);
      return (this.data = live);
    });
    return this.reading;
  }
}
