// The remembered set of a young collection, scanned on the GPU (sable layout).
//
// The issue's "or a kernel scans the card table": the CPU still finds the
// objects overlapping each dirty card (a walk of a few objects per card, with
// the block offset table), and hands over each object's reference slots inside
// the card as one range; this kernel reads the slots from the heap mirror,
// since the CPU's loop over a large remembered set dominated the young pause
// (docs/decisions/r19g-0009).
//
// Per range (one thread each, grid-stride): every young referent is reported
// once (`roots`, deduplicated with the `seen` bitmap over the young range), and
// every run of consecutive slots holding young references once (`runs`, pairs
// of first slot and count), which the CPU redirects after evacuation and the
// replay redirects on the mirror. A range's first run goes to the range's own
// entry (count 0 when it has none), so that the runs come in the ranges'
// address order, which lets a device evacuation write them back as a few long
// copies; a range's later runs go after all ranges' entries, in any order.
// Counts past the capacities are still counted (ctl): the host then scans on
// the CPU instead.
//
// Constants from the host: WG.

// `rp` (RemsetParams) and the slots CTL_ROOTS, CTL_RUNS of `rsCtl` come from
// kernels/constants.ts, generated ahead of this file.

/// Writes range `r`'s run (first, count): at entry r if it is the range's first
/// (`own`), else after the ranges' entries.
fn emitRun(r: u32, own: bool, first: u32, count: u32) {
  var k = r;
  if (!own) {
    k = rp.rangeCount + atomicAdd(&rsCtl[CTL_RUNS], 1u);
  }
  if (k < rp.runsCap) {
    runs[2u * k] = first;
    runs[2u * k + 1u] = count;
  }
}

fn noteReferent(v: u32) {
  let o = v - rp.youngStart;
  let w = o >> 5u;
  let bit = 1u << (o & 31u);
  if ((atomicLoad(&seen[w]) & bit) != 0u) { return; }
  if ((atomicOr(&seen[w], bit) & bit) != 0u) { return; }
  let k = atomicAdd(&rsCtl[CTL_ROOTS], 1u);
  if (k < rp.rootsCap) { roots[k] = v; }
}

@compute @workgroup_size(WG)
fn remset_scan(@builtin(global_invocation_id) gid: vec3<u32>) {
  for (var r = gid.x; r < rp.rangeCount; r += rp.threads) {
    let lo = ranges[2u * r];
    let hi = ranges[2u * r + 1u];
    var first = 0u;
    var count = 0u;
    var own = true;
    for (var s = lo; s < hi; s += 1u) {
      let v = heapWord(s);
      if (v >= rp.youngStart && v < rp.youngEnd) {
        if (count == 0u) { first = s; }
        count += 1u;
        noteReferent(v);
      } else if (count > 0u) {
        emitRun(r, own, first, count);
        own = false;
        count = 0u;
      }
    }
    if (count > 0u) {
      emitRun(r, own, first, count);
      own = false;
    }
    // A range without young slots: its entry is an empty run.
    if (own) { emitRun(r, true, lo, 0u); }
  }
}
