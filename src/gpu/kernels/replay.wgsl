// Replaying a young collection's evacuation on the heap mirror (sable layout),
// whose fix kernels the device's own evacuation (evacuate.wgsl) runs too, in
// either layout: refs-sable.wgsl or refs-refgraph.wgsl says where a copy's
// references are.
//
// The CPU evacuates the live young objects in the order of the marker's live
// list (gc/evacuate.ts): it copies object i from live[i] to fwd[i], leaves a
// forwarding header behind (status | FORWARDED, new address at a+1), gives the
// copy a fresh header with its age plus one, and redirects the copy's young
// references through the forwarding headers. Re-sending the moved objects to
// the GPU at the next collection cost more than the mark's kernel
// (docs/decisions/r19g-0006); doing the same moves here costs one
// upload of `fwd` (4 bytes an object) and a few dispatches, and leaves the
// mirror word-for-word equal to the heap in every header and reference word.
//
// Four steps, one dispatch each (a dispatch boundary orders them):
//   replay_copy      small objects, one thread each; larger ones are listed
//   replay_copy_big  listed objects, one workgroup each
//   replay_headers   forwarding header at the old address, fresh header at the new
//   replay_fix       young references inside each copy, through the forwarding
//                    headers (small objects one thread each, listed ones a
//                    workgroup each, in replay_fix_big)
//   replay_slots     the remembered set's tenured slots, as the plan fixed them
//                    (after replay_headers: it reads the forwarding headers)
// Sources (eden, from-space) and destinations (to-space, free tenured chunks)
// never overlap, so copies run in any order.

// `rp` (ReplayParams), BIG_COUNT, SMALL and the header bits come from
// kernels/constants.ts REPLAY, generated ahead of this file.

// [start, size) of the object whose header is at a, from its type's size rule
// (heap/layout.ts TypeTable.sizeTable: left, fixed, per element).
fn objectSpan(a: u32) -> vec2<u32> {
  let t = min(heapWord(a + 1u), rp.typeCount - 1u);
  let rule = types[t];
  return vec2<u32>(a - rule.x, rule.x + rule.y + rule.z * heapWord(a + 3u));
}

fn copyWords(src: u32, dst: u32, k0: u32, n: u32, stride: u32) {
  for (var k = k0; k < n; k += stride) { heapStore(dst + k, heapWord(src + k)); }
}

@compute @workgroup_size(WG)
fn replay_copy(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let stride = nwg.x * WG;
  for (var i = gid.x; i < rp.count; i += stride) {
    let a = live[i];
    let span = objectSpan(a);
    if (span.y <= SMALL) {
      copyWords(span.x, fwd[i] - (a - span.x), 0u, span.y, 1u);
    } else {
      let b = atomicAdd(&rctl[BIG_COUNT], 1u);
      if (b < rp.bigCap) { big[b] = i; }
    }
  }
}

@compute @workgroup_size(WG)
fn replay_copy_big(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32,
                   @builtin(num_workgroups) nwg: vec3<u32>) {
  let n = min(atomicLoad(&rctl[BIG_COUNT]), rp.bigCap);
  for (var b = wid.x; b < n; b += nwg.x) {
    let i = big[b];
    let a = live[i];
    let span = objectSpan(a);
    copyWords(span.x, fwd[i] - (a - span.x), lid, span.y, WG);
  }
}

@compute @workgroup_size(WG)
fn replay_headers(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let stride = nwg.x * WG;
  for (var i = gid.x; i < rp.count; i += stride) {
    let a = live[i];
    let na = fwd[i];
    let status = heapWord(a);
    let age = min(((status >> AGE_SHIFT) & AGE_MASK) + 1u, AGE_MASK);
    heapStore(na, HEADER_TAG | (age << AGE_SHIFT));
    heapStore(a, status | STATUS_FORWARDED);
    heapStore(a + 1u, na);
  }
}

// A reference slot k: a young referent is replaced by its forwarding header's target.
fn fixSlot(k: u32) {
  let v = heapWord(k);
  if (v >= rp.youngStart && v < rp.youngEnd) { heapStore(k, heapWord(v + 1u)); }
}

// Slots [s, e) (the remembered set's runs).
fn fixRefs(s: u32, e: u32, k0: u32, stride: u32) {
  for (var k = s + k0; k < e; k += stride) { fixSlot(k); }
}

// The references of the copy at na, wherever the layout keeps them (refs-*.wgsl).
fn fixObject(na: u32, k0: u32, stride: u32) {
  let n = refCountOf(na);
  for (var j = k0; j < n; j += stride) { fixSlot(refSlotOf(na, j)); }
}

@compute @workgroup_size(WG)
fn replay_fix(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let stride = nwg.x * WG;
  for (var i = gid.x; i < rp.count; i += stride) {
    let na = fwd[i];
    // The copy's size decides, as in replay_copy: listed objects are fixed by replay_fix_big.
    if (objectSpan(na).y > SMALL) { continue; }
    fixObject(na, 0u, 1u);
  }
}

@compute @workgroup_size(WG)
fn replay_fix_big(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32,
                  @builtin(num_workgroups) nwg: vec3<u32>) {
  let n = min(atomicLoad(&rctl[BIG_COUNT]), rp.bigCap);
  for (var b = wid.x; b < n; b += nwg.x) {
    let na = fwd[big[b]];
    fixObject(na, lid, WG);
  }
}

@compute @workgroup_size(WG)
fn replay_slots(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let stride = nwg.x * WG;
  for (var r = gid.x; r < rp.slotRuns; r += stride) {
    let run = slots[r];
    fixRefs(run.x, run.x + run.y, 0u, 1u);
  }
}
