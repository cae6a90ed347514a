// A young collection's evacuation decided on the GPU (either layout): where
// each live object goes. Assembled with replay.wgsl (objectSpan, the copy,
// header and fix kernels, which then run with the addresses written here) and
// scan.wgsl (workgroupScan), and refs-sable.wgsl or refs-refgraph.wgsl.
//
// To-space is allocated by prefix sums over the live list in its order (the
// address order by default), so the copy is deterministic: an object under
// the tenure age goes to to-survivor at the sum of the eligible sizes before
// it, while that sum plus its size fits; every later eligible object
// overflows (the survivors are a prefix of the eligible objects). Overflow and
// objects at the tenure age take a second prefix sum into one promotion
// buffer the CPU carves from the free list once it knows the total
// (gc/device-evacuation.ts).
//
// vals holds, for n live objects with nb blocks of BLOCK entries:
//   [0, n)            eligible sizes, then their exclusive in-block prefix
//   [n, 2n)           promoted sizes, then their exclusive in-block prefix
//   [2n, 2n+nb)       block totals of the first, then their exclusive prefix
//   [2n+nb, 2n+2nb)   the same for the second
// rctl (replay.wgsl's control words, BIG_COUNT first) holds the survivors'
// end and the promoted total after it, then the promoted copies' card bits.
//
// Constants from the host: WG.

// `ep` (EvacParams) and the slots and sizes come from kernels/constants.ts
// EVACUATE, generated ahead of this file.

const BLOCK: u32 = WG * PER;

fn ageOf(a: u32) -> u32 { return (heapWord(a) >> AGE_AT) & AGE_BITS; }

@compute @workgroup_size(WG)
fn evac_sizes(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let stride = nwg.x * WG;
  for (var i = gid.x; i < ep.count; i += stride) {
    let a = live[i];
    vals[i] = select(0u, objectSpan(a).y, ageOf(a) < ep.tenureAge);
  }
}

// Exclusive prefix of entries [off, off + count), count <= BLOCK, by the whole
// workgroup, each thread summing PER entries in a row; returns their total.
fn scanBlock(off: u32, count: u32, lid: u32) -> u32 {
  let s = lid * PER;
  var sum = 0u;
  for (var k = 0u; k < PER; k++) {
    if (s + k < count) { sum += vals[off + s + k]; }
  }
  let r = workgroupScan(sum, lid);
  var run = r.x;
  for (var k = 0u; k < PER; k++) {
    if (s + k < count) {
      let v = vals[off + s + k];
      vals[off + s + k] = run;
      run += v;
    }
  }
  return r.y;
}

// Exclusive prefix of entries [off, off + count) within blocks of BLOCK, each
// block's total at vals[soff + block].
fn scanBlocks(off: u32, count: u32, soff: u32, wid: u32, lid: u32, nwg: u32, blocks: u32) {
  for (var b = wid; b < blocks; b += nwg) {
    let total = scanBlock(off + b * BLOCK, count - b * BLOCK, lid);
    if (lid == 0u) { vals[soff + b] = total; }
  }
}

@compute @workgroup_size(WG)
fn evac_scan_a(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32,
               @builtin(num_workgroups) nwg: vec3<u32>) {
  scanBlocks(0u, ep.count, 2u * ep.count, wid.x, lid, nwg.x, ep.blocks);
}

@compute @workgroup_size(WG)
fn evac_scan_b(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32,
               @builtin(num_workgroups) nwg: vec3<u32>) {
  scanBlocks(ep.count, ep.count, 2u * ep.count + ep.blocks, wid.x, lid, nwg.x, ep.blocks);
}

// The block totals' own prefix, by one workgroup (the host keeps nb <= BLOCK).
// The grand total goes to rctl[totalAt] (0: not kept).
fn scanTop(soff: u32, lid: u32, totalAt: u32) {
  let total = scanBlock(soff, ep.blocks, lid);
  if (lid == 0u && totalAt != 0u) { atomicStore(&rctl[totalAt], total); }
}

@compute @workgroup_size(WG)
fn evac_top_a(@builtin(local_invocation_index) lid: u32) {
  scanTop(2u * ep.count, lid, 0u);
}

@compute @workgroup_size(WG)
fn evac_top_b(@builtin(local_invocation_index) lid: u32) {
  scanTop(2u * ep.count + ep.blocks, lid, PROMOTED);
}

// Survivors get their to-space address; the rest (at the tenure age, or past
// the eligible prefix that fits) their size in the second section, fwd 0.
@compute @workgroup_size(WG)
fn evac_split(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let stride = nwg.x * WG;
  let n = ep.count;
  for (var i = gid.x; i < n; i += stride) {
    let a = live[i];
    let span = objectSpan(a);
    let p = vals[i] + vals[2u * n + i / BLOCK];
    if (ageOf(a) < ep.tenureAge && p + span.y <= ep.toCap) {
      fwd[i] = ep.toStart + p + (a - span.x);
      vals[n + i] = 0u;
      atomicMax(&rctl[SURV_END], p + span.y);
    } else {
      fwd[i] = 0u;
      vals[n + i] = span.y;
    }
  }
}

// Promoted objects: their address in the promotion buffer.
@compute @workgroup_size(WG)
fn evac_place(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let stride = nwg.x * WG;
  let n = ep.count;
  for (var i = gid.x; i < n; i += stride) {
    if (fwd[i] != 0u) { continue; }
    let a = live[i];
    let span = objectSpan(a);
    fwd[i] = ep.base + vals[n + i] + vals[2u * n + ep.blocks + i / BLOCK] + (a - span.x);
  }
}

// A tenured slot k (already fixed) that names a young object dirties its card,
// as gc/evacuate.ts's copy does; the bits cover cards [cardFirst, cardFirst +
// 32 * cardWords). Returns its card (from tenuredStart), or NO_CARD.
fn markSlot(k: u32) -> u32 {
  let v = heapWord(k);
  if (v < ep.youngStart || v >= ep.youngEnd) { return NO_CARD; }
  let card = (k - ep.tenuredStart) >> CARD_SHIFT;
  let c = card - ep.cardFirst;
  if ((c >> 5u) < ep.cardWords) { atomicOr(&rctl[CARD_BITS + (c >> 5u)], 1u << (c & 31u)); }
  return card;
}

// Slots [s, e): a lone thread skips a dirty card's other slots (one atomic per
// card, not per slot, where a large array's slots all name young objects).
fn markCards(s: u32, e: u32, k0: u32, stride: u32) {
  for (var k = s + k0; k < e; k += stride) {
    if (markSlot(k) != NO_CARD && stride == 1u) { k = ep.tenuredStart + ((k - ep.tenuredStart) | ((1u << CARD_SHIFT) - 1u)); }
  }
}

// The references of the promoted copy at na (refs-*.wgsl), one atomic per card a thread meets in a row.
fn markObjectCards(na: u32, k0: u32, stride: u32) {
  let n = refCountOf(na);
  var last = NO_CARD;
  for (var j = k0; j < n; j += stride) {
    let k = refSlotOf(na, j);
    if (last == NO_CARD || ((k - ep.tenuredStart) >> CARD_SHIFT) != last) { last = markSlot(k); }
  }
}

@compute @workgroup_size(WG)
fn evac_cards(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let stride = nwg.x * WG;
  for (var i = gid.x; i < ep.count; i += stride) {
    let na = fwd[i];
    if (na < ep.tenuredStart || objectSpan(na).y > ONE_THREAD_WORDS) { continue; }
    markObjectCards(na, 0u, 1u);
  }
}

// The remembered slots (replay_slots fixed them) that still name young objects
// dirty their cards again, as gc/device-evacuation.ts's CPU fix does.
@compute @workgroup_size(WG)
fn evac_slot_cards(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let stride = nwg.x * WG;
  for (var r = gid.x; r < ep.slotRuns; r += stride) {
    let run = slots[r];
    markCards(run.x, run.x + run.y, 0u, 1u);
  }
}

// The fixed remembered slots gathered in run order, run r's at gather[slotRuns
// + gather[r]], so that they come back in one read-back copy. A workgroup a run.
@compute @workgroup_size(WG)
fn evac_gather_slots(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32,
                     @builtin(num_workgroups) nwg: vec3<u32>) {
  for (var r = wid.x; r < ep.slotRuns; r += nwg.x) {
    let run = slots[r];
    let out = ep.slotRuns + gather[r];
    for (var j = lid; j < run.y; j += WG) { gather[out + j] = heapWord(run.x + j); }
  }
}

// The new addresses the CPU needs (the roots' referents), gathered in place of
// their live-list positions at gather[pickAt], so that the read-back carries
// them and not one address per live object. With pickSearch the host sent the
// referents' addresses, since the list never left the device: each is found by
// binary search in the list, which is in address order then; one the list
// lacks gets 0 (no object lives at the null address), which the host refuses.
@compute @workgroup_size(WG)
fn evac_gather_picks(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let stride = nwg.x * WG;
  for (var k = gid.x; k < ep.picks; k += stride) {
    let v = gather[ep.pickAt + k];
    if (ep.pickSearch == 0u) {
      gather[ep.pickAt + k] = fwd[v];
      continue;
    }
    var lo = 0u;
    var hi = ep.count;
    while (lo < hi) {
      let mid = (lo + hi) / 2u;
      if (live[mid] < v) { lo = mid + 1u; } else { hi = mid; }
    }
    gather[ep.pickAt + k] = select(0u, fwd[lo], lo < ep.count && live[lo] == v);
  }
}

@compute @workgroup_size(WG)
fn evac_cards_big(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32,
                  @builtin(num_workgroups) nwg: vec3<u32>) {
  let n = min(atomicLoad(&rctl[BIG_SLOT]), ep.bigCap);
  for (var b = wid.x; b < n; b += nwg.x) {
    let na = fwd[big[b]];
    if (na < ep.tenuredStart) { continue; }
    markObjectCards(na, lid, WG);
  }
}
