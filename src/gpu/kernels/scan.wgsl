// Blelloch's work-efficient exclusive scan over one workgroup, shared by
// gpu-bfs's prefix-sum offsets (Maas et al. §5.1's first strategy) and
// order.wgsl's block offsets. WG is a power of two (engines/engine.ts and engines/order.ts
// choose it so); call in uniform control flow.
//
// Constants from the host: WG.

var<workgroup> scan: array<u32, WG>;

// Returns (the sum of v over the threads before this one, the workgroup's total).
fn workgroupScan(v: u32, lid: u32) -> vec2<u32> {
  scan[lid] = v;
  for (var d = 1u; d < WG; d <<= 1u) {
    workgroupBarrier();
    let i = (lid + 1u) * (d << 1u) - 1u;
    if (i < WG) { scan[i] += scan[i - d]; }
  }
  workgroupBarrier();
  let total = scan[WG - 1u];
  workgroupBarrier();
  if (lid == 0u) { scan[WG - 1u] = 0u; }
  for (var d = WG >> 1u; d > 0u; d >>= 1u) {
    workgroupBarrier();
    let i = (lid + 1u) * (d << 1u) - 1u;
    if (i < WG) {
      let t = scan[i - d];
      scan[i - d] = scan[i];
      scan[i] += t;
    }
  }
  workgroupBarrier();
  return vec2<u32>(scan[lid], total);
}
