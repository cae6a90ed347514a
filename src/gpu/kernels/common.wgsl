// Shared by gpu-dfs and gpu-bfs: the per-mark parameters and the mark bitmap.
//
// Marks are bits in their own buffer (`marks`, one bit per node id), never in
// the mirrored heap or graph: Dawn refuses a buffer bound writable twice in one
// dispatch, and a read-only mirror can also be bound as vec4 for vector loads.
// Setting a bit is an atomicOr whose old value tells the caller whether it was
// first: the bitmap form of FastCollect's compare-and-exchange mark (§3.2).

// `params` is a `Params` (kernels/constants.ts PARAMS, generated ahead of this file).

// True for the one caller that set the bit. With the atomic optimization
// (FastCollect §4.4) a plain load first skips the atomic for nodes already
// marked, which is most of them on graphs with shared referents.
fn tryMark(n: u32) -> bool {
  if (ATOMIC_OPT && (atomicLoad(&marks[n >> 5u]) & (1u << (n & 31u))) != 0u) { return false; }
  return tryMarkAtomic(n);
}

// The atomic alone: for a node that is almost surely unmarked (gpu-dfs's
// pointer chase), where the plain load is one more memory round trip.
fn tryMarkAtomic(n: u32) -> bool {
  let bit = 1u << (n & 31u);
  return (atomicOr(&marks[n >> 5u], bit) & bit) == 0u;
}

// Lane k (0..3) of a quad. Indexing a vector with a runtime value can make the
// compiler keep it in local memory, several times slower; selects keep it in
// registers (docs/decisions/r19g-0008).
fn lane(v: vec4<u32>, k: u32) -> u32 {
  return select(select(v.x, v.y, k == 1u), select(v.z, v.w, k == 3u), k >= 2u);
}
