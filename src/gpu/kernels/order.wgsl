// The live list of a young mark in address order (sable layout, `--gpu-opt
// order=address`).
//
// FastCollect's storage stack (Algorithm 4) appends each thread's batch of
// marked young objects with one atomicAdd: the list comes out in the order the
// threads finished their batches, each batch newest first, and the CPU copies
// the survivors in that order. This option hands over the same set in address
// order instead, read off the mark bitmap (a young mark's bits are exactly its
// live objects), so that survivors keep their allocation order. It is the
// default for both engines: a survivor-space overflow then promotes whole lists,
// as serial's order does, and later young marks take longer (long young
// chains), but the CPU copies faster and the young pauses come out lower
// (docs/decisions/r19g-0001).
//
// order_count sums each block's bits, order_scan turns the sums into offsets,
// order_emit writes each block's addresses from its offset. Blocks are WG
// threads x 4 bitmap words; blocks are visited grid-stride. The scans are
// scan.wgsl's.
//
// Constants from the host: WG.

// `op` (OrderParams) and PER come from kernels/constants.ts, generated ahead of this file.

fn threadWords(b: u32, lid: u32) -> u32 { return b * (WG * PER) + lid * PER; }

fn inRangeBits(w: u32) -> u32 {
  let word = op.firstWord + w;
  let base = word * 32u;
  var bits = marks[word];
  // Mask the bits of addresses outside [lo, hi) (the range's first and last words).
  if (base < op.lo) {
    let d = op.lo - base;
    bits = select(0u, bits & (0xffffffffu << (d & 31u)), d < 32u);
  }
  if (base + 32u > op.hi) {
    let d = select(0u, op.hi - base, op.hi > base);
    bits = bits & ((1u << (d & 31u)) - 1u);
  }
  return bits;
}

fn threadCount(b: u32, lid: u32) -> u32 {
  var c = 0u;
  let w0 = threadWords(b, lid);
  for (var k = 0u; k < PER; k += 1u) {
    if (w0 + k < op.words) { c += countOneBits(inRangeBits(w0 + k)); }
  }
  return c;
}

@compute @workgroup_size(WG)
fn order_count(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wgid: vec3<u32>,
               @builtin(num_workgroups) nwg: vec3<u32>) {
  for (var b = wgid.x; b < op.blocks; b += nwg.x) {
    let s = workgroupScan(threadCount(b, lid), lid);
    if (lid == 0u) { sums[b] = s.y; }
  }
}

// One workgroup: sums[b] becomes the number of live objects in blocks before b.
@compute @workgroup_size(WG)
fn order_scan(@builtin(local_invocation_index) lid: u32) {
  var carry = 0u;
  for (var c = 0u; c < op.blocks; c += WG) {
    let i = c + lid;
    var v = 0u;
    if (i < op.blocks) { v = sums[i]; }
    let s = workgroupScan(v, lid);
    if (i < op.blocks) { sums[i] = carry + s.x; }
    carry += s.y;
  }
}

@compute @workgroup_size(WG)
fn order_emit(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wgid: vec3<u32>,
              @builtin(num_workgroups) nwg: vec3<u32>) {
  for (var b = wgid.x; b < op.blocks; b += nwg.x) {
    let s = workgroupScan(threadCount(b, lid), lid);
    var at = sums[b] + s.x;
    let w0 = threadWords(b, lid);
    for (var k = 0u; k < PER; k += 1u) {
      if (w0 + k >= op.words) { break; }
      var bits = inRangeBits(w0 + k);
      let base = (op.firstWord + w0 + k) * 32u;
      while (bits != 0u) {
        let bit = firstTrailingBit(bits);
        live[at] = base + bit;
        at += 1u;
        bits &= bits - 1u;
      }
    }
  }
}
